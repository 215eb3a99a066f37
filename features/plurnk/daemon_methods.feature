@plurnk
Feature: JSON-RPC methods of the daemon
  A client drives the daemon with JSON-RPC 2.0 over a WebSocket. It creates a
  session, runs the model's loops in it and reads what they did: a whole
  entry with entry.read, the rows of a run's log with log.read, narrowed by
  loop, turn and sequence down to a single row with both its statement and
  its result.

  Background:
    Given the daemon's model will reply:
      """
      <<PLAN:note the capital:PLAN
      <<EDIT(known:///france.md):Paris:EDIT
      <<SEND[102]:noted:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:check the note:PLAN
      <<READ(known:///france.md)::READ
      <<SEND[200]:Paris is the capital.:SEND
      """
    And a connection "A" to the daemon
    And "A" creates a session named "geography"
    And "A" runs a loop with the prompt "What is the capital of France?"

  @§methods-entry-read
  Scenario: entry.read answers the whole entry with its channels, tags and metadata
    When "A" calls entry.read with {"target": "known:///france.md"}
    Then the answer to "A" has status = 200
    And the answer to "A" has entry.target = "known:///france.md"
    And the answer to "A" has entry.channels.body.content = "Paris"
    And the answer to "A" has entry.channels.body.state = "static"
    And the answer to "A" has entry.tags = []
    And the answer to "A" has entry.metadata.scope = "session"

  @§methods-entry-read
  Scenario: an entry written again keeps when it was created and records when it was last written
    When "A" calls entry.read with {"target": "known:///france.md"}
    And I note the answer to "A"'s entry.metadata.created
    And 5000 ms pass on the daemon's clock
    And "A" calls op.edit with {"target": "known:///france.md", "body": "Paris, France"}
    And "A" calls entry.read with {"target": "known:///france.md"}
    Then the answer to "A" has entry.channels.body.content = "Paris, France"
    And the answer to "A" has entry.metadata.created as noted
    And the answer to "A" has entry.metadata.updated later than the noted entry.metadata.created

  @§methods-entry-read @§run-scheme-scratch
  Scenario: a run's scratch entry written again keeps when it was created
    Given the daemon's model will reply:
      """
      <<EDIT(run:///notes.md):first:EDIT
      <<SEND[200]:noted:SEND
      """
    When "A" runs a loop with the prompt "Take a note."
    And "A" calls entry.read with {"target": "run://model/notes.md"}
    And I note the answer to "A"'s entry.metadata.created
    And 5000 ms pass on the daemon's clock
    And the daemon's model will reply:
      """
      <<EDIT(run:///notes.md):second:EDIT
      <<SEND[200]:noted again:SEND
      """
    And "A" runs a loop with the prompt "Take it again."
    And "A" calls entry.read with {"target": "run://model/notes.md"}
    Then the answer to "A" has entry.channels.body.content = "second"
    And the answer to "A" has entry.metadata.created as noted
    And the answer to "A" has entry.metadata.updated later than the noted entry.metadata.created

  @§methods-entry-read @decision
  Scenario: entry.read of an address with no entry answers 404, of no address at all -32602, and writes no log row
    When "A" calls log.read with {"runId": <A.modelRunId>, "runId": <A.modelRunId>}
    Then the answer to "A" holds 5 log entries
    When "A" calls entry.read with {"target": "known:///spain.md"}
    Then the answer to "A" has status = 404
    And the answer to "A" has entry = null
    When "A" calls entry.read with {"target": "gopher:///x"}
    Then the answer to "A" has status = 501 per Decision (§methods-entry-read)
    When "A" calls entry.read with {"target": ""}
    Then the answer to "A" is the error -32602
    When "A" calls entry.read with {"target": "known:///a)b"}
    Then the answer to "A" is the error -32602
    When "A" calls entry.read with {"target": "known:///france.md"}
    And "A" calls log.read with {"runId": <A.modelRunId>, "runId": <A.modelRunId>}
    Then the answer to "A" holds 5 log entries per Decision (§methods-entry-read)

  @§methods-entry-read @decision
  Scenario: entry.read of run://<run>/<path> reads that run's scratch; run:/// names no run for a client
    Given the daemon's model will reply:
      """
      <<PLAN:keep a note:PLAN
      <<EDIT(run:///notes.md):kept:EDIT
      <<SEND[200]:noted:SEND
      """
    And "A" runs a loop with the prompt "Keep a note."
    When "A" calls entry.read with {"target": "run://model/notes.md"}
    Then the answer to "A" has status = 200
    And the answer to "A" has entry.channels.body.content = "kept"
    And the answer to "A" has entry.channels.body.state = "static"
    And the answer to "A" has entry.metadata.scope = "run"
    And the answer to "A" has entry.metadata.owner = "model" per Decision (§methods-entry-read)
    When "A" calls entry.read with {"target": "run://model/other.md"}
    Then the answer to "A" has status = 404
    And the answer to "A" has entry = null
    When "A" calls entry.read with {"target": "run://client-1/notes.md"}
    Then the answer to "A" has status = 404 per Decision (§methods-entry-read)
    When "A" calls entry.read with {"target": "run:///notes.md"}
    Then the answer to "A" has status = 400 per Decision (§methods-entry-read)
    And the answer to "A" has entry = null

  @§methods-log-read
  Scenario: a full loop, turn and sequence coordinate answers that one row with its tx and rx
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 2, "sequence": 1}
    Then the answer to "A" holds 1 log entry
    And the entry in the answer to "A" has op = "READ"
    And the entry in the answer to "A" has path = "log:///1/2/1/READ"
    And the entry in the answer to "A" has tx = "<<READ(known:///france.md)::READ"
    And the entry in the answer to "A" has rx = "1:\tParis\n"

  @§methods-log-read @decision
  Scenario: a row read with log.read carries the tokens stored for its result when it was written
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 2, "sequence": 1}
    Then the answer to "A" holds 1 log entry
    And the entry in the answer to "A" has rx = "1:\tParis\n"
    And the entry in the answer to "A" has tokens = 3 per Decision (§methods-log-read)

  @§methods-log-read @decision
  Scenario: log.read filters combine, sinceId skips older rows and limit keeps the newest
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1}
    Then the answer to "A" holds 2 log entries
    And the answer to "A" has entries.#.op = ["EDIT", "SEND"]
    When "A" calls log.read with {"runId": <A.modelRunId>, "limit": 2}
    Then the answer to "A" has entries.#.path = ["log:///1/2/1/READ", "log:///1/2/2/SEND"] per Decision (§methods-log-read)
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 9, "sequence": 1}
    Then the answer to "A" holds 0 log entries
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 2, "sequence": 1}
    And "A" calls log.read with {"runId": <A.modelRunId>, "sinceId": 0, "loopSeq": 1, "turnSeq": 2}
    Then the answer to "A" holds 2 log entries per Decision (§methods-log-read)

  @§methods-log-coordinate
  Scenario: every LogEntry carries loop_seq and turn_seq beside loop_id and turn_id
    When "A" calls log.read with {"runId": <A.modelRunId>, "runId": <A.modelRunId>}
    Then the answer to "A" holds 5 log entries
    And every log entry "A" has seen carries loop_id, turn_id, loop_seq and turn_seq
    And the answer to "A" has entries.#.loop_seq = [1, 1, 1, 1, 1] per Decision (§methods-log-read)
    And the answer to "A" has entries.#.turn_seq = [0, 1, 1, 2, 2] per Decision (§methods-log-read)

  Scenario: a malformed frame gets a JSON-RPC error and the connection goes on
    When "A" sends the frame {"jsonrpc": "2.0", "id": 1, "method"
    Then the answer to "A" is the error -32700
    When "A" sends the frame {"jsonrpc": "2.0", "id": 2, "method": "loop.fly"}
    Then the answer to "A" is the error -32601
    When "A" sends the frame {"jsonrpc": "2.0", "id": 3, "method": "log.read", "params": {"limit": "ten"}}
    Then the answer to "A" is the error -32602
    When "A" sends the frame {"id": 4, "method": "log.read"}
    Then the answer to "A" is the error -32600
    When "A" calls log.read with {"runId": <A.modelRunId>, "limit": 1}
    Then the answer to "A" holds 1 log entry

  @§errors-error-codes @decision
  Scenario: an empty method name is an invalid request, a name no method has is unknown
    When "A" sends the frame {"jsonrpc": "2.0", "id": 5, "method": ""}
    Then the answer to "A" is the error -32600 per Decision (§errors-error-codes)
    When "A" sends the frame {"jsonrpc": "2.0", "id": 6, "method": " "}
    Then the answer to "A" is the error -32601 per Decision (§errors-error-codes)
