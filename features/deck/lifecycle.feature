@deck
Feature: Lifecycle — invocation, first boot, cartridges and teardown

  @§deck-invoke
  Scenario: Selecting DEV REPL opens a fresh session with the REPL tier bound
    Given a graduated deck
    When the player presses "CDR CAR EVAL"
    Then the deck shows the REPL mode
    And SRAM holds the repl arena with 24 KB
    And row 23 reads "█"
    When the player evaluates "(get-credits)"
    Then the result is "100"
    When the player presses "BACK BACK EVAL"
    Then row 3 contains "► DEV REPL"

  @§deck-invoke
  Scenario: Leaving nEmacs returns to the home context it was opened from
    Given a graduated deck
    When the player presses "CDR"
    Then row 4 contains "► NEMACS"
    When the player presses "EVAL"
    Then the deck shows the NEMACS mode
    When the player presses "BACK"
    Then the deck shows the HOME mode
    And row 4 contains "► NEMACS"
    And row 3 does not contain "►"
    # CAR and CDR step through the three home items and wrap at either end.
    When the player presses "CAR CAR"
    Then row 5 contains "► DECK STATE"
    When the player presses "CDR"
    Then row 3 contains "► DEV REPL"

  @§deck-cart-prompt @§deck-mutual-exclusion
  Scenario: A cartridge inserted in nEmacs loads as nEmacs closes, and once ejected the slot is empty
    Given a graduated deck
    When the player presses "CDR EVAL"
    And a cartridge "null" with a 16 KB arena is inserted
    Then the deck shows the NEMACS mode
    When the player presses "BACK"
    Then the deck shows the CART mode
    And SRAM holds the cartridge arena with 16 KB
    When the cartridge is ejected
    Then the deck shows the HOME mode
    When a cartridge "null" with a 20 KB arena is inserted
    Then the deck shows the CART mode
    And SRAM holds the cartridge arena with 20 KB

  @§deck-invoke @§deck-first-boot
  Scenario: The first-run prompt shows once and accepting starts the tutorial
    Given a new deck
    Then row 12 contains "FIRST-RUN DIAGNOSTIC AVAILABLE. PRESS EVAL TO BEGIN."
    When the player presses "EVAL"
    Then the tutorial cursor is at first_boot_seen
    And the deck shows the REPL mode
    And row 1 contains "TUTORIAL 1/4"
    When the deck is powered off and on again
    Then row 12 is blank

  @§deck-first-boot @decision
  Scenario: Declining the first-run prompt still counts as seen
    Given a new deck
    When the player presses "CDR"
    Then row 12 is blank
    And the tutorial cursor is at first_boot_seen
    And the deck shows the HOME mode

  @§deck-cart-prompt
  Scenario: Inserting a cartridge while the REPL runs asks about the session
    Given a graduated deck
    When the player presses "EVAL"
    And a cartridge "null" with a 32 KB arena is inserted
    Then row 24 reads "CARTRIDGE INSERTED. SAVE REPL SESSION? (EVAL=YES, BACK=NO)"

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

  @§deck-teardown
  Scenario: Exit confirms new history, saves it and returns home
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And the player presses "BACK BACK"
    Then row 22 contains "EXIT REPL? HISTORY WILL BE SAVED. (EVAL=YES, BACK=CANCEL)"
    And the persisted history fits 512 bytes and holds 0 entries
    When the player presses "EVAL"
    Then the deck shows the HOME mode
    And SRAM holds no repl arena
    And the persisted history fits 512 bytes and holds 1 entries

  @§deck-teardown @decision
  Scenario Outline: A flash that fails with <fault> keeps the REPL open and the old image in flash
    Given a graduated deck of "NEO" with 250 credits and reputation 3
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And the flash starts failing with <fault>
    Then pressing "BACK BACK EVAL" fails naming "save state"
    And the deck shows the REPL mode
    And SRAM holds the repl arena with 24 KB
    And row 22 contains "FLASH WRITE FAILED: HISTORY NOT SAVED"
    And the flash holds only "deckstate.bin"
    When the deck is powered off and on again
    Then row 0 contains "NEO  CR 250  REP 3"
    And the tutorial cursor is at graduated
    And the deck shows no refusal

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
    Then pressing "BACK BACK EVAL" fails naming "save state"
    When the flash works again
    And the player presses "BACK EVAL"
    Then the deck shows the HOME mode
    And SRAM holds no repl arena
    And the persisted history fits 512 bytes and holds 1 entries
    When the deck is powered off and on again
    And the player presses "EVAL"
    Then the history holds 1 entries, the newest "(+ 1 2)"

  @§deck-open-in-editor @§deck-teardown @decision
  Scenario: When the flash fails as the REPL is saved for the editor, the REPL stays open
    Given a graduated deck
    When the player presses "EVAL"
    And the player composes "(open-in-nemacs (quote (+ 1 2)))"
    And the flash starts failing with write-error
    Then pressing "EVAL" fails naming "save state"
    And the deck shows the REPL mode
    And SRAM holds no editor arena

  @§deck-cart-eval @decision
  Scenario: When the flash fails as the REPL is saved for a cartridge, the REPL stays open and the cartridge waits
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    And a cartridge "ghost" with a 16 KB arena is inserted
    And the flash starts failing with write-error
    Then pressing "EVAL" fails naming "save state"
    And the deck shows the REPL mode
    And the cartridge "ghost" is waiting
    When the flash works again
    And the player presses "BACK BACK EVAL"
    Then the cartridge "ghost" is loaded
    And SRAM holds no repl arena

  @§deck-cart-prompt
  Scenario: Pulling out a cartridge before answering withdraws the question
    Given a graduated deck
    When the player presses "EVAL"
    And a cartridge "null" with a 32 KB arena is inserted
    Then row 24 reads "CARTRIDGE INSERTED. SAVE REPL SESSION? (EVAL=YES, BACK=NO)"
    When the cartridge is ejected
    Then row 24 reads "CAR descend · CDR sibling · CONS palette · QUOTE history · EVAL run · BACK exit"
    When the player evaluates "(+ 1 2)"
    Then the result is "3"
    And the deck shows the REPL mode
    And SRAM holds no cartridge arena

  @§deck-cart-back
  Scenario: While a cartridge waits, the slot is full
    Given a graduated deck
    When the player presses "EVAL"
    And a cartridge "null" with a 16 KB arena is inserted
    And the player presses "BACK"
    Then inserting a cartridge "two" with a 16 KB arena is refused naming "insert two: the slot is full"
    And the cartridge "null" is waiting
