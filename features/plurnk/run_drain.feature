@plurnk
Feature: the run lifecycle under pressure — no lost loop, the scope binds every stream
  A run's drain gives up its slot only once it has confirmed, holding the
  service lock, that its queue is empty; so work queued while it winds down
  is claimed, by that drain or a new one, and a run never has two drains.
  A stream takes hold of its run's cancellation scope when it registers, and
  an abort that lands while it registers still kills it; the scope is
  replaced only after it was aborted.

  @§run-lifecycle-no-lost-loop
  Scenario: seeded schedules of runs, wakes, cancels and clock steps never lose a queued loop
    When 300 seeded schedules of spawn, irc, fork, kill, park, stream-conclude, cancel and clock steps run, with loops queued during drain teardown
    Then no queued loop was left unclaimed in any schedule
    And no run ever had two drains at once
    And every schedule came to rest
    And every loop queued during a drain's teardown was claimed by that same drain
    And the schedules did each of spawn, irc, fork, kill, park, stream-conclude, cancel, clock step and teardown queue at least 20 times

  @§run-lifecycle-no-lost-loop
  Scenario: a loop queued while the drain is giving up its slot is claimed by that same drain
    Given run "main" will emit:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:first answer:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:answer again:PLAN
      <<SEND[200]:second answer:SEND
      """
    And the client will start run "main" with the prompt "one more" when its drain finds its queue empty
    When the client starts run "main" with the prompt "first"
    Then run "main" has 2 loops, the last with status 200
    And the model of run "main" was called 2 times
    And the loop queued during teardown was claimed by the drain that was giving up its slot
    And no drain of the session left a loop unclaimed

  @§run-lifecycle-no-lost-loop @decision
  Scenario: a message injected while the run generates the reply that concludes its loop is not lost
    Given run "main" will emit:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:first answer:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:answer the late word:PLAN
      <<SEND[200]:second answer:SEND
      """
    And while run "main" generates reply 1, the client injects "one more thing" into it
    When the client starts run "main" with the prompt "first"
    Then the mid-turn actions went through
    And the model of run "main" was called 2 times
    And packet 2 of run "main" contains "one more thing"
    And run "main" has 2 loops, the last with status 200 per Decision (§run-lifecycle-no-lost-loop)

  @§run-lifecycle-no-lost-loop @decision
  Scenario: a message injected while the drain is giving up its slot resumes the parked loop
    Given run "main" will emit:
      """
      <<PLAN:wait for word:PLAN
      <<SEND[202]:waiting:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:got it:PLAN
      <<SEND[200]:thanks:SEND
      """
    And the client will inject "the word" into run "main" when its drain finds its queue empty
    When the client starts run "main" with the prompt "wait"
    Then run "main" has 1 loop, the last with status 200
    And the model of run "main" was called 2 times
    And packet 2 of run "main" contains "the word"
    And the loop queued during teardown was claimed by the drain that was giving up its slot per Decision (§run-lifecycle-no-lost-loop)
    And no drain of the session left a loop unclaimed

  @§run-lifecycle-exec-epoch-bound
  Scenario: an abort landing while a stream registers still kills the stream
    Given host commands are accepted without asking
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:serve in the background:PLAN
      <<EXEC:serve:EXEC
      <<SEND[202]:serving:SEND
      """
    And the client will cancel run "main" while its next command registers
    When the client starts run "main" with the prompt "serve"
    Then the cancel landed while the stream of sh:///1/1/1 was registering, before it existed
    And the command "serve" was spawned 1 time
    And the run stream sh:///1/1/1 ended with 499
    And run "main" has 1 loop, the last with status 499

  @§run-lifecycle-exec-epoch-bound
  Scenario: the aborted scope is replaced, and a stream registered under the new one outlives the old abort
    Given host commands are accepted without asking
    And the command "serve" never exits
    And the command "build" exits after 200 ms
    And run "main" will emit:
      """
      <<PLAN:serve in the background:PLAN
      <<EXEC:serve:EXEC
      <<SEND[202]:serving:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:build in the background:PLAN
      <<EXEC:build:EXEC
      <<SEND[202]:building:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:built:PLAN
      <<SEND[200]:built:SEND
      """
    And the client will cancel run "main" while its next command registers
    When the client starts run "main" with the prompt "serve"
    Then the run stream sh:///1/1/1 ended with 499
    When the client starts run "main" with the prompt "build"
    Then the run stream sh:///2/1/1 is still running
    When 300 ms pass on the session clock
    Then the run stream sh:///2/1/1 ended with 200
    And run "main" has 2 loops, the last with status 200

  @§run-lifecycle-exec-epoch-bound
  Scenario: a live scope is not replaced by a wake, so a cancel after the wake still aborts the running loop
    Given run "main" will emit:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:answered:SEND
      """
    And while run "main" generates reply 1, the client injects "hurry" into it and then cancels it
    When the client starts run "main" with the prompt "go"
    Then the mid-turn actions went through
    And run "main" has 1 loop, the last with status 499
    And the model of run "main" was called 1 time
