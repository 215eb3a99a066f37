@deck
Feature: Screen — text mode, rows 0 to 24

  @§deck-text-mode @§deck-status-bar @§deck-action-bar
  Scenario: The runtime draws rows 0 and 24 around the REPL
    Given a graduated deck of "NEO" with 1200 credits and reputation 7
    When the player presses "EVAL"
    Then row 0 contains " NEO  CR 1200  REP 7"
    And row 0 contains "REPL"
    And the deck shows the REPL mode
    And row 24 reads "CAR descend · CDR sibling · CONS palette · QUOTE history · EVAL run · BACK exit"
    When the player evaluates "(display-mode)"
    Then the result is "text"

  @§deck-banner
  Scenario: The banner shows the VM version, and the stage during the tutorial
    Given a new deck
    When the player presses "EVAL"
    Then row 1 contains "KINOSHITA DEV REPL ─ Fe VM v1.0"
    And row 1 contains "TUTORIAL 1/4"

  @§deck-banner
  Scenario: A graduated deck's banner has no stage
    Given a graduated deck
    When the player presses "EVAL"
    Then row 1 reads "KINOSHITA DEV REPL ─ Fe VM v1.0"

  @§deck-scrollback
  Scenario: The scrollback is a 20-row ring; the oldest rows leave at the top
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 1)"
    Then row 2 reads " > (+ 1 1)"
    And row 3 reads " => 2"
    When the player evaluates "(+ 1 2)" 9 times
    And the player evaluates "(+ 2 3)"
    Then row 2 reads " > (+ 1 2)"
    And row 20 reads " > (+ 2 3)"
    And row 21 reads " => 5"

  @§deck-separator
  Scenario: Row 22 is a CP437 rule that also carries readouts
    Given a graduated deck
    When the player presses "EVAL"
    Then row 22 is a box-drawing rule apart from its readout
    When the player presses "TYPE:42 ATOM"
    Then row 22 contains "── number ──"
    And row 22 is a box-drawing rule apart from its readout

  @§deck-prompt-structural
  Scenario: The prompt line renders structure with glyphs, indentation and a cursor
    Given a graduated deck
    When the player presses "EVAL"
    Then row 23 reads "█"
    When the player composes "(car (quote (1 2 3)))"
    Then row 23 reads "►«car «quote «1 2 3»»»"
    And the prompt line shows no parentheses
    When the player presses "CAR CDR CAR"
    Then row 23 reads "    «car «►quote «1 2 3»»»"

  @§deck-no-graphics
  Scenario Outline: Drawing primitives are refused in the REPL
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "<call>"
    Then the result starts with "(error not-authorized outside-mission :fn <name> :message"

    Examples:
      | call             | name       |
      | (gfx-pixel 1 2 3) | gfx-pixel |
      | (gfx-clear 0)    | gfx-clear  |
      | (text-puts 1 1 2) | text-puts |
