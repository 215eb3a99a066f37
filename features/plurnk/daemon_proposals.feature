@plurnk
Feature: proposals of host commands through the daemon
  A daemon that asks before host commands parks the command's EXEC row at
  202 and tells the session with loop/proposal; the client settles it with
  loop.resolve, and the loop that proposed it goes on once the command has
  run.

  @§exec-host-proposes @decision
  Scenario: loop.resolve accepts a proposed command and the parked loop goes on when it ends
    Given the daemon asks before host commands
    And a connection "A" to the daemon
    And "A" creates a session named "ops"
    And the daemon's simulated command "deploy" exits with code 0 after 200 ms
    And the daemon's model will reply:
      """
      <<PLAN:deploy:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[202]:waiting for approval:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:deployed:PLAN
      <<SEND[200]:deployed:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    Then the loop "A" started is parked at 202
    And "A" got 1 "loop/proposal" notification
    And "A" got a "loop/proposal" notification with body = "deploy"
    And "A" got no "loop/quiesced" notification
    When "A" accepts the proposal it was notified of
    Then the answer to "A" has state = "resolved"
    And the answer to "A" has status = 102
    When 300 ms pass for the daemon's running commands
    Then "A" got a "loop/terminated" notification with finalStatus = 200
    And "A" got a "loop/terminated" notification with loopSeq = 1
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has op = "EXEC"
    And the entry in the answer to "A" has status = 102

  @§proposal-accept-applies @decision
  Scenario: an accept whose spawn fails becomes a reject carrying the spawn's outcome, and the row records it
    Given the daemon asks before host commands
    And a connection "A" to the daemon
    And "A" creates a session named "ops"
    And the daemon's simulated command "deploy" cannot be spawned
    And the daemon's model will reply:
      """
      <<PLAN:deploy:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[202]:waiting for approval:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    Then the loop "A" started is parked at 202
    When "A" accepts the proposal it was notified of
    Then the answer to "A" has state = "failed"
    And the answer to "A" has status = 400
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has op = "EXEC"
    And the entry in the answer to "A" has status = 400
    And the entry in the answer to "A" has reason = "spawn_failed"
