@deck
Feature: Owned data — the arena, *history* and the tutorial cursor

  The REPL owns a 24 KB arena for one session, a persisted *history* of the last
  32 evaluations and the tutorial cursor kept in deck state.

  @§deck-arena-24k
  Scenario: Entering the REPL allocates 24 KB and leaving releases it
    Given a graduated deck
    When the player presses "EVAL"
    Then SRAM holds the repl arena with 24 KB
    When the player presses "BACK BACK"
    Then the deck shows the HOME mode
    And SRAM holds no repl arena

  @§deck-arena-fresh
  Scenario: Bindings die with the session, history survives
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(= x 5)"
    And the player evaluates "x"
    Then the result is "5"
    When the player presses "BACK BACK EVAL EVAL"
    And the player evaluates "x"
    Then the result is "nil"
    And the history holds 3 entries, the newest "x"

  @§deck-arena-oom
  Scenario: Filling the arena is a Lisp error and the REPL goes on
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (let l nil) (while t (= l (cons 1 l))))"
    Then the result is a Lisp error naming "out of memory"
    And the result is "(error fe-error :message \"out of memory\")" per Decision (§deck-key-eval)
    And SRAM holds the repl arena with 24 KB
    When the player evaluates "(+ 1 2)"
    Then the result is "3"

  @§deck-history-cell @decision
  Scenario: *history* is a Lisp list of the expressions and their printed results, newest first
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And the player evaluates "(car *history*)"
    Then the result contains "(+ 1 2)"
    And the result contains "\"3\""
    And the result is "((+ 1 2) . \"3\")" per Decision (§deck-history-cell)
    # *history* now starts with the entry of (car *history*), then that of (+ 1 2).
    When the player evaluates "(car (car (cdr *history*)))"
    Then the result is "(+ 1 2)"
    When the player evaluates "(car (car *history*))"
    Then the result is "(car (car (cdr *history*)))"

  @§deck-history-cell
  Scenario: *history* keeps the last 32 evaluations
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)" 33 times
    And the player evaluates "(list-length *history*)"
    Then the result is "32"
    And the history holds 32 entries, the newest "(list-length *history*)"

  @§deck-history-persist @decision
  Scenario: History is persisted within 512 bytes, oldest entries dropped
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(list 1 2 3 4 5 6 7 8 9)" 12 times
    And the player presses "BACK BACK EVAL"
    Then the persisted history fits 512 bytes
    And the persisted history fits 512 bytes and holds 11 entries per Decision (§deck-history-persist)
    When the deck is powered off and on again
    And the player presses "EVAL"
    Then the newest history entry is "(list 1 2 3 4 5 6 7 8 9)"
    And the history holds 11 entries, the newest "(list 1 2 3 4 5 6 7 8 9)" per Decision (§deck-history-persist)

  @§deck-history-persist @decision
  Scenario: A history of exactly 512 bytes is kept whole and reads back
    # 3 + 27 + 22 = 52 bytes for the first entry, 3 + 24 + 19 = 46 for each
    # of the ten others: 52 + 460 = 512, the region's size to the byte.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(list 10 20 30 4 5 6 7 8 9)"
    And the player evaluates "(list 1 2 3 4 5 6 7 8 9)" 10 times
    And the player presses "BACK BACK EVAL"
    Then the persisted history fits 512 bytes
    And the persisted history fits 512 bytes and holds 11 entries per Decision (§deck-history-persist)
    When the deck is powered off and on again
    And the player presses "EVAL"
    Then the newest history entry is "(list 1 2 3 4 5 6 7 8 9)"
    And the history holds 11 entries, the newest "(list 1 2 3 4 5 6 7 8 9)" per Decision (§deck-history-persist)

  @§deck-history-persist
  Scenario: A short history comes back whole after a power cycle
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And the player evaluates "(list 7 8)"
    And the player presses "BACK BACK EVAL"
    Then the persisted history fits 512 bytes and holds 2 entries
    When the deck is powered off and on again
    And the player presses "EVAL"
    Then the history holds 2 entries, the newest "(list 7 8)"
    When the player evaluates "(car (car (cdr *history*)))"
    Then the result is "(+ 1 2)"

  @§deck-tutorial-latch @decision
  Scenario: A damaged deck-state image counts as a wiped deck and is rewritten
    Given a graduated deck of "NEO" with 250 credits and reputation 3
    When one byte of the deck-state image in flash is flipped
    And the deck is powered off and on again
    Then the deck state is that of a new deck per Decision (§deck-tutorial-latch)
    And the screen shows "FIRST-RUN DIAGNOSTIC AVAILABLE. PRESS EVAL TO BEGIN." per Decision (§deck-tutorial-latch)
    When the deck is powered off and on again
    Then the deck state is that of a new deck per Decision (§deck-tutorial-latch)

  @§deck-tutorial-latch @decision
  Scenario Outline: An image whose checksum matches but whose <field> is wrong is refused at power on, and the deck says so
    Given a graduated deck of "NEO" with 250 credits and reputation 3
    When the deck-state image in flash gets <edit> under a matching checksum
    And the deck is powered off and on again
    Then the deck state is that of a new deck per Decision (§deck-tutorial-latch)
    And the deck shows the refusal "deck state: corrupt image: <why>; the deck starts as a new deck" per Decision (§deck-tutorial-latch)
    And the screen shows "FIRST-RUN DIAGNOSTIC AVAILABLE. PRESS EVAL TO BEGIN." per Decision (§deck-tutorial-latch)
    When the player presses "BACK"
    Then the deck shows no refusal per Decision (§deck-tutorial-latch)

    Examples:
      | field          | edit                     | why                          |
      | magic          | the magic "KCED"         | bad magic or version         |
      | version        | version 2                | bad magic or version         |
      | history length | a history length of 513  | region length 513 over 512   |
      | snippet length | a snippet length of 4097 | region length 4097 over 4096 |
      | handle         | a first handle byte of 0x7f | handle byte 0x7f          |
      | history        | a history length of 2    | history: expression overruns at 2 |
      | history        | a history length of 1    | history: bad entry header at 0    |
      | history        | the history "00 05 61"   | history: expression overruns at 2 |
      | history        | the history "00 01 61 ff 62" | history: result overruns at 4 |
      | tutorial       | a tutorial byte of 0x20  | tutorial or seed out of range     |
      | Cipher seed    | a Cipher seed of 0x1000000 | tutorial or seed out of range   |
      | handle         | a first handle byte of 0x1f | handle byte 0x1f          |

  @§deck-tutorial-latch @decision
  Scenario: An image rewritten with its own magic and version and a printable handle under a matching checksum powers on as it was
    Given a graduated deck of "NEO" with 250 credits and reputation 3
    When the deck-state image in flash gets the magic "DECK" under a matching checksum
    And the deck-state image in flash gets version 1 under a matching checksum
    And the deck-state image in flash gets a first handle byte of 0x7e under a matching checksum
    And the deck is powered off and on again
    Then the status bar shows "~EO", 250 credits and reputation 3 per Decision (§deck-tutorial-latch)
    And row 0 contains "~EO  CR 250  REP 3" per Decision (§deck-status-bar)
    And the tutorial cursor is at graduated per Decision (§deck-tutorial-latch)
    And the deck shows no refusal per Decision (§deck-tutorial-latch)

  @§deck-status-bar @decision
  Scenario: A handle of 16 bytes is kept; one of 17 bytes is refused and the deck keeps the old one
    Given a graduated deck of "NEO" with 250 credits and reputation 3
    Then setting the operator handle to "SEVENTEEN-LETTERS" is refused per Decision (§deck-status-bar)
    And the refusal names "longer than 16 bytes" per Decision (§deck-status-bar)
    And the status bar shows "NEO", 250 credits and reputation 3 per Decision (§deck-status-bar)
    When the deck is powered off and on again
    Then the status bar shows "NEO", 250 credits and reputation 3 per Decision (§deck-status-bar)
    When the operator handle is set to "SIXTEEN-LETTERS!"
    And the deck is powered off and on again
    Then the status bar shows "SIXTEEN-LETTERS!", 250 credits and reputation 3
    And row 0 contains "SIXTEEN-LETTERS!  CR 250  REP 3" per Decision (§deck-status-bar)

  @§deck-history-persist
  Scenario: An expression's printed result comes back with it after a power cycle
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And the player presses "BACK BACK EVAL"
    And the deck is powered off and on again
    And the player presses "EVAL"
    And the player evaluates "*history*"
    Then the result contains "(+ 1 2)"
    And the result contains "\"3\""

  @§deck-status-bar
  Scenario: A handle holding a blank and a tilde survives a power cycle
    Given a graduated deck of "NEO" with 250 credits and reputation 3
    When the operator handle is set to "K ~"
    And the deck is powered off and on again
    Then the status bar shows "K ~", 250 credits and reputation 3

  @§deck-tutorial-cursor
  Scenario: The tutorial cursor records progress in deck state and in Lisp
    Given a new deck
    When the player presses "EVAL"
    Then the tutorial cursor is at first_boot_seen
    When the player presses "EVAL EVAL EVAL"
    Then the tutorial cursor is at car_cdr_completed
    When the deck is powered off and on again
    Then the tutorial cursor is at car_cdr_completed

  @§deck-tutorial-cursor @§deck-ffi-readonly
  Scenario: *tutorial-cursor* reads the cursor from Lisp
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "*tutorial-cursor*"
    Then the result is "graduated"

  @§deck-tutorial-latch @decision
  Scenario: Graduation latches until a wipe
    Given a graduated deck
    When the deck is powered off and on again
    And the player presses "EVAL"
    Then the banner shows no tutorial stage
    When the player presses "BACK BACK"
    Then the screen does not show "FIRST-RUN DIAGNOSTIC AVAILABLE"
    When the deck is wiped
    Then the screen shows "FIRST-RUN DIAGNOSTIC AVAILABLE. PRESS EVAL TO BEGIN." per Decision (§deck-tutorial-latch)
    When the player presses "EVAL"
    Then the banner shows tutorial stage 1

  @§deck-tutorial-latch @decision
  Scenario: RESET TUTORIAL in the Deck State browser re-arms the tutorial but not the first-run prompt
    Given a graduated deck
    When the player presses "CDR CDR EVAL"
    Then the deck shows the DECK mode
    And row 5 contains "TUTORIAL graduated" per Decision (§deck-tutorial-latch)
    When the player presses "EVAL"
    Then the tutorial cursor is at first_boot_seen per Decision (§deck-tutorial-latch)
    And row 5 contains "TUTORIAL first_boot_seen" per Decision (§deck-tutorial-latch)
    When the deck is powered off and on again
    Then the screen does not show "FIRST-RUN DIAGNOSTIC AVAILABLE" per Decision (§deck-tutorial-latch)
    When the player presses "EVAL"
    Then the deck shows the REPL mode
    And the banner shows tutorial stage 1

  @§deck-tutorial-latch
  Scenario: Graduation survives leaving the REPL and power cycles until a reset
    Given a new deck
    When the player presses "EVAL EVAL BACK EVAL"
    Then the tutorial cursor is at graduated
    When the player presses "BACK BACK"
    And the deck is powered off and on again
    And the player presses "EVAL"
    Then the banner shows no tutorial stage
    And the tutorial cursor is at graduated

  @§deck-tutorial-cursor
  Scenario: A handle with a space survives a power cycle
    Given a graduated deck of "NEO ONE" with 100 credits and reputation 0
    When the deck is powered off and on again
    Then the status bar shows "NEO ONE", 100 credits and reputation 0
