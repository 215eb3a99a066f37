@plurnk
Feature: EXEC inside loops — proposals, background streams, surfacing, polling
  EXEC never answers with its output. A host command is first proposed and
  spawns once accepted; a read or pure one spawns at once. Either way the
  op answers 102 and the output streams into <runtime>:///<loop>/<turn>/<seq>.
  At the start of each later turn the new lines of each channel are placed
  in the run's log as a READ by plurnk, numbered on from the previous
  slice, folded while the command runs and open once it has ended.

  @§exec-host-proposes
  Scenario: a host command waits for its proposal, then spawns and streams
    Given the command "deploy" prints "step 1\n" on stdout after 100 ms
    And the command "deploy" exits after 200 ms
    And run "main" will emit:
      """
      <<PLAN:deploy:PLAN
      <<EXEC[sh]:deploy:EXEC
      <<SEND[202]:waiting for approval:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:deployed:PLAN
      <<SEND[200]:deployed:SEND
      """
    When the client starts run "main" with the prompt "deploy"
    Then run "main"'s row log:///1/1/1 is EXEC sh:///1/1/1 with status 202
    And the command "deploy" was spawned 0 times
    When the client accepts the proposal of run "main"'s row log:///1/1/1
    Then run "main"'s row log:///1/1/1 is EXEC sh:///1/1/1 with status 102
    And the command "deploy" was spawned 1 time
    And the run stream sh:///1/1/1 is still running
    When 300 ms pass on the session clock
    Then the run stream sh:///1/1/1 ended with 200
    And run "main" has 1 loop, the last with status 200

  @§exec-host-proposes
  Scenario: accepted without asking, a host command answers 102 in the same turn
    Given host commands are accepted without asking
    And the command "deploy" exits after 200 ms
    And run "main" will emit:
      """
      <<PLAN:deploy:PLAN
      <<EXEC[sh]:deploy:EXEC
      <<SEND[202]:deploying:SEND
      """
    When the client starts run "main" with the prompt "deploy"
    Then run "main"'s row log:///1/1/1 is EXEC sh:///1/1/1 with status 102
    And the command "deploy" was spawned 1 time

  @§exec-readpure-ungated
  Scenario: a pure runtime spawns with no proposal, and its output arrives only in a later turn
    Given the command "count rows" prints "3 rows\n" on stdout after 100 ms
    And the command "count rows" exits after 200 ms
    And run "main" will emit:
      """
      <<PLAN:query:PLAN
      <<EXEC[db]:count rows:EXEC
      <<SEND[202]:querying:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:three rows:SEND
      """
    When the client starts run "main" with the prompt "how many rows?"
    Then run "main"'s row log:///1/1/1 is EXEC db:///1/1/1 with status 102
    And the command "count rows" was spawned 1 time
    And run "main"'s log has no READ db:///1/1/1#stdout
    When 300 ms pass on the session clock
    Then run "main"'s log holds an open READ db:///1/1/1#stdout with status 200 reading "1:\t3 rows\n"
    And packet 1 of run "main" does not contain "3 rows"
    And packet 2 of run "main" contains "3 rows"

  @§exec-stream @§exec-poll @decision
  Scenario: each wake surfaces the new lines, numbered on, folded while running and open at the end
    Given host commands are accepted without asking
    And the command "tick" prints "a\n" on stdout after 100 ms
    And the command "tick" prints "b\n" on stdout after 150 ms
    And the command "tick" prints "c\n" on stdout after 450 ms
    And the command "tick" exits after 500 ms
    And run "main" will emit:
      """
      <<PLAN:tick, polling every 0.2 s:PLAN
      <<EXEC<0,0.2>:tick:EXEC
      <<SEND[202]:ticking:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:keep waiting:PLAN
      <<SEND[202]:ticking:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:keep waiting:PLAN
      <<SEND[202]:ticking:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:ticked:SEND
      """
    When the client starts run "main" with the prompt "tick"
    Then run "main"'s row log:///1/1/1 is open with status 102 reads:
      """
      :::sh
      1:	tick
      :::
      """
    When 250 ms pass on the session clock
    Then the model of run "main" was called 2 times
    And run "main"'s row log:///1/2/1 is folded with status 200 reads:
      """
      1:	a
      2:	b
      """
    And run "main"'s row log:///1/2/1 gives the reason "lines 1-2, active" per Decision (§exec-stream)
    When 200 ms pass on the session clock
    Then the model of run "main" was called 3 times
    When 100 ms pass on the session clock
    Then run "main" has 1 loop, the last with status 200
    And the model of run "main" was called 4 times
    And run "main"'s log holds an open READ sh:///1/1/1#stdout with status 200 reading "3:\tc\n"
    And run "main"'s row log:///1/4/2 gives the reason "lines 3-3, closed" per Decision (§exec-stream)

  @§exec-poll
  Scenario: with several polled streams open, the parked loop is resumed at the tightest cadence
    Given host commands are accepted without asking
    And the command "slow" never exits
    And the command "fast" never exits
    And run "main" will emit:
      """
      <<PLAN:start both:PLAN
      <<EXEC<0,1>:slow:EXEC
      <<EXEC<0,0.2>:fast:EXEC
      <<SEND[202]:waiting:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:keep waiting:PLAN
      <<SEND[202]:waiting:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:keep waiting:PLAN
      <<SEND[202]:waiting:SEND
      """
    When the client starts run "main" with the prompt "wait"
    And 150 ms pass on the session clock
    Then the model of run "main" was called 1 time
    When 100 ms pass on the session clock
    Then the model of run "main" was called 2 times
    When the client cancels run "main"
    Then run "main" has 1 loop, the last with status 499

  @§exec-poll
  Scenario: a poll that falls due while an earlier wake's turn is running resumes nothing: the loop parks again and waits its cadence
    Given host commands are accepted without asking
    And the command "slow" never exits
    And run "main" will emit:
      """
      <<PLAN:start it:PLAN
      <<EXEC<0,0.2>:slow:EXEC
      <<SEND[202]:waiting:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:read the message:PLAN
      <<SEND[202]:waiting again:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:keep waiting:PLAN
      <<SEND[202]:waiting:SEND
      """
    And while run "main" generates reply 2, 300 ms pass on the session clock
    When the client starts run "main" with the prompt "wait"
    And 50 ms pass on the session clock
    And the client injects "hello" into run "main"
    Then the mid-turn actions went through
    And the model of run "main" was called 2 times
    When 150 ms pass on the session clock
    Then the model of run "main" was called 2 times
    When 100 ms pass on the session clock
    Then the model of run "main" was called 3 times
    When the client cancels run "main"
    Then run "main" has 1 loop, the last with status 499

  @§send-premature-terminate
  Scenario: SEND[200] while the run's own stream is still open is downgraded to a continue
    Given host commands are accepted without asking
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start and declare victory:PLAN
      <<EXEC:serve:EXEC
      <<SEND[200]:all done:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:wait for the server:PLAN
      <<SEND[202]:waiting:SEND
      """
    When the client starts run "main" with the prompt "serve"
    Then run "main" has 1 loop, the last with status 202
    And the model of run "main" was called 2 times
    And packet 2 of run "main" contains "Attempted termination with active streams or child runs."
    And packet 2 of run "main" contains "all done"
