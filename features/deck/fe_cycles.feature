@deck
Feature: Fe on the deck — the events a function's body is charged for, counted by hand

  The cycle model charges every symbol lookup one event, plus one for each environment binding it
  walks: inside a one-parameter function a global walks the parameter's binding before it reaches
  its global value (2 events), and so does the parameter itself, found at the first binding (2
  events); at top level a global is one event. The table below is counted from the program text
  alone, event by event:

  - reading: 38 pairs, the number 5 and the new symbol a (its cell, its one-chunk name, its
    (name . value) pair and its place on the symbol list) are 43 cells; 26 symbol tokens (nil
    included), one number and 12 lists are 26×580 + 950 + 12×140 instructions;
  - pairs: the call, the fn form, (= …), (+ x a), (if …), (list …) and its five pair elements;
  - arguments: fn's parameter list, the call's 5, the body's two forms, = (2), + (2), if (2),
    list's seven elements, two for each of its five pair elements (g's: its x and its body's b);
  - lookups: fn at top level (1); =, +, if, list and their globals y (walked only: 1), x (2) and
    a (2); in the elements the operators cons, <, <, +, g (2 each) and their operands x, x, y, a, x,
    a, x, x (2 each), g's b (2), and the elements a and y (2 each);
  - calls: the call and (g x); atoms: 5 and nil;
  - allocations, besides reading: the closure (2), the argument list and binding of the call (1+2),
    the sums' two numbers, the cons, (g x)'s argument list and binding (1+2), and list's seven cells;
  - printing: the 19 characters of the result and its five numbers.

  @§deck-cycle-count
  Scenario: A one-parameter function's body is charged a walk of its binding for every global it reads
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= x 7) (= y 8) (= g (fn (b) b)))"
    And the player evaluates "((fn (a) (= y (+ x a)) (if x (list (cons x nil) (< x y) (< a x) (+ a x) (g x) a y))) 5)"
    Then the result is "((7) t t 12 7 5 12)"
    And the evaluation's events and cycles are
      | event  | count | instructions |
      | pair   | 11    | 38           |
      | arg    | 27    | 38.5         |
      | lookup | 48    | 6.4          |
      | call   | 2     | 80           |
      | atom   | 2     | 8            |
      | alloc  | 61    | 17           |
      | read   | 1     | 17710        |
      | print  | 1     | 17330        |

  @§deck-watchdog @§deck-cycle-count
  Scenario: A loop building lists is stopped at the first event past the budget, not at the end of the list
    # No collection runs when the 30,000,000th cycle passes (the 7 leading 1s place it between
    # two), so the evaluation stops within one event of the budget — the dearest, a call, is
    # 80 × 1.4 = 112 cycles — and printing the 59-character error adds 59 × 70 × 1.4 = 5,782.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do{ 1*7} (while t (list 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20)))"
    Then the result is a Lisp error
    And the result is "(error watchdog :message \"watchdog: cycle budget exceeded\")" per Decision (§deck-watchdog)
    And the evaluation took between 30005782 and 30005894 cycles per Decision (§deck-watchdog)
