@plurnk
Feature: Membership
  The project files a session works on are its members. Files git tracks
  are members as they are on disk; without git nothing is walked and only
  what the session picks is a member. Each session has one overlay on top
  of that: pick admits files git does not track, hide drops files, view
  keeps a member readable but refuses writes to it. These scenarios create
  real repositories with the git binary in temporary directories.

  @§membership-git-membership
  Scenario: the files git tracks are the members, untracked files are not
    Given a git repository holding:
      | path          | content      | tracked |
      | main.go       | package main | yes     |
      | docs/guide.md | # Guide      | yes     |
      | notes.txt     | scratch      | no      |
    Then the members are:
      | path          | effect |
      | docs/guide.md | member |
      | main.go       | member |

  @§membership-git-membership
  Scenario: a service that finds no git binary walks nothing: pick is the only source of members
    Given a git repository holding:
      | path      | content      | tracked |
      | main.go   | package main | yes     |
      | notes.txt | scratch      | no      |
    And the service finds no git binary
    Then the session has no members
    Given the session's overlay picks "notes.txt"
    Then the members are:
      | path      | effect |
      | notes.txt | member |

  @§membership-git-membership @§membership-forest
  Scenario Outline: a <variable> in the service's environment does not turn git to another repository
    Given a git repository holding:
      | path      | content      | tracked |
      | main.go   | package main | yes     |
      | notes.txt | scratch      | no      |
    And the service's environment sets <variable> to "/nowhere/.git"
    Then the members are:
      | path    | effect |
      | main.go | member |

    Examples:
      | variable       |
      | GIT_DIR        |
      | GIT_INDEX_FILE |

  @§membership-git-membership @§membership-overlay @§membership-overlay-pick
  Scenario: without git nothing is walked and pick is the only source of members
    Given a project directory without git holding:
      | path      | content |
      | a.txt     | a       |
      | b.txt     | b       |
      | sub/c.txt | c       |
      | sub/d.md  | d       |
    Then the session has no members
    Given the session's overlay picks "b.txt"
    And the session's overlay picks "sub/*.txt"
    Then the members are:
      | path      | effect |
      | b.txt     | member |
      | sub/c.txt | member |

  @§membership-overlay
  Scenario: pick admits untracked files, hide drops tracked ones, view refuses writes but keeps reads
    Given a git repository holding:
      | path            | content      | tracked |
      | main.go         | package main | yes     |
      | go.mod          | module demo  | yes     |
      | vendor/lib/l.go | package lib  | yes     |
      | scratch/todo.md | - [ ] ship   | no      |
      | scratch/img.png | png          | no      |
    And the session's overlay picks "scratch/*.md"
    And the session's overlay hides "vendor/**"
    And the session's overlay views "go.mod"
    Then the members are:
      | path            | effect |
      | go.mod          | view   |
      | main.go         | member |
      | scratch/todo.md | member |
    And the hidden files are "vendor/lib/l.go"
    And the membership check refuses a write to go.mod with 403
    And the membership check allows a write to main.go
    And the membership check allows a write to scratch/todo.md

  @§membership-overlay @decision
  Scenario: hide wins over pick, view admits nothing by itself, and only members and new paths may be written
    Given a git repository holding:
      | path          | content   | tracked |
      | main.go       | package m | yes     |
      | secret/key.md | k         | no      |
      | other.md      | o         | no      |
    And the session's overlay picks "secret/**"
    And the session's overlay hides "secret/**"
    And the session's overlay views "other.md"
    Then the members are: per Decision (§membership-overlay)
      | path    | effect |
      | main.go | member |
    And the hidden files are "secret/key.md" per Decision (§membership-overlay)
    And the membership check refuses a write to other.md with 403 per Decision (§membership-overlay)
    And the membership check refuses a write to secret/key.md with 403 per Decision (§membership-overlay)
    And the membership check allows a write to brand/new.go

  @§machine-processes-one-overlay
  Scenario: every run of a session resolves the same members; another session keeps its own overlay
    Given a git repository holding:
      | path      | content      | tracked |
      | main.go   | package main | yes     |
      | old.go    | package main | yes     |
      | notes.txt | scratch      | no      |
    And a second run "helper" in the session
    And run "helper" picks "notes.txt"
    And run "model" hides "old.go"
    Then the members run "model" resolves are:
      | path      | effect |
      | main.go   | member |
      | notes.txt | member |
    And the members run "helper" resolves are:
      | path      | effect |
      | main.go   | member |
      | notes.txt | member |
    When run "helper" emits <<EDIT(old.go):package x:EDIT
    Then the action answers 403
    When run "model" emits <<EDIT(notes.txt):picked by the helper:EDIT
    Then the action answers 200
    Given a second session over the same project
    Then the second session's members are:
      | path    | effect |
      | main.go | member |
      | old.go  | member |
