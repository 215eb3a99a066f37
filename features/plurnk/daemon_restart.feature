@plurnk
Feature: a daemon that keeps its state survives its own death
  Given a state directory, the daemon saves every session, run, loop, log
  row and entry before it notifies or answers anything, writing a temporary
  file and renaming it over the state file. A save that fails (a write torn
  half-way, a rename that does not happen) stops the daemon acknowledging
  anything, as a crash would. Started again from that directory, it serves
  the sessions as the last whole save left them: every row a client heard
  of is there, nothing else, and the loop the crash cut short ends 499.

  @§methods-auto-envelope @decision
  Scenario Outline: a daemon that dies mid-loop on a <fault> starts again with everything it acknowledged
    Given the daemon keeps its state in "/state"
    And a connection "A" to the daemon
    And "A" creates a session named "keep"
    And the daemon's model will reply:
      """
      <<PLAN:first note:PLAN
      <<EDIT(known:///one.md):the first note:EDIT
      <<SEND[102]:next:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:second note:PLAN
      <<EDIT(known:///two.md):the second note:EDIT
      <<SEND[102]:next:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:two notes:SEND
      """
    And the daemon's saves of its state fail by <fault> after <saves> whole saves
    When "A" runs a loop with the prompt "take two notes"
    Then the daemon's state faults fired 1 time
    And "A" got no "loop/terminated" notification
    When "A" calls session.runs
    Then the answer to "A" is the error -32603 per Decision (§methods-auto-envelope)
    And the daemon's state directory holds state.json reading whole
    When the daemon starts again from its state directory
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    Then the answer to "B" has name = "keep"
    And the "log/entry" notifications "A" got before the daemon stopped are the rows log.read answers to "B", in order
    When "B" calls entry.read with {"target": "known:///one.md"}
    Then the answer to "B" has entry.channels.body.content = "the first note"
    When "B" calls entry.read with {"target": "known:///two.md"}
    Then the answer to "B" has status = 404
    When "B" calls session.runs
    Then the answer to "B" has runs.#(name=="model").status = 499 per Decision (§methods-auto-envelope)

    Examples:
      | fault       | saves |
      | torn-write  | 2     |
      | rename-fail | 2     |

  @§methods-auto-envelope @§proposal-202-pauses @decision
  Scenario: a proposal pending when the daemon dies is cancelled as it starts again, and its loop ends 499
    Given the daemon keeps its state in "/state"
    And the daemon asks before host commands
    And a connection "A" to the daemon
    And "A" creates a session named "ops"
    And the daemon's model will reply:
      """
      <<PLAN:deploy:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[202]:waiting for the deploy:SEND
      """
    When "A" runs a loop with the prompt "deploy"
    Then "A" got 1 "loop/proposal" notification
    Given the daemon's saves of its state fail by torn-write after 0 whole saves
    When "A" calls op.edit with {"target": "known:///late.md", "body": "too late"}
    Then the answer to "A" is the error -32603 per Decision (§methods-auto-envelope)
    When the daemon starts again from its state directory
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    And "B" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "B" has op = "EXEC"
    And the entry in the answer to "B" has status = 499 per Decision (§methods-auto-envelope)
    And the entry in the answer to "B" has reason = "loop_aborted" per Decision (§methods-auto-envelope)
    When "B" calls entry.read with {"target": "known:///late.md"}
    Then the answer to "B" has status = 404
    When "B" calls session.runs
    Then the answer to "B" has runs.#(name=="model").status = 499 per Decision (§methods-auto-envelope)

  @§methods-auto-envelope @decision
  Scenario: a loop parked at 202 when the daemon dies stays parked, and a loop.run resumes it
    Given the daemon keeps its state in "/state"
    And a connection "A" to the daemon
    And "A" creates a session named "wait"
    And the daemon's model will reply:
      """
      <<PLAN:wait for the word:PLAN
      <<SEND[202]:waiting:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:go:PLAN
      <<SEND[200]:went:SEND
      """
    When "A" runs a loop with the prompt "wait for my word"
    Then the loop "A" started is parked at 202
    Given the daemon's saves of its state fail by rename-fail after 0 whole saves
    When "A" calls op.edit with {"target": "known:///late.md", "body": "too late"}
    Then the answer to "A" is the error -32603 per Decision (§methods-auto-envelope)
    When the daemon starts again from its state directory
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    And "B" calls session.runs
    Then the answer to "B" has runs.#(name=="model").status = 202 per Decision (§methods-auto-envelope)
    When "B" runs a loop with the prompt "go"
    Then the answer to "B" has action = "injected_next_turn" per Decision (§methods-auto-envelope)
    And the loop "B" started ended with status 200
    And the daemon's model's packet 2 contains "go"

  @§methods-auto-envelope @decision
  Scenario: the output of a command running when the daemon dies is marked errored as it starts again
    Given the daemon keeps its state in "/state"
    And the daemon's simulated command "serve" prints:
      | after ms | channel | output    |
      | 100      | stdout  | listening |
    And the daemon's simulated command "serve" exits with code 0 after 5000 ms
    And a connection "A" to the daemon
    And "A" creates a session named "serve"
    And the daemon's model will reply:
      """
      <<PLAN:serve:PLAN
      <<EXEC:serve:EXEC
      <<SEND[202]:serving:SEND
      """
    When "A" runs a loop with the prompt "serve"
    And 200 ms pass for the daemon's running commands
    And "A" calls entry.read with {"target": "sh:///1/1/1"}
    Then the answer to "A" has entry.channels.stdout.state = "active"
    Given the daemon's saves of its state fail by torn-write after 0 whole saves
    When "A" calls op.edit with {"target": "known:///late.md", "body": "too late"}
    Then the answer to "A" is the error -32603 per Decision (§methods-auto-envelope)
    When the daemon starts again from its state directory
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    And "B" calls entry.read with {"target": "sh:///1/1/1"}
    Then the answer to "B" has entry.channels.stdout.state = "errored" per Decision (§methods-auto-envelope)
    And the answer to "B" has entry.channels.stdout.content = "listening"
    When "B" calls session.runs
    Then the answer to "B" has runs.#(name=="model").status = 202

  @§methods-auto-envelope @§run-lifecycle-total-reap @decision
  Scenario: a daemon stopped on purpose ends its parked loop first, and the restart finds it ended
    Given the daemon keeps its state in "/state"
    And a connection "A" to the daemon
    And "A" creates a session named "wait"
    And the daemon's model will reply:
      """
      <<PLAN:wait for the word:PLAN
      <<SEND[202]:waiting:SEND
      """
    When "A" runs a loop with the prompt "wait for my word"
    Then the loop "A" started is parked at 202
    When the daemon is stopped on purpose and starts again from its state directory
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    And "B" calls session.runs
    Then the answer to "B" has runs.#(name=="model").status = 499 per Decision (§methods-auto-envelope)

  @§methods-auto-envelope
  Scenario: a state file whose session names a model run it does not hold is refused at start, naming the run
    Given the daemon keeps its state in "/state"
    And a connection "A" to the daemon
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When "A" calls session.create with {"name": "keep", "modelRun": "brain"}
    Then the answer to "A" has name = "keep"
    When "A" runs a loop with the prompt "think"
    Then the loop "A" started ended with status 200
    When the daemon is stopped on purpose, an editor replaces '"modelRun":"brain"' by '"modelRun":"ghost"' in its state file, and it boots again
    Then the daemon refused to start, saying "ghost" per Decision (§methods-auto-envelope)

  @§methods-auto-envelope @§actor-boundary-doc-injection @decision
  Scenario: a state file whose session lost its reserved plurnk run still starts, and a loop there ends 500 for want of the run its documents are written by
    Given the daemon keeps its state in "/state"
    And a connection "A" to the daemon
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done again:SEND
      """
    And "A" creates a session named "keep"
    When "A" runs a loop with the prompt "think"
    Then the loop "A" started ended with status 200
    When the daemon is stopped on purpose, an editor replaces '"plurnk"' by '"plurnq"' in its state file, and it boots again
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    Then the answer to "B" has name = "keep"
    When "B" runs a loop with the prompt "think again"
    Then the loop "B" started ended with status 500 per Decision (§actor-boundary-doc-injection)

  @§methods-auto-envelope @decision
  Scenario: a daemon whose state directory cannot be made acknowledges nothing, as a crash would
    Given the daemon keeps its state in "/state"
    And a connection "A" to the daemon
    And the daemon's state directory cannot be made
    When "A" calls session.create with {"name": "keep"}
    Then the daemon's state faults fired 1 time
    And the answer to "A" is the error -32603 per Decision (§methods-auto-envelope)

  @§methods-auto-envelope
  Scenario: a state directory that can be written to but not listed keeps the state all the same
    Given the daemon keeps its state in "/state"
    And a connection "A" to the daemon
    And the daemon's state directory can be written to but not listed
    And "A" creates a session named "keep"
    When "A" calls op.edit with {"target": "known:///kept.md", "body": "still here"}
    Then the answer to "A" has status = 201
    When the daemon is stopped on purpose and starts again from its state directory
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    Then the answer to "B" has name = "keep"
    When "B" calls entry.read with {"target": "known:///kept.md"}
    Then the answer to "B" has entry.channels.body.content = "still here"

  @§schemes-directory
  Scenario: a scheme doc that a state file from elsewhere holds otherwise is materialized again by the next loop.run
    Given the daemon keeps its state in "/state"
    And a connection "A" to the daemon
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done again:SEND
      """
    And "A" creates a session named "keep"
    When "A" runs a loop with the prompt "think"
    Then the loop "A" started ended with status 200
    When a connection "B" to the daemon
    And "B" attaches to the session of "A"
    And "B" calls entry.read with {"target": "plurnk:///docs/known.md"}
    And I note the answer to "B"'s entry.channels.body.content
    And the daemon is stopped on purpose, an editor replaces 'What you have learned' by 'What you once knew' in its state file, and it boots again
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    And "B" runs a loop with the prompt "think again"
    Then the loop "B" started ended with status 200
    When "B" calls entry.read with {"target": "plurnk:///docs/known.md"}
    Then the answer to "B" has entry.channels.body.content as noted

  @§methods-auto-envelope
  Scenario: a state file that exists but cannot be read is refused at start, saying so
    Given the daemon keeps its state in "/state"
    And a connection "A" to the daemon
    And "A" creates a session named "keep"
    When the daemon is stopped on purpose, its state file is made unreadable, and it boots again
    Then the daemon refused to start, saying ""
    And the daemon refused to start, saying "cannot be read" per Decision (§methods-auto-envelope)

  @§methods-auto-envelope
  Scenario: given no state directory, the daemon keeps its sessions all the same, and they survive a restart
    Given the daemon is given no state directory
    And a connection "A" to the daemon
    And "A" creates a session named "keep"
    When "A" calls op.edit with {"target": "known:///kept.md", "body": "still here"}
    Then the answer to "A" has status = 201
    When the daemon is stopped on purpose and starts again from its state directory
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    Then the answer to "B" has name = "keep"
    When "B" calls entry.read with {"target": "known:///kept.md"}
    Then the answer to "B" has entry.channels.body.content = "still here"

  @§methods-auto-envelope
  Scenario: a client that leaves while the daemon still answers its batch does not keep the daemon from stopping
    Given the daemon keeps its state in "/state"
    And a connection "A" to the daemon
    And "A" creates a session named "gone"
    And "A" sends a batch of 2000 discover requests and leaves without waiting for the answer
    When the daemon is stopped on purpose and starts again from its state directory
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    Then the answer to "B" has name = "gone"
