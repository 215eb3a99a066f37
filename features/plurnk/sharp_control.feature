@plurnk
Feature: Sharpened control-plane promises
  Scenarios that pin what an earlier, weaker scenario let slip. The work
  the runtime starts on its own — noticing that a member file changed on
  disk — is narrated end to end through the daemon: the plurnk run writes
  the EDIT in its own log, and the model run learns of it only through the
  environment door, as a folded row from the plurnk run in its next packet,
  never as a write of its own. And runs share entries without a lock even
  when they conflict: a run that wrote an entry itself is not spared its
  sister's later write of it, which reaches it as a folded delta naming
  the writer.

  @§actor-boundary-self-hosting
  Scenario: a file changed on disk between two loops is the plurnk run's EDIT and reaches the model run only as a folded delta
    Given the daemon keeps a membership of a workspace without git holding:
      | path     | content |
      | notes.md | first   |
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done again:SEND
      """
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    And "A" calls session.constrain with {"effect": "pick", "pattern": "notes.md"}
    And "A" runs a loop with the prompt "first"
    And the loop "A" started ended with status 200
    When the daemon's operator file /work/notes.md reads "second"
    And "A" runs a loop with the prompt "again"
    Then the loop "A" started ended with status 200
    When "A" calls log.read for run "plurnk" with {}
    Then the answer to "A" has entries.#(target=="file:///notes.md")#.op = ["EDIT"]
    And the answer to "A" has entries.#(target=="file:///notes.md")#.origin = ["plurnk"]
    And the answer to "A" has entries.#(target=="file:///notes.md")#.status = [200]
    When "A" calls log.read for run "model" with {}
    Then the answer to "A" has entries.#(origin=="model")#.op = ["SEND", "SEND"]
    And the answer to "A" has entries.#(target=="file:///notes.md")#.origin = ["plurnk"]
    And the daemon's model's packet 1 does not contain "file:///notes.md"
    And the daemon's model's packet 2 contains "notes.md"
    And the daemon's model's packet 2 contains "EDIT 200 file:///notes.md origin=plurnk (folded)" per Decision (§actor-boundary-two-doors)
    And the daemon's model's packet 2 does not contain "second"

  @§actor-boundary-no-mutex
  Scenario: a run that wrote an entry itself still receives its sister's conflicting write as a folded, attributed delta
    Given run "main" will emit:
      """
      <<PLAN:draft, then delegate:PLAN
      <<EDIT(known:///notes.md):main's draft:EDIT
      <<EDIT(run://scout):Rewrite the notes.:EDIT
      <<SEND[202]:waiting:SEND
      """
    And run "scout" will emit:
      """
      <<PLAN:rewrite:PLAN
      <<EDIT(known:///notes.md):scout's version:EDIT
      <<SEND[200]:rewrote:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:finish:PLAN
      <<SEND[200]:finished:SEND
      """
    When the client starts run "main" with the prompt "Start."
    Then run "scout" has 1 loop, the last with status 200
    And run "main" has 1 loop, the last with status 200
    And run "main"'s row log:///1/1/1 is EDIT known:///notes.md with status 201
    And run "scout"'s row log:///1/1/1 is EDIT known:///notes.md with status 200
    And run "main"'s row log:///1/2/1 is EDIT known:///notes.md with status 200
    And run "main"'s row log:///1/2/1 gives the reason "by run://scout" per Decision (§actor-boundary-two-doors)
    And packet 2 of run "main" contains "* log:///1/2/1/EDIT 200 known:///notes.md origin=plurnk (folded)" per Decision (§actor-boundary-two-doors)
    And packet 2 of run "main" does not contain "scout's version"
