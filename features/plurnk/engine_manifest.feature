@plurnk
Feature: the catalog preview at turn 0
  With PLURNK_MANIFEST_ITEMS the runtime shows the model, at turn 0 of each
  loop, what each scheme that holds entries contains: one FIND per scheme,
  foisted by plurnk, capped to the first N rows, or whole with -1.

  Background:
    Given the entry known:///a.md contains "a"
    And the entry known:///b.md contains "b"
    And the entry known:///c.md contains "c"
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """

  @§actor-boundary-manifest-preview @decision
  Scenario: PLURNK_MANIFEST_ITEMS=2 foists each active scheme's first two rows
    Given the operator sets PLURNK_MANIFEST_ITEMS to "2"
    When the user starts a loop with the prompt "look"
    Then the model run's log records FIND known:///** with status 200 by plurnk
    And the model run's log records FIND plurnk:///** with status 200 by plurnk
    And the model run has no FIND of unknown:///** in its log
    And the log section of packet 1 contains "known:///a.md"
    And the log section of packet 1 contains "known:///b.md"
    And the log section of packet 1 does not contain "known:///c.md"
    And the schemes section of packet 1 contains "known:/// 3 entries" per Decision (§schemes-directory)

  @§actor-boundary-manifest-preview
  Scenario: PLURNK_MANIFEST_ITEMS=-1 foists the whole catalog
    Given the operator sets PLURNK_MANIFEST_ITEMS to "-1"
    When the user starts a loop with the prompt "look"
    Then the model run's log records FIND known:///** with status 200 by plurnk
    And the log section of packet 1 contains "known:///c.md"

  @§actor-boundary-manifest-preview
  Scenario: unset or 0, there is no preview
    Given the operator sets PLURNK_MANIFEST_ITEMS to "0"
    When the user starts a loop with the prompt "look"
    Then the model run has no FIND of known:///** in its log
    And the log section of packet 1 does not contain "known:///a.md"

  @§actor-boundary-manifest-preview @decision
  Scenario Outline: a PLURNK_MANIFEST_ITEMS of <value> refuses the boot
    Given the daemon's operator sets PLURNK_MANIFEST_ITEMS to "<value>"
    When the daemon boots
    Then the daemon refused to start, saying "PLURNK_MANIFEST_ITEMS" per Decision (§actor-boundary-manifest-preview)

    Examples:
      | value |
      | -2    |
      | many  |

  @§actor-boundary-manifest-preview
  Scenario: a PLURNK_MANIFEST_ITEMS of -1, the lowest it takes, boots
    Given the daemon's operator sets PLURNK_MANIFEST_ITEMS to "-1"
    When the daemon boots
    Then the daemon started
