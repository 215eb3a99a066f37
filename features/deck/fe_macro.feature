@deck
Feature: Fe on the deck — a macro gets its arguments unevaluated and its expansion runs in the caller's place

  Fe's `mac` makes a macro: called, it receives its arguments as written (not evaluated), and the
  form it returns is evaluated where the call stood, in the caller's environment. Fe expands a call
  once: the expansion takes the call's place in the program, so a function whose body calls a
  macro runs the macro's body on its first call only, and a call that is also a function's
  parameter name (the same cell, built with eval) becomes, expanded, a name bound to the argument.

  @§deck-key-eval
  Scenario Outline: <what>
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "<program>"
    Then the result is "<result>"

    Examples:
      | what                                                                 | program                                                                                                        | result  |
      | the expansion runs in the caller's place                             | (do (= inc (mac (x) (list (quote =) x (list (quote +) x 1)))) (= n 5) (inc n) n)                               | 6       |
      | the arguments arrive as written, not evaluated                       | (do (= q (mac (x) (list (quote quote) x))) (q (car 5)))                                                        | (car 5) |
      | the expansion reads the caller's bindings                            | (do (= sw (mac (a b) (list (quote list) b a))) ((fn (y) (sw 1 y)) 2))                                          | (2 1)   |
      | a call is expanded once, on its first evaluation                     | (do (= k 0) (= m (mac nil (= k (+ k 1)) k)) (= f (fn nil (m))) (f) (f) (list k (f)))                           | (1 1)   |
      | an expansion in the place of a parameter's name reads that parameter | (do (= y 7) (= m (mac nil (quote y))) (= c (list (quote m))) (= g (eval (list (quote fn) (list c) c))) (g 42)) | 42      |
