@deck
Feature: Lifecycle — invocation, first boot, cartridges and teardown

  @§deck-invoke @decision
  Scenario: Selecting DEV REPL opens a fresh session with the REPL tier bound
    Given a graduated deck
    When the player presses "CDR CAR EVAL"
    Then the deck shows the REPL mode
    And SRAM holds the repl arena with 24 KB
    And the prompt line is empty
    And row 23 reads "█" per Decision (§deck-prompt-structural)
    When the player evaluates "(get-credits)"
    Then the result is "100"
    When the player presses "BACK BACK EVAL"
    Then the deck shows the HOME mode
    And the action bar shows key hints
    And row 3 contains "► DEV REPL" per Decision (§deck-invoke)
    # The home context was saved: DEV REPL is still the item EVAL selects.
    When the player presses "EVAL"
    Then the deck shows the REPL mode

  @§deck-invoke @§deck-teardown
  Scenario: Leaving the REPL returns to the home context saved on entering it, not one saved before
    Given a graduated deck
    When the player presses "CDR EVAL"
    Then the deck shows the NEMACS mode
    When the player presses "BACK CAR EVAL"
    Then the deck shows the REPL mode
    When the player presses "BACK BACK"
    Then the deck shows the HOME mode
    # The context saved on entering the REPL had DEV REPL selected, not NEMACS.
    When the player presses "EVAL"
    Then the deck shows the REPL mode

  @§deck-invoke @decision
  Scenario: Leaving nEmacs returns to the home context it was opened from
    Given a graduated deck
    When the player presses "CDR"
    Then row 4 contains "► NEMACS" per Decision (§deck-invoke)
    When the player presses "EVAL"
    Then the deck shows the NEMACS mode
    When the player presses "BACK"
    Then the deck shows the HOME mode
    And row 4 contains "► NEMACS" per Decision (§deck-invoke)
    And row 3 does not contain "►" per Decision (§deck-invoke)
    # CAR and CDR step through the three home items and wrap at either end.
    When the player presses "CAR CAR"
    Then row 5 contains "► DECK STATE" per Decision (§deck-invoke)
    When the player presses "CDR"
    Then row 3 contains "► DEV REPL" per Decision (§deck-invoke)
    When the player presses "CDR EVAL"
    Then the deck shows the NEMACS mode

  @§deck-eval-from-editor
  Scenario: A form composed in nEmacs opened empty from home runs there
    Given a graduated deck
    When the player presses "CDR EVAL"
    Then the deck shows the NEMACS mode
    When the player composes "(* 6 7)"
    And the player presses "EVAL"
    Then row 22 contains "42"
    And the deck shows the NEMACS mode

  @§deck-cart-prompt @§deck-mutual-exclusion
  Scenario: A cartridge inserted in nEmacs loads as nEmacs closes, and once ejected the slot is empty
    Given a graduated deck
    When the player presses "CDR EVAL"
    And a cartridge "null" with a 16 KB arena is inserted
    Then the deck shows the NEMACS mode
    When the player presses "BACK"
    Then the deck shows the CART mode
    And the action bar shows key hints
    And SRAM holds the cartridge arena with 16 KB
    When the cartridge is ejected
    Then the deck shows the HOME mode
    When a cartridge "null" with a 20 KB arena is inserted
    Then the deck shows the CART mode
    And SRAM holds the cartridge arena with 20 KB

  @§deck-first-boot @decision
  Scenario: The first-run answer stands when the flash refuses it, and the prompt comes back at the next power on
    Given a new deck
    When the flash starts failing with write-error
    Then pressing "EVAL" is refused per Decision (§deck-first-boot)
    And the refusal names "save state" per Decision (§deck-first-boot)
    And the deck shows the REPL mode per Decision (§deck-first-boot)
    And the tutorial cursor is at first_boot_seen per Decision (§deck-first-boot)
    When the deck is powered off and on again
    Then the screen shows "FIRST-RUN DIAGNOSTIC AVAILABLE. PRESS EVAL TO BEGIN." per Decision (§deck-first-boot)

  @§deck-invoke @§deck-first-boot @decision
  Scenario: The first-run prompt shows once and accepting starts the tutorial
    Given a new deck
    Then the screen shows "FIRST-RUN DIAGNOSTIC AVAILABLE. PRESS EVAL TO BEGIN."
    And row 12 contains "FIRST-RUN DIAGNOSTIC AVAILABLE. PRESS EVAL TO BEGIN." per Decision (§deck-first-boot)
    When the player presses "EVAL"
    Then the tutorial cursor is at first_boot_seen
    And the deck shows the REPL mode
    And the banner shows tutorial stage 1
    And row 1 contains "TUTORIAL 1/4" per Decision (§deck-banner)
    When the deck is powered off and on again
    Then the screen does not show "FIRST-RUN DIAGNOSTIC AVAILABLE"
    And row 12 is blank per Decision (§deck-first-boot)

  @§deck-first-boot @decision
  Scenario: Declining the first-run prompt still counts as seen
    Given a new deck
    When the player presses "CDR"
    Then the screen does not show "FIRST-RUN DIAGNOSTIC AVAILABLE" per Decision (§deck-first-boot)
    And the tutorial cursor is at first_boot_seen per Decision (§deck-first-boot)
    And the deck shows the HOME mode

  @§deck-cart-prompt @decision
  Scenario: Inserting a cartridge while the REPL runs asks about the session
    Given a graduated deck
    When the player presses "EVAL"
    And a cartridge "null" with a 32 KB arena is inserted
    Then the screen shows "CARTRIDGE INSERTED. SAVE REPL SESSION? (EVAL=YES, BACK=NO)"
    And row 24 reads "CARTRIDGE INSERTED. SAVE REPL SESSION? (EVAL=YES, BACK=NO)" per Decision (§deck-cart-prompt)
    And the deck shows the REPL mode

  @§deck-cart-eval
  Scenario: EVAL saves history, frees the arena and loads the cartridge
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And a cartridge "null" with a 32 KB arena is inserted
    And the player presses "EVAL"
    Then the cartridge "null" is loaded
    And SRAM holds no repl arena
    And SRAM holds the cartridge arena with 32 KB
    And the persisted history fits 512 bytes and holds 1 entries

  @§deck-cart-back
  Scenario: BACK defers the cartridge until the REPL exits
    Given a graduated deck
    When the player presses "EVAL"
    And a cartridge "null" with a 16 KB arena is inserted
    And the player presses "BACK"
    Then the cartridge "null" is waiting
    And the deck shows the REPL mode
    And SRAM holds no cartridge arena
    When the player presses "BACK BACK"
    Then the cartridge "null" is loaded
    And SRAM holds the cartridge arena with 16 KB

  @§deck-no-suspend @§deck-arena-fresh
  Scenario: After a cartridge the REPL reopens fresh with its history
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(= x 5)"
    And a cartridge "null" with a 32 KB arena is inserted
    And the player presses "EVAL"
    And the player presses "BACK"
    Then the deck shows the HOME mode
    When the player presses "EVAL"
    And the player evaluates "x"
    Then the result is "nil"
    And the history holds 2 entries, the newest "x"

  @§deck-teardown @decision
  Scenario: Exit confirms new history, saves it and returns home
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And the player presses "BACK BACK"
    Then the REPL asks before it is left
    And row 22 contains "EXIT REPL? HISTORY WILL BE SAVED. (EVAL=YES, BACK=CANCEL)" per Decision (§deck-teardown)
    And the persisted history fits 512 bytes and holds 0 entries
    When the player presses "EVAL"
    Then the deck shows the HOME mode
    And SRAM holds no repl arena
    And the persisted history fits 512 bytes and holds 1 entries

  @§deck-teardown
  Scenario: Leaving a REPL whose history has nothing new asks nothing
    Given a graduated deck
    When the player presses "EVAL BACK BACK"
    Then the deck shows the HOME mode
    And SRAM holds no repl arena

  @§deck-teardown @decision
  Scenario Outline: A flash that fails with <fault> keeps the REPL open and the old image in flash
    Given a graduated deck of "NEO" with 250 credits and reputation 3
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And the flash starts failing with <fault>
    Then pressing "BACK BACK EVAL" is refused per Decision (§deck-teardown)
    And the refusal names "save state" per Decision (§deck-teardown)
    And the deck shows the REPL mode per Decision (§deck-teardown)
    And SRAM holds the repl arena with 24 KB per Decision (§deck-teardown)
    And row 22 contains "FLASH WRITE FAILED: HISTORY NOT SAVED" per Decision (§deck-teardown)
    And the flash holds only "deckstate.bin" per Decision (§deck-teardown)
    When the deck is powered off and on again
    Then the status bar shows "NEO", 250 credits and reputation 3
    And row 0 contains "NEO  CR 250  REP 3" per Decision (§deck-status-bar)
    And the tutorial cursor is at graduated
    And the deck shows no refusal per Decision (§deck-tutorial-latch)

    Examples:
      | fault       |
      | write-error |
      | enospc      |
      | torn-write  |
      | short-write |
      | rename-fail |

  @§deck-teardown
  Scenario Outline: A history the flash could not take when the REPL was left (<fault>) is not lost
    # Leaving the REPL persists its history: a deck whose flash fails then either stays
    # in the REPL, or has left it with the history saved, so it survives the power.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And the flash starts failing with <fault>
    And the player presses "BACK BACK EVAL", refused or not
    And the flash works again
    And the player leaves the REPL
    And the deck is powered off and on again
    And the player presses "EVAL"
    Then the history holds 1 entries, the newest "(+ 1 2)"

    Examples:
      | fault       |
      | write-error |
      | enospc      |
      | torn-write  |
      | short-write |
      | rename-fail |

  @§deck-teardown @decision
  Scenario: Once the flash works again, leaving the REPL saves the history it kept
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And the flash starts failing with write-error
    Then pressing "BACK BACK EVAL" is refused per Decision (§deck-teardown)
    And the refusal names "save state" per Decision (§deck-teardown)
    When the flash works again
    And the player presses "BACK EVAL"
    Then the deck shows the HOME mode per Decision (§deck-teardown)
    And SRAM holds no repl arena per Decision (§deck-teardown)
    And the persisted history fits 512 bytes and holds 1 entries per Decision (§deck-teardown)
    When the deck is powered off and on again
    And the player presses "EVAL"
    Then the history holds 1 entries, the newest "(+ 1 2)" per Decision (§deck-teardown)

  @§deck-open-in-editor @§deck-teardown @decision
  Scenario: When the flash fails as the REPL is saved for the editor, the REPL stays open
    Given a graduated deck
    When the player presses "EVAL"
    And the player composes "(open-in-nemacs (quote (+ 1 2)))"
    And the flash starts failing with write-error
    Then pressing "EVAL" is refused per Decision (§deck-teardown)
    And the refusal names "save state" per Decision (§deck-teardown)
    And the deck shows the REPL mode per Decision (§deck-teardown)
    And SRAM holds no editor arena per Decision (§deck-teardown)
    # The failed call is over: the next evaluation stays in the REPL.
    When the flash works again
    And the player evaluates "(+ 1 2)"
    Then the deck shows the REPL mode per Decision (§deck-teardown)
    And SRAM holds no editor arena per Decision (§deck-teardown)

  @§deck-cart-eval @decision
  Scenario: When the flash fails as the REPL is saved for a cartridge, the REPL stays open and the cartridge waits
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And a cartridge "ghost" with a 16 KB arena is inserted
    And the flash starts failing with write-error
    Then pressing "EVAL" is refused per Decision (§deck-cart-eval)
    And the refusal names "save state" per Decision (§deck-cart-eval)
    And the deck shows the REPL mode per Decision (§deck-cart-eval)
    And the cartridge "ghost" is waiting per Decision (§deck-cart-eval)
    When the flash works again
    And the player presses "BACK BACK EVAL"
    Then the cartridge "ghost" is loaded per Decision (§deck-cart-eval)
    And SRAM holds no repl arena per Decision (§deck-cart-eval)

  @§deck-cart-eval @§deck-teardown
  Scenario: A cartridge inserted while the REPL is open is not lost when the flash fails as the REPL is saved for it
    # The cartridge stays in the slot: it loads once the REPL is gone, and the history the
    # REPL kept survives as any history does.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And a cartridge "ghost" with a 16 KB arena is inserted
    And the flash starts failing with write-error
    And the player presses "EVAL", refused or not
    And the flash works again
    And the player leaves the REPL
    Then the cartridge "ghost" is loaded
    And SRAM holds no repl arena
    When the cartridge is ejected
    And the deck is powered off and on again
    And the player presses "EVAL"
    Then the history holds 1 entries, the newest "(+ 1 2)"

  @§deck-cart-prompt @decision
  Scenario: Pulling out a cartridge before answering withdraws the question
    Given a graduated deck
    When the player presses "EVAL"
    And a cartridge "null" with a 32 KB arena is inserted
    Then the screen shows "CARTRIDGE INSERTED. SAVE REPL SESSION? (EVAL=YES, BACK=NO)"
    When the cartridge is ejected
    Then the screen does not show "CARTRIDGE INSERTED" per Decision (§deck-cart-prompt)
    And row 24 contains "CAR descend · CDR sibling · CONS palette · QUOTE history · EVAL run · BACK exit" per Decision (§deck-cart-prompt)
    When the player evaluates "(+ 1 2)"
    Then the result is "3" per Decision (§deck-cart-prompt)
    And the deck shows the REPL mode per Decision (§deck-cart-prompt)
    And SRAM holds no cartridge arena per Decision (§deck-cart-prompt)

  @§deck-cart-back @decision
  Scenario: While a cartridge waits, the slot is full
    Given a graduated deck
    When the player presses "EVAL"
    And a cartridge "null" with a 16 KB arena is inserted
    And the player presses "BACK"
    Then inserting a cartridge "two" with a 16 KB arena is refused
    And the refusal names "insert two: the slot is full" per Decision (§deck-cart-back)
    And the cartridge "null" is waiting
