@plurnk
Feature: Tier 3a — membership as part of the system
  The file scheme consults the session's membership before it touches a
  file: an existing non-member, or a view member, is refused 403 before any
  read; a member changed on disk since plurnk last synced it is a write
  conflict. Each turn a sync pass re-reads only the members whose stat
  moved and records outside changes for the plurnk run. These scenarios
  create real repositories with the git binary in temporary directories.

  Background:
    Given a git repository holding:
      | path        | content         | tracked |
      | main.go     | package main\n  | yes     |
      | util.go     | package util\n  | yes     |
      | logo.png    | not really png  | yes     |
      | notes.md    | scratch\n       | no      |
      | secret.png  | binary          | no      |

  @§membership-edit-membership-gate
  Scenario: an EDIT of an existing non-member is refused 403 and the file is untouched
    When the model emits <<EDIT(notes.md):overwritten:EDIT
    Then the action answers 403
    And the project file notes.md holds "scratch\n"

  @§membership-edit-membership-gate
  Scenario: the refusal comes before any read of the file: a binary non-member answers 403, not 415
    When the model emits <<EDIT(secret.png):x:EDIT
    Then the action answers 403
    When the model emits <<EDIT(logo.png):x:EDIT
    Then the action answers 415

  @§membership-edit-membership-gate
  Scenario: a member may be edited; a brand-new path may be created and is then a member
    When the model emits <<EDIT(main.go):package app\n:EDIT
    Then the action answers 200
    And the project file main.go holds "package app\n"
    When the model emits <<EDIT(cmd/new.go):package cmd\n:EDIT
    Then the action answers 201
    And the members are:
      | path       | effect |
      | cmd/new.go | member |
      | logo.png   | member |
      | main.go    | member |
      | util.go    | member |
    When the model emits <<EDIT(cmd/new.go):package cmd // v2\n:EDIT
    Then the action answers 200

  @§membership-edit-membership-gate
  Scenario: a <L> edit of a member splices its materialized content, never an empty baseline
    When the model emits <<EDIT(main.go)<-1>:func main() {}:EDIT
    Then the action answers 200
    And the project file main.go holds "package main\nfunc main() {}\n"

  @§membership-overlay-view
  Scenario: a view member may be copied out, but a MOVE of it is refused 403 and the file stays
    Given the session's overlay views "*.go"
    When the model emits <<COPY(util.go):known:///util.go:COPY
    Then the action answers 201
    And the body channel of known:///util.go holds "package util\n"
    When the model emits <<MOVE(util.go):known:///moved.go:MOVE
    Then the action answers 403
    And the project file util.go holds "package util\n"
    And the entry known:///moved.go does not exist

  @§membership-overlay-view
  Scenario: a view member stays readable but its EDIT answers 403
    Given the session's overlay views "*.go"
    When the model emits <<READ(util.go)::READ
    Then the action answers 200
    And the result content is "1:\tpackage util\n"
    When the model emits <<EDIT(util.go):package x\n:EDIT
    Then the action answers 403
    And the project file util.go holds "package util\n"
    When the model emits <<KILL(util.go)::KILL
    Then the action answers 403
    And the project file util.go holds "package util\n"

  @§membership-overlay-hide
  Scenario: a hide drops a tracked file: it is no member and its EDIT is refused
    Given the session's overlay hides "util.go"
    Then the members are:
      | path     | effect |
      | logo.png | member |
      | main.go  | member |
    And the hidden files are "util.go"
    When the model emits <<EDIT(util.go):package x\n:EDIT
    Then the action answers 403

  @§membership-overlay-pick
  Scenario: a pick admits an untracked file, which the model may then edit
    When the model emits <<EDIT(notes.md):picked:EDIT
    Then the action answers 403
    Given the session's overlay picks "*.md"
    When the model emits <<EDIT(notes.md):picked:EDIT
    Then the action answers 200
    And the project file notes.md holds "picked"

  @§membership-change-gated-sync
  Scenario: each turn only members whose stat moved are re-read
    Given the members have been synced
    Then the next sync re-reads exactly ""
    When util.go is changed on disk outside plurnk to "package util\n\nvar x = 1\n"
    Then the next sync re-reads exactly "util.go"
    And the next sync re-reads exactly ""

  @§membership-change-gated-sync
  Scenario: the first pass reads every member once, and after a pass the entries equal the disk
    Then the next sync re-reads exactly "logo.png, main.go, util.go"
    When util.go is changed on disk outside plurnk to "package util // v2\n"
    Then the next sync records a divergence of util.go holding "package util // v2\n"
    When the model emits <<READ(util.go)::READ
    Then the result content is "1:\tpackage util // v2\n"

  @§membership-edit-write-cas @decision
  Scenario Outline: a member changed on disk since the last sync is a write conflict, <size>; nothing is written
    Given the members have been synced
    When main.go is changed on disk outside plurnk to "<theirs>"
    And the model emits <<EDIT(main.go):package main // mine\n:EDIT
    Then the action answers 400
    And the result reason mentions "write_conflict"
    And the project file main.go holds "<theirs>"
    Then the next sync records a divergence of main.go holding "<theirs>" per Decision (§membership-edit-write-cas)
    When the model emits <<EDIT(main.go):package main // mine\n:EDIT
    Then the action answers 200 per Decision (§membership-edit-write-cas)
    And the project file main.go holds "package main // mine\n"

    Examples:
      | size                              | theirs                   |
      | longer than it was                | package main // theirs\n |
      | the same size, only its time moved | package MAIN\n           |

  @§membership-edit-write-cas
  Scenario: a clean write re-stamps the signature: the next write and the next sync see no conflict
    Given the members have been synced
    When the model emits <<EDIT(main.go):package main // one\n:EDIT
    Then the action answers 200
    When the model emits <<EDIT(main.go):package main // two, longer\n:EDIT
    Then the action answers 200
    And the next sync records no divergence

  @§membership-git-flags
  Scenario: PLURNK_GIT_ALLOWED=0 denies git membership, even for a declared repo; picks still count
    Given the service runs with PLURNK_GIT_ALLOWED="0" and PLURNK_GIT_AUTO="1"
    Then the session has no members
    Given the session's overlay declares the repo "."
    Then the session has no members
    Given the session's overlay picks "*.md"
    Then the members are:
      | path     | effect |
      | notes.md | member |
    When the model emits <<EDIT(main.go):package x\n:EDIT
    Then the action answers 403

  @§membership-git-flags
  Scenario: PLURNK_GIT_AUTO=0 drops only the implicit repo at the root; declaring it brings it back
    Given the service runs with PLURNK_GIT_ALLOWED="1" and PLURNK_GIT_AUTO="0"
    Then the session has no members
    Given the session's overlay declares the repo "."
    Then the members are:
      | path     | effect |
      | logo.png | member |
      | main.go  | member |
      | util.go  | member |

  @§membership-git-flags
  Scenario: by default (AUTO=1) the root is an implicit repo
    Given the service runs with PLURNK_GIT_ALLOWED="" and PLURNK_GIT_AUTO=""
    Then the members are:
      | path     | effect |
      | logo.png | member |
      | main.go  | member |
      | util.go  | member |
