@plurnk
Feature: Tier 3a — the model stops its own streams
  Inside a run, the model's SEND[499] or KILL on the output entry of one of
  its streams goes through the subscription registry to the exec scheme
  that holds the stream, and the process stops: the stream ends 499, output
  the process would have printed later never arrives, and the conclusion
  reaches the run like any other. This is what the premature-terminate
  steer tells a model to do ("KILL(path) with 200 again to clean up"), so a
  KILL and a SEND[200] in one emission end the loop. Folding the stream's
  row changes only how it renders; its chunks never become rows.

  @§subscriptions-subscription-registry-routes-cancellation
  Scenario Outline: inside a run, the model's <op> on its stream stops the process; what it would print later never arrives
    Given host commands are accepted without asking
    And the command "serve" prints "up\n" on stdout after 100 ms
    And the command "serve" prints "late\n" on stdout after 5000 ms
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start the server:PLAN
      <<EXEC[sh]<0,1>:serve:EXEC
      <<SEND[202]:waiting for it to come up:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:stop it:PLAN
      <stop>
      <<SEND[202]:waiting for it to stop:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:stopped:SEND
      """
    When the client starts run "main" with the prompt "serve"
    And 1000 ms pass on the session clock
    Then run "main"'s log holds an open <op> <target> with status 200
    And the run stream sh:///1/1/1 ended with 499 by <signal> at 1000 ms
    And the session was notified stream/concluded for sh:///1/1/1 with close status 499 and wake action "no-op-active-loop" per Decision (§notifications-stream-concluded)
    And run "main" has 1 loop, the last with status 200
    And the model of run "main" was called 3 times
    When 6000 ms pass on the session clock
    Then the stdout channel of the run stream sh:///1/1/1 holds "up\n"

    Examples:
      | op   | stop                             | target        | signal  |
      | SEND | <<SEND[499](sh:///1/1/1)::SEND   | sh:///1/1/1   | SIGTERM |
      | KILL | <<KILL(sh:///1/1/1)::KILL        | sh:///1/1/1   | SIGHUP  |
      | KILL | <<KILL[2](sh:///1/1/1)::KILL     | sh:///1/1/1   | SIGINT  |
      | SEND | <<SEND[499](exec:///1/1/1)::SEND | exec:///1/1/1 | SIGTERM |
      | KILL | <<KILL(exec:///1/1/1)::KILL      | exec:///1/1/1 | SIGHUP  |
      | KILL | <<KILL[9](exec:///1/1/1)::KILL   | exec:///1/1/1 | SIGKILL |

  @§subscriptions-subscription-registry-routes-cancellation @§send-premature-terminate @decision
  Scenario Outline: the steer's advice works: <op> on the stream and SEND[200] in one emission end the loop 200
    Given host commands are accepted without asking
    And the command "serve" prints "up\n" on stdout after 100 ms
    And the command "serve" prints "late\n" on stdout after 5000 ms
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start the server:PLAN
      <<EXEC[sh]<0,1>:serve:EXEC
      <<SEND[202]:waiting for it to come up:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:declare victory:PLAN
      <<SEND[200]:all done:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:clean up as the steer says:PLAN
      <stop>
      <<SEND[200]:all done, server stopped:SEND
      """
    When the client starts run "main" with the prompt "serve"
    And 1000 ms pass on the session clock
    Then packet 3 of run "main" contains "KILL(path) with 200 again to clean up"
    And run "main" has 1 loop, the last with status 200 per Decision (§send-premature-terminate)
    And the model of run "main" was called 3 times per Decision (§send-premature-terminate)
    And the run stream sh:///1/1/1 ended with 499 by <signal> at 1000 ms
    When 6000 ms pass on the session clock
    Then the stdout channel of the run stream sh:///1/1/1 holds "up\n"

    Examples:
      | op   | stop                           | signal  |
      | KILL | <<KILL(sh:///1/1/1)::KILL      | SIGHUP  |
      | SEND | <<SEND[499](sh:///1/1/1)::SEND | SIGTERM |

  @§send-premature-terminate @decision
  Scenario: a stream still on its way out is cleaned up: SEND[499] and SEND[200] end the loop while the process waits for SIGKILL
    Given host commands are accepted without asking
    And the command "serve" prints "up\n" on stdout after 100 ms
    And the command "serve" prints "late\n" on stdout after 5000 ms
    And the command "serve" never exits
    And the command "serve" ignores the polite signal
    And run "main" will emit:
      """
      <<PLAN:start the server:PLAN
      <<EXEC[sh]<0,1>:serve:EXEC
      <<SEND[202]:waiting for it to come up:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:stop it and finish:PLAN
      <<SEND[499](sh:///1/1/1)::SEND
      <<SEND[200]:stopped:SEND
      """
    When the client starts run "main" with the prompt "serve"
    And 1000 ms pass on the session clock
    Then run "main" has 1 loop, the last with status 200 per Decision (§send-premature-terminate)
    And the model of run "main" was called 2 times per Decision (§send-premature-terminate)
    And the run stream sh:///1/1/1 is still running per Decision (§run-lifecycle-total-reap)
    When 2000 ms pass on the session clock
    Then the run stream sh:///1/1/1 ended with 499
    And the run stream sh:///1/1/1 ended with 499 by SIGKILL at 3000 ms per Decision (§run-lifecycle-total-reap)
    And the session was notified stream/concluded for sh:///1/1/1 with close status 499 and wake action "no-loop" per Decision (§notifications-stream-concluded)
    When 3000 ms pass on the session clock
    Then the stdout channel of the run stream sh:///1/1/1 holds "up\n"

  @§send-premature-terminate
  Scenario: reading the stream is not stopping it: READ and SEND[200] in one emission are still downgraded
    Given host commands are accepted without asking
    And the command "serve" prints "up\n" on stdout after 100 ms
    And the command "serve" prints "late\n" on stdout after 5000 ms
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start the server:PLAN
      <<EXEC[sh]<0,1>:serve:EXEC
      <<SEND[202]:waiting for it to come up:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:look and finish:PLAN
      <<READ(sh:///1/1/1)::READ
      <<SEND[200]:it is up:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:wait:PLAN
      <<SEND[202]:waiting:SEND
      """
    When the client starts run "main" with the prompt "serve"
    And 1000 ms pass on the session clock
    Then run "main"'s log holds an open READ sh:///1/1/1 with status 200
    And packet 3 of run "main" contains "Attempted termination with active streams or child runs."
    And run "main" has 1 loop, the last with status 202
    And the run stream sh:///1/1/1 is still running

  @§send-premature-terminate @decision
  Scenario: stopping one of two streams does not clean up the other: the SEND[200] is still downgraded
    Given host commands are accepted without asking
    And the command "serve" prints "up\n" on stdout after 100 ms
    And the command "serve" prints "late\n" on stdout after 5000 ms
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start two servers:PLAN
      <<EXEC[sh]<0,1>:serve:EXEC
      <<EXEC[sh]<0,1>:serve:EXEC
      <<SEND[202]:waiting for them:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:stop the first only:PLAN
      <<KILL(sh:///1/1/1)::KILL
      <<SEND[200]:done:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:stop the second too:PLAN
      <<KILL(sh:///1/1/2)::KILL
      <<SEND[200]:done now:SEND
      """
    When the client starts run "main" with the prompt "serve"
    And 1000 ms pass on the session clock
    Then packet 3 of run "main" contains "Attempted termination with active streams or child runs."
    And run "main"'s log holds exactly these rows: per Decision (§exec-stream)
      | row   | op   | target             | status |
      | 1/0/1 | EDIT | plurnk:///prompt/1 | 201    |
      | 1/1/1 | EXEC | sh:///1/1/1        | 102    |
      | 1/1/2 | EXEC | sh:///1/1/2        | 102    |
      | 1/1/3 | SEND | -                  | 202    |
      | 1/2/1 | READ | sh:///1/1/1#stdout | 200    |
      | 1/2/2 | READ | sh:///1/1/2#stdout | 200    |
      | 1/2/3 | KILL | sh:///1/1/1        | 200    |
      | 1/2/4 | SEND | -                  | 102    |
      | 1/3/1 | READ | sh:///1/1/1#stderr | 200    |
      | 1/3/2 | READ | sh:///1/1/1#stdout | 200    |
      | 1/3/3 | KILL | sh:///1/1/2        | 200    |
      | 1/3/4 | SEND | -                  | 200    |
    And run "main" has 1 loop, the last with status 200 per Decision (§send-premature-terminate)
    And the model of run "main" was called 3 times per Decision (§send-premature-terminate)
    And the run stream sh:///1/1/1 ended with 499 by SIGHUP at 1000 ms
    And the run stream sh:///1/1/2 ended with 499 by SIGHUP at 1000 ms

  @§send-premature-terminate @decision
  Scenario: a KILL that stops nothing (no such signal) cleans nothing up: the SEND[200] is downgraded and the stream runs on
    Given host commands are accepted without asking
    And the command "serve" prints "up\n" on stdout after 100 ms
    And the command "serve" prints "late\n" on stdout after 5000 ms
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start the server:PLAN
      <<EXEC[sh]<0,1>:serve:EXEC
      <<SEND[202]:waiting for it to come up:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:stop it with a signal that does not exist:PLAN
      <<KILL[7](sh:///1/1/1)::KILL
      <<SEND[200]:done:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:wait:PLAN
      <<SEND[202]:waiting:SEND
      """
    When the client starts run "main" with the prompt "serve"
    And 1000 ms pass on the session clock
    Then run "main"'s log holds a folded KILL sh:///1/1/1 with status 400 per Decision (§run-lifecycle-total-reap)
    And packet 3 of run "main" contains "Attempted termination with active streams or child runs."
    And run "main" has 1 loop, the last with status 202
    And the run stream sh:///1/1/1 is still running
    When 5000 ms pass on the session clock
    Then the stdout channel of the run stream sh:///1/1/1 holds "up\nlate\n"

  @§subscriptions-fold-keeps-subscription
  Scenario: a folded stream keeps streaming, and the model can still stop it
    Given host commands are accepted without asking
    And the command "serve" prints "up\n" on stdout after 100 ms
    And the command "serve" prints "late\n" on stdout after 5000 ms
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start the server and fold it away:PLAN
      <<EXEC[sh]<0,3>:serve:EXEC
      <<FOLD(log:///1/1/1)::FOLD
      <<SEND[202]:waiting:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:stop it:PLAN
      <<SEND[499](sh:///1/1/1)::SEND
      <<SEND[200]:stopped:SEND
      """
    When the client starts run "main" with the prompt "serve"
    Then run "main"'s log holds a folded EXEC sh:///1/1/1 with status 102
    When 2000 ms pass on the session clock
    Then the run stream sh:///1/1/1 is still running
    And the stdout channel of the run stream sh:///1/1/1 holds "up\n"
    When 1000 ms pass on the session clock
    Then the run stream sh:///1/1/1 ended with 499 by SIGTERM at 3000 ms
    And run "main" has 1 loop, the last with status 200
    When 3000 ms pass on the session clock
    Then the stdout channel of the run stream sh:///1/1/1 holds "up\n"

  @§no-chunk-rows-log-captures-lifecycle-only
  Scenario: a stream of many chunks, stopped by the model, leaves only lifecycle rows in the run's log
    Given host commands are accepted without asking
    And the command "tick" prints "1\n" on stdout after 100 ms
    And the command "tick" prints "2\n" on stdout after 200 ms
    And the command "tick" prints "3\n" on stderr after 300 ms
    And the command "tick" prints "4\n" on stdout after 400 ms
    And the command "tick" prints "5\n" on stdout after 5000 ms
    And the command "tick" never exits
    And run "main" will emit:
      """
      <<PLAN:tick:PLAN
      <<EXEC[sh]<0,1>:tick:EXEC
      <<SEND[202]:waiting:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:enough:PLAN
      <<KILL(sh:///1/1/1)::KILL
      <<SEND[200]:stopped:SEND
      """
    When the client starts run "main" with the prompt "tick"
    And 6000 ms pass on the session clock
    Then the stdout channel of the run stream sh:///1/1/1 holds "1\n2\n4\n"
    And run "main"'s log holds exactly these rows:
      | row   | op   | target             | status |
      | 1/0/1 | EDIT | plurnk:///prompt/1 | 201    |
      | 1/1/1 | EXEC | sh:///1/1/1        | 102    |
      | 1/1/2 | SEND | -                  | 202    |
      | 1/2/1 | READ | sh:///1/1/1#stderr | 200    |
      | 1/2/2 | READ | sh:///1/1/1#stdout | 200    |
      | 1/2/3 | KILL | sh:///1/1/1        | 200    |
      | 1/2/4 | SEND | -                  | 200    |

  @§subscriptions-subscription-registry-routes-cancellation @§run-lifecycle-total-reap @slow
  Scenario Outline: a real process stops on the model's <op>: it never prints what it would have printed after its sleep
    Given the real sh executor runs the commands
    And the shell environment of the service is:
      | name | value         |
      | PATH | /usr/bin:/bin |
    When the model's EXEC 1/1/2 is accepted: <<EXEC:sleep 2; echo late:EXEC
    And the model emits <stop>
    Then the action answers 200
    When the commands run to completion
    Then the stream sh:///1/1/2 ended with 499 by <signal>
    And the stdout channel of sh:///1/1/2 holds ""
    And the stdout channel of sh:///1/1/2 is errored

    Examples:
      | op   | stop                             | signal  |
      | SEND | <<SEND[499](sh:///1/1/2)::SEND   | SIGTERM |
      | KILL | <<KILL(sh:///1/1/2)::KILL        | SIGHUP  |
      | KILL | <<KILL[9](sh:///1/1/2)::KILL     | SIGKILL |
      | KILL | <<KILL[15](sh:///1/1/2)::KILL    | SIGTERM |
      | KILL | <<KILL[10](sh:///1/1/2)::KILL    | SIGUSR1 |
      | KILL | <<KILL[12](sh:///1/1/2)::KILL    | SIGUSR2 |
      | KILL | <<KILL[14](sh:///1/1/2)::KILL    | SIGALRM |
      | SEND | <<SEND[499](exec:///1/1/2)::SEND | SIGTERM |
      | KILL | <<KILL(exec:///1/1/2)::KILL      | SIGHUP  |

  @§subscriptions-subscription-registry-routes-cancellation @§send-premature-terminate @decision
  Scenario Outline: through the daemon, the steered model's KILL on <face> and SEND[200] end the loop, and the stream's last event is its 499
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's simulated command "serve" prints:
      | after ms | channel | output  |
      | 100      | stdout  | up\n    |
      | 5000     | stdout  | late\n  |
    And the daemon's simulated command "serve" never exits
    And the daemon's model will reply:
      """
      <<PLAN:start the server:PLAN
      <<EXEC[sh]<0,1>:serve:EXEC
      <<SEND[202]:waiting for it to come up:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:declare victory:PLAN
      <<SEND[200]:all done:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:clean up as the steer says:PLAN
      <<KILL(<face>)::KILL
      <<SEND[200]:all done, server stopped:SEND
      """
    When "A" runs a loop with the prompt "serve"
    Then the loop "A" started is parked at 202
    When 1000 ms pass for the daemon's running commands
    Then the loop "A" started ended with status 200
    And "A" got 1 "stream/concluded" notification per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with closeStatus = 499 per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with target = "sh:///1/1/1" per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with wakeAction = "no-op-active-loop" per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with wakeLoopId = <A.loop.loopId> per Decision (§notifications-stream-concluded)
    When 6000 ms pass for the daemon's running commands
    Then "A" got these "stream/event" notifications:
      | channel | state   | contentLength |
      | stderr  | active  | 0             |
      | stdout  | active  | 0             |
      | stdout  | active  | 3             |
      | stderr  | errored | 0             |
      | stdout  | errored | 3             |

    Examples:
      | face          |
      | sh:///1/1/1   |
      | exec:///1/1/1 |

  @§subscriptions-subscription-registry-routes-cancellation @§live-updates-stream-event-fires-on-chunk
  Scenario: the registry is keyed by session: another session's SEND[499] on the same address stops nothing here
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    And a connection "C" to the daemon
    And "C" creates a session named "elsewhere"
    And the daemon's simulated command "serve" prints:
      | after ms | channel | output  |
      | 100      | stdout  | up\n    |
      | 5000     | stdout  | late\n  |
    And the daemon's simulated command "serve" never exits
    And the daemon's model will reply:
      """
      <<PLAN:start the server:PLAN
      <<EXEC[sh]:serve:EXEC
      <<SEND[202]:waiting for it:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:stop a server at that address:PLAN
      <<SEND[499](sh:///1/1/1)::SEND
      <<SEND[200]:tried:SEND
      """
    When "A" runs a loop with the prompt "serve"
    Then the loop "A" started is parked at 202
    When "C" runs a loop with the prompt "stop it"
    Then the loop "C" started ended with status 200
    And "C" got a "log/entry" notification with entry.status = 304
    When 6000 ms pass for the daemon's running commands
    Then "A" got no "stream/concluded" notification per Decision (§notifications-stream-concluded)
    And "A" got these "stream/event" notifications:
      | channel | state  | contentLength |
      | stderr  | active | 0             |
      | stdout  | active | 0             |
      | stdout  | active | 3             |
      | stdout  | active | 8             |

  @§subscriptions-subscription-registry-routes-cancellation @§run-lifecycle-total-reap @decision
  Scenario Outline: exec:/// is the spawn's process-control face whatever its runtime: <stop> stops a db stream
    Given the command "watch" prints "tick\n" on stdout after 100 ms
    And the command "watch" prints "late\n" on stdout after 5000 ms
    And the command "watch" never exits
    And run "main" will emit:
      """
      <<PLAN:watch the table:PLAN
      <<EXEC[db]<0,1>:watch:EXEC
      <<SEND[202]:waiting for ticks:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:enough:PLAN
      <stop>
      <<SEND[200]:stopped:SEND
      """
    When the client starts run "main" with the prompt "watch"
    And 1000 ms pass on the session clock
    Then run "main"'s log holds an open <op> exec:///1/1/1 with status 200 per Decision (§subscriptions-subscription-registry-routes-cancellation)
    And the run stream db:///1/1/1 ended with 499 by <signal> at 1000 ms
    And run "main" has 1 loop, the last with status 200
    When 6000 ms pass on the session clock
    Then the stdout channel of the run stream db:///1/1/1 holds "tick\n"

    Examples:
      | op   | stop                             | signal  |
      | SEND | <<SEND[499](exec:///1/1/1)::SEND | SIGTERM |
      | KILL | <<KILL[15](exec:///1/1/1)::KILL  | SIGTERM |
      | KILL | <<KILL[10](exec:///1/1/1)::KILL  | SIGUSR1 |

  @§subscriptions-subscription-registry-routes-cancellation @decision
  Scenario: exec:/// holds no output and stops nothing once the spawn has ended: READ 404, SEND[499] 304, KILL 403 whatever its signal
    Given host commands are accepted without asking
    And the command "serve" prints "up\n" on stdout after 100 ms
    And the command "serve" prints "late\n" on stdout after 5000 ms
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start the server:PLAN
      <<EXEC[sh]<0,1>:serve:EXEC
      <<SEND[202]:waiting for it to come up:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:stop it twice and look:PLAN
      <<KILL(exec:///1/1/1)::KILL
      <<READ(exec:///1/1/1)::READ
      <<SEND[499](exec:///1/1/1)::SEND
      <<KILL(exec:///1/1/1)::KILL
      <<KILL[7](exec:///1/1/1)::KILL
      <<KILL(exec:///1/1/7)::KILL
      <<SEND[200]:stopped:SEND
      """
    When the client starts run "main" with the prompt "serve"
    And 1000 ms pass on the session clock
    Then run "main"'s log holds exactly these rows: per Decision (§exec-stream)
      | row   | op   | target             | status |
      | 1/0/1 | EDIT | plurnk:///prompt/1 | 201    |
      | 1/1/1 | EXEC | sh:///1/1/1        | 102    |
      | 1/1/2 | SEND | -                  | 202    |
      | 1/2/1 | READ | sh:///1/1/1#stdout | 200    |
      | 1/2/2 | KILL | exec:///1/1/1      | 200    |
      | 1/2/3 | READ | exec:///1/1/1      | 404    |
      | 1/2/4 | SEND | exec:///1/1/1      | 304    |
      | 1/2/5 | KILL | exec:///1/1/1      | 403    |
      | 1/2/6 | KILL | exec:///1/1/1      | 403    |
      | 1/2/7 | KILL | exec:///1/1/7      | 403    |
      | 1/2/8 | SEND | -                  | 200    |
    And the run stream sh:///1/1/1 ended with 499 by SIGHUP at 1000 ms

  @§exec-stream @decision
  Scenario: only a running EXEC's output is foisted: an entry the model wrote at an address like a coordinate is not a stream
    Given run "main" will emit:
      """
      <<PLAN:note something at a coordinate-like path:PLAN
      <<EDIT(known:///1/1/1):hello:EDIT
      <<SEND[102]:noted:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the client starts run "main" with the prompt "note"
    Then run "main"'s log holds exactly these rows: per Decision (§exec-stream)
      | row   | op   | target             | status |
      | 1/0/1 | EDIT | plurnk:///prompt/1 | 201    |
      | 1/1/1 | EDIT | known:///1/1/1     | 201    |
      | 1/1/2 | SEND | -                  | 102    |
      | 1/2/1 | SEND | -                  | 200    |
