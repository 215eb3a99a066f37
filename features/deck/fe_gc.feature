@deck
Feature: Fe on the deck — what a function keeps while the collector runs

  The REPL's Fe VM collects garbage only when its 24 KB arena has no free cell left, and then keeps
  exactly what the running evaluation can still reach. A function's body can reach the bindings of
  its parameters and of its own `let`s; the cells an evaluation has finished with are reclaimed.

  @§deck-arena-oom
  Scenario: A binding made by let in a function's body outlives the collections a later call causes
    # churn conses 3,000 pairs, more than the arena holds at once: the collector runs while churn
    # is called from the body, and y's binding must survive it.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= i 0) (= churn (fn nil (while (< i 3000) (cons i i) (= i (+ i 1))))) ((fn nil (let y (list 1 2)) (churn) y)))"
    Then the result is "(1 2)"

  @§deck-arena-oom @§deck-sram-budget
  Scenario: A loop that calls a function to grow a list runs out of memory after the conses the arena holds
    # Each round makes a three-element list it drops, then calls g with two arguments, which
    # conses onto l: the 2,938 cells hold the session, what the running round still roots and
    # 2,303 pairs of l.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= n 0) (try (fn nil (let l nil) (let g (fn (x y) (= l (cons x l)) (= n (+ n 1)))) (while t (list 1 2 3) (g 1 2)))) n)"
    Then the result is "2303" per Decision (§deck-sram-budget)

  @§deck-arena-oom @§deck-sram-budget
  Scenario Outline: A loop that calls a deck primitive each round runs out of memory after the conses the arena holds
    # Each round calls <primitive>, whose answer is garbage by the next round, then conses onto
    # l: what the primitive made is reclaimed, so the arena fills with l.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= n 0) (try (fn nil (let l nil) (while t <call> (= l (cons 1 l)) (= n (+ n 1))))) n)"
    Then the result is "<pairs>" per Decision (§deck-sram-budget)

    Examples:
      | primitive                | call                                                  | pairs |
      | deck-state               | (= s (deck-state))                                    | 2235  |
      | describe                 | (describe (quote car))                                | 2327  |
      | get-credits, list-length | (get-credits) (list-length (quote (1 2)))             | 2335  |

  @§deck-arena-oom
  Scenario: Calls whose argument lists the collector interrupts still get their arguments
    # 3,000 calls of g allocate far more than the arena holds, so collections fall while the
    # calls' argument lists are being built; the sum of i+1 for i below 3,000 is 3000×3001/2.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= g (fn (a b) (+ a b))) (= i 0) (= s 0) (while (< i 3000) (= s (+ s (g i 1))) (= i (+ i 1))) s)"
    Then the result is "4501500"
