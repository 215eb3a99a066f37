@plurnk
Feature: Sharpened control-plane promises
  Scenarios that pin what an earlier, weaker scenario let slip. Here the
  work the runtime starts on its own — noticing that a member file changed
  on disk — is narrated end to end through the daemon: the plurnk run
  writes the EDIT in its own log, and the model run learns of it only
  through the environment door, as a folded row from the plurnk run in its
  next packet, never as a write of its own.

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
    And the daemon's model's packet 1 does not contain "file:///notes.md"
    And the daemon's model's packet 2 contains "EDIT 200 file:///notes.md origin=plurnk (folded)"
    And the daemon's model's packet 2 does not contain "second"
