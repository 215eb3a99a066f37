@deck
Feature: Sharper checks — the edges of the watchdog, the snippet library, the keys and the tutorial exit

  @§deck-watchdog @decision
  Scenario: An evaluation that ends just under the watchdog budget leaves none of it armed: the REPL opens again
    # The loop takes between 29,990,000 and 29,999,999 cycles (memory.feature): opening the
    # next session's VM costs more than the few thousand cycles left of that budget, which
    # must not count against it.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= i 0) (while (< i 45520) (= i (+ i 1))))"
    Then the result is "nil" per Decision (§deck-watchdog)
    When the player presses "BACK BACK EVAL"
    Then the deck shows the HOME mode
    When the player presses "EVAL"
    Then the deck shows the REPL mode
    When the player evaluates "(+ 1 2)"
    Then the result is "3"

  @§deck-watchdog @§deck-cycle-count
  Scenario: A runaway loop of conses is stopped at the allocation that passes the budget
    # The 26 leading 1s put the 30,000,000th cycle inside the allocation of a cons: the
    # evaluation stops there, and the lookup of cons that would follow is never made.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*26} (while t (cons 1 nil)))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 96440  | 38           |
      | arg    | 289342 | 38.5         |
      | lookup | 192878 | 6.4          |
      | atom   | 192902 | 8            |
      | alloc  | 96499  | 17           |
      | mark   | 24682  | 15           |
      | sweep  | 120458 | 15           |
      | read   | 1      | 28970        |
      | print  | 1      | 4130         |

  @§deck-watchdog @§deck-cycle-count
  Scenario: A runaway loop of calls is stopped at the allocation of an argument's binding that passes the budget
    # The 30,000,000th cycle falls inside the allocation that binds x for a call of g: the
    # evaluation stops there, before the second cell of that binding and its next argument.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= g (fn (x) x)) (while t (g 1)))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 55771  | 38           |
      | arg    | 167306 | 38.5         |
      | lookup | 223070 | 6.4          |
      | call   | 55767  | 80           |
      | atom   | 55767  | 8            |
      | alloc  | 167326 | 17           |
      | mark   | 39760  | 15           |
      | sweep  | 205660 | 15           |
      | read   | 1      | 7010         |
      | print  | 1      | 4130         |

  @§deck-key-eval
  Scenario Outline: A number written with a decimal point reads as a number
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "<form>"
    Then the result is "<result>"

    Examples:
      | form           | result |
      | (+ 0.5 0.25)   | 0.75   |
      | (* 2.5 4)      | 10     |
      | (- 1.5e1 0.5)  | 14.5   |
      | (+ 0.9 0.1)    | 1      |
      | (/ 7.5 2.5)    | 3      |

  @§deck-key-eval
  Scenario Outline: A comparison evaluates to t or nil, as Fe's does
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "<form>"
    Then the result is "<result>"

    Examples:
      | form                    | result  |
      | (<= 1 1)                | t       |
      | (<= 2 1)                | nil     |
      | (<= 1.5 2)              | t       |
      | (< 1 1)                 | nil     |
      | (< 1 2)                 | t       |
      | (list (<= 3 3) (< 3 3)) | (t nil) |

  @§deck-key-car
  Scenario: CAR on an empty prompt has no child to move into and leaves the prompt empty
    Given a graduated deck
    When the player presses "EVAL CAR"
    Then the deck shows the REPL mode
    And the prompt line is empty
    And row 23 reads "█" per Decision (§deck-prompt-structural)
    When the player evaluates "(+ 1 2)"
    Then the result is "3"

  @§deck-tutorial-skip @decision
  Scenario: Exiting the tutorial clears the stage's prompt
    Given a new deck
    When the player presses "EVAL EVAL"
    Then the prompt line shows "(car '(1 2 3))"
    And row 23 reads "►«car «quote «1 2 3»»»" per Decision (§deck-prompt-structural)
    When the player presses "BACK EVAL"
    Then the tutorial cursor is at graduated
    And the prompt line is empty per Decision (§deck-tutorial-skip)
    And row 23 reads "█" per Decision (§deck-prompt-structural)

  @§deck-snippets @§deck-tutorial-latch @decision
  Scenario: A snippet library written into flash in the digest's layout loads back at power on
    Given a graduated deck of "NEO" with 250 credits and reputation 3
    When the deck-state image in flash gets the snippet library "01 6b 07 00 28 2b 20 31 20 32 29" under a matching checksum
    And the deck is powered off and on again
    Then the deck shows no refusal per Decision (§deck-snippets)
    When the player presses "EVAL"
    And the player evaluates "(snippet-list)"
    Then the result is "((k))" per Decision (§deck-snippets)
    When the player evaluates "(eval (snippet-load (quote k)))"
    Then the result is "3" per Decision (§deck-snippets)

  @§deck-snippets @§deck-tutorial-latch @decision
  Scenario Outline: A snippet library whose entries do not parse makes the image corrupt at power on
    Given a graduated deck of "NEO" with 250 credits and reputation 3
    When the deck-state image in flash gets the snippet library "<library>" under a matching checksum
    And the deck is powered off and on again
    Then the deck state is that of a new deck per Decision (§deck-snippets)
    And the deck shows the refusal "deck state: corrupt image: snippets: <why>; the deck starts as a new deck" per Decision (§deck-snippets)

    Examples:
      | library                          | why                     |
      | 00 00 00                         | bad name at 0           |
      | 05 6b                            | bad name at 0           |
      | 01 6b 07 00 28 2b 20 31          | form overruns at 4      |
      | 01 6b 01 00 31 00 00 00          | bad name at 5           |
      | 01 6b 01 00 31 03 6b 6b 6b 01    | bad name at 5           |
      | 01 6b 01 00 29                   | the form at 4 does not read: parse: stray ')' |

  @§deck-snippets @decision
  Scenario: A snippet name holding a NUL byte lists as the symbol cut at that byte
    # The deck hands a name to Fe as a C string, which ends at its first NUL.
    Given a graduated deck of "NEO" with 250 credits and reputation 3
    When the deck-state image in flash gets the snippet library "03 6b 00 7a 01 00 37" under a matching checksum
    And the deck is powered off and on again
    Then the deck shows no refusal per Decision (§deck-snippets)
    When the player presses "EVAL"
    And the player evaluates "(is (car (car (snippet-list))) (quote k))"
    Then the result is "t" per Decision (§deck-snippets)

  @§deck-snippets @§deck-eval-from-editor @decision
  Scenario: A snippet name that reads as a number with a capital E is one when the editor evaluates it
    # No key types a capital E, but a name in the library is bytes: "1E1" lists as a symbol,
    # opens in nEmacs as the atom 1E1, and Fe reads that atom as the number 10.
    Given a graduated deck of "NEO" with 250 credits and reputation 3
    When the deck-state image in flash gets the snippet library "03 31 45 31 01 00 37" under a matching checksum
    And the deck is powered off and on again
    And the player presses "EVAL"
    And the player evaluates "(open-in-nemacs (car (car (snippet-list))))"
    Then the editor holds "1E1" per Decision (§deck-snippets)
    When the player presses "EVAL"
    Then row 22 contains "=> 10" per Decision (§deck-snippets)

  @§deck-mutual-exclusion @§deck-cart-back @§deck-open-in-editor @decision
  Scenario: open-in-nemacs with a cartridge waiting loads the cartridge, and the editor is refused as exclusive with it
    Given a graduated deck
    When the player presses "EVAL"
    And a cartridge "null" with a 16 KB arena is inserted
    And the player presses "BACK"
    Then the cartridge "null" is waiting
    When the player evaluates "(open-in-nemacs (quote (+ 1 2)))"
    Then the cartridge "null" is loaded
    And SRAM holds the cartridge arena with 16 KB
    And SRAM holds no editor arena
    And the deck shows the refusal "editor: 16384 bytes refused: mutually exclusive with cartridge" per Decision (§deck-sram-budget)

  @§deck-watchdog @decision
  Scenario: At a CPI so slow that reading the form alone passes the budget, the evaluation is stopped at its first event
    # At 20,000 cycles an instruction, reading (+ 1 2) (2,620 instructions) takes 52,400,000
    # cycles: the budget is gone before the first event, which is the one past it.
    Given a graduated deck running at a CPI of 20000
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    Then the result is a Lisp error per Decision (§deck-watchdog)
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)

  @§deck-key-cons @§deck-history-persist @decision
  Scenario: A symbol of the history that no key can type is still inserted from the palette
    # The keypad types no capital letters; the palette offers the history's symbols whole.
    Given a graduated deck whose history holds "(quote FOO)" with the result "FOO"
    When the player presses "EVAL"
    And the player evaluates "(quote FOO)"
    Then the result is "FOO" per Decision (§deck-key-cons)

  @§deck-key-lambda @decision
  Scenario: An atom that is neither in the palette nor typeable on the keypad cannot be composed
    # The multi-tap keypad has lower-case letters only.
    Given a graduated deck
    When the player presses "EVAL"
    Then composing "(quote FOO)" is refused per Decision (§deck-key-lambda)
    And the refusal names "cannot be typed" per Decision (§deck-key-lambda)

  @§deck-key-cdr @decision
  Scenario: CDR with the cursor on the whole form has no sibling to move to
    Given a graduated deck
    When the player presses "EVAL"
    And the player composes "(+ 1 2)"
    And the player presses "CDR"
    Then the prompt line shows "(+ 1 2)"
    And row 22 contains "END OF LIST" per Decision (§deck-separator)
    And row 23 reads "►«+ 1 2»" per Decision (§deck-prompt-structural)

  @§deck-ffi-readonly @decision
  Scenario: current-cell answers the form that was under the cursor when EVAL was pressed
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(current-cell)"
    Then the result is "(current-cell)" per Decision (§deck-ffi-readonly)
    When the player composes "(list 7 (current-cell))"
    And the player presses "CAR CDR CDR EVAL"
    Then the result is "(7 (current-cell))" per Decision (§deck-ffi-readonly)

  @§deck-history-persist
  Scenario: A grabbed form, kept with no result, is the oldest history entry and still reads back after a power cycle
    Given a graduated deck
    When the player presses "EVAL"
    And the player composes "(+ 1 2)"
    And the player presses "QUOTE"
    Then the history holds 1 entries, the newest "(+ 1 2)"
    When the player presses "BACK BACK EVAL"
    And the deck is powered off and on again
    Then the deck shows no refusal per Decision (§deck-history-persist)
    When the player presses "EVAL"
    Then the history holds 1 entries, the newest "(+ 1 2)"

  @§deck-history-persist @decision
  Scenario: Every entry counts its expression, its result and 3 bytes against the 512 bytes
    # Each entry takes its 39-byte expression, its 40-byte result and 3 bytes more: 82 bytes,
    # so 6 of the 8 fit in 512 bytes (492) and a seventh would not (574).
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(list 1111111111 2222222222 3333333333)"
    Then the result is "(1.111111e+09 2.222222e+09 3.333333e+09)"
    When the player evaluates "(list 1111111111 2222222222 3333333333)" 7 times
    And the player presses "BACK BACK EVAL"
    Then the persisted history fits 512 bytes
    And the persisted history fits 512 bytes and holds 6 entries per Decision (§deck-history-persist)

  @§deck-focus @decision
  Scenario: A form nested 200 lists deep can be composed; one nested 201 deep is refused
    # () is nil, an atom: 201 parentheses around nothing are 200 lists around nil.
    Given a graduated deck
    When the player presses "EVAL"
    Then composing "{(*201}1{)*201}" is refused per Decision (§deck-focus)
    And the refusal names "nesting deeper than 200" per Decision (§deck-focus)
    And composing "{(*202}{)*202}" is refused per Decision (§deck-focus)
    And the refusal names "nesting deeper than 200" per Decision (§deck-focus)
    When the player composes "{(*200}1{)*200}"
    Then the deck shows the REPL mode per Decision (§deck-focus)

  @§deck-prompt-structural @decision
  Scenario: A wide prompt scrolls only when its cursor would sit past column 70
    # With a 6-digit first number the cursor sits in column 70 unscrolled: the line is only
    # cut at 80. One digit more puts it in column 71: the line scrolls by one column, to ◄.
    Given a graduated deck
    When the player presses "EVAL"
    And the player composes "(list 111111 2222222222 3333333333 4444444444 5555555555 6666666666 7777777777 8888888888)"
    And the player presses "CAR CDR CDR CDR CDR CDR CDR CDR"
    Then row 23 reads "  «list 111111 2222222222 3333333333 4444444444 5555555555 6666666666 ►777777777" per Decision (§deck-prompt-structural)
    When the player presses "BACK NIL"
    And the player composes "(list 1111111 2222222222 3333333333 4444444444 5555555555 6666666666 7777777777 8888888888)"
    And the player presses "CAR CDR CDR CDR CDR CDR CDR CDR"
    Then row 23 reads "◄«list 1111111 2222222222 3333333333 4444444444 5555555555 6666666666 ►777777777" per Decision (§deck-prompt-structural)

  @§deck-sram-budget @decision
  Scenario: The allocation map lists the live regions in name order
    Given a graduated deck
    When the player presses "EVAL"
    Then SRAM lists its live regions in name order as "clipboard core+vm deckstate history repl snippets" per Decision (§deck-sram-budget)

  @§deck-key-cons @decision
  Scenario: CAR in a fresh palette wraps round to its last token
    Given a graduated deck
    When the player presses "EVAL CONS CAR"
    Then row 22 contains "CONS ►t" per Decision (§deck-key-cons)

  @§deck-arena-24k @decision
  Scenario: After 3,000 calls of a function the REPL's VM still counts its cells within its arena
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= f (fn (x) x)) (= i 0) (while (< i 3000) (f i) (= i (+ i 1))))"
    Then the result is "nil"
    And the REPL's Fe VM has 2938 cells in its 24576-byte arena per Decision (§deck-arena-24k)

  @§deck-watchdog @§deck-cycle-count
  Scenario: A runaway loop of calls is stopped at the allocation of its argument list that passes the budget
    # The 6 leading 1s put the 30,000,000th cycle inside the allocation of the cell that holds
    # the evaluated argument of (g 1): the evaluation stops there, before the binding's.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*6} (= g (fn (x) x)) (while t (g 1)))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 55712  | 38           |
      | arg    | 167135 | 38.5         |
      | lookup | 222834 | 6.4          |
      | call   | 55708  | 80           |
      | atom   | 55714  | 8            |
      | alloc  | 167160 | 17           |
      | mark   | 40600  | 15           |
      | sweep  | 205660 | 15           |
      | read   | 1      | 12710        |
      | print  | 1      | 4130         |
