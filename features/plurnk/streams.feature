@plurnk
Feature: Streams
  The engine enforces a single limit of its own: a channel body may hold at
  most 104857600 characters. A write over it fails its action with 500 and
  stores nothing.

  @§stream-constraints-engine-one-cap @slow
  Scenario: a body at the cap is stored, one character more fails with 500
    When the model emits an EDIT of known:///big.txt with a body of 104857600 characters
    Then the action answers 201
    And the body channel of known:///big.txt holds 104857600 characters
    When the model emits an EDIT of known:///big.txt with a body of 104857601 characters
    Then the action answers 500
    And the result reason mentions "104857600" per Decision (§telemetry-no-error-scheme)
    And the body channel of known:///big.txt holds 104857600 characters

  @§stream-constraints-engine-one-cap
  Scenario: nothing else is throttled: many writes in one turn and a long body all go through
    When the model emits 500 EDITs of known:///busy.md in one turn
    Then every action answered 201 or 200
    And the body channel of known:///busy.md holds "revision 500"
    When the model emits an EDIT of known:///long.txt with a body of 1000000 characters
    Then the action answers 201
    And the body channel of known:///long.txt holds 1000000 characters
