@deck
Feature: Tutorial — four staged prompts from a new deck to graduation

  Background:
    Given a new deck
    When the player presses "EVAL"

  @§deck-tutorial-cursor @§deck-tutorial-stage1
  Scenario: In stage 1 *tutorial-cursor* reads first_boot_seen, and evaluating another form leaves the stage as it was
    # The key grammar holds in the tutorial too: NIL deletes the staged prompt and the
    # player composes a form of their own.
    When 30000 ms of simulated time pass
    And the player deletes the prompt line with NIL
    And the player evaluates "*tutorial-cursor*"
    Then the result is "first_boot_seen"
    And the tutorial cursor is at first_boot_seen
    And the banner shows tutorial stage 1

  @§deck-tutorial-cursor
  Scenario Outline: *tutorial-cursor* reads the stage just completed in the session that completed it
    When the player presses "<keys>"
    And 30000 ms of simulated time pass
    And the player deletes the prompt line with NIL
    And the player evaluates "*tutorial-cursor*"
    Then the result is "<cursor>"
    And the tutorial cursor is at <cursor>

    Examples:
      | keys                                    | cursor               |
      | EVAL EVAL EVAL                          | car_cdr_completed    |
      | EVAL EVAL EVAL EVAL EVAL EVAL           | quote_eval_completed |

  @§deck-tutorial-cursor @§deck-tutorial-stage4
  Scenario: *tutorial-cursor* reads lambda_completed in stage 4 and graduated right after the graduating evaluation
    When the player presses "EVAL EVAL EVAL EVAL EVAL EVAL EVAL EVAL"
    And 30000 ms of simulated time pass
    And the player evaluates "*tutorial-cursor*"
    Then the result is "lambda_completed"
    And the tutorial cursor is at graduated
    When the player evaluates "*tutorial-cursor*"
    Then the result is "graduated"

  @§deck-tutorial-stage1 @§deck-tutorial-narration @decision
  Scenario: Stage 1 runs car and then cdr on a toy list
    Then row 22 contains "Every list begins with a head and continues with a tail."
    And the prompt line is empty
    When the player presses "EVAL"
    Then the prompt line shows "(car '(1 2 3))"
    And row 23 reads "►«car «quote «1 2 3»»»" per Decision (§deck-prompt-structural)
    When the player presses "EVAL"
    Then the result is "1"
    And the prompt line shows "(cdr '(1 2 3))"
    And row 23 reads "►«cdr «quote «1 2 3»»»" per Decision (§deck-prompt-structural)
    And the tutorial cursor is at first_boot_seen
    When the player presses "EVAL"
    Then the result is "(2 3)"
    And the tutorial cursor is at car_cdr_completed

  @§deck-tutorial-cursor @decision
  Scenario: A stage completed while the flash refuses the write completes in the session
    When the player presses "EVAL EVAL"
    And the flash starts failing with write-error
    Then pressing "EVAL" is refused per Decision (§deck-tutorial-cursor)
    And the refusal names "save state" per Decision (§deck-tutorial-cursor)
    And the result is "(2 3)"
    And the tutorial cursor is at car_cdr_completed per Decision (§deck-tutorial-cursor)
    And row 22 shows the Cipher line "Quote preserves a form. Eval executes one. Observe." before the prompt appears per Decision (§deck-tutorial-cursor)
    And the prompt line shows "(quote (+ 1 2))" per Decision (§deck-tutorial-cursor)
    When the deck is powered off and on again
    Then the tutorial cursor is at first_boot_seen per Decision (§deck-tutorial-cursor)

  @§deck-tutorial-stage2
  Scenario: Stage 2 quotes a form and then evaluates it
    When the player presses "EVAL EVAL EVAL"
    Then row 22 contains "Quote preserves a form. Eval executes one. Observe."
    And the banner shows tutorial stage 2
    And row 1 contains "TUTORIAL 2/4" per Decision (§deck-banner)
    When the player presses "EVAL"
    Then the prompt line shows "(quote (+ 1 2))"
    When the player presses "EVAL"
    Then the result is "(+ 1 2)"
    And the prompt line shows "(eval (quote (+ 1 2)))"
    When the player presses "EVAL"
    Then the result is "3"
    And the tutorial cursor is at quote_eval_completed

  @§deck-tutorial-stage3
  Scenario: Stage 3 applies a lambda
    When the player presses "EVAL EVAL EVAL EVAL EVAL EVAL"
    Then row 22 contains "A lambda is an unnamed function. Apply it."
    When the player presses "EVAL"
    Then the prompt line shows "((lambda (x) (* x x)) 5)"
    And row 23 reads "►««lambda «x» «* x x»» 5»" per Decision (§deck-prompt-structural)
    When the player presses "EVAL"
    Then the result is "25"
    And the tutorial cursor is at lambda_completed

  @§deck-tutorial-stage4
  Scenario: Stage 4 graduates on the player's own expression
    When the player presses "EVAL EVAL EVAL EVAL EVAL EVAL EVAL EVAL"
    Then row 22 contains "You have the grammar. The rest is yours. Try (get-credits)."
    When the player presses "EVAL"
    Then the prompt line is empty
    When the player evaluates "(get-credits)"
    Then the result is "100" per Decision (§deck-tutorial-latch)
    And the tutorial cursor is at graduated
    And row 22 contains "Tutorial complete. Mission Board awaits."
    And the banner shows no tutorial stage

  @§deck-tutorial-narration @decision
  Scenario: A Cipher line too long for row 22 shows there page by page, then gives way to the prompt
    Then row 22 contains "Every list begins with a head"
    And row 22 contains "Every list begins with a head and continues with a tail." per Decision (§deck-tutorial-narration)
    And the prompt line is empty
    When 3000 ms of simulated time pass
    Then row 22 contains "Press EVAL to see the first number." per Decision (§deck-tutorial-narration)
    And row 22 does not contain "Every list begins" per Decision (§deck-tutorial-narration)
    And the prompt line is empty per Decision (§deck-tutorial-narration)
    When 3000 ms of simulated time pass
    Then the prompt line shows "(car '(1 2 3))" per Decision (§deck-tutorial-narration)
    And row 22 does not contain "Press EVAL" per Decision (§deck-tutorial-narration)

  @§deck-tutorial-narration
  Scenario: The whole Cipher line of a stage shows on row 22 before its prompt appears
    Then row 22 shows the Cipher line "Every list begins with a head and continues with a tail. Press EVAL to see the first number." before the prompt appears
    And the prompt line shows "(car '(1 2 3))"
    When the player presses "EVAL EVAL"
    Then row 22 shows the Cipher line "Quote preserves a form. Eval executes one. Observe." before the prompt appears
    And the prompt line shows "(quote (+ 1 2))"
    When the player presses "EVAL EVAL"
    Then row 22 shows the Cipher line "A lambda is an unnamed function. Apply it." before the prompt appears
    When the player presses "EVAL"
    Then row 22 shows the Cipher line "You have the grammar. The rest is yours. Try (get-credits)." before the prompt appears

  @§deck-tutorial-skip @decision
  Scenario: BACK offers to exit the tutorial and yes graduates
    When the player presses "EVAL BACK"
    Then the screen shows "EXIT TUTORIAL? (EVAL=YES, BACK=CANCEL)"
    And row 22 contains "EXIT TUTORIAL? (EVAL=YES, BACK=CANCEL)" per Decision (§deck-tutorial-skip)
    When the player presses "EVAL"
    Then the tutorial cursor is at graduated
    And the banner shows no tutorial stage

  @§deck-tutorial-skip @decision
  Scenario: Cancelling the exit keeps the tutorial and BACK goes on to the scrollback
    When the player presses "EVAL BACK BACK"
    Then the tutorial cursor is at first_boot_seen
    And the banner shows tutorial stage 1
    And the REPL focus is on the scrollback per Decision (§deck-tutorial-skip)

  @§deck-tutorial-stage4
  Scenario: Stage 4 graduates whatever the result, even an error
    When the player presses "EVAL EVAL EVAL EVAL EVAL EVAL EVAL EVAL EVAL"
    Then the banner shows tutorial stage 4
    When the player evaluates "(car 1)"
    Then the result is a Lisp error naming "expected pair, got number"
    And the result is "(error fe-error :message \"expected pair, got number\")" per Decision (§deck-key-eval)
    And the tutorial cursor is at graduated
    And the banner shows no tutorial stage

  @§deck-tutorial-stage4 @§deck-open-in-editor
  Scenario: Stage 4 graduates on open-in-nemacs too, and the editor opens on the form
    When the player presses "EVAL EVAL EVAL EVAL EVAL EVAL EVAL EVAL EVAL"
    Then the banner shows tutorial stage 4
    When the player evaluates "(open-in-nemacs (quote (+ 1 2)))"
    Then the tutorial cursor is at graduated
    And the deck shows the NEMACS mode
    And the editor holds "(+ 1 2)"
