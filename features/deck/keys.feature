@deck
Feature: Key grammar — the nine Lisp keys drive the REPL

  Background:
    Given a graduated deck
    When the player presses "EVAL"

  @§deck-key-car @§deck-key-cdr @decision
  Scenario: CAR descends into the first child, CDR moves to the next sibling
    When the player composes "(+ 1 2)"
    And the player presses "CAR"
    Then row 23 reads "  «►+ 1 2»" per Decision (§deck-prompt-structural)
    And row 22 does not contain "NO CHILD" per Decision (§deck-separator)
    When the player presses "ATOM"
    Then row 22 shows the type symbol
    When the player presses "CDR"
    Then row 23 reads "  «+ ►1 2»" per Decision (§deck-prompt-structural)
    And row 22 does not contain "END OF LIST" per Decision (§deck-separator)
    When the player presses "ATOM"
    Then row 22 shows the type number
    When the player presses "CDR CDR"
    Then row 23 reads "  «+ 1 ►2»" per Decision (§deck-prompt-structural)
    And row 22 contains "END OF LIST" per Decision (§deck-separator)
    # The cursor stayed on the last element: deleting it leaves (+ 1).
    When the player presses "NIL EVAL"
    Then the result is "1"

  @§deck-key-nil
  Scenario: NIL on the first element of a list removes it and the cursor climbs to the list
    When the player composes "(+ 1 2)"
    And the player presses "CAR NIL"
    Then the clipboard holds "+"
    And the prompt line shows "(1 2)"
    And row 23 reads "►«1 2»" per Decision (§deck-prompt-structural)
    And row 22 contains "DELETED" per Decision (§deck-separator)

  @§deck-key-car @§deck-key-cdr @decision
  Scenario: In the scrollback CDR moves between entries and CAR inspects a result
    When the player evaluates "(list 7 8)"
    And the player evaluates "(+ 1 2)"
    And the player presses "BACK"
    Then row 4 contains "►> (+ 1 2)" per Decision (§deck-scrollback)
    And the scrollback highlights the entry "(+ 1 2)"
    When the player presses "CDR"
    Then row 2 contains "►> (list 7 8)" per Decision (§deck-scrollback)
    And the scrollback highlights the entry "(list 7 8)"
    When the player presses "QUOTE"
    Then the prompt line shows "(list 7 8)"
    # CAR descends into the result (7 8): its first element, 7, is under inspection.
    When the player presses "BACK CDR CAR"
    Then row 22 contains "7"
    And row 22 does not contain "8"
    And row 22 contains "CELL number: 7" per Decision (§deck-separator)

  @§deck-key-cons @decision
  Scenario: CONS opens the palette and inserts the chosen token
    When the player presses "CONS"
    Then row 22 contains "CONS ►()" per Decision (§deck-key-cons)
    When the player presses "CDR"
    Then row 22 contains "CONS ►car" per Decision (§deck-key-cons)
    When the player presses "EVAL"
    Then row 23 reads "►car" per Decision (§deck-key-cons)
    And row 22 does not contain "CANNOT INSERT HERE" per Decision (§deck-separator)
    # A prompt that holds a single atom has no place for a second token.
    When the player presses "CONS EVAL"
    Then row 22 contains "CANNOT INSERT HERE" per Decision (§deck-separator)
    And row 23 reads "►car" per Decision (§deck-prompt-structural)

  @§deck-key-cons
  Scenario: The palette inserts the token picked from it at the cursor
    When the player presses "PICK:()"
    And the player presses "PICK:car"
    Then the prompt line shows "(car)"
    When the player presses "PICK:()"
    Then the prompt line shows "(car ())"
    When the player presses "PICK:cdr"
    Then the prompt line shows "(car (cdr))"

  @§deck-key-quote
  Scenario: QUOTE on the prompt grabs the subtree into history
    When the player composes "(+ 1 2)"
    And the player presses "CAR CDR QUOTE"
    Then the history holds 1 entries, the newest "1"
    And row 22 contains "GRABBED INTO *history*" per Decision (§deck-separator)

  @§deck-key-quote @§deck-focus @decision
  Scenario: QUOTE in the scrollback pulls an expression back onto the prompt
    When the player evaluates "(+ 1 2)"
    And the player presses "BACK"
    Then the REPL focus is on the scrollback per Decision (§deck-key-back)
    When the player presses "QUOTE"
    Then the REPL focus is on the prompt
    And the prompt line shows "(+ 1 2)"
    And row 23 reads "►«+ 1 2»" per Decision (§deck-prompt-structural)

  @§deck-key-eval
  Scenario: EVAL runs the prompt; in the scrollback it re-runs the entry
    When the player evaluates "(+ 1 2)"
    Then row 3 shows the result "3"
    When the player presses "BACK EVAL"
    Then row 5 shows the result "3"
    And the history holds 2 entries, the newest "(+ 1 2)"

  @§deck-key-back @§deck-focus @decision
  Scenario: BACK ascends, then moves focus, then exits after confirming
    Then the REPL focus is on the prompt
    When the player evaluates "(+ 1 2)"
    And the player composes "(+ 1 2)"
    And the player presses "CAR BACK"
    Then row 23 reads "►«+ 1 2»" per Decision (§deck-prompt-structural)
    And the REPL focus is on the prompt
    When the player presses "BACK"
    Then the REPL focus is on the scrollback per Decision (§deck-key-back)
    When the player presses "BACK"
    Then the REPL asks before it is left
    And row 22 contains "EXIT REPL? HISTORY WILL BE SAVED. (EVAL=YES, BACK=CANCEL)" per Decision (§deck-teardown)
    When the player presses "EVAL"
    Then the deck shows the HOME mode

  @§deck-key-lambda @decision
  Scenario: LAMBDA enters multi-tap literal entry
    When the player presses "LAMBDA 4 4 3 3"
    Then row 22 contains "LITERAL he█" per Decision (§deck-separator)
    When the player presses "EVAL"
    Then the prompt line shows "he"
    And row 23 reads "►he" per Decision (§deck-prompt-structural)
    And row 22 does not contain "CANNOT INSERT HERE" per Decision (§deck-separator)
    # A second token has no place beside a single atom.
    When the player presses "LAMBDA 4 4 EVAL"
    Then the prompt line shows "he"
    And row 22 contains "CANNOT INSERT HERE" per Decision (§deck-separator)

  @§deck-key-atom
  Scenario Outline: ATOM shows the type of the form under the cursor
    When the player composes "<form>"
    And the player presses "ATOM"
    Then row 22 shows the type <type>
    And row 22 contains "── <type> ──" per Decision (§deck-separator)

    Examples:
      | form        | type   |
      | (fn (x) x)  | lambda |
      | (+ 1 2)     | cons   |
      | 42          | number |
      | "hi"        | string |
      | abc         | symbol |
      | nil         | nil    |

  @§deck-key-nil
  Scenario: NIL deletes the form under the cursor
    When the player composes "(+ 1 2)"
    And the player presses "CAR CDR NIL"
    Then the prompt line shows "(+ 2)"
    And row 23 reads "  «►+ 2»" per Decision (§deck-prompt-structural)
    And the clipboard holds "1"
    When the player presses "EVAL"
    Then the result is "2"

  @§deck-key-lambda
  Scenario: Numbers entered as literals read the way Fe reads them
    When the player evaluates "(+ 0x10 1)"
    Then the result is "17"
    When the player evaluates "(+ 0xff 0)"
    Then the result is "255"
    When the player evaluates "(+ 0xab 0)"
    Then the result is "171"
    When the player evaluates "(+ 1e3 1)"
    Then the result is "1001"
    # Hex floats with a point and a binary exponent, as rxi/fe (strtod) reads them
    When the player evaluates "(+ 0x1.8 0)"
    Then the result is "1.5"
    When the player evaluates "(+ 0x.8p1 0)"
    Then the result is "1"
    When the player evaluates "(+ 0xa.bp4 0)"
    Then the result is "171"
    When the player evaluates "(+ 1e9 0)"
    Then the result is "1e+09"
    When the player evaluates "(quote 1e)"
    Then the result is "1e"

  @§deck-key-cons @decision
  Scenario: The palette offers the symbols of history first, the most used first, then the most recent
    When the player evaluates "(list-length (list 1 2))"
    And the player evaluates "(list-length (quote (3)))"
    And the player presses "CONS"
    Then row 22 contains "CONS ►list-length quote list () car cdr cons eval lambda + -" per Decision (§deck-key-cons)

  @§deck-focus @decision
  Scenario Outline: A key the deck does not have (<what>) stops the key script there
    When the player composes "(+ 1 2)"
    Then pressing "<key> EVAL" is refused
    And the refusal names "no key \"<key>\"" per Decision (§deck-focus)
    And the prompt line shows "(+ 1 2)" per Decision (§deck-focus)
    When the player presses "EVAL"
    Then the result is "3"

    Examples:
      | what                         | key |
      | a word                       | FOO |
      | one letter                   | X   |
      | two digits, not one keypad key | 12  |
      | a sign                       | -   |

  @§deck-focus @decision
  Scenario: A cartridge token whose arena size is not a number stops the key script there
    When the player composes "(+ 1 2)"
    Then pressing "INSERT:null:big EVAL" is refused per Decision (§deck-focus)
    And the refusal names "arena size" per Decision (§deck-focus)
    And the screen does not show "CARTRIDGE INSERTED" per Decision (§deck-focus)
    And the prompt line shows "(+ 1 2)" per Decision (§deck-focus)

  @§deck-focus @decision
  Scenario: Composing with no prompt on the screen is refused and presses no key
    When the player presses "BACK BACK"
    Then the deck shows the HOME mode
    And composing "car" is refused
    And the refusal names "no prompt to compose on" per Decision (§deck-focus)
    And the deck shows the HOME mode

  @§deck-focus
  Scenario: Composing reads Fe's printed syntax: blanks around a form, 'x for (quote x), an empty list
    When the player composes "  (list 'x (quote ()) ())"
    And the player presses "EVAL"
    Then the result is "(x nil nil)"

  @§deck-focus @decision
  Scenario: Composing refuses a form that does not parse or nests deeper than 200 levels, and presses no key
    Then composing "(+ 1" is refused
    And the refusal names "unclosed list" per Decision (§deck-focus)
    And composing "(list () 1)" is refused per Decision (§deck-focus)
    And the refusal names "an empty list followed by a sibling" per Decision (§deck-focus)
    And composing "{'*201}x" is refused per Decision (§deck-focus)
    And the refusal names "nesting deeper than 200" per Decision (§deck-focus)
    And the prompt line is empty per Decision (§deck-focus)
    And row 23 reads "█" per Decision (§deck-prompt-structural)

  @§deck-key-eval @decision
  Scenario: A result that shares structure prints in full, as Fe prints it; one that comes back on itself stops at "..."
    When the player evaluates "(do (= x (list 7 8)) (list x (list x x)))"
    Then the result is "((7 8) ((7 8) (7 8)))"
    When the player evaluates "x"
    Then the result is "(7 8)"
    When the player evaluates "(do (= l (list 1 2)) (setcdr (cdr l) l) (list l l))"
    Then the result is "((1 2 ...) (1 2 ...))" per Decision (§deck-key-eval)
    # The element (5 …) of l is itself a list whose tail is l: it stops at l's first
    # cell, and l then stops when it comes back round to that cell, not a turn later.
    When the player evaluates "(do (= l (list 0 9)) (setcar l (cons 5 l)) (setcdr (cdr l) l) l)"
    Then the result is "((5 ...) 9 ...)" per Decision (§deck-key-eval)

  @§deck-key-cons @decision
  Scenario: Picking a token the palette does not offer closes the palette and fails
    Then pressing "PICK:nosuch" is refused
    And the refusal names "not in the palette" per Decision (§deck-key-cons)
    And row 22 does not contain "CONS" per Decision (§deck-separator)
    When the player presses "PICK:car"
    Then the prompt line shows "car"
    And row 23 reads "►car" per Decision (§deck-prompt-structural)

  @§deck-key-cons @§deck-focus
  Scenario: CONS opens no palette in the scrollback, so nothing can be picked there
    # The key table gives CONS no action in the scrollback: a token cannot be
    # picked, and the keys a pick presses (CONS, CDR to the token, EVAL) are
    # not pressed at all, so the scrollback keeps its selection.
    When the player evaluates "(list 7 8)"
    And the player evaluates "(+ 1 2)"
    And the player presses "BACK"
    Then pressing "PICK:car" is refused
    And composing "()" is refused
    And the refusal names "no prompt to compose on" per Decision (§deck-focus)
    And the REPL focus is on the scrollback
    And the scrollback highlights the entry "(+ 1 2)"
    And the prompt line is empty

  @§deck-key-lambda @decision
  Scenario: Literal entry takes every key, so nothing can be picked or composed until it is left
    When the player presses "LAMBDA"
    Then pressing "PICK:car" is refused per Decision (§deck-key-lambda)
    And composing "()" is refused per Decision (§deck-key-lambda)
    When the player presses "BACK"
    And the player composes "(car nil)"
    Then the prompt line shows "(car nil)"

  @§deck-key-eval @decision
  Scenario Outline: A comparison of a number with a symbol is Fe's type error
    When the player evaluates "<form>"
    Then the result is a Lisp error naming "expected number, got symbol"
    And the result is "(error fe-error :message \"expected number, got symbol\")" per Decision (§deck-key-eval)

    Examples:
      | form            |
      | (< 1 (quote a)) |
      | (< (quote a) 1) |

  @§deck-key-cons @decision
  Scenario: The palette puts a symbol used more often before one used more recently
    When the player evaluates "(list 1)"
    And the player evaluates "(list 2)"
    And the player evaluates "(atom 3)"
    And the player presses "CONS"
    Then row 22 contains "CONS ►list atom () car" per Decision (§deck-key-cons)
