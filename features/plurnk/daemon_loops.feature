@plurnk
Feature: loops and client ops through the daemon
  loop.run hands a prompt to the model run and answers at once; the loop's
  outcome comes later as loop/terminated. A client acts on the world itself
  with the op.* methods, each one a turn of its own client loop, and looks
  at content with op.look without leaving a trace.

  Background:
    Given a connection "A" to the daemon
    And "A" creates a session named "work"

  @§methods-loop-run @decision
  Scenario: loop.run answers at once with finalStatus 100 and the outcome follows on loop/terminated
    Given the daemon's model will reply:
      """
      <<PLAN:note:PLAN
      <<EDIT(known:///n.md):noted:EDIT
      <<SEND[102]:go on:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:noted it:SEND
      """
    When "A" runs a loop with {"prompt": "note it", "maxTurns": 5}
    Then the answer to "A" has finalStatus = 100
    And the answer to "A" has action = "enqueued_new_loop"
    And the answer to "A" has loopSeq = 1 per Decision (§methods-loop-run)
    And the answer to "A" has runId = <A.modelRunId>
    And the loop "A" started ended with status 200
    And "A" got a "loop/terminated" notification with turns = 2 per Decision (§methods-loop-run)
    And "A" got a "loop/terminated" notification with hitMaxTurns = false
    And "A" got a "loop/terminated" notification with turnIds.# = 3 per Decision (§methods-loop-run)
    And "A" got a "loop/terminated" notification with usage.completionTokens = 29 per Decision (§methods-loop-run)
    And "A" got 4 "log/entry" notifications for run "model"

  @§methods-loop-run @§run-lifecycle-single-drain @decision
  Scenario: a loop.run reaching a run whose loop is running goes into that loop's next turn
    Given the daemon's model will reply:
      """
      <<PLAN:think:PLAN
      <<EDIT(known:///a.md):first:EDIT
      <<SEND[102]:go on:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:answer both:PLAN
      <<SEND[200]:answered both:SEND
      """
    And while the daemon's model generates reply 1, "A" calls loop.run with {"prompt": "and the second question"}
    When "A" runs a loop with the prompt "the first question"
    Then the answer to "A" has action = "injected_next_turn"
    And the answer to "A" has finalStatus = 100
    And the loop "A" started ended with status 200
    And "A" got 1 "loop/terminated" notification
    When "A" calls session.runs
    Then the answer to "A" has runs.#(name=="model").loops = 1
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 2, "sequence": 1}
    Then the entry in the answer to "A" has op = "SEND"
    And the entry in the answer to "A" has origin = "client" per Decision (§run-lifecycle-single-drain)
    And the entry in the answer to "A" has rx = "and the second question"

  @§methods-loop-cancel @decision
  Scenario: loop.cancel aborts the running loop at 499 and answers cancelled, the run and the reason
    Given the daemon's model will reply:
      """
      <<PLAN:work:PLAN
      <<EDIT(known:///a.md):first:EDIT
      <<SEND[102]:go on:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:never:PLAN
      <<SEND[200]:never sent:SEND
      """
    And while the daemon's model generates reply 2, "A" calls loop.cancel with {"reason": "changed my mind"}
    When "A" runs a loop with the prompt "work"
    Then the loop "A" started ended with status 499
    And the answer to "A" has cancelled = true
    And the answer to "A" has runId = <A.modelRunId> per Decision (§methods-loop-cancel)
    And the answer to "A" has reason = "changed my mind"
    When "A" calls loop.cancel
    Then the answer to "A" has cancelled = false
    And the answer to "A" has reason = "user_cancelled"

  @§methods-op-mirror @decision
  Scenario: a connection attached to the model run has no client loop, and its op.* calls are refused
    Given the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When "A" runs a loop with the prompt "think"
    Then the loop "A" started ended with status 200
    Given a connection "B" to the daemon
    When "B" calls session.attach with {"id": <A.id>, "runId": <A.modelRunId>}
    Then the answer to "B" has runId = <A.modelRunId>
    When "B" calls op.edit with {"target": "known:///todo.md", "body": "buy milk"}
    Then the answer to "B" is the error -32602 per Decision (§methods-op-mirror)

  @§methods-op-mirror @decision
  Scenario: each op.* call is one turn of the client loop, on the model's dispatch path, heard as log/entry
    When "A" calls op.edit with {"target": "known:///todo.md", "body": "buy milk"}
    Then the answer to "A" has status = 201
    And the answer to "A" has turnSeq = 0 per Decision (§methods-op-mirror)
    And the answer to "A" has entries.0.path = "log:///1/0/1/EDIT" per Decision (§methods-op-mirror)
    And the answer to "A" has entries.0.origin = "client"
    And the answer to "A" has loopId equal to its entries.0.loop_id
    And "A" heard the "log/entry" of its entries.0.path before the answer
    When "A" calls op.edit with {"target": "known:///todo.md", "body": "buy milk"}
    Then the answer to "A" has status = 304
    And the answer to "A" has turnSeq = 1 per Decision (§methods-op-mirror)
    And the answer to "A" has loopId equal to its entries.0.loop_id
    When "A" calls op.read with {"target": "known:///todo.md"}
    Then the answer to "A" has status = 200
    And the answer to "A" has content = "1:\tbuy milk\n"
    And the answer to "A" has turnSeq = 2 per Decision (§methods-op-mirror)
    When "A" calls op.read with {"target": "known:///nothing.md"}
    Then the answer to "A" has status = 404
    When "A" calls op.edit with {"target": "known:///x.md", "body": "a:EDIT b"}
    Then the answer to "A" is the error -32602 per Decision (§methods-op-mirror)
    When "A" calls log.read
    Then the answer to "A" has entries.#.path = ["log:///1/0/1/EDIT", "log:///1/1/1/EDIT", "log:///1/2/1/READ", "log:///1/3/1/READ"] per Decision (§methods-op-mirror)
    And "A" got 4 "log/entry" notifications
    When "A" calls session.runs
    Then the answer to "A" has no runs.#(origin=="model")
    When "A" calls entry.read with {"target": "known:///todo.md"}
    Then the answer to "A" has entry.channels.body.content = "buy milk"

  @§op-look
  Scenario: op.look resolves a READ with its full resolver and leaves no turn and no row
    When "A" calls op.edit with {"target": "known:///list.md", "body": "one\ntwo\nthree"}
    Then the answer to "A" has status = 201
    When "A" calls op.look with {"text": "<<LOOK<2,3>(known:///list.md)::LOOK"}
    Then the answer to "A" has status = 200
    And the answer to "A" has content = "2:\ttwo\n3:\tthree\n"
    When "A" calls op.look with {"text": "<<READ(known:///list.md):/thr/:READ"}
    Then the answer to "A" has content = "3:\tthree\n"
    When "A" calls op.look with {"text": "<<LOOK(known:///gone.md)::LOOK"}
    Then the answer to "A" has status = 404
    When "A" calls op.look with {"text": "<<EDIT(known:///list.md):changed:EDIT"}
    Then the answer to "A" is the error -32602
    When "A" calls op.look with {"text": "look here <<READ(known:///list.md)::READ"}
    Then the answer to "A" is the error -32602
    When "A" calls log.read
    Then the answer to "A" holds 1 log entry
    When "A" calls session.runs
    Then the answer to "A" has runs.#(name=="client-1").loops = 1
    When "A" calls entry.read with {"target": "known:///list.md"}
    Then the answer to "A" has entry.channels.body.content = "one\ntwo\nthree"
    And "A" got 1 "log/entry" notification

  @§notifications-telemetry-event
  Scenario: the rows a turn wrote reach the client before the notice the turn raised
    Given the daemon's simulated command "serve" prints:
      | after ms | channel | output    |
      | 100      | stdout  | listening |
    And the daemon's simulated command "serve" exits with code 0 after 5000 ms
    And the daemon's model will reply:
      """
      <<PLAN:start and finish:PLAN
      <<EXEC:serve:EXEC
      <<EDIT(known:///n.md):noted:EDIT
      <<SEND[200]:done already:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:wait:PLAN
      <<SEND[202]:waiting for the server:SEND
      """
    When "A" runs a loop with the prompt "serve"
    Then "A" got a telemetry notice with message = "Attempted termination with active streams or child runs. Terminate with 202 to hibernate until they complete, KILL(path) with 200 again to clean up, or 499 to fail."
    And "A" got a telemetry notice with kind = "premature_terminate" per Decision (§send-premature-terminate)
    And "A" got the "log/entry" of log:///1/1/2/EDIT before its first "telemetry/event"

  @§notifications-telemetry-event
  Scenario: each notice buffered for a loop goes out live as telemetry/event with the loop's id
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
    Then "A" got 1 "telemetry/event" notification
    And "A" got a "telemetry/event" notification with loopId = <A.loop.loopId> per Decision (§notifications-telemetry-event)
    And "A" got a telemetry notice with message = "If the turn's work is complete, terminate with 200. If awaiting a stream or run trigger, terminate with 202 to hibernate."
    And "A" got a telemetry notice with kind = "idle_turn" per Decision (§send-idle-turn)
    And each "telemetry/event" "A" got is a line of the daemon's next packet

  @§methods-loop-run
  Scenario: while the model generates, the loop is running (102) and an inject is queued for its next turn
    Given the daemon's model will reply:
      """
      <<PLAN:think:PLAN
      <<SEND[102]:go on:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    And while the daemon's model generates reply 1, "A" calls session.runs with {}
    When "A" runs a loop with the prompt "think"
    Then the answer to "A" has runs.#(name=="model").status = 102
    And the loop "A" started ended with status 200

  @§methods-loop-run @§run-lifecycle-wake-liveness
  Scenario: a parked loop resumed by its stream is running (102) again while the model generates
    Given the daemon's simulated command "build" exits with code 0 after 200 ms
    And the daemon's model will reply:
      """
      <<PLAN:build and wait:PLAN
      <<EXEC:build:EXEC
      <<SEND[202]:building:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:built:PLAN
      <<SEND[200]:built:SEND
      """
    And while the daemon's model generates reply 2, "A" calls session.runs with {}
    When "A" runs a loop with the prompt "build"
    Then the loop "A" started is parked at 202
    When 300 ms pass for the daemon's running commands
    Then the answer to "A" has runs.#(name=="model").status = 102
    And the loop "A" started ended with status 200

  @§methods-loop-run @§run-lifecycle-single-drain
  Scenario: an inject reaching a run whose loop is running is queued for its next turn
    Given the daemon's model will reply:
      """
      <<PLAN:think:PLAN
      <<SEND[102]:go on:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    And while the daemon's model generates reply 1, "A" calls loop.inject with {"prompt": "also this"}
    When "A" runs a loop with the prompt "think"
    Then the answer to "A" has queued = true
    And the answer to "A" has runId = <A.modelRunId>
    And the daemon's model's packet 2 contains "also this"

  @§run-lifecycle-quiesced @§actor-boundary-passive-wake
  Scenario: an inject the running loop has already read does not wake it again once it parks
    Given the daemon's model will reply:
      """
      <<PLAN:think:PLAN
      <<SEND[102]:go on:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:noted:PLAN
      <<SEND[202]:nothing left to wait for:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:woken:PLAN
      <<SEND[200]:woken:SEND
      """
    And while the daemon's model generates reply 1, "A" calls loop.inject with {"prompt": "also this"}
    When "A" runs a loop with the prompt "think"
    Then the daemon's model's packet 2 contains "also this"
    And "A" got 1 "loop/quiesced" notification
    And "A" got no "loop/terminated" notification

  @§run-lifecycle-single-drain
  Scenario: an inject that reaches a running loop which then parks resumes it at once in the same drain
    Given the daemon's model will reply:
      """
      <<PLAN:wait:PLAN
      <<SEND[202]:waiting:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:got it:SEND
      """
    And while the daemon's model generates reply 1, "A" calls loop.inject with {"prompt": "here it is"}
    When "A" runs a loop with the prompt "wait for it"
    Then the answer to "A" has queued = true
    And the loop "A" started ended with status 200
    And the daemon's model's packet 2 contains "here it is"
    And "A" got no "loop/quiesced" notification
    When "A" calls session.runs
    Then the answer to "A" has runs.#(name=="model").loops = 1

  @§methods-op-mirror
  Scenario: an op.edit whose body runs to a hundred thousand characters is read and written whole
    When "A" calls op.edit on known:///big.md with a body of 100000 "x" characters
    Then the answer to "A" has status = 201
    When "A" calls op.edit on known:///big.md with a body of 100000 "x" characters
    Then the answer to "A" has status = 304
