@deck
Feature: Screen — text mode, rows 0 to 24

  @§deck-text-mode @§deck-status-bar @§deck-action-bar @decision
  Scenario: The runtime draws rows 0 and 24 around the REPL
    Given a graduated deck of "NEO" with 1200 credits and reputation 7
    When the player presses "EVAL"
    Then the status bar shows "NEO", 1200 credits and reputation 7
    And row 0 contains " NEO  CR 1200  REP 7" per Decision (§deck-status-bar)
    And row 0 contains "REPL"
    And the deck shows the REPL mode
    And row 24 contains "CAR descend · CDR sibling · CONS palette · QUOTE history · EVAL run · BACK exit"
    And row 24 reads "CAR descend · CDR sibling · CONS palette · QUOTE history · EVAL run · BACK exit" per Decision (§deck-action-bar)
    When the player evaluates "(display-mode)"
    Then the result is "text" per Decision (§deck-ffi-readonly)

  @§deck-banner @decision
  Scenario: The banner shows the VM version, and the stage during the tutorial
    Given a new deck
    When the player presses "EVAL"
    Then the banner shows the Dev REPL and the Fe VM's version
    And the banner shows tutorial stage 1
    And row 1 contains "KINOSHITA DEV REPL ─ Fe VM v1.0" per Decision (§deck-banner)
    And row 1 contains "TUTORIAL 1/4" per Decision (§deck-banner)

  @§deck-banner @decision
  Scenario: A graduated deck's banner has no stage
    Given a graduated deck
    When the player presses "EVAL"
    Then the banner shows the Dev REPL and the Fe VM's version
    And the banner shows no tutorial stage
    And row 1 reads "KINOSHITA DEV REPL ─ Fe VM v1.0" per Decision (§deck-banner)

  @§deck-scrollback @decision
  Scenario: The scrollback is a 20-row ring; the oldest rows leave at the top
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 1)"
    Then row 2 shows the prompt "(+ 1 1)"
    And row 3 shows the result "2"
    And row 2 reads " > (+ 1 1)" per Decision (§deck-scrollback)
    And row 3 reads " => 2" per Decision (§deck-scrollback)
    When the player evaluates "(+ 1 2)" 9 times
    And the player evaluates "(+ 2 3)"
    Then row 2 shows the prompt "(+ 1 2)"
    And row 20 shows the prompt "(+ 2 3)"
    And row 21 shows the result "5"

  @§deck-separator @decision
  Scenario: Row 22 is a CP437 rule that also carries readouts
    Given a graduated deck
    When the player presses "EVAL"
    Then row 22 is a box-drawing rule apart from its readout
    When the player presses "TYPE:42 ATOM"
    Then row 22 shows the type number
    And row 22 contains "── number ──" per Decision (§deck-separator)
    And row 22 is a box-drawing rule apart from its readout

  @§deck-prompt-structural @decision
  Scenario: The prompt line renders structure with glyphs, indentation and a cursor
    Given a graduated deck
    When the player presses "EVAL"
    Then the prompt line is empty
    And row 23 reads "█" per Decision (§deck-prompt-structural)
    When the player composes "(car (quote (1 2 3)))"
    Then the prompt line shows "(car (quote (1 2 3)))"
    And row 23 reads "►«car «quote «1 2 3»»»" per Decision (§deck-prompt-structural)
    And the prompt line shows no parentheses
    When the player presses "CAR CDR CAR"
    Then the prompt line shows "(car (quote (1 2 3)))"
    And row 23 reads "    «car «►quote «1 2 3»»»" per Decision (§deck-prompt-structural)
    When the player presses "ATOM"
    Then row 22 shows the type symbol

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
