@deck
Feature: Memory orchestration — the SRAM budget and the cycle model

  @§deck-sram-budget
  Scenario: Every consumer is checked against the budget table
    Given a graduated deck
    Then allocating the repl arena with 8 KB is refused naming "budget is 24–24 KB"
    And allocating the mission arena with 4 KB is refused naming "cartridge arena, which is not allocated"
    And allocating the cartridge arena with 48 KB is refused naming "budget is 16–32 KB"
    And allocating the gpu arena with 4 KB is refused naming "no such consumer"

  @§deck-mutual-exclusion
  Scenario: REPL, editor and cartridge arenas never coexist
    Given a graduated deck
    When the player presses "EVAL"
    Then allocating the editor arena with 16 KB is refused naming "mutually exclusive with repl"
    And allocating the cartridge arena with 32 KB is refused naming "mutually exclusive with repl"
    When the player evaluates "(open-in-nemacs (quote (+ 1 2)))"
    Then SRAM holds no repl arena
    And SRAM holds the editor arena with 16 KB

  @§deck-mutual-exclusion @decision
  Scenario: Going from the REPL to a cartridge tears the REPL down first
    Given a graduated deck
    When the player presses "EVAL"
    And a cartridge "null" with a 32 KB arena is inserted
    And the player presses "EVAL"
    Then SRAM holds no repl arena
    And SRAM holds the cartridge arena with 32 KB

  @§deck-cycle-count
  Scenario: An evaluation reports its cycles and moves the clock
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(+ 1 2)"
    Then the evaluation reports its cycles and the clock advanced by cycles / 150 MHz

  @§deck-watchdog
  Scenario: A runaway loop is stopped and the REPL stays usable
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(while t nil)"
    Then the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")"
    And the evaluation took at least 30000000 cycles
    When the player evaluates "(+ 1 2)"
    Then the result is "3"
