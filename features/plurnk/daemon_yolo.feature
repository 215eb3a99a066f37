@plurnk
Feature: proposals and yolo through the daemon
  A daemon that asks before host commands parks each one as a proposal.
  The client accepts, rejects or cancels it with loop.resolve, or the server
  cancels it when nobody answers in time; a loop run with flags.yolo has the
  daemon accept its proposals itself. Every loop/proposal carries the flags
  of its loop, and a proposal still pending stays out of the model's log.

  Background:
    Given the daemon asks before host commands
    And a connection "A" to the daemon
    And "A" creates a session named "ops"
    And the daemon's simulated command "deploy" exits with code 0 after 200 ms

  @§proposal-reject-fails
  Scenario: a reject fails the row at 400 with outcome rejected and runs nothing
    Given the daemon's model will reply:
      """
      <<PLAN:deploy:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[202]:waiting for approval:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    And "A" rejects the proposal it was notified of
    Then the answer to "A" has state = "failed"
    And the answer to "A" has status = 400
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has op = "EXEC"
    And the entry in the answer to "A" has status = 400
    And the entry in the answer to "A" has reason = "rejected"
    And the daemon's simulated command "deploy" was spawned 0 times

  @§proposal-cancel-aborts
  Scenario: a cancel moves the row to 499 with outcome loop_aborted and runs nothing
    Given the daemon's model will reply:
      """
      <<PLAN:deploy:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[202]:waiting for approval:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    And "A" calls loop.resolve with {"logEntryId": <A.loop.loopId>, "decision": "cancel"}
    Then the answer to "A" is the error -32003
    When "A" cancels the proposal it was notified of
    Then the answer to "A" has state = "cancelled"
    And the answer to "A" has status = 499
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has status = 499
    And the entry in the answer to "A" has reason = "loop_aborted"
    And the daemon's simulated command "deploy" was spawned 0 times

  @§proposal-timeout-cancels @decision
  Scenario: a proposal nobody resolves is cancelled with outcome timeout once PLURNK_PROPOSAL_TIMEOUT_MS has passed
    Given the daemon's model will reply:
      """
      <<PLAN:deploy:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[202]:waiting for approval:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    And 299999 ms pass on the daemon's clock
    And "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has status = 202
    When 1 ms pass on the daemon's clock
    And "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has status = 499 per Decision (§proposal-timeout-cancels)
    And the entry in the answer to "A" has reason = "timeout"
    When "A" accepts the proposal it was notified of
    Then the answer to "A" is the error -32003 per Decision (§proposal-timeout-cancels)
    When "A" rejects the proposal it was notified of
    Then the answer to "A" is the error -32003 per Decision (§proposal-timeout-cancels)
    And the daemon's simulated command "deploy" was spawned 0 times

  @§dual-yolo-server-yolo-auto-accept @§dual-yolo-proposal-carries-flags @decision
  Scenario: a loop run with flags.yolo has its proposals accepted in the daemon, and the notification says so
    Given the daemon's model will reply:
      """
      <<PLAN:deploy:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[202]:deploying:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:deployed:PLAN
      <<SEND[200]:deployed:SEND
      """
    When "A" runs a loop with {"prompt": "deploy", "flags": {"yolo": true}}
    Then "A" got 1 "loop/proposal" notification
    And "A" got a "loop/proposal" notification with flags.yolo = true
    And "A" got a "loop/proposal" notification with flags = {"yolo": true} per Decision (§dual-yolo-proposal-carries-flags)
    And "A" got a "loop/proposal" notification with loopId = <A.loop.loopId>
    And "A" got a "loop/proposal" notification with body = "deploy"
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has status = 102 per Decision (§exec-host-proposes)
    When 300 ms pass for the daemon's running commands
    Then the loop "A" started ended with status 200
    And the daemon's simulated command "deploy" was spawned 1 time

  @§dual-yolo-proposal-carries-flags @§proposal-proposed-hidden
  Scenario: without yolo the proposal waits, its notification says yolo false, and the model sees the row only once resolved
    Given the daemon's model will reply:
      """
      <<PLAN:deploy:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[202]:waiting for approval:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:still waiting:PLAN
      <<SEND[202]:still waiting:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:deployed:PLAN
      <<SEND[200]:deployed:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    Then "A" got a "loop/proposal" notification with flags = {"yolo": false}
    And the daemon's simulated command "deploy" was spawned 0 times
    When "A" calls loop.inject with {"prompt": "any news?"}
    Then the daemon's model was called 1 time
    When "A" accepts the proposal it was notified of
    Then the daemon's model's packet 2 contains "any news?"
    And the daemon's model's packet 2 contains "log:///1/1/1/EXEC 102" per Decision (§render-rule-find-renders-result)
    And the daemon's model's packet 2 does not contain "log:///1/1/1/EXEC 202" per Decision (§render-rule-find-renders-result)
    When 300 ms pass for the daemon's running commands
    Then the loop "A" started ended with status 200

  @§dual-yolo-server-yolo-auto-accept @§dual-yolo-proposal-carries-flags @decision
  Scenario: a loop.run with flags.yolo that resumes a parked loop has that loop's later proposals accepted
    Given the daemon's model will reply:
      """
      <<PLAN:wait:PLAN
      <<SEND[202]:waiting for the go:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:deploy now:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[202]:deploying:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:deployed:PLAN
      <<SEND[200]:deployed:SEND
      """
    When "A" runs a loop with the prompt "deploy when I say"
    Then the loop "A" started is parked at 202
    When "A" runs a loop with {"prompt": "go", "flags": {"yolo": true}}
    Then the answer to "A" has action = "injected_next_turn"
    And "A" got a "loop/proposal" notification with flags.yolo = true
    And "A" got a "loop/proposal" notification with flags = {"yolo": true} per Decision (§dual-yolo-proposal-carries-flags)
    When 300 ms pass for the daemon's running commands
    Then the loop "A" started ended with status 200
    And the daemon's simulated command "deploy" was spawned 1 time
