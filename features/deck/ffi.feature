@deck
Feature: FFI surface — read-only, gated and forbidden primitives

  Background:
    Given a graduated deck of "NEO" with 1200 credits and reputation 7
    When the player presses "EVAL"

  @§deck-ffi-readonly
  Scenario Outline: The read-only primitives answer
    When the player evaluates "<call>"
    Then the result is "<result>"

    Examples:
      | call                                         | result |
      | (get-handle)                                 | NEO    |
      | (get-credits)                                | 1200   |
      | (get-reputation)                             | 7      |
      | (list-length (car (mission-board-contracts))) | 5     |
      | (is-leaf (get-credits))                      | t      |
      | (is-leaf (car (mission-board-contracts)))    | nil    |
      | (is-leaf (car (car (mission-board-contracts)))) | t   |

  @§deck-ffi-readonly
  Scenario: list-get answers an element of a runtime-owned list
    # Counted from 0 or from 1, the second index names the list's first or second element.
    When the player evaluates "(do (= c (car (mission-board-contracts))) (or (is (list-get c 1) (car c)) (is (list-get c 1) (car (cdr c)))))"
    Then the result is "t"

  @§deck-ffi-readonly @decision
  Scenario Outline: The read-only primitives answer as the deck decided where the seed names them only
    When the player evaluates "<call>"
    Then the result is "<result>" per Decision (§deck-ffi-readonly)

    Examples:
      | call                                | result |
      | (has-capability (quote dev-repl))   | t      |
      | (has-capability (quote salvage))    | nil    |
      | (list-length (list 1 2 3))          | 3      |
      | (list-get (list 4 5 6) 1)           | 5      |
      | (list-get (list 4 5 6) 2)           | 6      |
      | (list-get (list 4 5 6) 3)           | nil    |
      | (list-get (list 4 5 6) -1)          | nil    |
      | (is-leaf 1)                         | t      |
      | (do (lfsr-seed 1) (lfsr-next))      | 46080  |
      | (display-mode)                      | text   |

  @§deck-ffi-readonly @decision
  Scenario: deck-state returns the deck as a property list
    When the player evaluates "(deck-state)"
    Then the result contains "NEO"
    And the result contains "1200"
    And the result starts with "(:handle \"NEO\" :credits 1200 :reputation 7 :capabilities (dev-repl" per Decision (§deck-ffi-readonly)

  @§deck-ffi-write-gated
  Scenario: credit-add raises the structured not-authorized error
    When the player evaluates "(credit-add 100)"
    Then the result is "(error not-authorized outside-mission :fn credit-add :message \"Writes to deck state require mission context.\")"
    And the status bar shows "NEO", 1200 credits and reputation 7

  @§deck-ffi-write-gated
  Scenario: try hands back the structured error of a gated primitive as a value
    When the player evaluates "(car (cdr (try (fn nil (credit-add 100)))))"
    Then the result is "not-authorized"
    When the player evaluates "(try (fn nil (credit-add 100)))"
    Then the result is "(error not-authorized outside-mission :fn credit-add :message \"Writes to deck state require mission context.\")"

  @§deck-ffi-write-gated
  Scenario Outline: Every write primitive is bound and refused
    When the player evaluates "(<name> 1)"
    Then the result starts with "(error not-authorized outside-mission :fn <name> :message"

    Examples:
      | name             |
      | rep-modify       |
      | spawn-cell       |
      | drill-into       |
      | phase-advance    |
      | mission-complete |
      | text-puts        |
      | gfx-rect         |
      | sfx-play         |

  @§deck-ffi-write-gated @decision
  Scenario Outline: A gated primitive's message says what it needs
    When the player evaluates "(<name> 1)"
    Then the result starts with "(error not-authorized outside-mission :fn <name> :message"
    And the result is "(error not-authorized outside-mission :fn <name> :message \"<message>\")" per Decision (§deck-ffi-write-gated)

    Examples:
      | name       | message                                                   |
      | rep-modify | Writes to deck state require mission context.             |
      | gfx-line   | The REPL is text-only; drawing requires mission context.  |
      | sfx-stop   | Sound requires mission context.                           |

  @§deck-ffi-describe @decision
  Scenario Outline: describe documents bound primitives, gated ones included
    When the player evaluates "(describe (quote <name>))"
    Then the result contains "<name>"
    And the result is "<doc>" per Decision (§deck-ffi-describe)

    Examples:
      | name        | doc                                                        |
      | credit-add  | (credit-add n) → error outside a mission. Adds n credits to the deck. |
      | get-credits | (get-credits) → the deck's credits.                        |
      | car         | (car x) → the first element of the list x.                 |

  @§deck-ffi-forbidden
  Scenario Outline: eval-string, load-file and intern do not exist
    When the player evaluates "<name>"
    Then the result is "nil"
    When the player evaluates "(<name> 1)"
    Then the result is a Lisp error naming "tried to call non-callable value"
    And the result is "(error fe-error :message \"tried to call non-callable value\")" per Decision (§deck-key-eval)
    When the player evaluates "(describe (quote <name>))"
    Then the result is "nil" per Decision (§deck-ffi-describe)

    Examples:
      | name        |
      | eval-string |
      | load-file   |
      | intern      |
