@plurnk
Feature: Tier 3a — the membership forest, declared repos and the git switches
  Membership is the union of `git ls-files` over the session's repos: the
  implicit one at the project root (unless switched off) and each folder a
  repo constraint declares, every path prefixed by the repo's place under
  the root, gitlinks left out. The root need not be a repository. A
  declared repo's untracked files that git does not ignore are members too.
  These scenarios create real repositories with the git binary in temporary
  directories.

  Background:
    Given a project holding the git repositories:
      | repo    | path        | content          | tracked |
      | svc/api | main.go     | package main\n   | yes     |
      | svc/api | draft.go    | package main\n   | no      |
      | svc/api | .gitignore  | *.log\n          | yes     |
      | svc/api | debug.log   | noise\n          | no      |
      | svc/api | vendor/sub  |                  | gitlink |
      | lib     | lib.go      | package lib\n    | yes     |
      | lib     | lib_test.go | package lib\n    | no      |

  @§membership-forest
  Scenario: with the root no repository and nothing declared, there are no members
    Then the session has no members

  @§membership-forest @§membership-overlay-repo
  Scenario: the declared repos' tracked files are members, prefixed by their place, gitlinks left out
    Given the session's overlay declares the repo "svc/api"
    And the session's overlay declares the repo "lib"
    Then the members are:
      | path               | effect |
      | lib/lib.go         | member |
      | lib/lib_test.go    | member |
      | svc/api/.gitignore | member |
      | svc/api/draft.go   | member |
      | svc/api/main.go    | member |

  @§membership-overlay-repo
  Scenario: a declared repo's members can be edited through the file scheme; an undeclared repo's cannot
    Given the session's overlay declares the repo "lib"
    When the model emits <<EDIT(lib/lib.go):package lib // v2\n:EDIT
    Then the action answers 200
    And the project file lib/lib.go holds "package lib // v2\n"
    When the model emits <<EDIT(svc/api/main.go):package x\n:EDIT
    Then the action answers 403
    And the project file svc/api/main.go holds "package main\n"

  @§membership-auto-add
  Scenario: untracked, non-ignored files of a declared repo are members without git add; deleting one drops it
    Given the session's overlay declares the repo "svc/api"
    Then the members are:
      | path               | effect |
      | svc/api/.gitignore | member |
      | svc/api/draft.go   | member |
      | svc/api/main.go    | member |
    When the model emits <<KILL(svc/api/draft.go)::KILL
    Then the action answers 200
    And the members are:
      | path               | effect |
      | svc/api/.gitignore | member |
      | svc/api/main.go    | member |

  @§membership-git-membership @§membership-forest
  Scenario: the packet's git section names each repository of the forest with the files it tracks; the root is none
    Given the session's overlay declares the repo "svc/api"
    And the session's overlay declares the repo "lib"
    And the model's context window is 100000 tokens
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then the git section of packet 1 reads: per Decision (§membership-git-membership)
      """
      * svc/api: 2 files tracked
      * lib: 1 files tracked
      """
