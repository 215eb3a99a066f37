@plurnk
Feature: notifications of the daemon
  While a loop runs, the daemon tells the connections attached to its
  session what happens: each new log row as log/entry, each engine notice as
  telemetry/event in the very envelope the model reads, each growth or state
  change of an exec output channel as stream/event, and the loop's end as
  loop/terminated, or loop/quiesced when it parks with nothing live under it.
  Connections attached to other sessions hear none of it.

  Background:
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    And a connection "C" to the daemon
    And "C" creates a session named "elsewhere"

  @§notifications-log-entry-notify @decision
  Scenario: a row folded or deleted is written again, and each write reaches the session as log/entry
    Given the daemon's model will reply:
      """
      <<PLAN:write a note:PLAN
      <<EDIT(known:///a.md):one:EDIT
      <<SEND[102]:written:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:tidy the log:PLAN
      <<FOLD(log:///1/1/1)::FOLD
      <<KILL(log:///1/1/2)::KILL
      <<SEND[200]:tidied:SEND
      """
    When "A" runs a loop with the prompt "take notes"
    Then the loop "A" started ended with status 200
    And "B" got at least 2 "log/entry" notifications for log:///1/1/1/EDIT
    And the last "log/entry" "B" got for log:///1/1/1/EDIT has entry.expanded = false
    And "B" got at least 2 "log/entry" notifications for log:///1/1/2/SEND
    And the last "log/entry" "B" got for log:///1/1/2/SEND has entry.deleted = true per Decision (§notifications-log-entry-notify)
    And "C" got no "log/entry" notification

  @§notifications-log-entry-notify @§methods-log-coordinate
  Scenario: every row written reaches the session's connections as log/entry, once
    Given the daemon's model will reply:
      """
      <<PLAN:write two notes:PLAN
      <<EDIT(known:///a.md):one:EDIT
      <<EDIT(known:///b.md):two:EDIT
      <<SEND[200]:written:SEND
      """
    When "A" runs a loop with the prompt "take notes"
    Then the loop "A" started ended with status 200
    And "A" got 4 "log/entry" notifications for run "model"
    And "B" got 4 "log/entry" notifications for run "model"
    And "C" got no "log/entry" notification
    And the "log/entry" notifications "A" got are the rows log.read answers, in order
    And the "log/entry" notifications "B" got are the rows log.read answers, in order
    And every log entry "B" has seen carries loop_id, turn_id, loop_seq and turn_seq
    And "B" got a "log/entry" notification with entry.path = "log:///1/1/2/EDIT"

  Scenario: the end of a loop reaches the session as loop/terminated with the usage payload
    Given the daemon's model will reply with meta {"balancePico": 42}:
      """
      <<PLAN:finish:PLAN
      <<SEND[200]:done:SEND
      """
    When "A" runs a loop with the prompt "finish"
    Then "B" got 1 "loop/terminated" notification
    And "B" got a "loop/terminated" notification with finalStatus = 200
    And "B" got a "loop/terminated" notification with meta = {"balancePico": 42}
    And "B" got a "loop/terminated" notification with modelRunId = <A.modelRunId>
    And "C" got no "loop/terminated" notification
    And "B" got no "loop/quiesced" notification

  @§telemetry-telemetry-event-notify
  Scenario: engine notices go out live as telemetry/event in the envelope the model reads
    Given the daemon's model will reply:
      """
      <<PLAN:think:PLAN
      <<SEND[102]:still thinking:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:finish:PLAN
      <<SEND[200]:done:SEND
      """
    When "A" runs a loop with the prompt "think"
    Then "B" got 1 "telemetry/event" notification
    And "B" got a telemetry notice with message = "If the turn's work is complete, terminate with 200. If awaiting a stream or run trigger, terminate with 202 to hibernate."
    And "B" got a telemetry notice with kind = "idle_turn" per Decision (§send-idle-turn)
    And "B" got a telemetry notice with source = "engine:rail"
    And each "telemetry/event" "B" got is a line of the daemon's next packet
    And "C" got no "telemetry/event" notification

  @§telemetry-telemetry-event-notify
  Scenario: a failed emission is an error row on log/entry, not a telemetry/event
    Given the daemon's model will reply:
      """
      <<SEND[200]:done without a plan:SEND
      """
    When "A" runs a loop with the prompt "hurry"
    Then "A" got a "log/entry" notification with entry.op = "error"
    And "A" got a "log/entry" notification with entry.status = 400
    And "A" got no "telemetry/event" notification

  @§notifications-stream-event-on-channel-change
  Scenario: an EXEC's output sends stream/event for each chunk and each state change
    Given the daemon's simulated command "build" prints:
      | after ms | channel | output        |
      | 100      | stdout  | compiling a\n |
      | 200      | stderr  | warning\n     |
    And the daemon's simulated command "build" exits with code 0 after 500 ms
    And the daemon's model will reply:
      """
      <<PLAN:build and wait:PLAN
      <<EXEC:build:EXEC
      <<SEND[202]:waiting for the build:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:built:PLAN
      <<SEND[200]:built:SEND
      """
    When "A" runs a loop with the prompt "build it"
    Then the loop "A" started is parked at 202
    When 600 ms pass for the daemon's running commands
    Then "B" got these "stream/event" notifications:
      | channel | state  | contentLength |
      | stderr  | active | 0             |
      | stdout  | active | 0             |
      | stdout  | active | 12            |
      | stderr  | active | 8             |
      | stderr  | closed | 8             |
      | stdout  | closed | 12            |
    And "C" got no "stream/event" notification

  @§notifications-stream-concluded @decision
  Scenario: a stream that closes under a parked loop is announced as stream/concluded, the loop resumed in place
    Given the daemon's simulated command "build" exits with code 0 after 200 ms
    And the daemon's model will reply:
      """
      <<PLAN:build and wait:PLAN
      <<EXEC:build:EXEC
      <<SEND[202]:waiting for the build:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:built:PLAN
      <<SEND[200]:built:SEND
      """
    When "A" runs a loop with the prompt "build it"
    Then "A" got no "stream/concluded" notification per Decision (§notifications-stream-concluded)
    When 300 ms pass for the daemon's running commands
    Then "A" got 1 "stream/concluded" notification per Decision (§notifications-stream-concluded)
    And "B" got 1 "stream/concluded" notification per Decision (§notifications-stream-concluded)
    And "C" got no "stream/concluded" notification per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with wakeAction = "resumed-loop" per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with wakeLoopId = <A.loop.loopId> per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with closeStatus = 200 per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with target = "sh:///1/1/1" per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with scheme = "sh" per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with summary = "build exited with code 0" per Decision (§notifications-stream-concluded)
    And "A" got a "stream/event" notification with state = "closed"
    And the loop "A" started ended with status 200

  @§notifications-stream-concluded @decision
  Scenario: stream/concluded carries the code a command exited with, or the signal that ended it
    Given the daemon's simulated command "build" exits with code 3 after 200 ms
    And the daemon's simulated command "serve" never exits
    And the daemon's model will reply:
      """
      <<PLAN:build and serve:PLAN
      <<EXEC:build:EXEC
      <<EXEC:serve:EXEC
      <<SEND[202]:waiting for the build:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:stop the server:PLAN
      <<KILL(sh:///1/1/2)::KILL
      <<SEND[202]:waiting for it to stop:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When "A" runs a loop with the prompt "build and serve"
    And 300 ms pass for the daemon's running commands
    Then "A" got 2 "stream/concluded" notifications per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with exitCode = 3 per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with signal = "SIGHUP" per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with closeStatus = 499 per Decision (§notifications-stream-concluded)
    And "A" got a "stream/event" notification with state = "errored"
    And the loop "A" started ended with status 200

  @§notifications-stream-concluded @decision
  Scenario: a stream torn down by loop.cancel is announced as skipped, its run not woken
    Given the daemon's simulated command "serve" exits with code 0 after 5000 ms
    And the daemon's model will reply:
      """
      <<PLAN:serve and wait:PLAN
      <<EXEC:serve:EXEC
      <<SEND[202]:serving:SEND
      """
    When "A" runs a loop with the prompt "serve"
    And "A" calls loop.cancel
    And 100 ms pass for the daemon's running commands
    Then "A" got 1 "stream/concluded" notification per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with wakeAction = "skipped-aborted" per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification with closeStatus = 499 per Decision (§notifications-stream-concluded)
    And "A" got a "stream/concluded" notification without wakeLoopId per Decision (§notifications-stream-concluded)
    And "A" got a "stream/event" notification with state = "errored"
    And the loop "A" started ended with status 499

  @§notifications-stream-concluded @decision
  Scenario: loop.cancel in one session tears down only that session's stream, not the same-named run's stream in another
    Given the daemon's simulated command "serve" exits with code 0 after 5000 ms
    And the daemon's model will reply:
      """
      <<PLAN:serve and wait:PLAN
      <<EXEC:serve:EXEC
      <<SEND[202]:serving:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:serve and wait:PLAN
      <<EXEC:serve:EXEC
      <<SEND[202]:serving:SEND
      """
    When "A" runs a loop with the prompt "serve"
    And "C" runs a loop with the prompt "serve"
    And "A" calls loop.cancel
    And 100 ms pass for the daemon's running commands
    Then "A" got a "stream/concluded" notification with closeStatus = 499 per Decision (§notifications-stream-concluded)
    And "A" got a "stream/event" notification with state = "errored"
    And "C" got no "stream/concluded" notification per Decision (§notifications-stream-concluded)
    When 5000 ms pass for the daemon's running commands
    Then "C" got a "stream/concluded" notification with closeStatus = 200 per Decision (§notifications-stream-concluded)
    And "C" got a "stream/event" notification with state = "closed"
