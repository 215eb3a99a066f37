@plurnk
Feature: bad params get a clear error, never a silent default
  A client written against another plurnk daemon may send a member this one
  does not take (op.edit's content for its body, op.find's scope), or leave
  out one a method needs. The daemon guesses nothing: the call is answered
  with the JSON-RPC error -32602, invalid params, naming the member, and
  nothing is written, made or sent for it.

  Background:
    Given a connection "A" to the daemon
    And "A" creates a session named "work"

  @§errors-error-codes @§methods-op-mirror
  Scenario: op.edit with a content member instead of a body writes no entry and no row
    When "A" calls op.edit with {"target": "known:///notes.md", "content": "a note"}
    Then the answer to "A" is the error -32602
    And the error answered to "A" names the member "content"
    And the error answered to "A" has data member = "content" per Decision (§errors-error-codes)
    When "A" calls entry.read with {"target": "known:///notes.md"}
    Then the answer to "A" has status = 404
    When "A" calls log.read
    Then the answer to "A" holds 0 log entries
    When "A" calls op.find with {"target": "known:///**", "scope": "session"}
    Then the answer to "A" is the error -32602
    And the error answered to "A" names the member "scope"
    When "A" calls log.read
    Then the answer to "A" holds 0 log entries

  @§errors-error-codes
  Scenario: a batch answers each of its requests, the invalid one with -32600
    When "A" sends the frame [{"jsonrpc": "2.0", "id": 1, "method": "discover"}, {"id": 2, "method": "discover"}]
    Then the answer to "A" is a batch holding a result for id 1 and the error -32600

  @§errors-error-codes
  Scenario: params that are no object or array make an invalid request; white space before a batch is still a batch
    When "A" sends the frame {"jsonrpc": "2.0", "id": 7, "method": "discover", "params": 5}
    Then the answer to "A" is the error -32600
    When "A" sends the frame  [{"jsonrpc": "2.0", "id": 8, "method": "discover"}, {"id": 9, "method": "discover"}]
    Then the answer to "A" is a batch holding a result for id 8 and the error -32600

  @§errors-error-codes
  Scenario Outline: <method> given a member it does not take answers -32602 naming it
    When "A" calls <method> with <params>
    Then the answer to "A" is the error -32602
    And the error answered to "A" names the member "<member>"

    Examples:
      | method            | params                                                      | member   |
      | discover          | {"verbose": true}                                           | verbose  |
      | session.create    | {"name": "other", "title": "Other"}                         | title    |
      | session.create    | {"name": "other", "settings": {"colour": "red"}}            | colour   |
      | session.attach    | {"id": <A.id>, "run": "client-1"}                           | run      |
      | session.rename    | {"name": "renamed", "id": <A.id>}                           | id       |
      | session.runs      | {"sessionId": <A.id>}                                       | sessionId |
      | session.members   | {"all": true}                                               | all      |
      | session.constrain | {"effect": "pick", "pattern": "*.md", "glob": "*.md"}       | glob     |
      | loop.run          | {"prompt": "go", "model": "gpt"}                            | model    |
      | loop.run          | {"prompt": "go", "flags": {"turbo": true}}                  | turbo    |
      | loop.inject       | {"prompt": "more", "message": "more"}                       | message  |
      | loop.cancel       | {"why": "enough"}                                           | why      |
      | loop.resolve      | {"logEntryId": 1, "decision": "accept", "accept": true}     | accept   |
      | entry.read        | {"target": "known:///a.md", "channel": "body"}              | channel  |
      | log.read          | {"run": 1}                                                  | run      |
      | op.look           | {"text": "<<LOOK(known:///a.md)::LOOK", "target": "x"}      | target   |
      | op.find           | {"target": "known:///**", "scope": "session"}               | scope    |
      | op.read           | {"target": "known:///a.md", "channel": "body"}              | channel  |
      | op.edit           | {"target": "known:///a.md", "content": "x"}                 | content  |
      | op.copy           | {"target": "known:///a.md", "to": "known:///b.md"}          | to       |
      | op.move           | {"target": "known:///a.md", "destination": "known:///b.md"} | destination |
      | op.open           | {"target": "log:///1/1/1", "path": "log:///1/1/1"}          | path     |
      | op.fold           | {"target": "log:///1/1/1", "path": "log:///1/1/1"}          | path     |
      | op.exec           | {"body": "ls", "command": "ls"}                             | command  |
      | op.kill           | {"target": "known:///a.md", "force": true}                  | force    |
      | op.send           | {"target": "known:///a.md", "status": 410}                  | status   |

  @§errors-error-codes
  Scenario Outline: <method> without the member <member> it needs answers -32602 naming it
    When "A" calls <method> with <params>
    Then the answer to "A" is the error -32602
    And the error answered to "A" names the member "<member>"

    Examples:
      | method            | params                 | member     |
      | session.attach    | {"runName": "helper"}  | id         |
      | session.rename    | {}                     | name       |
      | session.constrain | {"effect": "pick"}     | pattern    |
      | loop.run          | {"maxTurns": 3}        | prompt     |
      | loop.inject       | {}                     | prompt     |
      | loop.resolve      | {"decision": "accept"} | logEntryId |
      | entry.read        | {}                     | target     |
      | op.look           | {}                     | text       |
      | op.find           | {"body": "TODO"}       | target     |
      | op.read           | {}                     | target     |
      | op.edit           | {"body": "x"}          | target     |
      | op.copy           | {"body": "b.md"}       | target     |
      | op.move           | {"body": "b.md"}       | target     |
      | op.open           | {}                     | target     |
      | op.fold           | {}                     | target     |
      | op.kill           | {}                     | target     |

  @§errors-error-codes
  Scenario: a refused call makes nothing: no session, no run, no notification
    Given a connection "B" to the daemon
    When "B" calls session.create with {"name": "other", "title": "Other"}
    Then the answer to "B" is the error -32602
    And "A" got 1 "session/created" notification
    When "B" calls loop.run with {"prompt": "go", "model": "gpt"}
    Then the answer to "B" is the error -32602
    And "B" got no "session/created" notification
    When "A" calls loop.run with {"prompt": "go", "model": "gpt"}
    Then the answer to "A" is the error -32602
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1"
    And "A" got no "log/entry" notification
