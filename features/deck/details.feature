@deck
Feature: Details — screen rows, primitives and error paths the other features pass by

  @§deck-open-in-editor @decision
  Scenario: The editor draws the form it holds on the first row under its banner
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(open-in-nemacs (quote (+ 1 2)))"
    Then the editor holds "(+ 1 2)"
    And row 1 reads "nEMACS ─ STRUCTURAL EDITOR" per Decision (§deck-text-mode)
    And row 2 reads "►«+ 1 2»" per Decision (§deck-prompt-structural)

  @§deck-tutorial-latch @decision
  Scenario: The Deck State browser shows the operator's handle, credits and reputation
    Given a graduated deck of "NEO" with 1200 credits and reputation 7
    When the player presses "CDR CDR EVAL"
    Then the deck shows the DECK mode
    And the action bar shows key hints
    And row 3 contains "HANDLE NEO" per Decision (§deck-tutorial-latch)
    And row 4 contains "CREDITS 1200  REPUTATION 7" per Decision (§deck-tutorial-latch)
    And row 5 contains "TUTORIAL graduated" per Decision (§deck-tutorial-latch)

  @§deck-arena-24k
  Scenario Outline: atom is true of everything but a pair
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "<program>"
    Then the result is "<result>"

    Examples:
      | program                  | result |
      | (atom 1)                 | t      |
      | (atom nil)               | t      |
      | (atom (quote (1 2)))     | nil    |
      | (atom (cons 1 2))        | nil    |

  @§deck-arena-24k
  Scenario Outline: The reader takes C hexadecimal floats with a binary exponent
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "<program>"
    Then the result is "<result>"

    Examples:
      | program  | result |
      | 0x1p3    | 8      |
      | 0x1p-1   | 0.5    |
      | 0x10     | 16     |
      | 0x1.08p4 | 16.5   |
      | 0x.fp0   | 0.9375 |
      | 0x1.p3   | 8      |

  @§deck-arena-24k @decision
  Scenario: Not-a-number prints as the deck's newlib prints it, without a sign
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(/ 0 0)"
    Then the result is "nan" per Decision (§deck-key-eval)
    When the player evaluates "(- 0 (/ 0 0))"
    Then the result is "nan" per Decision (§deck-key-eval)

  @§deck-arena-24k @decision
  Scenario: A function prints with an address inside the arena, past the VM's context
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "car"
    Then the result starts with "[prim "
    And the result starts with "[prim 0x1000" per Decision (§deck-arena-24k)
    When the player evaluates "(fn (x) x)"
    Then the result starts with "[func "
    And the result starts with "[func 0x1000" per Decision (§deck-arena-24k)

  @§deck-key-cdr @decision
  Scenario: In the scrollback CDR turns back at the oldest and at the newest entry
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(list 7 8)"
    And the player evaluates "(+ 1 2)"
    And the player presses "BACK CDR"
    Then row 2 contains "►> (list 7 8)" per Decision (§deck-key-cdr)
    And the scrollback highlights the entry "(list 7 8)"
    When the player presses "CDR"
    Then row 4 contains "►> (+ 1 2)" per Decision (§deck-key-cdr)
    And the scrollback highlights the entry "(+ 1 2)"
    When the player presses "CDR"
    Then row 2 contains "►> (list 7 8)" per Decision (§deck-key-cdr)
    And the scrollback highlights the entry "(list 7 8)"
    When the player presses "QUOTE"
    Then the prompt line shows "(list 7 8)" per Decision (§deck-key-cdr)

  @§deck-prompt-structural @decision
  Scenario: A string left open cannot be composed
    Given a graduated deck
    When the player presses "EVAL"
    Then composing "(list \"abc)" is refused
    And the refusal names "unclosed string" per Decision (§deck-focus)

  @§deck-prompt-structural @decision
  Scenario: A prompt wider than the screen scrolls to keep the cursor ten columns from the right edge
    # Unscrolled the line would be 97 columns with the cursor in column 85: the first
    # 16 columns give way to ◄ so that the cursor sits in column 70, and the line is cut at 80.
    Given a graduated deck
    When the player presses "EVAL"
    And the player composes "(list 1111111111 2222222222 3333333333 4444444444 5555555555 6666666666 7777777777 8888888888)"
    And the player presses "CAR CDR CDR CDR CDR CDR CDR CDR CDR"
    # The cursor is on the last number: it stays in view.
    Then row 23 contains "8888"
    And row 23 reads "◄11 2222222222 3333333333 4444444444 5555555555 6666666666 7777777777 ►888888888" per Decision (§deck-prompt-structural)

  @§deck-prompt-structural
  Scenario: A prompt that fills exactly the row's width shows whole
    # Indented 2 columns, 77 of text and the cursor: 80 columns, the cursor in column 74.
    # The seed's prompt shows the expression: a line is cut only when it does not fit,
    # and a cut line leaves no column free.
    Given a graduated deck
    When the player presses "EVAL"
    And the player composes "(list 1111111111 2222222222 3333333333 4444444444 5555555555 6666666666 7777)"
    And the player presses "CAR CDR CDR CDR CDR CDR CDR CDR"
    Then the prompt line shows "(list 1111111111 2222222222 3333333333 4444444444 5555555555 6666666666 7777)" unless it fills its row
    And row 23 reads "  «list 1111111111 2222222222 3333333333 4444444444 5555555555 6666666666 ►7777»" per Decision (§deck-prompt-structural)

  @§deck-watchdog
  Scenario: A watchdog that fired during a collection is not raised again by the next collection
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*165} (= i 0) (while t (= i (+ i 1))))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    When the player evaluates "(do (= i 0) (while (< i 3000) (= i (+ i 1))))"
    Then the result is "nil"
    When the player evaluates "i"
    Then the result is "3000"

  @§deck-watchdog @§deck-cycle-count
  Scenario: A loop stopped by the watchdog at the lookup of a function's argument is charged up to that lookup
    # The 6 leading 1s put the 30,000,000th cycle on a lookup of n, the argument of the
    # call (g n): the evaluation stops there, not at the event after it.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*6} (= g (fn (x) x)) (= f (fn (n) (while t (g n)))) (f 1))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 53021  | 38           |
      | arg    | 159060 | 38.5         |
      | lookup | 424120 | 6.4          |
      | call   | 53015  | 80           |
      | atom   | 7      | 8            |
      | alloc  | 159103 | 17           |
      | mark   | 41072  | 15           |
      | sweep  | 199784 | 15           |
      | read   | 1      | 16750        |
      | print  | 1      | 4130         |

  @§deck-cart-back
  Scenario: A deferred cartridge loads once: after it is ejected, leaving the REPL again goes home
    Given a graduated deck
    When the player presses "EVAL"
    And a cartridge "null" with a 16 KB arena is inserted
    And the player presses "BACK BACK BACK"
    Then the cartridge "null" is loaded
    When the cartridge is ejected
    And the player presses "EVAL"
    Then the deck shows the REPL mode
    When the player presses "BACK BACK"
    Then the deck shows the HOME mode
    And SRAM holds no cartridge arena

  @§deck-key-quote
  Scenario: The next key on the prompt clears a readout from the rule
    Given a graduated deck
    When the player presses "EVAL"
    And the player composes "(+ 1 2)"
    And the player presses "CAR CDR QUOTE"
    Then row 22 contains "GRABBED INTO *history*" per Decision (§deck-separator)
    When the player presses "CDR"
    Then row 22 does not contain "GRABBED" per Decision (§deck-separator)
    And row 22 is a box-drawing rule apart from its readout

  @§deck-eval-from-editor @decision
  Scenario: The editor's result stays on the rule until the next key
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(open-in-nemacs (quote (get-credits)))"
    And the player presses "EVAL"
    Then row 22 contains "100"
    And row 22 contains "=> 100" per Decision (§deck-eval-from-editor)
    When the player presses "CAR"
    Then row 22 does not contain "100" per Decision (§deck-eval-from-editor)

  @§deck-sram-budget @decision
  Scenario: The mission phase shows its form, its result and how to end it
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(open-in-nemacs (quote (mission-active?)))"
    And a cartridge "ghost" with a 16 KB arena and a 4096 byte mission is inserted
    And the player presses "BACK"
    Then the deck shows the MISSION mode per Decision (§deck-sram-budget)
    And the action bar shows key hints
    And row 2 reads " > (mission-active?)" per Decision (§deck-sram-budget)
    And row 22 contains "=> t" per Decision (§deck-eval-from-editor)
    And the mission phase answers a true value
    And row 24 reads "BACK end phase" per Decision (§deck-text-mode)

  @§deck-tutorial-latch @decision
  Scenario: The Deck State browser marks the item under the cursor
    Given a graduated deck
    When the player presses "CDR CDR EVAL"
    Then row 7 contains "► RESET TUTORIAL" per Decision (§deck-tutorial-latch)
    And row 8 does not contain "►" per Decision (§deck-tutorial-latch)
    When the player presses "CDR"
    Then row 8 contains "► WIPE DECK" per Decision (§deck-tutorial-latch)
    And row 7 does not contain "►" per Decision (§deck-tutorial-latch)

  @§deck-tutorial-skip
  Scenario: Answering the exit question takes it off the rule, yes or no
    Given a new deck
    When the player presses "EVAL EVAL BACK"
    Then the screen shows "EXIT TUTORIAL?"
    When the player presses "BACK"
    Then the screen does not show "EXIT TUTORIAL?"
    And the tutorial cursor is at first_boot_seen
    When the deck is powered off and on again
    And the player presses "EVAL EVAL BACK"
    Then the screen shows "EXIT TUTORIAL?"
    When the player presses "EVAL"
    Then the tutorial cursor is at graduated
    And the screen does not show "EXIT TUTORIAL?"
    When the player presses "CDR"
    Then the tutorial cursor is at graduated
    And the screen does not show "EXIT TUTORIAL?"

  @§deck-watchdog @§deck-cycle-count
  Scenario: A loop stopped by the watchdog at the allocation of a sum is charged up to that allocation
    # The 23 leading 1s put the 30,000,000th cycle on the allocation of the number
    # (+ 1 2) makes: the evaluation stops there, not at the event after it.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*23} (while t (+ 1 2)))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 96469  | 38           |
      | arg    | 289426 | 38.5         |
      | lookup | 192936 | 6.4          |
      | atom   | 192957 | 8            |
      | alloc  | 96523  | 17           |
      | mark   | 24477  | 15           |
      | sweep  | 120458 | 15           |
      | read   | 1      | 26490        |
      | print  | 1      | 4130         |

  @§deck-watchdog @§deck-cycle-count
  Scenario: A loop stopped by the watchdog at the allocation of a list's argument is charged up to that allocation
    # The 30,000,000th cycle falls on the cell that holds an argument of list: the
    # evaluation stops there, 54 cycles before the argument after it.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do 1 (while t (list 1 2)))"
    Then the result is a Lisp error
    And the evaluation took between 30005786 and 30005786 cycles per Decision (§deck-watchdog)

  @§deck-watchdog @§deck-cycle-count
  Scenario: A loop stopped by the watchdog at the allocation of a user function's argument is charged up to that allocation
    # The six leading 1s put the 30,000,000th cycle on the cell that holds f's argument:
    # the evaluation stops there, not at the event after it.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*6} (= f (fn (a) a)) (while t (f 1)))"
    Then the result is a Lisp error
    And the evaluation took between 30005784 and 30005784 cycles per Decision (§deck-watchdog)

  @§deck-arena-24k
  Scenario: A binding a do's let made survives the collections of a call that allocates in the same arena
    # Only the do itself holds the environment its let extended: (f 3000) makes 6,000
    # cells of garbage in its own environment, several collections of the 24 KB arena,
    # and x's list comes through them whole.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= f (fn (n) (while (< 0 n) (list n n) (= n (- n 1))))) (let x (list 1 2 3)) (f 3000) x)"
    Then the result is "(1 2 3)"

  @§deck-arena-24k
  Scenario: An error raised 600 calls deep is reported like one raised at the top
    # The list (car (car … (car 1) …)) is built 600 deep and handed to eval: the calls
    # nest without rooting anything, so only the innermost (car 1) can fail.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= x 1) (= i 0) (while (< i 600) (= x (list (quote car) x)) (= i (+ i 1))) (eval x))"
    Then the result is a Lisp error naming "expected pair, got number"
    And the result is "(error fe-error :message \"expected pair, got number\")" per Decision (§deck-key-eval)
    When the player evaluates "(car (list 7))"
    Then the result is "7"

  @§deck-arena-24k @decision
  Scenario: A do entered with one free GC root slot overflows the stack as Fe's does
    # At (f 34) the innermost do starts its list with 255 of the 256 entries in use: it
    # cannot hold both its list and its environment, and the evaluation ends in Fe's error.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= x (list 1)) (= f (fn (n) (if (is n 0) (do (do (do (do (car x))))) (f (- n 1))))) (f 34))"
    Then the result is "(error fe-error :message \"gc stack overflow\")" per Decision (§deck-arena-24k)
    When the player evaluates "(car x)"
    Then the result is "1"

  @§deck-arena-24k @decision
  Scenario: A function made with one free GC root slot overflows the stack as Fe's does
    # At (f 34) fn takes the last of the 256 entries for its (env . definition) pair:
    # the function object itself finds none left, and the evaluation ends in Fe's error.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= f (fn (n) (if (is n 0) (do (do (fn (a) a))) (f (- n 1))))) (f 34))"
    Then the result is "(error fe-error :message \"gc stack overflow\")" per Decision (§deck-arena-24k)
    When the player evaluates "((f 33) 7)"
    Then the result is "7"

  @§deck-watchdog @§deck-cycle-count
  Scenario: A loop stopped by the watchdog at the lookup of a global argument is charged up to that lookup
    # The 83 leading 1s put the 30,000,000th cycle on the lookup of x, a global passed
    # to g: the evaluation stops there, not at the allocation after it.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*83} (= x 1) (= g (fn (y) y)) (while t (g x)))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 54502  | 38           |
      | arg    | 163582 | 38.5         |
      | lookup | 272488 | 6.4          |
      | call   | 54497  | 80           |
      | atom   | 84     | 8            |
      | alloc  | 163688 | 17           |
      | mark   | 54908  | 15           |
      | sweep  | 217412 | 15           |
      | read   | 1      | 87740        |
      | print  | 1      | 4130         |

  @§deck-watchdog @§deck-cycle-count
  Scenario: A loop stopped by the watchdog at the lookup of a comparison's first operand is charged up to that lookup
    # The 9 leading 1s put the 30,000,000th cycle on the lookup of x in (< x 2): the
    # evaluation stops there, not at the argument fetch after it.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*9} (= x 1) (while (< x 2) (= y 1)))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 141000 | 38           |
      | arg    | 352505 | 38.5         |
      | lookup | 211499 | 6.4          |
      | atom   | 141006 | 8            |
      | alloc  | 44     | 17           |
      | read   | 1      | 16740        |
      | print  | 1      | 4130         |

  @§deck-watchdog @§deck-cycle-count
  Scenario: A loop stopped by the watchdog at the lookup of a sum's first operand is charged up to that lookup
    # The 14 leading 1s put the 30,000,000th cycle on the lookup of x in (+ x 1): the
    # evaluation stops there, not at the argument fetch after it.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*14} (= x 1) (while t (+ x 1)))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 97318  | 38           |
      | arg    | 291963 | 38.5         |
      | lookup | 291948 | 6.4          |
      | atom   | 97329  | 8            |
      | alloc  | 97360  | 17           |
      | mark   | 24067  | 15           |
      | sweep  | 120458 | 15           |
      | read   | 1      | 19820        |
      | print  | 1      | 4130         |

  @§deck-watchdog @§deck-cycle-count
  Scenario: A loop stopped by the watchdog at the lookup of an if's condition is charged up to that lookup
    # The 3 leading 1s put the 30,000,000th cycle on the lookup of x, the global an if
    # tests (looked up on its own, not fetched as an argument): the evaluation stops
    # there, not at the argument fetch after it.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*3} (= x 1) (while t (if x 1)))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 118533 | 38           |
      | arg    | 355597 | 38.5         |
      | lookup | 355593 | 6.4          |
      | atom   | 118533 | 8            |
      | alloc  | 24     | 17           |
      | read   | 1      | 9370         |
      | print  | 1      | 4130         |

  @§deck-watchdog @§deck-cycle-count
  Scenario: A loop stopped by the watchdog at the allocation of a function is charged up to that allocation
    # The 26 leading 1s put the 30,000,000th cycle on the allocation of the function
    # object fn makes: the evaluation stops there, not at the lookup after it.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*26} (while t (fn (a) a)))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 103335 | 38           |
      | arg    | 206694 | 38.5         |
      | lookup | 206668 | 6.4          |
      | atom   | 26     | 8            |
      | alloc  | 206731 | 17           |
      | mark   | 53328  | 15           |
      | sweep  | 258544 | 15           |
      | read   | 1      | 28740        |
      | print  | 1      | 4130         |

  @§deck-ffi-readonly @decision
  Scenario Outline: lfsr-seed sets the state the next step shifts (Galois, taps 0xB400)
    # 2 = 0b10 shifts to 1; 5 = 0b101 shifts to 0b10 and takes the taps: 0xB402.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (lfsr-seed <seed>) (lfsr-next))"
    Then the result is "<next>" per Decision (§deck-ffi-readonly)

    Examples:
      | seed | next  |
      | 2    | 1     |
      | 5    | 46082 |

  @§deck-cycle-count
  Scenario: A global listed under a let walks the binding before it is found
    # do, = and let are looked up at top level (1 each); list and b are global, so
    # each walks the one binding let made (2 each); a is found in it (2): 9 lookups.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= b 2) (let a 1) (list a b))"
    Then the result is "(1 2)"
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count | instructions |
      | pair   | 4     | 38           |
      | arg    | 9     | 38.5         |
      | lookup | 9     | 6.4          |
      | atom   | 2     | 8            |
      | alloc  | 27    | 17           |
      | read   | 1     | 7100         |
      | print  | 1     | 6750         |

  @§deck-cycle-count
  Scenario: A let binding lengthens the environment every later lookup walks
    # do and let are looked up at top level (1 each); + is global, so its lookup walks
    # the one binding let made (2); a is found in that binding (2): 6 lookups.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (let a 1) (+ a 2))"
    Then the result is "3"
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count | instructions |
      | pair   | 3     | 38           |
      | arg    | 6     | 38.5         |
      | lookup | 6     | 6.4          |
      | atom   | 2     | 8            |
      | alloc  | 18    | 17           |
      | read   | 1     | 5220         |
      | print  | 1     | 3270         |
