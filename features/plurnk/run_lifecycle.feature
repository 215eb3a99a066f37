@plurnk
Feature: the run lifecycle — drains, wakes, quiescence, cancellation
  Each run has at most one drain working through its loops. A loop that
  parks with SEND[202] is not over: what it waits for (a stream it opened,
  a child it spawned) resumes that same loop in place when it concludes,
  and a child that concludes wakes its parked parent, up the chain. A park
  with nothing live beneath it is announced as loop/quiesced and stays
  resumable. A cancelled run stays down until the client runs it again.

  @§run-lifecycle-wake-liveness @§exec-poll
  Scenario: a stream concluding resumes the parked loop in place, with no new loop and no prompt
    Given host commands are accepted without asking
    And the command "build" prints "built\n" on stdout after 100 ms
    And the command "build" exits after 500 ms
    And run "main" will emit:
      """
      <<PLAN:build in the background and sleep:PLAN
      <<EXEC:build:EXEC
      <<SEND[202]:waiting for the build:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:the build is done:PLAN
      <<SEND[200]:built:SEND
      """
    When the client starts run "main" with the prompt "build it"
    Then run "main" has 1 loop, the last with status 202
    And the model of run "main" was called 1 time
    When 400 ms pass on the session clock
    Then the model of run "main" was called 1 time
    When 200 ms pass on the session clock
    Then run "main" has 1 loop, the last with status 200
    And the model of run "main" was called 2 times
    And packet 2 of run "main" contains "1:\tbuilt"
    And the session was notified loop/terminated 1 time for run "main"

  @§run-lifecycle-child-wake
  Scenario: a concluded grandchild wakes its parked parent, which wakes its own parked parent
    Given run "main" will emit:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://mid):Delegate further.:EDIT
      <<SEND[202]:waiting for mid:SEND
      """
    And run "mid" will emit:
      """
      <<PLAN:delegate again:PLAN
      <<EDIT(run://leaf):Do the work.:EDIT
      <<SEND[202]:waiting for leaf:SEND
      """
    And run "leaf" will emit:
      """
      <<PLAN:work:PLAN
      <<SEND[200]:leaf result:SEND
      """
    And run "mid" will emit:
      """
      <<PLAN:pass it up:PLAN
      <<SEND[200]:mid passes on the leaf result:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:all done:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "leaf" has 1 loop, the last with status 200
    And run "mid" has 1 loop, the last with status 200
    And run "main" has 1 loop, the last with status 200
    And run "main"'s log holds a folded SEND run://mid with status 200 reading "mid passes on the leaf result"
    And run "mid"'s log holds a folded SEND run://leaf with status 200 reading "leaf result"

  @§run-lifecycle-child-wake @§run-lifecycle-quiesced
  Scenario: a parked child wakes no one; its idle park is announced, its parent's is not
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
    And run "child" will emit:
      """
      <<PLAN:do it:PLAN
      <<SEND[200]:did it:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:child did it:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "child" has 1 loop, the last with status 202
    And run "main" has 1 loop, the last with status 202
    And the model of run "main" was called 1 time
    And the session was notified loop/quiesced for loop 1 of run "child" with status 202
    And the session was notified loop/quiesced 0 times for run "main"
    And the session was notified loop/terminated 0 times for run "child"
    When the client injects "Go ahead." into run "child"
    Then run "child" has 1 loop, the last with status 200
    And run "main" has 1 loop, the last with status 200
    And the model of run "main" was called 2 times

  @§run-lifecycle-quiesced
  Scenario: no quiescence while a stream is open; the park after it concludes is announced
    Given host commands are accepted without asking
    And the command "fetch" exits after 300 ms
    And run "main" will emit:
      """
      <<PLAN:fetch and sleep:PLAN
      <<EXEC:fetch:EXEC
      <<SEND[202]:waiting for fetch:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:sleep until told:PLAN
      <<SEND[202]:idle:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then the session was notified loop/quiesced 0 times for run "main"
    When 400 ms pass on the session clock
    Then run "main" has 1 loop, the last with status 202
    And the session was notified loop/quiesced 1 time for run "main"
    And the session was notified loop/terminated 0 times for run "main"

  @§run-lifecycle-no-resurrection
  Scenario: a cancelled run is not revived by its killed stream; only loop.run restarts it
    Given host commands are accepted without asking
    And the command "serve" prints "listening\n" on stdout after 100 ms
    And the command "serve" exits after 1000 ms
    And run "main" will emit:
      """
      <<PLAN:serve and sleep:PLAN
      <<EXEC:serve:EXEC
      <<SEND[202]:serving:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:fresh start:PLAN
      <<SEND[200]:restarted:SEND
      """
    When the client starts run "main" with the prompt "serve"
    And the client cancels run "main"
    Then run "main" has 1 loop, the last with status 499
    And the run stream sh:///1/1/1 ended with 499
    When 1500 ms pass on the session clock
    Then run "main" has 1 loop, the last with status 499
    And the model of run "main" was called 1 time
    When the client starts run "main" with the prompt "start again"
    Then run "main" has 2 loops, the last with status 200

  @§run-lifecycle-no-resurrection @decision
  Scenario: a command that ends cleanly just as its run is cancelled leaves a delta and revives nothing
    Given host commands are accepted without asking
    And the command "build" prints "built ok\n" on stdout after 100 ms
    And the command "build" exits after 200 ms
    And run "main" will emit:
      """
      <<PLAN:build and sleep:PLAN
      <<EXEC:build:EXEC
      <<SEND[202]:building:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:look at what is left:PLAN
      <<SEND[200]:the build had finished:SEND
      """
    When the client starts run "main" with the prompt "build"
    And 150 ms pass on the session clock
    Then run "main" has 1 loop, the last with status 202
    When 50 ms pass and the client cancels run "main" before the daemon applies what happened
    Then the run stream sh:///1/1/1 ended with 200
    And run "main" has 1 loop, the last with status 499
    And the session was notified loop/terminated 1 time for run "main"
    When 1000 ms pass on the session clock
    Then run "main" has 1 loop, the last with status 499
    And the model of run "main" was called 1 time
    And the session was notified stream/concluded for sh:///1/1/1 with close status 200 and wake action "skipped-cancelled" per Decision (§notifications-stream-concluded)
    When the client starts run "main" with the prompt "what is left?"
    Then run "main" has 2 loops, the last with status 200
    And run "main"'s log holds a folded SEND sh:///1/1/1 with status 200
    And packet 2 of run "main" contains "sh:///1/1/1 origin=plurnk (folded)" per Decision (§run-lifecycle-no-resurrection)
    And run "main"'s row log:///2/0/2 is folded with status 200 reads:
      """
      build exited with code 0
      """
    And run "main"'s row log:///2/0/2 gives the reason "stream concluded after the run was cancelled" per Decision (§run-lifecycle-no-resurrection)

  @§actor-boundary-passive-wake
  Scenario: a sister's edit of a shared entry waits as a folded delta and wakes no one
    Given run "main" will emit:
      """
      <<PLAN:start a reader:PLAN
      <<EDIT(run://reader):Say when you are ready.:EDIT
      <<SEND[202]:waiting:SEND
      """
    And run "reader" will emit:
      """
      <<PLAN:ready:PLAN
      <<SEND[200]:ready:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:publish:PLAN
      <<EDIT(known:///shared.md):version one:EDIT
      <<SEND[200]:published:SEND
      """
    And run "reader" will emit:
      """
      <<PLAN:look:PLAN
      <<SEND[200]:seen:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main" has 1 loop, the last with status 200
    And run "reader" has 1 loop, the last with status 200
    And the model of run "reader" was called 1 time
    And run "reader"'s log has no EDIT known:///shared.md
    When the client injects "What changed?" into run "reader"
    Then run "reader" has 2 loops, the last with status 200
    And run "reader"'s log holds a folded EDIT known:///shared.md with status 201
    And packet 2 of run "reader" contains "What changed?"

  @§run-lifecycle-total-reap @decision
  Scenario Outline: a model's <kill> on a live stream sends its process exactly <signal>, and the stream ends 499
    Given host commands are accepted without asking
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start the server:PLAN
      <<EXEC:serve:EXEC
      <<SEND[102]:started:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:stop it:PLAN
      <<<kill>(sh:///1/1/1)::KILL
      <<SEND[202]:stopping:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:stopped:PLAN
      <<SEND[200]:stopped:SEND
      """
    When the client starts run "main" with the prompt "serve"
    Then the run stream sh:///1/1/1 ended with 499 by <signal> at 0 ms
    And run "main"'s log holds an open KILL sh:///1/1/1 with status 200
    And run "main"'s log holds an open KILL sh:///1/1/1 with status 200 reading "sent <signal>" per Decision (§run-lifecycle-total-reap)
    And run "main" has 1 loop, the last with status 200

    Examples:
      | kill     | signal  |
      | KILL     | SIGHUP  |
      | KILL[1]  | SIGHUP  |
      | KILL[2]  | SIGINT  |
      | KILL[3]  | SIGQUIT |
      | KILL[6]  | SIGABRT |
      | KILL[9]  | SIGKILL |
      | KILL[10] | SIGUSR1 |
      | KILL[12] | SIGUSR2 |
      | KILL[14] | SIGALRM |
      | KILL[15] | SIGTERM |

  @§run-lifecycle-total-reap @decision
  Scenario: a model's KILL[15] is the one signal sent: a process that ignores it is not escalated to SIGKILL after the grace
    Given host commands are accepted without asking
    And the command "serve" never exits
    And the command "serve" ignores the polite signal
    And run "main" will emit:
      """
      <<PLAN:start the server:PLAN
      <<EXEC:serve:EXEC
      <<SEND[102]:started:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:ask it to stop:PLAN
      <<KILL[15](sh:///1/1/1)::KILL
      <<SEND[202]:waiting:SEND
      """
    When the client starts run "main" with the prompt "serve"
    And 5000 ms pass on the session clock
    Then the run stream sh:///1/1/1 is still running
    And run "main"'s log holds an open KILL sh:///1/1/1 with status 200
    And run "main"'s log holds an open KILL sh:///1/1/1 with status 200 reading "sent SIGTERM" per Decision (§run-lifecycle-total-reap)

  @§run-lifecycle-total-reap
  Scenario: loop.cancel reaps a stream politely first and with SIGKILL once the 2000 ms grace has passed
    Given host commands are accepted without asking
    And the command "serve" never exits
    And the command "serve" ignores the polite signal
    And run "main" will emit:
      """
      <<PLAN:serve in the background:PLAN
      <<EXEC:serve:EXEC
      <<SEND[202]:serving:SEND
      """
    When the client starts run "main" with the prompt "serve"
    And the client cancels run "main"
    And 1999 ms pass on the session clock
    Then the run stream sh:///1/1/1 is still running per Decision (§run-lifecycle-total-reap)
    When 1 ms pass on the session clock
    Then the run stream sh:///1/1/1 ended with 499 by SIGKILL at 2000 ms per Decision (§run-lifecycle-total-reap)

  @§run-lifecycle-total-reap @decision
  Scenario Outline: a KILL[<code>] naming no signal this build knows answers 400 and the stream keeps running
    Given host commands are accepted without asking
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start the server:PLAN
      <<EXEC:serve:EXEC
      <<SEND[102]:started:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:stop it:PLAN
      <<KILL[<code>](sh:///1/1/1)::KILL
      <<SEND[202]:waiting:SEND
      """
    When the client starts run "main" with the prompt "serve"
    Then run "main"'s log holds a folded KILL sh:///1/1/1 with status 400 per Decision (§run-lifecycle-total-reap)
    And the run stream sh:///1/1/1 is still running per Decision (§run-lifecycle-total-reap)

    Examples:
      | code |
      | 4    |
      | 16   |
