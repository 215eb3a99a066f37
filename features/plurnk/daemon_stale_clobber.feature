@plurnk
Feature: server yolo and a file changed under the model
  A loop run with flags.yolo has the daemon accept its proposals itself,
  except an EDIT of a file that changed on disk outside plurnk since the
  model's previous turn: the model has seen only that the file changed
  (a folded delta), not what it now holds, so server yolo rejects the EDIT
  as a client would, and the model sees an ordinary reject.

  @§dual-yolo-stale-clobber-reject @decision
  Scenario: server yolo rejects the model's EDIT of a file changed on disk since its last turn, and accepts it a turn later
    Given the daemon asks before host commands
    And the daemon keeps a membership of a workspace without git holding:
      | path     | content |
      | notes.md | first   |
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:overwrite the notes:PLAN
      <<EDIT(file:///notes.md):mine:EDIT
      <<SEND[102]:rewriting:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:overwrite them again:PLAN
      <<EDIT(file:///notes.md):mine again:EDIT
      <<SEND[200]:done:SEND
      """
    And a connection "A" to the daemon
    And "A" creates a session named "files"
    And "A" calls session.constrain with {"effect": "pick", "pattern": "notes.md"}
    And "A" runs a loop with the prompt "look"
    And the loop "A" started ended with status 200
    When the daemon's operator file /work/notes.md reads "second"
    And "A" runs a loop with {"prompt": "edit it", "flags": {"yolo": true}}
    Then the loop "A" started ended with status 200
    And "A" got 2 "loop/proposal" notifications per Decision (§dual-yolo-stale-clobber-reject)
    And "A" got a "loop/proposal" notification with attrs.staleClobberRisk = true
    And "A" got a "loop/proposal" notification with op = "EDIT"
    And "A" got a "loop/proposal" notification with flags.yolo = true
    And "A" got a "loop/proposal" notification with loopId = <A.loop.loopId>
    And the daemon's model's packet 3 contains "EDIT 400 file:///notes.md" per Decision (§dual-yolo-stale-clobber-reject)
    And the daemon's model's packet 3 contains "reason: rejected" per Decision (§dual-yolo-stale-clobber-reject)
    When "A" calls entry.read with {"target": "file:///notes.md"}
    Then the answer to "A" has entry.channels.body.content = "mine again"

  @§dual-yolo-stale-clobber-reject
  Scenario: a change on disk between two turns of the first loop is a stale clobber too, announced with that loop's id
    Given the daemon asks before host commands
    And the daemon keeps a membership of a workspace without git holding:
      | path     | content |
      | notes.md | first   |
    And the daemon's model will reply:
      """
      <<PLAN:look at the notes:PLAN
      <<READ(file:///notes.md)::READ
      <<SEND[102]:looking:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:overwrite the notes:PLAN
      <<EDIT(file:///notes.md):mine:EDIT
      <<SEND[102]:rewriting:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:overwrite them again:PLAN
      <<EDIT(file:///notes.md):mine again:EDIT
      <<SEND[200]:done:SEND
      """
    And while the daemon's model generates reply 1, the daemon's operator file /work/notes.md comes to read "second"
    And a connection "A" to the daemon
    And "A" creates a session named "files"
    And "A" calls session.constrain with {"effect": "pick", "pattern": "notes.md"}
    When "A" runs a loop with {"prompt": "edit it", "flags": {"yolo": true}}
    Then the loop "A" started ended with status 200
    And "A" got 2 "loop/proposal" notifications
    And "A" got a "loop/proposal" notification with attrs.staleClobberRisk = true
    And "A" got a "loop/proposal" notification with loopId = <A.loop.loopId>
    When "A" calls entry.read with {"target": "file:///notes.md"}
    Then the answer to "A" has entry.channels.body.content = "mine again"
