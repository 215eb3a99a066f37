@plurnk
Feature: Operator config — turn ceiling and operator documents
  The operator configures the engine with PLURNK_* variables. A ceiling is a
  bound no per-call request may widen: PLURNK_MAX_TURNS is off (-1) unless
  set, and a positive value caps a loop's own turn request with min(); a loop
  that runs out of turns ends with 429. PLURNK_MD_<ALIAS> names a document
  the reserved plurnk run materializes as plurnk:///<ALIAS>.md through an
  ordinary EDIT in its own log; the model run finds a READ of it, foisted by
  plurnk, at turn 0.

  Background:
    Given the model will reply:
      """
      <<PLAN:first note:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<SEND[102]:going on:SEND
      """
    And the model will reply:
      """
      <<PLAN:second note:PLAN
      <<EDIT(known:///b.md):b:EDIT
      <<SEND[102]:going on:SEND
      """
    And the model will reply:
      """
      <<PLAN:third note:PLAN
      <<EDIT(known:///c.md):c:EDIT
      <<SEND[102]:going on:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """

  @§operator-config-max-turns-ceiling
  Scenario: unset, PLURNK_MAX_TURNS caps nothing
    When the user starts a loop with the prompt "Write three notes"
    Then the loop ends with status 200
    And the model was called 4 times
    And the errors section of packet 4 does not contain "429"

  @§operator-config-max-turns-ceiling
  Scenario: the operator's ceiling caps a larger request, and the loop ends with 429
    Given the operator sets PLURNK_MAX_TURNS to "2"
    When the user starts a loop with the prompt "Write three notes" asking for at most 10 turns
    Then the loop ends with status 429
    And the model was called 2 times
    And the errors section of packet 2 contains "429"
    And the errors section of packet 2 contains "\"kind\":\"max_turns\",\"remaining\":1,\"soft\":true" per Decision (§operator-config-max-turns-ceiling)

  @§operator-config-max-turns-ceiling @decision
  Scenario: the soft max_turns notice starts when fewer turns are left than strikes end a loop
    Given the operator sets PLURNK_MAX_TURNS to "4"
    When the user starts a loop with the prompt "Write three notes"
    Then the loop ends with status 200
    And the errors section of packet 1 does not contain "429"
    And the errors section of packet 2 contains "429"
    And the errors section of packet 2 contains "\"kind\":\"max_turns\",\"remaining\":3,\"soft\":true" per Decision (§operator-config-max-turns-ceiling)

  @§operator-config-max-turns-ceiling
  Scenario: a smaller request stays under the operator's ceiling
    Given the operator sets PLURNK_MAX_TURNS to "3"
    When the user starts a loop with the prompt "Write three notes" asking for at most 1 turns
    Then the loop ends with status 429
    And the model was called 1 time

  @§operator-config-max-turns-ceiling @decision
  Scenario: with the ceiling off, a loop's own turn request still applies
    Given the operator sets PLURNK_MAX_TURNS to "-1"
    When the user starts a loop with the prompt "Write three notes" asking for at most 2 turns
    Then the loop ends with status 429 per Decision (§operator-config-max-turns-ceiling)
    And the model was called 2 times per Decision (§operator-config-max-turns-ceiling)

  @§actor-boundary-doc-injection @§actor-boundary-self-hosting
  Scenario: an operator document is materialized by the plurnk run and read into the model's turn 0
    Given the operator's file ~/docs/style.md reads:
      """
      Write short sentences.
      """
    And the operator sets PLURNK_MD_STYLE to "~/docs/style.md"
    When the user starts a loop with the prompt "Write three notes"
    Then the plurnk run's log records EDIT plurnk:///STYLE.md with status 201 by plurnk
    And the model run's log records READ plurnk:///STYLE.md with status 200 by plurnk
    And the model run's row log:///1/0/2/READ is expanded
    And the log section of packet 1 contains "1:\tWrite short sentences."
    And the body channel of plurnk:///STYLE.md holds "Write short sentences.\n"

  @§actor-boundary-self-hosting
  Scenario: the model run sees the plurnk run's work only through the entry, never its EDIT
    Given the operator's file ~/docs/style.md reads:
      """
      Write short sentences.
      """
    And the operator sets PLURNK_MD_STYLE to "~/docs/style.md"
    When the user starts a loop with the prompt "Write three notes"
    Then the model run's log records READ plurnk:///STYLE.md with status 200 by plurnk
    And the model run has no EDIT of plurnk:///STYLE.md in its log
    And the log section of packet 1 does not contain "EDIT 201 plurnk:///STYLE.md" per Decision (§render-rule-find-renders-result)

  @§actor-boundary-doc-injection @decision
  Scenario: a document path that is set but cannot be read fails the loop before the model is called
    Given the operator sets PLURNK_MD_STYLE to "~/docs/missing.md"
    When the user starts a loop with the prompt "Write three notes"
    Then the loop ends with status 500 per Decision (§actor-boundary-doc-injection)
    And the model run's log records error - with status 500 by plurnk per Decision (§actor-boundary-doc-injection)
    And the model was called 0 times per Decision (§actor-boundary-doc-injection)
