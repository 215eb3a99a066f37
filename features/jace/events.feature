@jace
Feature: Events
  Events returned by committed actions reach Server-Sent Events listeners
  on /agent/events and on its alias /events, one data message per event.

  @§jace-events-sse @decision
  Scenario: the calculator's result event is relayed on /agent/events
    Given the calculator module is loaded
    And a client listens on /agent/events
    When the agent presses "calc.input" with params {"digit":7}
    And the agent presses "calc.op" with params {"op":"divide"}
    And the agent presses "calc.input" with params {"digit":2}
    And the agent presses "calc.equals"
    Then the listener on /agent/events receives an event whose $.type is "calc.result"
    And the last event has at least the keys "type", "id", "ts" and "entity"
    And the last event's $.ts is an RFC 3339 date-time
    And the last event's $.changes is {"display":"3.5"}
    And the last event's $.entity is "calculator"
    And the last event has exactly the keys "type", "id", "ts", "entity" and "changes" per Decision (§jace-events-sse)
    And the last event came as one data line per Decision (§jace-events-sse)

  @§jace-events-sse
  Scenario: /events serves the same stream
    Given the calculator module is loaded
    And a client listens on /events
    And a client listens on /agent/events
    When the client posts to /press {"action":"calc.input","params":{"digit":8}}
    And the client posts to /press {"action":"calc.op","params":{"op":"add"}}
    And the client posts to /press {"action":"calc.input","params":{"digit":1}}
    And the client posts to /press {"action":"calc.equals"}
    Then the listener on /events receives an event whose $.changes is {"display":"9"}
    And the listener on /agent/events receives an event whose $.changes is {"display":"9"}

  @§jace-events-sse @§jace-dry-run @decision
  Scenario: dry runs relay nothing, and missing event fields get defaults
    Given the module "pinger.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "pinger", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: {
          ping(state, params) {
            const n = state.n + 1;
            return { state: { n }, events: [{ type: "pinged", id: "ping-" + params.tag, ts: "2026-01-01T00:00:00Z", entity: "pinger", changes: { n, tag: params.tag } }] };
          },
          bare(state) { return { state, events: [{ level: 3 }] }; },
        },
      };
      """
    And a client listens on /agent/events
    When the agent posts to /actions {"action":"ping","params":{"tag":"dry"},"dry_run":true}
    And the agent posts to /actions {"action":"ping","params":{"tag":"real"}}
    Then the listener on /agent/events receives an event whose $.changes is {"n":1,"tag":"real"}
    And the last event's $.type is "pinged"
    And the last event's $.entity is "pinger"
    And the last event's $.id is "ping-real" per Decision (§jace-events-sse)
    And the last event's $.ts is "2026-01-01T00:00:00Z" per Decision (§jace-events-sse)
    And the last event's $ is {"type":"pinged","id":"ping-real","ts":"2026-01-01T00:00:00Z","entity":"pinger","changes":{"n":1,"tag":"real"}} per Decision (§jace-events-sse)
    When the agent posts to /actions {"action":"bare"}
    Then the listener on /agent/events receives an event
    And the last event has at least the keys "type", "id", "ts" and "entity"
    And the last event's $.ts is an RFC 3339 date-time
    And the last event's $.type is "bare" per Decision (§jace-events-sse)
    And the last event's $.level is 3 per Decision (§jace-events-sse)
    And the last event's $.changes is {} per Decision (§jace-events-sse)
    And the last event's $.entity is "pinger" per Decision (§jace-events-sse)
    And the last event has exactly the keys "type", "id", "ts", "entity", "changes" and "level" per Decision (§jace-events-sse)

  @§jace-events-sse @decision
  Scenario: events without an id are numbered by the runtime's counter, from 1
    # The counter is the runtime's, so only a runtime that has relayed
    # nothing before counts from 1: the embedded reference of this scenario.
    Given the runtime is the embedded reference
    And the module "counted.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "counted", version: "1.0.0" },
        init() { return {}; },
        view(state) { return { type: "counted" }; },
        actions: { two(state) { return { state, events: [{ type: "first" }, { type: "second" }] }; } },
      };
      """
    And a client listens on /agent/events
    When the agent posts to /actions {"action":"two"}
    Then the listener on /agent/events receives an event whose $.type is "first"
    And the last event's $.id is "evt-1" per Decision (§jace-events-sse)
    And the listener on /agent/events receives an event whose $.type is "second"
    And the last event's $.id is "evt-2" per Decision (§jace-events-sse)

  @§jace-events-sse @decision
  Scenario: given changes are kept as they are, other members beside them, and an event without changes gets empty ones
    Given the module "mixer.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "mixer", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: {
          mix(state) { return { state, events: [{ type: "mixed", changes: { n: 5 }, note: "x" }] }; },
          plain(state) { return { state, events: [{ type: "plain" }] }; },
        },
      };
      """
    And a client listens on /agent/events
    When the agent posts to /actions {"action":"mix"}
    Then the listener on /agent/events receives an event whose $.type is "mixed"
    And the last event's $.changes is {"n":5}
    And the last event's $.note is "x" per Decision (§jace-events-sse)
    When the agent posts to /actions {"action":"plain"}
    Then the listener on /agent/events receives an event whose $.type is "plain"
    And the last event has at least the keys "type", "id", "ts" and "entity"
    And the last event's $.changes is {} per Decision (§jace-events-sse)

  @§jace-events-sse @decision
  Scenario: a listener may follow one session only
    Given the calculator module is loaded
    And a client listens on /agent/events?session_id=mine
    When the agent presses "calc.input" with params {"digit":1} in session "other"
    And the agent presses "calc.op" with params {"op":"add"} in session "other"
    And the agent presses "calc.equals" in session "other"
    And the agent presses "calc.input" with params {"digit":2} in session "mine"
    And the agent presses "calc.op" with params {"op":"multiply"} in session "mine"
    And the agent presses "calc.input" with params {"digit":3} in session "mine"
    And the agent presses "calc.equals" in session "mine"
    Then the listener on /agent/events?session_id=mine receives an event whose $.changes is {"display":"6"} per Decision (§jace-events-sse)
    And the listener on /agent/events?session_id=mine has heard an event whose $.changes is {"display":"6"}

  @§jace-events-sse @decision
  Scenario: a listener without a session filter hears every session, and the stream is not held back
    Given the calculator module is loaded
    And a client listens on /agent/events
    Then the stream on /agent/events is answered with the header "Content-Type" set to "text/event-stream" per Decision (§jace-events-sse)
    And the stream on /agent/events is answered with the header "Cache-Control" set to "no-cache" per Decision (§jace-events-sse)
    And the stream on /agent/events is answered with the header "X-Accel-Buffering" set to "no" per Decision (§jace-events-sse)
    When the agent presses "calc.input" with params {"digit":4} in session "north"
    And the agent presses "calc.op" with params {"op":"add"} in session "north"
    And the agent presses "calc.input" with params {"digit":5} in session "north"
    And the agent presses "calc.equals" in session "north"
    Then the listener on /agent/events receives an event whose $.changes is {"display":"9"}
    When the agent presses "calc.input" with params {"digit":2} in session "south"
    And the agent presses "calc.op" with params {"op":"subtract"} in session "south"
    And the agent presses "calc.input" with params {"digit":7} in session "south"
    And the agent presses "calc.equals" in session "south"
    Then the listener on /agent/events receives an event whose $.changes is {"display":"-5"}

  @§jace-events-sse @§jace-json-only @decision
  Scenario: when the runtime shuts down its streams end cleanly and later requests are refused with 503
    Given the runtime is the embedded reference
    And the calculator module is loaded
    And a client listens on /agent/events
    When the runtime shuts down
    Then the stream on /agent/events ends cleanly per Decision (§jace-events-sse)
    When a client listens on /agent/events
    Then the stream on /agent/events ends cleanly per Decision (§jace-events-sse)
    When the agent posts to /actions {"action":"calc.input","params":{"digit":1}}
    Then the response is a JSON error "SHUTTING_DOWN" with status 503 per Decision (§jace-json-only)
    And its code is the spec family's code for its status
    When the client posts to /init {}
    Then the response is a JSON error "SHUTTING_DOWN" with status 503 per Decision (§jace-json-only)
    And its code is the spec family's code for its status
    When the client posts to /view {}
    Then the response is a JSON error "SHUTTING_DOWN" with status 503 per Decision (§jace-json-only)
    And its code is the spec family's code for its status

  @§jace-json-only @decision
  Scenario: shutting down twice is harmless: requests after the second are still refused at once with 503
    Given the runtime is the embedded reference
    And the calculator module is loaded
    When the runtime shuts down
    And the runtime shuts down
    And the agent posts to /actions {"action":"calc.input","params":{"digit":1}}
    Then the response is a JSON error "SHUTTING_DOWN" with status 503 per Decision (§jace-json-only)
    And its code is the spec family's code for its status
    When the client posts to /init {}
    Then the response is a JSON error "SHUTTING_DOWN" with status 503 per Decision (§jace-json-only)
    And its code is the spec family's code for its status

  @§jace-events-sse
  Scenario: every event of one action is relayed, in order
    Given the module "burst.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "burst", version: "1.0.0" },
        init() { return {}; },
        view(state) { return { type: "burst" }; },
        actions: {
          burst(state) {
            const events = [];
            for (let i = 1; i <= 6; i++) events.push({ type: "tick", id: "t" + i, changes: { i } });
            return { state, events };
          },
        },
      };
      """
    And a client listens on /agent/events
    When the agent posts to /actions {"action":"burst"}
    Then the listener on /agent/events receives an event whose $.changes is {"i":1}
    And the listener on /agent/events receives an event whose $.changes is {"i":2}
    And the listener on /agent/events receives an event whose $.changes is {"i":3}
    And the listener on /agent/events receives an event whose $.changes is {"i":4}
    And the listener on /agent/events receives an event whose $.changes is {"i":5}
    And the listener on /agent/events receives an event whose $.changes is {"i":6}
