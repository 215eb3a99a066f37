@plurnk
Feature: Machine processes
  Entries belong to the session, never to a run: every run reads and writes
  the one set of entries.

  @§machine-processes-one-filesystem
  Scenario: run B's write lands on the entry run A created
    Given a second run "B" in the session
    When the model emits <<EDIT(known:///shared.md):from A:EDIT
    Then the action answers 201
    When run "B" emits <<EDIT(known:///shared.md):from B:EDIT
    Then the action answers 200 on the same entry as before
    When the model emits <<READ(known:///shared.md)::READ
    Then the action answers 200
    And the result content is:
      """
      1:\tfrom B
      """

  @§actor-boundary-no-mutex
  Scenario: two runs writing the same entry in the same turn are both served, the last write wins
    Given a second run "B" in the session
    And the entry known:///shared.md contains "v0"
    When the model emits <<EDIT(known:///shared.md):from A:EDIT
    And run "B" emits <<EDIT(known:///shared.md):from B:EDIT
    And the model emits <<EDIT[mine](known:///shared.md):from A again:EDIT
    And run "B" emits <<EDIT(known:///shared.md)<-1>:and B's line:EDIT
    Then every action answered 200
    And the body channel of known:///shared.md holds "from A again\nand B's line"
    And the entry known:///shared.md has tags "mine"
