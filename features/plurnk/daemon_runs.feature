@plurnk
Feature: runs seen through the daemon
  A client's loop runs in the session's model run, and the model's loops
  spawn sister runs beside it. The client learns the model run's id from
  loop.run, lists every run with session.runs, reads any of them with
  log.read (only inside its own session), injects into any of them with
  loop.inject, and resolves the proposals of their host commands with
  loop.resolve. A loop that parks at SEND[202] with nothing live under it is
  announced as quiesced, not ended.

  Background:
    Given a connection "A" to the daemon
    And "A" creates a session named "work"

  @§machine-processes-model-run-readable @decision
  Scenario: loop.run names the model run, session.runs lists the runs, log.read reads them
    Given the daemon's model will reply:
      """
      <<PLAN:note:PLAN
      <<EDIT(known:///n.md):noted:EDIT
      <<SEND[200]:done:SEND
      """
    When "A" runs a loop with the prompt "note it"
    Then the answer to "A" has modelRunId = <A.modelRunId>
    And the answer to "A" has finalStatus = 100
    And the loop "A" started ended with status 200
    And "A" got a "loop/terminated" notification with hitMaxTurns = false
    And "A" got a "loop/terminated" notification with meta = {}
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1, model"
    And the answer to "A" has runs.#(name=="model").origin = "model"
    And the answer to "A" has runs.#(name=="client-1").origin = "client"
    And the answer to "A" has runs.#(name=="model").id = <A.modelRunId>
    And the answer to "A" has runs.#(name=="client-1").id = <A.runId>
    And the answer to "A" has runs.#(name=="model").status = 200
    Given a connection "B" to the daemon
    And "B" attaches to the session of "A"
    When "B" calls log.read with {"runId": <A.modelRunId>}
    Then the answer to "B" holds 3 log entries
    When "B" calls log.read
    Then the answer to "B" holds 0 log entries
    Given a connection "C" to the daemon
    And "C" creates a session named "other"
    When "C" calls log.read with {"runId": <A.modelRunId>}
    Then the answer to "C" is the error -32602 per Decision (§machine-processes-model-run-readable)
    When "C" calls log.read
    Then the answer to "C" holds 0 log entries

  @§run-lifecycle-quiesced
  Scenario: a loop parked at 202 with nothing live is announced as quiesced and stays parked
    Given the daemon's model will reply:
      """
      <<PLAN:wait for the user:PLAN
      <<SEND[202]:waiting:SEND
      """
    When "A" runs a loop with the prompt "wait"
    Then the loop "A" started is parked at 202
    And "A" got 1 "loop/quiesced" notification
    And "A" got a "loop/quiesced" notification with runId = <A.modelRunId>
    And "A" got a "loop/quiesced" notification with status = 202
    And "A" got no "loop/terminated" notification
    When "A" calls session.runs
    Then the answer to "A" has runs.#(name=="model").status = 202

  @§run-lifecycle-quiesced @decision
  Scenario: a loop parked at 202 over a running command is not announced
    Given the daemon's simulated command "serve" prints:
      | after ms | channel | output    |
      | 100      | stdout  | listening |
    And the daemon's simulated command "serve" exits with code 0 after 5000 ms
    And the daemon's model will reply:
      """
      <<PLAN:start the server and wait:PLAN
      <<EXEC:serve:EXEC
      <<SEND[202]:waiting for the server:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:the server stopped:PLAN
      <<SEND[200]:the server ran and stopped:SEND
      """
    When "A" runs a loop with the prompt "serve"
    Then the loop "A" started is parked at 202
    And "A" got no "loop/quiesced" notification
    And "A" got no "loop/terminated" notification
    When 6000 ms pass for the daemon's running commands
    Then "A" got no "loop/quiesced" notification per Decision (§run-lifecycle-quiesced)
    And "A" got 1 "loop/terminated" notification
    And "A" got a "loop/terminated" notification with loopSeq = 1
    And "A" got a "loop/terminated" notification with finalStatus = 200

  @§run-lifecycle-quiesced @decision
  Scenario: a loop parked while a run it spawned is still active is not announced; the spawned run, parked with nothing live, is
    Given the daemon's model will reply:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://worker):Wait for me.:EDIT
      <<SEND[202]:waiting for the worker:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:wait:PLAN
      <<SEND[202]:parked:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:the worker is still parked:PLAN
      <<SEND[202]:still waiting for the worker:SEND
      """
    When "A" runs a loop with the prompt "delegate"
    Then the loop "A" started is parked at 202
    And "A" got 1 "loop/quiesced" notification
    And "A" got a "loop/quiesced" notification with status = 202
    And "A" got no "loop/terminated" notification
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1, model, worker"
    And the answer to "A" has runs.#(name=="worker").status = 202
    When "A" calls loop.inject with {"prompt": "how is the worker?"}
    Then the answer to "A" has runId = <A.modelRunId> per Decision (§machine-processes-model-run-readable)
    And "A" got 1 "loop/quiesced" notification
    And "A" got no "loop/terminated" notification
    When "A" calls session.runs
    Then the answer to "A" has runs.#(name=="model").status = 202

  Scenario: loop.cancel while no loop runs cancels nothing
    When "A" calls loop.cancel
    Then the answer to "A" has cancelled = false
    And the answer to "A" has reason = "user_cancelled"

  @§machine-processes-model-run-readable @§run-scheme-collect @decision
  Scenario: a sister the model spawns is listed, heard and read, and its conclusion reaches the model run
    Given the daemon's run "model" will reply:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://helper):count the files:EDIT
      <<SEND[202]:waiting for the helper:SEND
      """
    And the daemon's run "helper" will reply:
      """
      <<PLAN:count:PLAN
      <<SEND[200]:3 files:SEND
      """
    And the daemon's run "model" will reply:
      """
      <<PLAN:report:PLAN
      <<SEND[200]:the helper counted 3 files:SEND
      """
    When "A" runs a loop with the prompt "how many files?"
    Then the loop "A" started ended with status 200
    And "A" got a "loop/terminated" notification for run "helper" with finalStatus = 200
    And "A" got a "loop/terminated" notification for run "model" with finalStatus = 200
    And "A" got a "loop/terminated" notification for run "model" with loopSeq = 1
    And "A" got 2 "loop/terminated" notifications
    And "A" got no "loop/quiesced" notification
    And "A" got "log/entry" notifications for run "helper"
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1, model, helper"
    And the answer to "A" has runs.#(name=="helper").parent = "model"
    And the answer to "A" has runs.#(name=="helper").status = 200
    And the answer to "A" has runs.#(name=="model").loops = 1
    When "A" calls log.read for run "helper" with {"loopSeq": 1, "turnSeq": 1}
    Then the answer to "A" has entries.#.op = ["SEND"]
    And the answer to "A" has entries.0.rx = "3 files"
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 2, "sequence": 1}
    Then the entry in the answer to "A" has target = "run://helper"
    And the entry in the answer to "A" has rx = "3 files"
    And the entry in the answer to "A" has expanded = false
    And the entry in the answer to "A" has origin = "plurnk" per Decision (§run-scheme-collect)

  @§actor-boundary-passive-wake @§run-lifecycle-wake-liveness @decision
  Scenario: loop.inject resumes a loop parked at 202 in place
    Given the daemon's model will reply:
      """
      <<PLAN:wait for the user:PLAN
      <<SEND[202]:waiting for the number:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:the number is 42:SEND
      """
    When "A" runs a loop with the prompt "wait for my number"
    Then the loop "A" started is parked at 202
    When "A" calls loop.inject with {"prompt": "it is 42"}
    Then the answer to "A" has runId = <A.modelRunId>
    And "A" got a "loop/terminated" notification with finalStatus = 200
    And "A" got a "loop/terminated" notification with loopSeq = 1
    When "A" calls session.runs
    Then the answer to "A" has runs.#(name=="model").loops = 1
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 2, "sequence": 1}
    Then the entry in the answer to "A" has op = "SEND"
    And the entry in the answer to "A" has origin = "client" per Decision (§actor-boundary-passive-wake)
    And the entry in the answer to "A" has rx = "it is 42"

  @§actor-boundary-passive-wake @decision
  Scenario: loop.inject with a runId wakes that idle sister in a loop of its own
    Given the daemon's run "model" will reply:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://helper):stand by:EDIT
      <<SEND[202]:waiting for the helper:SEND
      """
    And the daemon's run "helper" will reply:
      """
      <<PLAN:ready:PLAN
      <<SEND[200]:standing by:SEND
      """
    And the daemon's run "model" will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:the helper stands by:SEND
      """
    And the daemon's run "helper" will reply:
      """
      <<PLAN:extra:PLAN
      <<SEND[200]:did the extra:SEND
      """
    When "A" runs a loop with the prompt "set up a helper"
    And "A" calls loop.inject for run "helper" with {"prompt": "one more thing"}
    Then the answer to "A" has queued = false
    And "A" got a "loop/terminated" notification for run "helper" with loopSeq = 2
    And "A" got a "loop/terminated" notification for run "helper" with finalStatus = 200
    When "A" calls log.read for run "helper" with {"loopSeq": 2}
    Then the answer to "A" has entries.#.path = ["log:///2/0/1/SEND", "log:///2/0/2/SEND", "log:///2/1/1/SEND"] per Decision (§actor-boundary-passive-wake)
    And the answer to "A" has entries.#.origin = ["plurnk", "client", "model"] per Decision (§actor-boundary-passive-wake)
    And the answer to "A" has entries.0.target = "run://model" per Decision (§actor-boundary-passive-wake)
    And the answer to "A" has entries.0.expanded = false
    And the answer to "A" has entries.1.rx = "one more thing"
    And the answer to "A" has entries.2.rx = "did the extra"
    When "A" calls session.runs
    Then the answer to "A" has runs.#(name=="model").loops = 1
    And the answer to "A" has runs.#(name=="helper").loops = 2
