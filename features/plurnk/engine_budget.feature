@plurnk
Feature: Tokenomics and the grinder — the budget the model sees and the backstop behind it
  The budget section opens with a headline measured on the assembled packet:
  the ceiling, the usage with its percent, the free tokens. Two tables follow:
  the render weight of each turn and the ten heaviest log rows by handle. The
  model curates its own window; only when an assembled packet is over the
  ceiling does the engine step in, before calling the model: it folds the
  previous turn's rows in one step, and if that is not enough the loop ends
  with 413. A delivered packet is never over budget.

  The scripted provider counts one token per four characters. Each entry
  known:///big-N.md below holds 300 lines, about 1,700 tokens once read.

  Background:
    Given the entry known:///big-1.md holds 300 lines of text
    And the entry known:///big-2.md holds 300 lines of text
    And the entry known:///small.md contains "a short note"

  @§tokenomics-context-percent @§grinder-overflow-only
  Scenario: a packet under the ceiling is delivered as assembled, its headline giving usage as a percent
    Given the model's context window is 20000 tokens
    And the model will reply:
      """
      <<PLAN:read the big file:PLAN
      <<READ(known:///big-1.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Read big-1"
    Then the loop ends with status 200
    And the budget headline of packet 2 gives usage as a percent of a 20000-token ceiling
    And the model run's row log:///1/1/1 is expanded
    And the errors section of packet 2 does not contain "budget_overflow"

  @§grinder-overflow-only
  Scenario Outline: the grinder acts only above the ceiling: a packet of 2245 tokens under a <ceiling>-token ceiling is <fate>
    Given the model's context window is <ceiling> tokens
    And the model will reply:
      """
      <<PLAN:read the big file:PLAN
      <<READ(known:///big-1.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Read big-1"
    Then the loop ends with status 200
    And the model run's row log:///1/1/1 is <state>

    Examples:
      | ceiling | fate                         | state    |
      | 2245    | sent as assembled            | expanded |
      | 2244    | folded before the model sees | folded   |

  @§tokenomics-largest-entries
  Scenario: the heaviest-entries table names the heaviest rows by their log:/// handle
    Given the model's context window is 20000 tokens
    And the model will reply:
      """
      <<PLAN:read both:PLAN
      <<READ(known:///small.md)::READ
      <<READ(known:///big-1.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Read both"
    Then the heaviest-entries table of packet 2 lists log:///1/1/2/READ first
    And the budget section of packet 2 contains "| log:///1/1/1/READ |" per Decision (§tokenomics-largest-entries)
    And the budget section of packet 2 contains "| 1/1 |" per Decision (§tokenomics-largest-entries)

  @§tokenomics-largest-entries
  Scenario: with nine rows in the log the heaviest-entries table lists all nine
    Given the model's context window is 100000 tokens
    And the model will reply:
      """
      <<PLAN:read:PLAN
      <<READ(known:///absent-1.md)::READ
      <<READ(known:///absent-2.md)::READ
      <<READ(known:///absent-3.md)::READ
      <<READ(known:///absent-4.md)::READ
      <<READ(known:///absent-5.md)::READ
      <<READ(known:///absent-6.md)::READ
      <<READ(known:///absent-7.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Read them"
    Then the heaviest-entries table of packet 2 has 9 rows

  @§tokenomics-largest-entries
  Scenario: with eleven rows in the log the heaviest-entries table keeps exactly ten
    Given the model's context window is 100000 tokens
    And the model will reply:
      """
      <<PLAN:read:PLAN
      <<READ(known:///absent-1.md)::READ
      <<READ(known:///absent-2.md)::READ
      <<READ(known:///absent-3.md)::READ
      <<READ(known:///absent-4.md)::READ
      <<READ(known:///absent-5.md)::READ
      <<READ(known:///absent-6.md)::READ
      <<READ(known:///absent-7.md)::READ
      <<READ(known:///absent-8.md)::READ
      <<READ(known:///absent-9.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Read them"
    Then the heaviest-entries table of packet 2 has 10 rows

  @§tokenomics-render-weight-budget
  Scenario: the usage is measured on the rendered packet, not summed from stored token counts
    Given the model's context window is 20000 tokens
    And the model will reply:
      """
      <<PLAN:read:PLAN
      <<READ(known:///small.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Read small"
    Then the budget usage of packet 2 is the token count of the whole rendered packet
    And the budget usage of packet 2 is not the sum of the tokens stored for the session's entries and the run's rows

  @§grinder-overflow-only @§grinder-layer1-rollback @§grinder-event-model-terms @§tokenomics-over-budget-floor
  Scenario: an overflowing packet has the previous turn folded before the model sees it
    Given the model's context window is 1500 tokens
    And the model will reply:
      """
      <<PLAN:read the big file:PLAN
      <<READ(known:///big-1.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:that was too much; finish:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Read big-1"
    Then the loop ends with status 200
    And the model run's row log:///1/1/1 is folded
    And the log section of packet 2 contains "* log:///1/1/1/READ 200 known:///big-1.md (folded)" per Decision (§render-rule-find-renders-result)
    And the errors section of packet 2 reads:
      """
      * {"hidden":[{"count":1,"scheme":"known"}],"kind":"budget_overflow","source":"engine:rail"}
      """
    And every delivered packet is within its ceiling
    And no packet mentions "grinder"
    And no packet mentions "strike"

  @§grinder-layer1-rollback @§grinder-hard-413-abort @§tokenomics-over-budget-floor
  Scenario: a folded row can be opened again; a packet still over after the fold ends the loop with 413
    Given the model's context window is 1500 tokens
    And the model will reply:
      """
      <<PLAN:read the big file:PLAN
      <<READ(known:///big-1.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:I need it back:PLAN
      <<OPEN(log:///1/1/1)::OPEN
      <<SEND[102]:opening:SEND
      """
    When the user starts a loop with the prompt "Read big-1"
    Then the loop ends with status 413
    And the model was called 2 times
    And the model run's row log:///1/1/1 is expanded
    And every delivered packet is within its ceiling
    And the loop's stored overflow record shows free 0 and a percent above 100

  @§grinder-strike-coupling
  Scenario: a fold counts a strike: with PLURNK_MAX_STRIKES at 1, an overflow after turn 1 ends the loop with 500
    Given the model's context window is 1500 tokens
    And the operator sets PLURNK_MAX_STRIKES to "1"
    And the model will reply:
      """
      <<PLAN:read the big file:PLAN
      <<READ(known:///big-1.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:finish:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Read big-1"
    Then the loop ends with status 500
    And the model was called 1 time

  @§grinder-strike-coupling @decision
  Scenario: strikes are a streak: three overflows in a row end the loop with 500
    Given the model's context window is 1500 tokens
    And the entry known:///big-3.md holds 300 lines of text
    And the model will reply:
      """
      <<PLAN:read the first:PLAN
      <<READ(known:///big-1.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:read the second:PLAN
      <<READ(known:///big-2.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:read the third:PLAN
      <<READ(known:///big-3.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:finish:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Read them all"
    Then the loop ends with status 500 per Decision (§grinder-strike-coupling)
    And the model was called 3 times per Decision (§grinder-strike-coupling)
    And every delivered packet is within its ceiling

  @§grinder-soft-turn-0-1 @§actor-boundary-doc-injection
  Scenario: an overflow on turn 1 comes from the environment and never strikes
    Given the model's context window is 1500 tokens
    And the operator sets PLURNK_MAX_STRIKES to "1"
    And the operator's file ~/docs/handbook.md reads:
      """
      The handbook is long.
      """
    And the handbook ~/docs/handbook.md grows to 300 lines
    And the operator sets PLURNK_MD_HANDBOOK to "~/docs/handbook.md"
    And the model will reply:
      """
      <<PLAN:finish:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Read the handbook"
    Then the loop ends with status 200
    And the model run's row log:///1/0/2 is folded
    And the errors section of packet 1 contains "\"kind\":\"budget_overflow\""
