@plurnk
Feature: sessions, runs and the method table of the daemon
  A client learns what the daemon offers from discover, creates or attaches
  to a session, and gets a run of its own for its ops: the client run, apart
  from the model run that loop.run drives. A connection that calls a method
  needing a session before it has one gets one made for it.

  @§discovery-discover @§method-registration-register
  Scenario: discover needs no session and lists the methods, notifications and capabilities
    Given a connection "A" to the daemon
    When "A" calls discover
    Then the answer to "A" has methods.loop\.run.description = "Run a model-driven loop with a prompt; answers at once with finalStatus 100." per Decision (§discovery-discover)
    And the answer to "A" has methods.loop\.run.params.alias = "string? — overrides PLURNK_MODEL" per Decision (§discovery-discover)
    And the answer to "A" has methods.op\.look.params.text = "string — a LOOK or READ statement" per Decision (§discovery-discover)
    And the answer to "A" has no methods.session\.fork
    And the answer to "A" has notifications.loop/quiesced = "{loopId, runId, status: 202}: a parked loop has nothing live beneath it" per Decision (§discovery-discover)
    And the answer to "A" has capabilities.schemes = ["exec", "file", "known", "log", "plurnk", "sh", "skill", "unknown"] per Decision (§discovery-discover)
    And the answer to "A" has capabilities.providers = ["mock"] per Decision (§discovery-discover)
    And the answer to "A" has capabilities.mimetypes = ["application/json", "application/xml", "application/yaml", "text/csv", "text/html", "text/markdown", "text/plain", "text/x-go", "text/xml"] per Decision (§discovery-discover)
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1"

  @§discovery-discover
  Scenario: a daemon whose host offers no executor lists no output schemes and no exec:// face
    Given the daemon's host offers no executor
    And a connection "A" to the daemon
    When "A" calls discover
    Then the answer to "A" has capabilities.schemes = ["file", "known", "log", "plurnk", "skill", "unknown"] per Decision (§discovery-discover)

  @§method-registration-register @decision
  Scenario: a method that needs a session answers -32000 before any attach when no envelope can serve it
    Given a connection "A" to the daemon
    When "A" calls loop.resolve with {"logEntryId": 1, "decision": "accept"}
    Then the answer to "A" is the error -32000 per Decision (§method-registration-register)
    When "A" calls session.rename with {"name": "renamed"}
    Then the answer to "A" is the error -32000 per Decision (§method-registration-register)
    When "A" calls discover
    Then the answer to "A" has methods.session\.create.description = "Create a session and the connection's client run, and attach to it." per Decision (§method-registration-register)

  @§methods-session-create @decision
  Scenario: session.create answers the session and the connection's first run, a client run apart from the model run
    Given a connection "A" to the daemon
    When "A" calls session.create with {"name": "geo", "projectRoot": "/work/geo"}
    Then the answer to "A" has name = "geo"
    And the answer to "A" has runName = "client-1" per Decision (§methods-session-create)
    And the answer to "A" has projectRoot = "/work/geo"
    When "A" calls session.create
    Then the answer to "A" has name = "session-4" per Decision (§methods-session-create)
    And the answer to "A" has projectRoot = null
    And the answer to "A" has runName = "client-1" per Decision (§methods-session-create)
    When "A" calls session.create with {"name": "geo"}
    Then the answer to "A" is the error -32602

  @§methods-session-create @decision
  Scenario: session.create's modelRun names the model run, which loop.run drives; a name no run may have is refused
    Given the daemon's model is served over the OpenAI-compatible protocol
    And a connection "A" to the daemon
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When "A" calls session.create with {"name": "named", "modelRun": "main"}
    Then the answer to "A" has runName = "client-1" per Decision (§methods-session-create)
    When "A" runs a loop with the prompt "hello"
    Then the loop "A" started ended with status 200
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1, main"
    And the answer to "A" has runs.#(name=="main").origin = "model"
    And the answer to "A" has runs.#(name=="main").id = <A.loop.modelRunId>
    And the daemon's model server saw the header X-Plurnk-Run "main" on every call
    When "A" calls session.create with {"name": "reserved", "modelRun": "Plurnk"}
    Then the answer to "A" is the error -32602 per Decision (§methods-session-create)
    When "A" calls session.create with {"name": "pathy", "modelRun": "a/b"}
    Then the answer to "A" is the error -32602 per Decision (§methods-session-create)
    When "A" calls session.create with {"name": "dot", "modelRun": "."}
    Then the answer to "A" is the error -32602 per Decision (§methods-session-create)

  @§methods-session-create @§machine-processes-run-origin @§machine-processes-model-run-readable
  Scenario: the first run of a session is the client's, and the model run is another one, allocated at its first use
    Given a connection "A" to the daemon
    And a connection "B" to the daemon
    And "B" calls discover
    And the daemon's model will reply:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:hello:SEND
      """
    And "A" creates a session named "work"
    Then "B" got a "session/created" notification with name = "work"
    And "B" got a "session/created" notification with id = <A.id>
    And "A" got 1 "session/created" notification
    And the answer to "A" has no modelRunId
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1"
    And the answer to "A" has runs.#(name=="client-1").origin = "client"
    And the answer to "A" has runs.#(name=="client-1").id = <A.runId>
    And the answer to "A" has no runs.#(origin=="model")
    When "A" runs a loop with the prompt "hello"
    Then the loop "A" started ended with status 200
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1, model"
    And the answer to "A" has runs.#(name=="model").origin = "model"
    And the answer to "A" has runs.#(name=="model").id = <A.modelRunId>
    And the answer to "A" has runs.#.name = ["plurnk", "client-1", "model"] per Decision (§machine-processes-model-run-readable)

  @§methods-session-attach
  Scenario: session.attach takes a run of the session by id, reuses or creates one by name, or makes a fresh one
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    And a connection "B" to the daemon
    When "B" calls session.attach with {"id": <A.id>}
    Then the answer to "B" has runName = "client-2" per Decision (§methods-session-create)
    And the answer to "B" has name = "work"
    When "B" calls session.attach with {"id": <A.id>, "runId": <A.runId>}
    Then the answer to "B" has runName = "client-1"
    And the answer to "B" has runId = <A.runId>
    When "B" calls session.attach with {"id": <A.id>, "runName": "reviewer"}
    Then the answer to "B" has runName = "reviewer"
    When "B" calls session.attach with {"id": <A.id>, "runName": "reviewer"}
    Then the answer to "B" has runName = "reviewer"
    When "B" calls session.runs
    Then the answer to "B" lists the runs "plurnk, client-1, client-2, reviewer"
    Given a connection "C" to the daemon
    And "C" creates a session named "other"
    When "B" calls session.attach with {"id": <A.id>, "runId": <C.runId>}
    Then the answer to "B" is the error -32602
    When "B" calls session.attach with {"id": 999}
    Then the answer to "B" is the error -32001

  @§methods-run-name-reserved
  Scenario: the run name plurnk is refused in any letter case and never generated
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    And a connection "B" to the daemon
    When "B" calls session.attach with {"id": <A.id>, "runName": "plurnk"}
    Then the answer to "B" is the error -32602
    When "B" calls session.attach with {"id": <A.id>, "runName": "PLURNK"}
    Then the answer to "B" is the error -32602
    When "B" calls session.attach with {"id": <A.id>, "runName": "Plurnk"}
    Then the answer to "B" is the error -32602
    When "B" calls session.attach with {"id": <A.id>, "runName": "two words"}
    Then the answer to "B" is the error -32602
    When "B" calls session.attach with {"id": <A.id>, "runName": "a/b"}
    Then the answer to "B" is the error -32602
    When "B" calls session.attach with {"id": <A.id>, "runName": "plurnk-2"}
    Then the answer to "B" has runName = "plurnk-2"
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1, plurnk-2"

  @§methods-session-rename
  Scenario: session.rename changes only the name, and a name another session holds is refused
    Given a connection "A" to the daemon
    And "A" creates a session named "draft"
    And a connection "B" to the daemon
    And "B" creates a session named "taken"
    When "A" calls session.rename with {"name": "final"}
    Then the answer to "A" has id = <A.id>
    And the answer to "A" has name = "final"
    When "A" calls session.rename with {"name": "taken"}
    Then the answer to "A" is the error -32602
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1"
    Given a connection "C" to the daemon
    When "C" calls session.attach with {"id": <A.id>}
    Then the answer to "C" has name = "final"

  @§methods-rebind
  Scenario: creating a session on an attached connection moves it and closes its client loop at 200
    Given a connection "A" to the daemon
    And "A" creates a session named "first"
    And a connection "B" to the daemon
    And "B" attaches to the session of "A"
    When "A" calls op.edit with {"target": "known:///note.md", "body": "hello"}
    Then the answer to "A" has status = 201
    When "B" calls session.runs
    Then the answer to "B" has runs.#(name=="client-1").status = 100
    When "A" calls session.create with {"name": "second"}
    Then the answer to "A" has name = "second"
    When "B" calls session.runs
    Then the answer to "B" has runs.#(name=="client-1").status = 200
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1"
    And the answer to "A" has runs.#(name=="client-1").loops = 0

  @§methods-auto-envelope
  Scenario: an op before any attach makes the session, the client run and its loop, and they stay
    Given a connection "A" to the daemon
    When "A" calls op.edit with {"target": "known:///auto.md", "body": "made"}
    Then the answer to "A" has status = 201
    And the answer to "A" has entries.0.origin = "client"
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1"
    And the answer to "A" has runs.#(name=="client-1").loops = 1
    And the answer to "A" has runs.#(name=="client-1").status = 100
    When "A" calls entry.read with {"target": "known:///auto.md"}
    Then the answer to "A" has entry.channels.body.content = "made"
    Given a connection "B" to the daemon
    When "B" calls session.attach with {"id": 1}
    Then the answer to "B" has name = "session-1" per Decision (§methods-session-create)

  @§methods-auto-envelope @§method-registration-register @decision
  Scenario: entry.read before any attach makes the envelope as an op does
    Given a connection "A" to the daemon
    When "A" calls entry.read with {"target": "known:///none.md"}
    Then the answer to "A" has status = 404 per Decision (§methods-entry-read)
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1" per Decision (§method-registration-register)

  @§machine-processes-no-fork-session @decision
  Scenario: there is no way to fork a session; a fork of a run stays in its session
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply:
      """
      <<PLAN:branch:PLAN
      <<COPY(run://.):try the other way:COPY
      <<SEND[200]:branched:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:other way:PLAN
      <<SEND[200]:tried:SEND
      """
    When "A" calls session.fork with {"id": <A.id>}
    Then the answer to "A" is the error -32601
    When "A" calls discover
    Then the answer to "A" has no methods.session\.fork
    When "A" runs a loop with the prompt "branch out"
    And "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1, model, model-2" per Decision (§run-scheme-fork)
    And the answer to "A" has runs.#(name=="model-2").parent = "model" per Decision (§run-scheme-fork)

  @§notifications-envelope-carries-sessionid @decision
  Scenario: every notification names the session it belongs to and reaches only that session
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    And a connection "C" to the daemon
    And "C" creates a session named "elsewhere"
    And the daemon's model will reply:
      """
      <<PLAN:think:PLAN
      <<SEND[102]:still thinking:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:note:PLAN
      <<EDIT(known:///n.md):noted:EDIT
      <<SEND[200]:done:SEND
      """
    When "A" runs a loop with the prompt "note it"
    Then every notification "A" got, but session/created, names the session of "A" per Decision (§notifications-envelope-carries-sessionid)
    And "A" got a "log/entry" notification with runId = <A.modelRunId> per Decision (§notifications-envelope-carries-sessionid)
    And "A" got a "loop/terminated" notification with runId = <A.modelRunId> per Decision (§notifications-envelope-carries-sessionid)
    And "A" got a "telemetry/event" notification with runId = <A.modelRunId> per Decision (§notifications-envelope-carries-sessionid)
    And "C" got no "log/entry" notification
    And "C" got no "telemetry/event" notification
    And "C" got no "loop/terminated" notification per Decision (§notifications-envelope-carries-sessionid)

  @§errors-error-codes @decision
  Scenario: failures carry the standard codes and the plurnk ones
    Given a connection "A" to the daemon
    When "A" sends the frame {"jsonrpc": "2.0", "id": 1, "method"
    Then the answer to "A" is the error -32700
    When "A" sends the frame {"id": 2, "method": "discover"}
    Then the answer to "A" is the error -32600
    When "A" calls loop.fly
    Then the answer to "A" is the error -32601
    When "A" calls loop.resolve with {"logEntryId": 5, "decision": "accept"}
    Then the answer to "A" is the error -32000 per Decision (§method-registration-register)
    When "A" calls session.attach with {"id": 42}
    Then the answer to "A" is the error -32001
    Given "A" creates a session named "work"
    When "A" calls loop.resolve with {"logEntryId": 5, "decision": "maybe"}
    Then the answer to "A" is the error -32602
    When "A" calls loop.resolve with {"logEntryId": 424242, "decision": "accept"}
    Then the answer to "A" is the error -32003 per Decision (§errors-error-codes)

  @§machine-processes-run-origin
  Scenario: each run keeps the origin it was made with and a fork takes its source's
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply:
      """
      <<PLAN:branch:PLAN
      <<COPY(run://.):the other way:COPY
      <<SEND[200]:branched:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:other way:PLAN
      <<SEND[200]:tried:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:a loop for the client's branch:PLAN
      <<SEND[200]:looked:SEND
      """
    When "A" runs a loop with the prompt "branch out"
    And "A" calls op.copy with {"target": "run://client-1", "body": "look around"}
    Then the answer to "A" has status = 201
    And the answer to "A" has target = "run://client-1-2" per Decision (§run-scheme-fork)
    When "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1, model, model-2, client-1-2"
    And the answer to "A" has runs.#(name=="model").origin = "model"
    And the answer to "A" has runs.#(name=="model-2").origin = "model"
    And the answer to "A" has runs.#(name=="client-1").origin = "client"
    And the answer to "A" has runs.#(name=="client-1-2").origin = "client"
    And the answer to "A" has runs.#(name=="client-1-2").parent = "client-1"

  @§methods-auto-envelope
  Scenario: loop.inject before any attach makes the envelope and reaches the new session's model run
    Given a connection "A" to the daemon
    And the daemon's model will reply:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:heard you:SEND
      """
    When "A" calls loop.inject with {"prompt": "hello"}
    And I note the answer to "A"'s runId
    And "A" calls session.runs
    Then the answer to "A" lists the runs "plurnk, client-1, model"
    And the answer to "A" has runs.#(name=="model").id equal to the noted runId
