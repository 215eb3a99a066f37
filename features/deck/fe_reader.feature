@deck
Feature: Fe on the deck — a token is a number only when all of it reads as one

  Fe reads a token as a number when C's strtod takes the whole token (digits, an optional point,
  an optional exponent — e, or p for hex — with an optional sign and at least one digit), and as a
  symbol otherwise.
  The numbers below are the ones the C interpreter printed for the differential corpus
  (num_reader_forms); a token strtod stops short of is a symbol, which quote gives back as typed.

  @§deck-key-lambda
  Scenario Outline: <token> reads as <kind>
    Given a graduated deck
    When the player presses "EVAL"
    And the player evaluates "(quote <token>)"
    Then the result is "<result>"

    Examples:
      | token  | kind                                | result |
      | 0x10   | a hex number                        | 16     |
      | 0x1p4  | a hex number with a binary exponent | 16     |
      | -0x10  | a negative hex number               | -16    |
      | 0x     | a symbol: no digit after 0x         | 0x     |
      | 0x1p   | a symbol: no exponent digit         | 0x1p   |
      | 0x1p-  | a symbol: only the exponent's sign  | 0x1p-  |
      | 0x1g   | a symbol: g is no hex digit         | 0x1g   |
      | 1.5e+2 | a number with a signed exponent     | 150    |
      | 5e-1   | a number with a negative exponent   | 0.5    |
      | 1e     | a symbol: no exponent digit         | 1e     |
      | 1e+    | a symbol: only the exponent's sign  | 1e+    |
