@deck
Feature: Fe on the deck — try gives back a function's value, or the error it raised

  @§deck-ffi-write-gated @decision
  Scenario Outline: try returns the value of a function that raises nothing, and the error of one that does
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "<program>"
    Then the result is "<result>" per Decision (§deck-ffi-write-gated)

    Examples:
      | program                                    | result                                                  |
      | (try (fn nil (+ 1 2)))                     | 3                                                       |
      | (try (fn nil (list-length (quote (1 2))))) | 2                                                       |
      | (try (fn nil (car 1)))                     | (error fe-error :message \"expected pair, got number\") |
      | (car (cdr (try (fn nil (credit-add 1)))))  | not-authorized                                          |
