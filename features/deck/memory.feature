@deck
Feature: Memory orchestration — the SRAM budget and the cycle model

  The simulated SRAM is the only place arenas come from: the REPL's Fe VM, the
  editor's buffer and evaluator, the cartridge arena and the mission sub-arena
  inside it are regions the allocator granted, and a VM's cells follow from
  its region's bytes (8-byte cells after a 1068-byte context on the deck's
  32-bit cell model).

  @§deck-sram-budget @decision
  Scenario: Every consumer is checked against the budget table
    Given a graduated deck
    Then allocating the repl arena with 8 KB is refused
    And the refusal names "outside its budget (budget 24576 bytes" per Decision (§deck-sram-budget)
    And allocating the mission arena with 4 KB is refused
    And the refusal names "inside the cartridge region, which is not allocated" per Decision (§deck-sram-budget)
    And allocating the cartridge arena with 48 KB is refused
    And the refusal names "outside its budget (budget 16384 to 32768 bytes" per Decision (§deck-sram-budget)
    And allocating the gpu arena with 4 KB is refused
    And the refusal names "no such consumer" per Decision (§deck-sram-budget)
    And allocating the clipboard arena with 1 KB is refused per Decision (§deck-sram-budget)
    And the refusal names "clipboard: 1024 bytes refused: already allocated" per Decision (§deck-sram-budget)

  @§deck-sram-budget
  Scenario: A cartridge arena under 16 KB or over 32 KB is never allocated
    Given a graduated deck
    When a cartridge "tiny" with a 15 KB arena is inserted, refused or not
    Then every live SRAM region keeps its budget
    When a cartridge "huge" with a 33 KB arena is inserted, refused or not
    Then every live SRAM region keeps its budget

  @§deck-sram-budget @decision
  Scenario: The resident consumers are allocated at power on
    Given a graduated deck
    Then SRAM holds the core+vm region with 65536 bytes per Decision (§deck-sram-budget)
    And SRAM holds the clipboard region with 1024 bytes inside the core+vm region per Decision (§deck-sram-budget)
    And SRAM holds the deckstate region with 4672 bytes per Decision (§deck-sram-budget)
    And SRAM holds the history region with 512 bytes inside the deckstate region per Decision (§deck-sram-budget)
    And SRAM holds the snippets region with 4096 bytes inside the deckstate region per Decision (§deck-sram-budget)
    And SRAM has 462272 bytes free per Decision (§deck-sram-budget)

  @§deck-sram-budget @decision
  Scenario: On a 96 KB part the capacity rule refuses a 28 KB cartridge and takes a 27 KB one
    Given a graduated deck on the STM32F401RE board
    Then SRAM has 28096 bytes free per Decision (§deck-sram-budget)
    And inserting a cartridge "null" with a 28 KB arena is refused per Decision (§deck-sram-budget)
    And the refusal names "sram: cartridge: 28672 bytes refused: more than is free in the STM32F401RE SRAM (budget 16384 to 32768 bytes, 28096 bytes free)" per Decision (§deck-sram-budget)
    And the deck shows the refusal "cartridge: 28672 bytes refused" per Decision (§deck-sram-budget)
    When a cartridge "null" with a 27 KB arena is inserted
    Then SRAM holds the cartridge arena with 27 KB
    And SRAM has 448 bytes free per Decision (§deck-sram-budget)
    When the player presses "BACK"
    Then the deck shows the HOME mode
    And the deck shows no refusal per Decision (§deck-sram-budget)

  @§deck-sram-budget @decision
  Scenario: On a 96 KB part a cartridge of exactly the free bytes fits and one byte more does not
    Given a graduated deck on the STM32F401RE board
    Then inserting a cartridge "null" with a 28097 byte arena is refused per Decision (§deck-sram-budget)
    And the refusal names "28097 bytes refused: more than is free in the STM32F401RE SRAM" per Decision (§deck-sram-budget)
    When a cartridge "null" with a 28096 byte arena is inserted
    Then SRAM holds the cartridge region with 28096 bytes per Decision (§deck-sram-budget)
    And SRAM has 0 bytes free per Decision (§deck-sram-budget)

  @§deck-sram-budget @decision
  Scenario: The same 32 KB cartridge fits the RP2350 but not the 96 KB part
    Given a graduated deck on the RP2350 board
    When a cartridge "null" with a 32 KB arena is inserted
    Then SRAM holds the cartridge arena with 32 KB
    Given a graduated deck on the STM32F401RE board
    Then inserting a cartridge "null" with a 32 KB arena is refused
    And the refusal names "cartridge: 32768 bytes refused" per Decision (§deck-sram-budget)

  @§deck-sram-budget @decision
  Scenario: A 64 KB part cannot hold the resident consumers
    Then powering on a deck on the nRF52832 board is refused
    And the refusal names "sram: deckstate: 4672 bytes refused: more than is free in the nRF52832 SRAM (budget 4096 to 5120 bytes, 0 bytes free)" per Decision (§deck-sram-budget)

  @§deck-arena-24k @§deck-sram-budget @decision
  Scenario: The REPL's Fe VM has the cells of the 24 KB the allocator granted
    Given a graduated deck
    When the player presses "EVAL"
    Then SRAM holds the repl arena with 24 KB
    And the REPL's Fe VM has 2938 cells in its 24576-byte arena per Decision (§deck-arena-24k)
    And SRAM has 437696 bytes free per Decision (§deck-sram-budget)

  @§deck-arena-24k @§deck-arena-oom @decision
  Scenario: The REPL arena runs out of memory after the conses a 24 KB arena holds
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= n 0) (try (fn nil (let l nil) (while t (= l (cons 1 l)) (= n (+ n 1))))) n)"
    Then the result is "2346" per Decision (§deck-arena-24k)

  @§deck-mutual-exclusion @decision
  Scenario: REPL, editor and cartridge arenas never coexist
    Given a graduated deck
    When the player presses "EVAL"
    Then allocating the editor arena with 16 KB is refused
    And the refusal names "mutually exclusive with repl" per Decision (§deck-sram-budget)
    And allocating the cartridge arena with 32 KB is refused
    And the refusal names "mutually exclusive with repl" per Decision (§deck-sram-budget)
    When the player evaluates "(open-in-nemacs (quote (+ 1 2)))"
    Then SRAM holds no repl arena
    And SRAM holds the editor arena with 16 KB
    When the player presses "BACK"
    Then the deck shows the HOME mode
    And row 24 reads "CDR next · EVAL select" per Decision (§deck-text-mode)

  @§deck-mutual-exclusion @decision
  Scenario: Going from the REPL to a cartridge tears the REPL down first
    Given a graduated deck
    When the player presses "EVAL"
    And a cartridge "null" with a 32 KB arena is inserted
    And the player presses "EVAL"
    Then SRAM holds no repl arena
    And SRAM holds the cartridge arena with 32 KB
    And row 1 reads "CARTRIDGE null ─ 32 KB ARENA" per Decision (§deck-text-mode)

  @§deck-eval-from-editor @decision
  Scenario: The editor's 16 KB is its 8 KB buffer and the 8 KB arena of its evaluator
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(open-in-nemacs (quote (do (= n 0) (try (fn nil (let l nil) (while t (= l (cons 1 l)) (= n (+ n 1))))) n)))"
    Then SRAM holds the editor-buffer region with 8192 bytes inside the editor region per Decision (§deck-eval-from-editor)
    And SRAM holds the editor-eval region with 8192 bytes inside the editor region per Decision (§deck-eval-from-editor)
    When the player presses "EVAL"
    Then the editor evaluator's Fe VM has 890 cells in its 8192-byte arena per Decision (§deck-eval-from-editor)
    And row 22 contains "=> 335" per Decision (§deck-eval-from-editor)

  @§deck-open-in-editor @decision
  Scenario Outline: The editor's buffer takes a form of at most 8 KB
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (let l nil) (let i 0) (while (< i <n>) (= l (cons (quote {s*63}) l)) (= i (+ i 1))) (open-in-nemacs l))"
    Then the deck shows the <mode> mode per Decision (§deck-open-in-editor)

    Examples:
      | n   | mode   |
      | 127 | NEMACS |

    Examples: one symbol more is 8193 bytes
      | n   | mode |
      | 128 | HOME |

  @§deck-open-in-editor @decision
  Scenario: An edit that would grow the buffer past 8 KB is undone
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (let l nil) (let i 0) (while (< i 127) (= l (cons (quote {s*63}) l)) (= i (+ i 1))) (open-in-nemacs l))"
    Then the editor's buffer holds 8129 bytes per Decision (§deck-open-in-editor)
    When the player presses "CAR PICK:get-reputation PICK:get-reputation PICK:get-reputation PICK:get-reputation"
    Then the editor's buffer holds 8189 bytes per Decision (§deck-open-in-editor)
    Then pressing "PICK:get-reputation" is refused per Decision (§deck-open-in-editor)
    And the refusal names "edit undone: sram: editor-buffer: 8204 bytes refused" per Decision (§deck-open-in-editor)
    And the editor's buffer holds 8189 bytes per Decision (§deck-open-in-editor)
    And row 22 contains "BUFFER FULL: editor-buffer 8204 bytes refused: budget 8192 bytes, 3 free" per Decision (§deck-open-in-editor)

  @§deck-open-in-editor @decision
  Scenario: A form over the buffer's budget is refused naming the buffer
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (let l nil) (let i 0) (while (< i 128) (= l (cons (quote {s*63}) l)) (= i (+ i 1))) (open-in-nemacs l))"
    Then the deck shows the refusal "sram: editor-buffer: 8193 bytes refused: does not fit the region (budget 8192 bytes, 8192 bytes free)" per Decision (§deck-open-in-editor)
    And SRAM holds no editor arena per Decision (§deck-open-in-editor)
    When the player presses "CDR"
    Then the deck shows no refusal per Decision (§deck-open-in-editor)

  @§deck-sram-budget @decision
  Scenario: A scripted mission runs in its sub-arena inside the cartridge arena
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(open-in-nemacs (quote (mission-active?)))"
    And a cartridge "ghost" with a 16 KB arena and a 4096 byte mission is inserted
    Then the cartridge "ghost" is waiting per Decision (§deck-sram-budget)
    When the player presses "BACK"
    Then the deck shows the MISSION mode per Decision (§deck-sram-budget)
    And the mission phase answers a true value
    And row 1 reads "CARTRIDGE ghost ─ MISSION PHASE ─ 4 KB SUB-ARENA" per Decision (§deck-sram-budget)
    And SRAM holds the mission region with 4096 bytes inside the cartridge region
    And the mission's Fe VM has 378 cells in its 4096-byte arena per Decision (§deck-sram-budget)
    And the mission phase shows "t" per Decision (§deck-mission-board-read)
    When the player presses "BACK"
    Then the deck shows the CART mode per Decision (§deck-sram-budget)
    And SRAM holds no mission arena
    And SRAM holds the cartridge arena with 16 KB

  @§deck-sram-budget @decision
  Scenario Outline: The mission sub-arena's size decides where its program runs out of memory
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(open-in-nemacs (quote (do (= n 0) (try (fn nil (let l nil) (while t (= l (cons 1 l)) (= n (+ n 1))))) n)))"
    And a cartridge "ghost" with a 32 KB arena and a <bytes> byte mission is inserted
    And the player presses "BACK"
    Then the mission's Fe VM has <cells> cells in its <bytes>-byte arena per Decision (§deck-sram-budget)
    And the mission phase shows "<conses>" per Decision (§deck-sram-budget)

    Examples:
      | bytes | cells | conses |
      | 4096  | 378   | 146    |
      | 8192  | 890   | 658    |

  @§deck-sram-budget @decision
  Scenario: A mission asking for less than 4 KB is refused
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(open-in-nemacs (quote (+ 1 2)))"
    And a cartridge "ghost" with a 16 KB arena and a 4095 byte mission is inserted
    And the player presses "BACK"
    Then every live SRAM region keeps its budget
    And the deck shows the CART mode per Decision (§deck-sram-budget)
    And the deck shows the refusal "sram: mission: 4095 bytes refused: outside its budget (budget 4096 to 8192 bytes, 16384 bytes free)" per Decision (§deck-sram-budget)
    And SRAM holds no mission arena per Decision (§deck-sram-budget)

  @§deck-clipboard @decision
  Scenario: The clipboard takes a cut of 1024 bytes and refuses one of 1025
    Given a graduated deck
    When the player presses "EVAL"
    And the player composes "\"{x*1022}\""
    And the player presses "NIL"
    Then the clipboard holds 1024 bytes
    When the player composes "\"{y*1023}\""
    And the player presses "NIL"
    Then row 22 contains "DELETED; clipboard 1025 bytes refused: budget 1024 bytes, 0 free" per Decision (§deck-clipboard)
    And the clipboard holds 1024 bytes per Decision (§deck-clipboard)

  @§deck-snippets @decision
  Scenario: The snippet library fills to exactly 4 KB and then refuses, naming its budget
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(snippet-save! (quote a) \"{x*4090}\")"
    Then the result is "nil" per Decision (§deck-snippets)
    When the player evaluates "(snippet-save! (quote b) 1)"
    Then the result is "(error snippet-library-full :message \"sram: snippets: 4101 bytes refused: does not fit the region (budget 4096 bytes, 0 bytes free)\")" per Decision (§deck-snippets)
    When the player evaluates "(list-length (snippet-list))"
    Then the result is "1" per Decision (§deck-snippets)

  @§deck-snippets @decision
  Scenario: A snippet one byte over the library is refused
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(snippet-save! (quote a) \"{x*4091}\")"
    Then the result starts with "(error snippet-library-full :message \"sram: snippets: 4097 bytes refused" per Decision (§deck-snippets)

  @§deck-snippets
  Scenario: Snippets of twice the Deck State's 4 KB do not all save: the save that overflows is a Lisp error
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= s \"{x*2100}\") (snippet-save! (quote a) s) (snippet-save! (quote b) s) (snippet-save! (quote c) s) (snippet-save! (quote d) s))"
    Then the result is a Lisp error

  @§deck-cycle-count @decision
  Scenario: Entering the REPL costs the opening of its VM and the cells its tier binds
    # 34,000 instructions to open the VM (47,600 cycles); the other 12,875 bind the REPL
    # tier, *tutorial-cursor* and *clipboard* (a regression pin: the same entry as the
    # golden screens, whose cycle counts never change).
    Given a graduated deck
    Then the deck has counted 0 cycles since power on per Decision (§deck-cycle-count)
    When the player presses "EVAL"
    Then the deck has counted 60475 cycles since power on per Decision (§deck-cycle-count)

  @§deck-cycle-count @decision
  Scenario: An evaluation reports its cycles and moves the clock
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    Then the evaluation reports its cycles and the clock moved on with them
    And the evaluation reports its cycles and the clock advanced by cycles / 150 MHz per Decision (§deck-cycle-count)
    When the player evaluates "(do (= i 0) (while (< i 300) (= i (+ i 1))))"
    Then the evaluation reports its cycles and the clock moved on with them
    And the clock moved at one rate for every evaluation

  @§deck-cycle-count
  Scenario: More work costs more cycles, and the same work at twice the CPI twice the cycles
    # A cycle count is instructions times the cycles per instruction (the CPI the
    # board runs at); a loop of more iterations runs more instructions.
    Given a graduated deck running at a CPI of 1.4
    When the player presses "EVAL"
    And the player evaluates "(do (= i 0) (while (< i 10) (= i (+ i 1))) i)"
    And the evaluation's cycles are noted
    And the player evaluates "(do (= i 0) (while (< i 100) (= i (+ i 1))) i)"
    Then the result is "100"
    And the evaluation took more than the noted cycles
    When the evaluation's cycles are noted
    And the deck is powered off and on again at a CPI of 2.8
    And the player presses "EVAL"
    And the player evaluates "(do (= i 0) (while (< i 10) (= i (+ i 1))) i)"
    And the player evaluates "(do (= i 0) (while (< i 100) (= i (+ i 1))) i)"
    Then the result is "100"
    And the evaluation took twice the noted cycles

  @§deck-cycle-count
  Scenario: A long loop of calls at twice the CPI costs twice the cycles, every event counted
    # Millions of cycles of calls, lookups through their environments, allocations and
    # collections: at twice the CPI every one of them costs twice, whatever the deck
    # does on the way to count them.
    Given a graduated deck running at a CPI of 1.4
    When the player presses "EVAL"
    And the player evaluates "(do (= f (fn (n) (let m (+ n 1)) m)) (= i 0) (while (< i 5000) (= i (f i))) i)"
    Then the result is "5000"
    When the evaluation's cycles are noted
    And the deck is powered off and on again at a CPI of 2.8
    And the player presses "EVAL"
    And the player evaluates "(do (= f (fn (n) (let m (+ n 1)) m)) (= i 0) (while (< i 5000) (= i (f i))) i)"
    Then the result is "5000"
    And the evaluation took twice the noted cycles

  @§deck-cycle-count
  Scenario: Pairs, arguments, lookups and allocations cost what the table says
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(car (quote (1 2 3)))"
    Then the result is "1"
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count | instructions |
      | pair   | 2     | 38           |
      | arg    | 2     | 38.5         |
      | lookup | 2     | 6.4          |
      | alloc  | 10    | 17           |
      | read   | 1     | 4430         |
      | print  | 1     | 3270         |

  @§deck-cycle-count
  Scenario: Printing a list prices each of its numbers
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(cdr (quote (1 2 3)))"
    Then the result is "(2 3)"
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count | instructions |
      | pair   | 2     | 38           |
      | arg    | 2     | 38.5         |
      | lookup | 2     | 6.4          |
      | alloc  | 10    | 17           |
      | read   | 1     | 4430         |
      | print  | 1     | 6750         |

  @§deck-cycle-count
  Scenario: Self-evaluating atoms cost what the table says
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    Then the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count | instructions |
      | pair   | 1     | 38           |
      | arg    | 2     | 38.5         |
      | lookup | 1     | 6.4          |
      | atom   | 2     | 8            |
      | alloc  | 6     | 17           |
      | read   | 1     | 2620         |
      | print  | 1     | 3270         |

  @§deck-cycle-count
  Scenario: A user function call costs what the table says, env steps included
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "((fn (x) x) 7)"
    Then the result is "7"
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count | instructions |
      | pair   | 2     | 38           |
      | arg    | 3     | 38.5         |
      | lookup | 3     | 6.4          |
      | call   | 1     | 80           |
      | atom   | 1     | 8            |
      | alloc  | 16    | 17           |
      | read   | 1     | 3110         |
      | print  | 1     | 3270         |

  @§deck-cycle-count
  Scenario: A garbage collection inside an evaluation is counted in it, a sweep over every cell of the arena
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= i 0) (while (< i 3000) (= i (+ i 1))))"
    Then the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count | instructions |
      | pair   | 9004  | 38           |
      | arg    | 21007 | 38.5         |
      | lookup | 15005 | 6.4          |
      | atom   | 6002  | 8            |
      | alloc  | 3025  | 17           |
      | mark   | 567   | 15           |
      | sweep  | 2938  | 15           |
      | read   | 1     | 9490         |
      | print  | 1     | 210          |

  @§deck-watchdog
  Scenario: A runaway loop is stopped and the REPL stays usable
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(while t nil)"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation took between 30000000 and 30150000 cycles per Decision (§deck-watchdog)
    When the player evaluates "(+ 1 2)"
    Then the result is "3"

  @§deck-watchdog @§deck-cycle-count
  Scenario: A loop stopped by the watchdog is charged every event up to the first one past the budget
    # 62,847 whole iterations and 26 collections of all 2,938 cells: 30,000,000 cycles,
    # the event that passed them, and the printed error (4,130 instructions).
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= i 0) (while t (= i (+ i 1))))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 125699 | 38           |
      | arg    | 314243 | 38.5         |
      | lookup | 251393 | 6.4          |
      | atom   | 62848  | 8            |
      | alloc  | 62868  | 17           |
      | mark   | 14638  | 15           |
      | sweep  | 76388  | 15           |
      | read   | 1      | 7820         |
      | print  | 1      | 4130         |
    When the player evaluates "i"
    Then the result is "62847" per Decision (§deck-watchdog)

  @§deck-watchdog @decision
  Scenario: A watchdog that fires during a collection stops the evaluation when the collection is done
    # The 165 leading 1s put the 30,000,000th cycle early in the 30th collection's marking:
    # the evaluation stops only when that collection is done, so every collection swept
    # all 2,938 cells, and its count ends 77,641 cycles past the budget (the printed error included).
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*165} (= i 0) (while t (= i (+ i 1))))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count  | instructions |
      | pair   | 122707 | 38           |
      | arg    | 306930 | 38.5         |
      | lookup | 245411 | 6.4          |
      | atom   | 61518  | 8            |
      | alloc  | 61702  | 17           |
      | mark   | 26790  | 15           |
      | sweep  | 88140  | 15           |
      | read   | 1      | 164570       |
      | print  | 1      | 4130         |
    # The collection finished: the next evaluation finds free cells and collects nothing.
    When the player evaluates "(+ 1 2)"
    Then the result is "3"
    And the evaluation's events and cycles are per Decision (§deck-cycle-count)
      | event  | count | instructions |
      | pair   | 1     | 38           |
      | arg    | 2     | 38.5         |
      | lookup | 1     | 6.4          |
      | atom   | 2     | 8            |
      | alloc  | 6     | 17           |
      | read   | 1     | 2620         |
      | print  | 1     | 3270         |

  @§deck-watchdog @decision
  Scenario: A runaway loop that makes closures is stopped at the allocation that passes the budget
    # The 26 leading 1s put the 30,000,000th cycle inside the allocation of a closure's
    # cell, the event the evaluation stops at.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*26} (while t (fn (x) x)))"
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

  @§deck-watchdog
  Scenario: try cannot catch the watchdog
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (try (fn nil (while t nil))) 5)"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    When the player evaluates "(try (fn nil (car 1)))"
    Then the result is a Lisp error naming "expected pair, got number"
    And the result is "(error fe-error :message \"expected pair, got number\")" per Decision (§deck-key-eval)

  @§deck-watchdog @decision
  Scenario Outline: The watchdog budget is 30,000,000 cycles: a loop just under it finishes, one just over is stopped
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= i 0) (while (< i <n>) (= i (+ i 1))))"
    Then the result is "<result>" per Decision (§deck-watchdog)
    And the evaluation took between <low> and <high> cycles per Decision (§deck-watchdog)

    Examples:
      | n     | result                                                        | low      | high     |
      | 45520 | nil                                                           | 29990000 | 29999999 |
      | 45530 | (error watchdog :message \"watchdog: cycle budget exceeded\") | 30000000 | 30150000 |

  @§deck-watchdog @decision
  Scenario Outline: At any CPI the watchdog stops an evaluation at the first event past its budget, not at the budget
    # At a CPI of 1.0 the events of these programs reach exactly 30,000,000 cycles at one
    # event. The evaluation is not stopped there but at the next event (a lookup of 6.4
    # cycles, a pair of 38, at most a call of 80), then prints its 59-character error
    # (4,130 cycles): more than 30,004,130 cycles in all.
    Given a graduated deck running at a CPI of 1.0
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*<pad>} (= i 0) (while (< i 100000) (= i (+ i 1))))"
    Then the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation took between 30004131 and 30004210 cycles per Decision (§deck-watchdog)

    Examples:
      | pad |
      | 94  |
      | 95  |
      | 203 |

  @§deck-arena-24k @decision
  Scenario Outline: The Fe VM's 256-entry GC root stack bounds recursion and arguments as Fe's does
    # A bare fe_open reaches sum-to 35 levels and 251 literal arguments; the REPL
    # session holds a few more roots, so sum-to stops a level sooner.
    # The two rows of nested do forms fill the stack to exactly its 256 entries before a
    # call that allocates nothing returns, and to one entry past it: rxi/fe ed4cda9
    # answers the same two forms the same way. In the three rows after them, the sum's or
    # the pair's own cell is the root one past the stack, after (car x)'s result took its
    # last entry (245 leading arguments leave room for it).
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "<program>"
    Then the result is "<result>" per Decision (§deck-arena-24k)

    Examples:
      | program                                                                        | result                                        |
      | (do (= sum-to (fn (n) (if (is n 0) 0 (+ n (sum-to (- n 1)))))) (sum-to 34))    | 595                                           |
      | (do (= sum-to (fn (n) (if (is n 0) 0 (+ n (sum-to (- n 1)))))) (sum-to 35))    | (error fe-error :message \"gc stack overflow\") |
      | (car (list 2{ 1*249}))                                                         | 2                                             |
      | (list{ 1*252})                                                                 | (error fe-error :message \"gc stack overflow\") |
      | (do (= d (fn (n) (d (+ n 1)))) (d 0))                                          | (error fe-error :message \"gc stack overflow\") |
      | (do (= d (fn (n) (d (+ n 1)))) (car (list 1 (d 0))))                           | (error fe-error :message \"gc stack overflow\") |
      | (do (= x (list 1)) (= f (fn (n) (if (is n 0) (do (do (do (do (do (car x)))))) (f (- n 1))))) (f 33))     | 1                                             |
      | (do (= x (list 1)) (= f (fn (n) (if (is n 0) (do (do (do (do (do (do (car x))))))) (f (- n 1))))) (f 33)) | (error fe-error :message \"gc stack overflow\") |
      | (do (= x (list 5)) (= f (fn nil (+ (car x) 1))) (car (list{ 1*245} (f))))       | 1                                             |
      | (do (= x (list 5)) (= f (fn nil (+ (car x) 1))) (car (list{ 1*246} (f))))       | (error fe-error :message \"gc stack overflow\") |
      | (do (= x (list 5)) (= f (fn nil (cons (car x) 1))) (car (list{ 1*246} (f))))    | (error fe-error :message \"gc stack overflow\") |

  @§deck-arena-24k @decision
  Scenario: A function calling itself with two arguments without end stops with a Lisp error, and the REPL stays usable
    # Its 256th root is the cell of an argument list: the stack is full there.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= d (fn (n m) (d n m))) (d 0 1))"
    Then the result is a Lisp error
    And the result is "(error fe-error :message \"gc stack overflow\")" per Decision (§deck-arena-24k)
    When the player evaluates "(+ 1 2)"
    Then the result is "3"

  @§deck-arena-oom
  Scenario: When the arena stays full, the history is not updated and the REPL says so
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(= l nil)"
    And the player evaluates "(while t (= l (cons 1 l)))"
    Then the result is a Lisp error naming "out of memory"
    And the result is "(error fe-error :message \"out of memory\")" per Decision (§deck-key-eval)
    And row 22 contains "HISTORY NOT UPDATED: ARENA FULL" per Decision (§deck-separator)
    When the player evaluates "(= l nil)"
    Then the result is "nil"
    When the player evaluates "(+ 1 2)"
    Then the result is "3"

  @§deck-arena-24k @§deck-arena-oom
  Scenario: A recursion that never ends is a Lisp error and the REPL goes on
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= d (fn (n) (d (+ n 1)))) (d 0))"
    Then the result is a Lisp error
    When the player evaluates "(car (list 7))"
    Then the result is "7"

  @§deck-arena-24k @§deck-arena-oom
  Scenario: A recursion Fe's 256-entry GC root stack cannot hold is Fe's gc stack overflow; one well within it is not
    # Each level of sum-to keeps about seven roots on Fe's GC stack: a bare Fe context
    # already stops before 37 levels, and a session's own roots only lower that.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= sum-to (fn (n) (if (is n 0) 0 (+ n (sum-to (- n 1)))))) (sum-to 30))"
    Then the result is "465"
    When the player evaluates "(sum-to 40)"
    Then the result is a Lisp error naming "gc stack overflow"
    When the player evaluates "(sum-to 20)"
    Then the result is "210"
