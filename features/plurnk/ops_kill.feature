@plurnk
Feature: KILL and SEND[410]: deleting entries and channels
  KILL is the canonical delete: with a #fragment it deletes that channel of
  the entry, without one the whole entry. A directed SEND[410] deletes the
  same way, as a side effect; any other status sent at an entry is not
  defined for it (501). The delete applies fully or not at all, and the
  scheme's writers are the only ones who may delete.

  Scenario: KILL deletes the whole entry; a second KILL finds nothing
    Given the entry known:///capital.md contains "Paris"
    And the entry known:///capital.md#symbols contains "[\"Paris\"]"
    When the model emits <<KILL(known:///capital.md)::KILL
    Then the action answers 200
    And the entry known:///capital.md does not exist
    When the model emits <<READ(known:///capital.md#symbols)::READ
    Then the action answers 404
    When the model emits <<KILL(known:///capital.md)::KILL
    Then the action answers 404

  Scenario: KILL with a fragment deletes only that channel
    Given the entry known:///capital.md contains "Paris"
    And the entry known:///capital.md#symbols contains "[\"Paris\"]"
    When the model emits <<KILL(known:///capital.md#symbols)::KILL
    Then the action answers 200
    And the entry known:///capital.md has no symbols channel
    And the body channel of known:///capital.md holds "Paris"
    When the model emits <<KILL(known:///capital.md#symbols)::KILL
    Then the action answers 404
    When the model emits <<KILL(known:///capital.md#stdout)::KILL
    Then the action answers 400

  Scenario Outline: SEND[410] deletes exactly as KILL does
    Given the entry known:///capital.md contains "Paris"
    And the entry known:///capital.md#symbols contains "[\"Paris\"]"
    When the model emits <send>
    Then the action answers 200
    And <what>

    Examples:
      | send                                           | what                                                 |
      | <<SEND[410](known:///capital.md)::SEND         | the entry known:///capital.md does not exist         |
      | <<SEND[410](known:///capital.md#symbols)::SEND | the entry known:///capital.md has no symbols channel |

  Scenario: any other status sent at an entry is not defined for it
    Given the entry known:///capital.md contains "Paris"
    When the model emits <<SEND[499](known:///capital.md)::SEND
    Then the action answers 501
    And the result reason mentions "SEND[410] deletes" per Decision (§telemetry-no-error-scheme)
    And the body channel of known:///capital.md holds "Paris"

  Scenario: KILL of a project file deletes it from the workspace
    Given the workspace file build/out.txt contains "stale"
    When the model emits <<KILL(build/out.txt)::KILL
    Then the action answers 200
    And the workspace file build/out.txt does not exist

  Scenario: only the scheme's writers may delete
    Given the entry plurnk:///AGENTS.md contains "operator notes"
    When the model emits <<KILL(plurnk:///AGENTS.md)::KILL
    Then the action answers 403
    And the body channel of plurnk:///AGENTS.md holds "operator notes"
    When the model emits <<SEND[410](plurnk:///AGENTS.md)::SEND
    Then the action answers 403
