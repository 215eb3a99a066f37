@deck
Feature: Fe on the deck — a function's parameters hide the globals of the same name wherever they are read

  Fe binds a function's parameters (and `let`) in the environment of its body: a symbol read there
  is the innermost binding, never the global of the same name. Each example sets a global to a value
  the parameter does not have, then reads the parameter in one place of the body — an argument of a
  user function, of `list`, of a deck primitive, of `cons`, `if`'s condition, a comparison, either
  operand of a sum, the operator, the body's own value, an assignment — so a VM that looked the name
  up globally would answer with the global.

  @§deck-key-eval
  Scenario Outline: A parameter read as <place> is the argument, not the global
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "<program>"
    Then the result is "<result>"

    Examples:
      | place                       | program                                                        | result |
      | the body's value            | (do (= x 100) ((fn (x) x) 5))                                  | 5      |
      | a user function's argument  | (do (= x 100) (= id (fn (y) y)) ((fn (x) (id x)) 5))           | 5      |
      | an argument of list         | (do (= x 100) ((fn (x) (list x x)) 5))                         | (5 5)  |
      | a deck primitive's argument | (do (= x nil) ((fn (x) (list-length x)) (quote (1 2 3))))     | 3      |
      | an argument of cons         | (do (= x 100) ((fn (x) (cons x nil)) 5))                       | (5)    |
      | if's condition              | (do (= x nil) ((fn (x) (if x 1 2)) t))                         | 1      |
      | a comparison's operand      | (do (= x 100) ((fn (x) (< x 10)) 5))                           | t      |
      | a comparison's second one   | (do (= x 100) ((fn (x) (< 8 x)) 5))                            | nil    |
      | a sum's first operand       | (do (= x 100) ((fn (x) (+ x 1)) 5))                            | 6      |
      | a sum's second operand      | (do (= x 100) ((fn (x) (+ 1 x)) 5))                            | 6      |
      | a sum's third operand       | (do (= x 100) ((fn (x) (+ 1 1 x)) 5))                          | 7      |
      | the operator                | (do (= f car) ((fn (f) (f (quote (1 2)))) cdr))                | (2)    |
      | an assignment's target      | (do (= x 100) ((fn (x) (= x 7) x) 5))                          | 7      |
      | a let in the body           | (do (= y 100) ((fn nil (let y 5) y)))                          | 5      |

  @§deck-key-eval
  Scenario: Assigning a parameter leaves the global of the same name as it was
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= x 100) ((fn (x) (= x 7)) 5) x)"
    Then the result is "100"

  @§deck-key-eval
  Scenario Outline: A name that was a parameter of another function still reads its global as <place>
    # k has a parameter y and the function given to it a parameter h: once they have run, y and
    # h are names a binding has used, yet inside (fn (x) …) only x is bound, so both must read
    # their global values there.
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(do (= y 5) (= k (fn (y) y)) (k 0) (= h (fn (a) (list a))) ((fn (h) h) 0))"
    And the player evaluates "<program>"
    Then the result is "<result>"

    Examples:
      | place                      | program                      | result |
      | the body's value           | ((fn (x) y) 0)               | 5      |
      | an argument of list        | ((fn (x) (list y y)) 0)      | (5 5)  |
      | a user function's argument | ((fn (x) (k y)) 0)           | 5      |
      | an argument of cons        | ((fn (x) (cons y nil)) 0)    | (5)    |
      | if's condition             | ((fn (x) (if y 1 2)) 0)      | 1      |
      | a comparison's operand     | ((fn (x) (< y 9)) 0)         | t      |
      | a comparison's second one  | ((fn (x) (< 1 y)) 0)         | t      |
      | a sum's first operand      | ((fn (x) (+ y 1)) 0)         | 6      |
      | a sum's second operand     | ((fn (x) (+ 1 y)) 0)         | 6      |
      | the operator               | ((fn (x) (h x)) 7)           | (7)    |
