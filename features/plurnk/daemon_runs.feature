@plurnk
Feature: runs seen through the daemon
  A loop runs in the session's model run. The client learns that run's id
  from loop.run, lists the session's runs with session.runs and reads any of
  them with log.read, but only inside its own session. A loop that parks at
  SEND[202] with nothing live under it is announced as quiesced, not ended.

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
    Then the answer to "A" has modelRunId = <A.runId>
    And the answer to "A" has finalStatus = 200
    And the answer to "A" has hitMaxTurns = false
    And the answer to "A" has meta = {}
    When "A" calls session.runs
    Then the answer to "A" has runs.#.name = ["model", "plurnk"]
    And the answer to "A" has runs.0.id = <A.runId>
    And the answer to "A" has runs.0.status = 200
    Given a connection "B" to the daemon
    And "B" attaches to the session of "A"
    When "B" calls log.read with {"runId": <A.runId>}
    Then the answer to "B" holds 3 log entries
    When "B" calls log.read
    Then the answer to "B" holds 3 log entries
    Given a connection "C" to the daemon
    And "C" creates a session named "other"
    When "C" calls log.read with {"runId": <A.runId>}
    Then the answer to "C" is the error -32602
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
    Then the answer to "A" has finalStatus = 202
    And "A" got 1 "loop/quiesced" notification
    And "A" got a "loop/quiesced" notification with runId = <A.runId>
    And "A" got a "loop/quiesced" notification with status = 202
    And "A" got no "loop/terminated" notification
    When "A" calls session.runs
    Then the answer to "A" has runs.0.status = 202

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
    When "A" runs a loop with the prompt "serve"
    Then the answer to "A" has finalStatus = 202
    And "A" got no "loop/quiesced" notification
    And "A" got no "loop/terminated" notification
    When 6000 ms pass for the daemon's running commands
    Then "A" got no "loop/quiesced" notification

  Scenario: loop.cancel while no loop runs cancels nothing
    When "A" calls loop.cancel
    Then the answer to "A" has cancelled = false
    And the answer to "A" has reason = "user_cancelled"
