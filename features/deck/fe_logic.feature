@deck
Feature: Fe on the deck — and and or stop at the first argument that decides them

  Fe's `and` evaluates its arguments in order and stops at the first that is nil, answering nil;
  otherwise it answers the last one's value (nil with no argument). `or` stops at the first that is
  not nil and answers it (nil when every one is nil, or with no argument). An argument after the
  one that decides is never evaluated: `(car 5)`, an error when evaluated, shows it.

  @§deck-key-eval
  Scenario Outline: <program> is <result>
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "<program>"
    Then the result is "<result>"

    Examples:
      | program             | result |
      | (and 1 2)           | 2      |
      | (and 1 2 3)         | 3      |
      | (and nil 2)         | nil    |
      | (and 1 nil (car 5)) | nil    |
      | (and)               | nil    |
      | (or nil 2)          | 2      |
      | (or 1 (car 5))      | 1      |
      | (or nil nil)        | nil    |
      | (or)                | nil    |
