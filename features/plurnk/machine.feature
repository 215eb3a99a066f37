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
