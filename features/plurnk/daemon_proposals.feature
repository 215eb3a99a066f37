@plurnk
Feature: proposals of host commands through the daemon
  A daemon that asks before host commands writes the command's EXEC row at
  202, tells the session with loop/proposal and pauses the dispatch of the
  model's emission there: the loop stays running and the ops after the
  EXEC wait. The client settles the proposal with loop.resolve (or the
  timeout does, or a cancel of the run); dispatch then goes on with the
  rest of the emission.

  @§exec-host-proposes @decision
  Scenario: loop.resolve accepts a proposed command, the paused loop goes on and parks, and the command's end resumes it
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
    Then the loop "A" started is still running
    And "A" got 1 "loop/proposal" notification
    And "A" got a "loop/proposal" notification with body = "deploy"
    And "A" got a "log/entry" notification with entry.status = 202
    And "A" got no "loop/quiesced" notification
    When "A" accepts the proposal it was notified of
    Then the answer to "A" has state = "resolved"
    And the answer to "A" has status = 102 per Decision (§exec-host-proposes)
    And the loop "A" started is parked at 202
    And "A" got no "loop/quiesced" notification
    When 300 ms pass for the daemon's running commands
    Then "A" got a "loop/terminated" notification with finalStatus = 200
    And "A" got a "loop/terminated" notification with loopSeq = 1
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has op = "EXEC"
    And the entry in the answer to "A" has status = 102 per Decision (§exec-host-proposes)
    And "A" got a "loop/proposal" notification whose logEntryId is the answer's entries.0.id
    And "A" got a "loop/proposal" notification whose turnId is the answer's entries.0.turn_id
    And "A" got a "loop/proposal" notification whose loopId is the answer's entries.0.loop_id

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
    Then the loop "A" started is still running
    When "A" accepts the proposal it was notified of
    Then the answer to "A" has state = "failed"
    And the answer to "A" has status = 400
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has op = "EXEC"
    And the entry in the answer to "A" has status = 400
    And the entry in the answer to "A" has reason = "spawn_failed" per Decision (§proposal-accept-applies)

  @§proposal-accept-applies @decision
  Scenario: under yolo a command that cannot be spawned fails its EXEC row with 500 and the spawn's error
    Given a connection "A" to the daemon
    And "A" creates a session named "ops"
    And the daemon's simulated command "deploy" cannot be spawned
    And the daemon's model will reply:
      """
      <<PLAN:deploy:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[200]:done:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    Then the loop "A" started ended with status 200
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has op = "EXEC"
    And the entry in the answer to "A" has status = 500
    And the entry in the answer to "A" has reason = "500 Internal Server Error: spawn sh:///1/1/1: simulated sh: no script for command \"deploy\"" per Decision (§proposal-accept-applies)

  @§proposal-202-pauses
  Scenario: the ops after a proposed command wait for its resolution, and an accept applies the command
    Given the daemon asks before host commands
    And a connection "A" to the daemon
    And "A" creates a session named "ops"
    And the daemon's simulated command "deploy" exits with code 0 after 200 ms
    And the daemon's model will reply:
      """
      <<PLAN:deploy then note it:PLAN
      <<EXEC:deploy:EXEC
      <<EDIT(known:///after.md):after the deploy:EDIT
      <<SEND[202]:waiting for the deploy:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:deployed:PLAN
      <<SEND[200]:deployed:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    Then the loop "A" started is still running
    And "A" got 1 "loop/proposal" notification
    When "A" calls entry.read with {"target": "known:///after.md"}
    Then the answer to "A" has status = 404
    When 1000 ms pass on the daemon's clock
    And "A" calls entry.read with {"target": "known:///after.md"}
    Then the answer to "A" has status = 404
    And the daemon's simulated command "deploy" was spawned 0 times
    And the daemon's model was called 1 time
    When "A" accepts the proposal it was notified of
    Then the answer to "A" has state = "resolved"
    And the daemon's simulated command "deploy" was spawned 1 time
    And the daemon's simulated command "deploy" ran in the workspace root
    When "A" calls entry.read with {"target": "known:///after.md"}
    Then the answer to "A" has status = 200
    And the answer to "A" has entry.channels.body.content = "after the deploy"
    And the loop "A" started is parked at 202
    When 300 ms pass for the daemon's running commands
    Then the loop "A" started ended with status 200

  @§proposal-202-pauses @§proposal-reject-fails @decision
  Scenario: after a reject the paused dispatch goes on with the rest of the emission, and the model sees the resolved status
    Given the daemon asks before host commands
    And a connection "A" to the daemon
    And "A" creates a session named "ops"
    And the daemon's model will reply:
      """
      <<PLAN:deploy then note it:PLAN
      <<EXEC:deploy:EXEC
      <<EDIT(known:///after.md):after the deploy:EDIT
      <<SEND[102]:deploying:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:not allowed:PLAN
      <<SEND[200]:the deploy was refused:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    Then the loop "A" started is still running
    When "A" rejects the proposal it was notified of
    Then the answer to "A" has state = "failed"
    And the loop "A" started ended with status 200
    When "A" calls entry.read with {"target": "known:///after.md"}
    Then the answer to "A" has status = 200
    And the daemon's model's packet 2 contains "log:///1/1/1/EXEC 400" per Decision (§render-rule-find-renders-result)
    And the daemon's model's packet 2 does not contain "log:///1/1/1/EXEC 202" per Decision (§render-rule-find-renders-result)

  @§proposal-202-pauses @§methods-loop-cancel @decision
  Scenario: a loop.cancel while dispatch is paused cancels the proposal and dispatches nothing more of the emission
    Given the daemon asks before host commands
    And a connection "A" to the daemon
    And "A" creates a session named "ops"
    And the daemon's model will reply:
      """
      <<PLAN:deploy then note it:PLAN
      <<EXEC:deploy:EXEC
      <<EDIT(known:///after.md):after the deploy:EDIT
      <<SEND[202]:waiting for the deploy:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    Then the loop "A" started is still running
    When "A" calls loop.cancel
    Then the answer to "A" has cancelled = true
    And the loop "A" started ended with status 499
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has status = 499
    And the entry in the answer to "A" has reason = "loop_aborted"
    When "A" calls entry.read with {"target": "known:///after.md"}
    Then the answer to "A" has status = 404 per Decision (§proposal-202-pauses)
    And the daemon's simulated command "deploy" was spawned 0 times

  @§exec-stream @decision
  Scenario: the output entry of a command that could not be spawned is not foisted: the next packet reads nothing of it
    Given a connection "A" to the daemon
    And "A" creates a session named "ops"
    And the daemon's simulated command "deploy" cannot be spawned
    And the daemon's model will reply:
      """
      <<PLAN:deploy:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[102]:deploying:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:it failed:PLAN
      <<SEND[200]:the deploy could not start:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    Then the loop "A" started ended with status 200
    And the daemon's model's packet 2 contains "EXEC 500 sh:///1/1/1" per Decision (§render-rule-find-renders-result)
    And the daemon's model's packet 2 does not contain "sh:///1/1/1#stdout"
    And the daemon's model's packet 2 does not contain "sh:///1/1/1#stderr"

  @§errors-error-codes @decision
  Scenario: loop.resolve of a log row that is no proposal answers -32003
    Given a connection "A" to the daemon
    And "A" creates a session named "ops"
    And the daemon's model will reply:
      """
      <<PLAN:note:PLAN
      <<EDIT(known:///n.md):noted:EDIT
      <<SEND[200]:done:SEND
      """
    When "A" runs a loop with the prompt "note"
    Then the loop "A" started ended with status 200
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has op = "EDIT"
    When "A" resolves the row of the answer's entries.0.id with "accept"
    Then the answer to "A" is the error -32003 per Decision (§errors-error-codes)
