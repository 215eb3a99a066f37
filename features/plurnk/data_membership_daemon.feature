@plurnk
Feature: Tier 3a — the daemon keeps the session's membership
  A daemon that keeps a membership answers session.members with the
  overlay already resolved: every member with its effect, and the files a
  hide dropped. session.constrain adds a rule to the session's one
  overlay; the file scheme consults the same membership, so a view member
  or a hidden file answers 403 to an EDIT through the op mirror.

  @§membership-resolved-effects
  Scenario: session.members answers each member with its resolved effect and the hidden files; the daemon resolves the globs
    Given the daemon keeps a membership of a workspace without git holding:
      | path          | content      |
      | docs/a.md     | alpha        |
      | docs/b.md     | beta         |
      | docs/old/c.md | gamma        |
      | src/main.go   | package main |
      | src/gen.go    | package main |
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    When "A" calls session.members
    Then the answer to "A" has members = []
    And the answer to "A" has hidden = []
    When "A" calls session.constrain with {"effect": "pick", "pattern": "docs/**"}
    And "A" calls session.constrain with {"effect": "pick", "pattern": "src/*.go"}
    And "A" calls session.constrain with {"effect": "view", "pattern": "docs/*.md"}
    And "A" calls session.constrain with {"effect": "hide", "pattern": "src/gen.go"}
    And "A" calls session.members
    Then the answer to "A" has members = [{"path": "docs/a.md", "effect": "view"}, {"path": "docs/b.md", "effect": "view"}, {"path": "docs/old/c.md", "effect": "member"}, {"path": "src/main.go", "effect": "member"}]
    And the answer to "A" has hidden = ["src/gen.go"]
    When "A" calls op.edit with {"target": "file:///docs/a.md", "body": "changed"}
    Then the answer to "A" has status = 403
    When "A" calls op.edit with {"target": "file:///src/gen.go", "body": "changed"}
    Then the answer to "A" has status = 403
    When "A" calls op.edit with {"target": "file:///docs/old/c.md", "body": "changed"}
    Then the answer to "A" has status = 200
    Given a connection "B" to the daemon
    And "B" creates a session named "other"
    When "B" calls session.members
    Then the answer to "B" has members = []
    When "B" calls session.constrain with {"effect": "drop", "pattern": "docs/**"}
    Then the answer to "B" is the error -32602

  @§membership-emi-divergence-signal
  Scenario: a member changed on disk outside plurnk reaches the model run as a folded delta from the plurnk run
    Given the daemon keeps a membership of a workspace without git holding:
      | path     | content |
      | notes.md | first   |
      | other.md | other   |
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    And "A" calls session.constrain with {"effect": "pick", "pattern": "notes.md"}
    And "A" runs a loop with the prompt "first"
    And the loop "A" started ended with status 200
    When the daemon's operator file /work/notes.md reads "second"
    And the daemon's operator file /work/other.md reads "changed too"
    And "A" runs a loop with the prompt "again"
    Then the loop "A" started ended with status 200
    And the daemon's model's packet 1 does not contain "file:///notes.md"
    And the daemon's model's packet 2 contains "notes.md"
    And the daemon's model's packet 2 contains "EDIT 200 file:///notes.md origin=plurnk (folded)" per Decision (§actor-boundary-two-doors)
    And the daemon's model's packet 2 does not contain "file:///other.md"

  @§membership-change-gated-sync @decision
  Scenario: a sync pass that cannot list the members is an error row of its own before the loop fails
    Given the daemon keeps a membership of a git workspace holding:
      | path    | content      | tracked |
      | main.go | package main | yes     |
    And the daemon's git fails every listing with "fatal: index file corrupt"
    And the daemon's model will reply:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:answered anyway:SEND
      """
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    When "A" runs a loop with the prompt "go"
    Then the loop "A" started ended with status 500 per Decision (§membership-change-gated-sync)
    When "A" calls log.read with {"runId": <A.modelRunId>}
    Then the answer to "A" has entries.#(op=="error")#.status = [500, 500] per Decision (§membership-change-gated-sync)
    And the daemon's model was called 0 times
    When "A" calls session.members
    Then the answer to "A" is the error -32603 per Decision (§membership-change-gated-sync)
