@plurnk
Feature: SEND rails — how a turn's terminal SEND decides the loop
  A loop runs the model turn by turn. Each emission opens with a PLAN and
  closes with one terminal SEND whose status is the turn's disposition: 102
  goes on, 200 is done, 202 parks the loop, 499 gives up. Two rails watch the
  disposition: a continuing turn that did no work, and a "done" while the run
  still holds something live. Both count a strike the model never sees and
  steer it, on the next packet, with a fixed hint.

  Background:
    Given the entry known:///brief.md contains "Write the summary to known:///summary.md"

  Scenario: a turn that works and then terminates with 200 ends the loop as done
    Given the model will reply:
      """
      <<PLAN:read the brief, then write the summary:PLAN
      <<READ(known:///brief.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:write it and finish:PLAN
      <<EDIT(known:///summary.md):All done.:EDIT
      <<SEND[200]:The summary is written.:SEND
      """
    When the user starts a loop with the prompt "Summarise the brief"
    Then the loop ends with status 200
    And the model was called 2 times
    And the model run's log records EDIT known:///summary.md with status 201 by model
    And the model run's log records SEND - with status 200 by model

  @§send-idle-turn
  Scenario: a continuing turn with only PLAN and SEND is struck and steered, and the loop goes on
    Given the model will reply:
      """
      <<PLAN:nothing to do yet:PLAN
      <<SEND[102]:thinking:SEND
      """
    And the model will reply:
      """
      <<PLAN:the work is done after all:PLAN
      <<SEND[200]:Done.:SEND
      """
    When the user starts a loop with the prompt "Summarise the brief"
    Then the loop ends with status 200
    And the model was called 2 times
    And the errors section of packet 2 contains "If the turn's work is complete, terminate with 200. If awaiting a stream or run trigger, terminate with 202 to hibernate."
    And the errors section of packet 2 reads: per Decision (§send-idle-turn)
      """
      * {"kind":"idle_turn","message":"If the turn's work is complete, terminate with 200. If awaiting a stream or run trigger, terminate with 202 to hibernate.","source":"engine:rail"}
      """
    And packet 1 has no errors section per Decision (§telemetry-drain-on-read)
    And no packet mentions "strike"

  @§send-idle-turn
  Scenario: a model that keeps idling is stopped at the strike threshold with 500, seeing only the hint
    Given the operator sets PLURNK_MIN_CYCLES to "10"
    And the model will reply:
      """
      <<PLAN:wait:PLAN
      <<SEND[102]:waiting:SEND
      """
    And the model will reply:
      """
      <<PLAN:wait more:PLAN
      <<SEND[102]:still waiting:SEND
      """
    And the model will reply:
      """
      <<PLAN:wait again:PLAN
      <<SEND[102]:waiting again:SEND
      """
    When the user starts a loop with the prompt "Summarise the brief"
    Then the loop ends with status 500
    And the model was called 3 times
    And the errors section of packet 3 contains "If the turn's work is complete, terminate with 200. If awaiting a stream or run trigger, terminate with 202 to hibernate."
    And the errors section of packet 3 contains "\"kind\":\"idle_turn\"" per Decision (§send-idle-turn)
    And no packet mentions "strike"

  @§send-idle-turn @§grinder-strike-coupling @decision
  Scenario: idle turns that a working turn separates never reach the strike threshold
    Given the operator sets PLURNK_MIN_CYCLES to "10"
    And the model will reply:
      """
      <<PLAN:wait:PLAN
      <<SEND[102]:waiting:SEND
      """
    And the model will reply:
      """
      <<PLAN:look at the brief:PLAN
      <<READ(known:///brief.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:wait more:PLAN
      <<SEND[102]:still waiting:SEND
      """
    And the model will reply:
      """
      <<PLAN:look at the plan:PLAN
      <<READ(known:///plan.md)::READ
      <<SEND[102]:reading again:SEND
      """
    And the model will reply:
      """
      <<PLAN:wait again:PLAN
      <<SEND[102]:waiting again:SEND
      """
    And the model will reply:
      """
      <<PLAN:finish:PLAN
      <<SEND[200]:Done.:SEND
      """
    When the user starts a loop with the prompt "Summarise the brief"
    Then the loop ends with status 200 per Decision (§grinder-strike-coupling)
    And the model was called 6 times per Decision (§grinder-strike-coupling)

  @§send-idle-turn
  Scenario: a continuing turn that does work is not idle
    Given the model will reply:
      """
      <<PLAN:look at the brief:PLAN
      <<READ(known:///brief.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:finish:PLAN
      <<SEND[200]:Done.:SEND
      """
    When the user starts a loop with the prompt "Summarise the brief"
    Then the loop ends with status 200
    And packet 2 has no errors section per Decision (§telemetry-drain-on-read)

  @§send-premature-terminate
  Scenario: SEND[200] while a child run is still running is downgraded to a continue, its body kept
    Given the model run has a child run "scout" whose loop is still running
    And the model will reply:
      """
      <<PLAN:declare victory early:PLAN
      <<EDIT(known:///summary.md):draft:EDIT
      <<SEND[200]:The summary is drafted.:SEND
      """
    And the model will reply:
      """
      <<PLAN:wait for the scout:PLAN
      <<SEND[202]:waiting for scout:SEND
      """
    When the user starts a loop with the prompt "Summarise the brief"
    Then the loop ends with status 202
    And the model was called 2 times
    And the model run's log records SEND - with status 102 by model
    And the log section of packet 2 contains "The summary is drafted."
    And the errors section of packet 2 contains "Attempted termination with active streams or child runs. Terminate with 202 to hibernate until they complete, KILL(path) with 200 again to clean up, or 499 to fail."
    And the errors section of packet 2 reads: per Decision (§send-premature-terminate)
      """
      * {"kind":"premature_terminate","message":"Attempted termination with active streams or child runs. Terminate with 202 to hibernate until they complete, KILL(path) with 200 again to clean up, or 499 to fail.","source":"engine:rail"}
      """
    And no packet mentions "strike"

  @§send-premature-terminate
  Scenario: a model that keeps declaring done while its child runs is struck out at the threshold with 500
    Given the operator sets PLURNK_MAX_STRIKES to "2"
    And the model run has a child run "scout" whose loop is still running
    And the model will reply:
      """
      <<PLAN:declare victory early:PLAN
      <<EDIT(known:///summary.md):draft:EDIT
      <<SEND[200]:The summary is drafted.:SEND
      """
    And the model will reply:
      """
      <<PLAN:declare it again:PLAN
      <<EDIT(known:///summary.md):draft two:EDIT
      <<SEND[200]:The summary is drafted, really.:SEND
      """
    And the model will reply:
      """
      <<PLAN:wait for the scout:PLAN
      <<SEND[202]:waiting for scout:SEND
      """
    When the user starts a loop with the prompt "Summarise the brief"
    Then the loop ends with status 500
    And the model was called 2 times
    And the errors section of packet 2 contains "Attempted termination with active streams or child runs. Terminate with 202 to hibernate until they complete, KILL(path) with 200 again to clean up, or 499 to fail."
    And the errors section of packet 2 contains "\"kind\":\"premature_terminate\"" per Decision (§send-premature-terminate)
    And no packet mentions "strike"

  @§send-premature-terminate
  Scenario: once the child run has finished, SEND[200] ends the loop
    Given the model run has a child run "scout" whose loop is still running
    And the child run "scout" ends its loop with status 200
    And the model will reply:
      """
      <<PLAN:finish:PLAN
      <<SEND[200]:Done.:SEND
      """
    When the user starts a loop with the prompt "Summarise the brief"
    Then the loop ends with status 200
    And the model was called 1 time
    And the model run's log records SEND - with status 200 by model

  Scenario: SEND[499] gives up and the loop ends cancelled
    Given the model will reply:
      """
      <<PLAN:this cannot be done:PLAN
      <<SEND[499]:The brief is missing a source.:SEND
      """
    When the user starts a loop with the prompt "Summarise the brief"
    Then the loop ends with status 499

  Scenario: repeating the same ops turn after turn is a runaway, ended with 508
    Given the model will reply:
      """
      <<PLAN:look:PLAN
      <<READ(known:///brief.md)::READ
      <<SEND[102]:looking:SEND
      """
    And the model will reply:
      """
      <<PLAN:look again:PLAN
      <<READ(known:///brief.md)::READ
      <<SEND[102]:looking:SEND
      """
    And the model will reply:
      """
      <<PLAN:and again:PLAN
      <<READ(known:///brief.md)::READ
      <<SEND[102]:looking:SEND
      """
    And the model will reply:
      """
      <<PLAN:once more:PLAN
      <<READ(known:///brief.md)::READ
      <<SEND[102]:looking:SEND
      """
    And the model will reply:
      """
      <<PLAN:still:PLAN
      <<READ(known:///brief.md)::READ
      <<SEND[102]:looking:SEND
      """
    When the user starts a loop with the prompt "Summarise the brief"
    Then the loop ends with status 508
    And the model was called 5 times
    And no packet mentions "cycle"
