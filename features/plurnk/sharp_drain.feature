@plurnk
Feature: Sharp edges of loop.cancel and the run's queue
  loop.cancel aborts the loop that is running; a loop a client queued with
  loop.run behind it is not cancelled with it but starts afresh once the
  aborted loop is closed.

  @§methods-loop-cancel @decision
  Scenario: a loop.run queued behind the running loop survives loop.cancel and runs to its end
    Given run "main" will emit:
      """
      <<PLAN:first:PLAN
      <<SEND[200]:never sent:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:second:PLAN
      <<SEND[200]:answered the second:SEND
      """
    And while run "main" generates reply 1, the client starts it with the prompt "the second question" and then cancels it
    When the client starts run "main" with the prompt "the first question"
    Then the mid-turn actions went through
    And run "main" has 2 loops, the last with status 200 per Decision (§methods-loop-cancel)
    And the session was notified loop/terminated for loop 1 of run "main" with status 499
    And the session was notified loop/terminated for loop 2 of run "main" with status 200 per Decision (§methods-loop-cancel)
    And the model of run "main" was called 2 times

  @§run-scheme-terminate
  Scenario: a KILL of run:// drops the loops queued behind the running one, loop.run ones too
    Given run "main" will emit:
      """
      <<PLAN:first:PLAN
      <<SEND[200]:never sent:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:second:PLAN
      <<SEND[200]:never asked:SEND
      """
    And while run "main" generates reply 1, the client starts it with the prompt "the second question" and its client run "ops" emits <<KILL(run://main)::KILL
    When the client starts run "main" with the prompt "the first question"
    Then the mid-turn actions went through
    And run "main" has 1 loop, the last with status 499
    And the model of run "main" was called 1 time

  @§methods-loop-cancel @decision
  Scenario Outline: loop.cancel of a loop parked at 202 ends it 499 with <which> reason
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply:
      """
      <<PLAN:wait:PLAN
      <<SEND[202]:waiting:SEND
      """
    When "A" runs a loop with the prompt "wait"
    Then the loop "A" started is parked at 202
    When "A" calls loop.cancel with <params>
    Then the answer to "A" has cancelled = true
    And "A" got 1 "loop/terminated" notification
    And "A" got a "loop/terminated" notification with finalStatus = 499
    And "A" got a "loop/terminated" notification with reason = "<reason>" per Decision (§methods-loop-run)

    Examples:
      | which            | params                               | reason          |
      | the client's     | {"reason": "changed my mind"}        | changed my mind |
      | the default      | {}                                   | user_cancelled  |

  @§run-lifecycle-child-wake
  Scenario: a child that concludes while its parent is still mid-turn wakes the parent once it parks
    Given run "main" will emit:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://child):Do the work.:EDIT
      <<SEND[102]:carry on:SEND
      """
    And run "child" will emit:
      """
      <<PLAN:work:PLAN
      <<SEND[200]:child result:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:wait:PLAN
      <<SEND[202]:waiting for child:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:child did it:SEND
      """
    And while run "main" generates reply 2, run "child" concludes with status 200
    When the client starts run "main" with the prompt "go"
    Then the mid-turn actions went through
    And run "child" has 1 loop, the last with status 200
    And run "main" has 1 loop, the last with status 200
    And the model of run "main" was called 3 times

  @§run-lifecycle-child-wake @§run-scheme-collect
  Scenario: a child that concludes after its parent's turn took in a message opens no loop once the parent has concluded
    Given run "main" will emit:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://child):Do the work.:EDIT
      <<SEND[102]:carry on:SEND
      """
    And run "child" will emit:
      """
      <<PLAN:work:PLAN
      <<SEND[200]:child result:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:finish without waiting:PLAN
      <<SEND[200]:done on my own:SEND
      """
    And while run "main" generates reply 1, the client injects "note this" into it
    And while run "main" generates reply 2, run "child" concludes with status 200
    When the client starts run "main" with the prompt "go"
    Then the mid-turn actions went through
    And packet 2 of run "main" contains "note this"
    And run "child" has 1 loop, the last with status 200
    And run "main" has 1 loop, the last with status 200
    And the model of run "main" was called 2 times

  @§run-lifecycle-child-wake
  Scenario: a child cancelled while its drain gives up its slot wakes its parked parent once
    Given run "main" will emit:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://child):Wait for instructions.:EDIT
      <<SEND[202]:waiting for child:SEND
      """
    And run "child" will emit:
      """
      <<PLAN:nothing to do yet:PLAN
      <<SEND[202]:waiting for instructions:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:still waiting:PLAN
      <<SEND[202]:waiting again:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:woken twice:PLAN
      <<SEND[200]:woken a second time:SEND
      """
    And the client will cancel run "child" when its drain finds its queue empty, while run "main" is parked and idle
    When the client starts run "main" with the prompt "go"
    Then run "child" has 1 loop, the last with status 499
    And run "main" has 1 loop, the last with status 202
    And the model of run "main" was called 2 times
