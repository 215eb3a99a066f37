@plurnk
Feature: an EDIT of a workspace file is a proposal
  Taking a file from disk into an entry is ingestion; an EDIT of a workspace
  file goes the other way, egress to disk, and so it is proposed. A daemon
  that asks writes the EDIT row at 202, tells the session with
  loop/proposal (op EDIT) and pauses the dispatch of the model's emission
  there; nothing reaches the disk until the client accepts. An accept
  applies the write (refused as a write conflict when the file changed on
  disk meanwhile); a reject writes nothing. Under yolo the proposal is
  accepted at once.

  Background:
    Given the daemon asks before host commands
    And the daemon keeps a membership of a workspace without git holding:
      | path     | content |
      | notes.md | first   |
    And the daemon's model will reply:
      """
      <<PLAN:rewrite the notes:PLAN
      <<EDIT(file:///notes.md):mine:EDIT
      <<SEND[200]:rewritten:SEND
      """
    And a connection "A" to the daemon
    And "A" creates a session named "files"
    And "A" calls session.constrain with {"effect": "pick", "pattern": "notes.md"}

  @§membership-edit-membership-gate @§proposal-202-pauses @§dual-yolo-proposal-carries-flags
  Scenario: the model's EDIT of a file waits at 202 for the client, and the accept writes it
    When "A" runs a loop with the prompt "rewrite"
    Then the loop "A" started is still running
    And "A" got 1 "loop/proposal" notification
    And "A" got a "loop/proposal" notification with op = "EDIT"
    And "A" got a "loop/proposal" notification with target = "file:///notes.md"
    And "A" got a "loop/proposal" notification with body = "mine"
    And "A" got a "loop/proposal" notification with flags.yolo = false
    When "A" calls entry.read with {"target": "file:///notes.md"}
    Then the answer to "A" has entry.channels.body.content = "first"
    When "A" accepts the proposal it was notified of
    Then the answer to "A" has state = "resolved"
    And the answer to "A" has status = 200
    And the loop "A" started ended with status 200
    When "A" calls entry.read with {"target": "file:///notes.md"}
    Then the answer to "A" has entry.channels.body.content = "mine"

  @§proposal-reject-fails
  Scenario: a rejected EDIT writes nothing, and the model sees its row at 400
    When "A" runs a loop with the prompt "rewrite"
    And "A" rejects the proposal it was notified of
    Then the answer to "A" has state = "failed"
    And the answer to "A" has status = 400
    And the loop "A" started ended with status 200
    When "A" calls entry.read with {"target": "file:///notes.md"}
    Then the answer to "A" has entry.channels.body.content = "first"

  @§membership-edit-write-cas @§proposal-accept-applies
  Scenario: a file changed on disk while its EDIT waits is not overwritten: the accept becomes a write conflict
    When "A" runs a loop with the prompt "rewrite"
    And the daemon's operator file /work/notes.md reads "theirs, longer"
    And "A" accepts the proposal it was notified of
    Then the answer to "A" has state = "failed"
    And the answer to "A" has status = 400
    And the loop "A" started ended with status 200
    When "A" calls entry.read with {"target": "file:///notes.md"}
    Then the answer to "A" has entry.channels.body.content = "theirs, longer"
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has op = "EDIT"
    And the entry in the answer to "A" has status = 400
    And the entry in the answer to "A" has reason = "write_conflict"

  @§dual-yolo-server-yolo-auto-accept @§dual-yolo-proposal-carries-flags @decision
  Scenario: under the loop's yolo the EDIT is accepted at once and applied as a direct one
    When "A" runs a loop with {"prompt": "rewrite", "flags": {"yolo": true}}
    Then the loop "A" started ended with status 200
    And "A" got 1 "loop/proposal" notification
    And "A" got a "loop/proposal" notification with op = "EDIT"
    And "A" got a "loop/proposal" notification with flags.yolo = true
    When "A" calls entry.read with {"target": "file:///notes.md"}
    Then the answer to "A" has entry.channels.body.content = "mine"
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has status = 200 per Decision (§dual-yolo-proposal-carries-flags)
