@jace
Feature: Sessions
  State lives per session_id: each action starts from its session's state
  and, unless it is a dry run, stores its result back there only.

  Background:
    Given the module "notes.js" is loaded:
      """
      let lastSecret = null; // a global, to see whether VM memory leaks across sessions
      globalThis.jace = {
        manifest: { name: "notes", version: "1.0.0" },
        init() { return { notes: [] }; },
        view(state) { return { type: "notes", notes: state.notes }; },
        actions: {
          add(state, params) {
            lastSecret = params.text;
            return { state: { notes: state.notes.concat([params.text]) }, result: { count: state.notes.length + 1 } };
          },
          peek(state) { return { state, result: { lastSecret, seen: state.notes } }; },
          wipe(state) { return { state: { notes: [] } }; },
        },
      };
      """

  @§jace-sessions
  Scenario: each action starts from its own session's stored state
    When the agent posts to /actions {"action":"add","params":{"text":"one"},"session_id":"alice"}
    And the agent posts to /actions {"action":"add","params":{"text":"two"},"session_id":"alice"}
    Then the response status is 200 and $.state.notes is ["one","two"]
    And $.result.count is 2
    When the session "alice" is viewed by an agent
    Then $.jace.notes is ["one","two"]

  @§jace-sessions @§jace-dry-run
  Scenario: a dry run in a session leaves that session's state as it was
    When the agent posts to /actions {"action":"add","params":{"text":"kept"},"session_id":"alice"}
    And the agent posts to /actions {"action":"wipe","session_id":"alice","dry_run":true}
    Then $.state.notes is []
    When the session "alice" is viewed by an agent
    Then $.jace.notes is ["kept"]

  @§jace-session-isolation @§jace-sessions @decision
  Scenario: one session can neither see nor change another's state
    When the agent posts to /actions {"action":"add","params":{"text":"alice's secret"},"session_id":"alice"}
    And the agent posts to /actions {"action":"peek","session_id":"bob"}
    Then the response status is 200 and $.result.seen is []
    And $.result.lastSecret is null per Decision (§jace-sessions)
    When the agent posts to /actions {"action":"wipe","session_id":"bob"}
    And the session "alice" is viewed by an agent
    Then $.jace.notes is ["alice's secret"]
    When the session "bob" is viewed by an agent
    Then $.jace.notes is []

  @§jace-session-isolation @§jace-sessions
  Scenario: the default session is a session like any other
    When the agent posts to /actions {"action":"add","params":{"text":"default"}}
    And the session "carol" is viewed by an agent
    Then $.jace.notes is []
    When the session "" is viewed by an agent
    Then $.jace.notes is ["default"]

  @§jace-load @decision
  Scenario: loading a module again starts every session afresh
    When the agent posts to /actions {"action":"add","params":{"text":"old"},"session_id":"alice"}
    And the client posts to /load {"source":"globalThis.jace = {manifest:{name:'notes',version:'1.0.1'}, init(){return {notes:['fresh']}}, view(s){return {type:'notes', notes:s.notes}}, actions:{}};"}
    Then the response status is 200
    When the session "alice" is viewed by an agent
    Then $.jace.notes is ["fresh"] per Decision (§jace-load)

  @§jace-sessions @§jace-session-isolation @decision
  Scenario: a module's top-level variables last between one session's calls and are never shared
    Given the module "ticker.js" is loaded:
      """
      let ticks = 0; // not state: lives in the session's VM
      globalThis.jace = {
        manifest: { name: "ticker", version: "1.0.0" },
        init() { return {}; },
        view(state) { return { type: "ticker" }; },
        actions: { tick(state) { ticks++; return { state, result: ticks }; } },
      };
      """
    When the agent posts to /actions {"action":"tick","session_id":"a"}
    Then the response status is 200 and $.result is 1
    When the agent posts to /actions {"action":"tick","session_id":"a"}
    Then the response status is 200
    And $.result is 2 per Decision (§jace-sessions)
    When the agent posts to /actions {"action":"tick","session_id":"b"}
    Then the response status is 200
    And $.result is 1 per Decision (§jace-sessions)
    When the agent posts to /actions {"action":"tick","session_id":"a"}
    Then the response status is 200
    And $.result is 3 per Decision (§jace-sessions)

  @§jace-sessions @§jace-deterministic @decision
  Scenario: over its VM limit the runtime closes the least recently used session's VM first
    Given the embedded reference runtime keeping at most 2 session VMs
    And the module "ticker.js" is loaded:
      """
      let ticks = 0; // not state: lives in the session's VM
      globalThis.jace = {
        manifest: { name: "ticker", version: "1.0.0" },
        init() { return {}; },
        view(state) { return { type: "ticker" }; },
        actions: { tick(state) { ticks++; return { state, result: ticks }; } },
      };
      """
    Then the action "tick" in session "a" gives the result 1 per Decision (§jace-sessions)
    And the action "tick" in session "b" gives the result 1 per Decision (§jace-sessions)
    # loading a module closes every session's VM
    When the client posts to /load {"source":"let ticks = 0; globalThis.jace = {manifest:{name:'ticker',version:'1.0.1'}, init(){return {}}, view(s){return {type:'ticker'}}, actions:{tick(s){ ticks++; return {state: s, result: ticks}; }}};"}
    Then the response status is 200
    And the action "tick" in session "a" gives the result 1 per Decision (§jace-sessions)
    And the action "tick" in session "a" gives the result 2 per Decision (§jace-sessions)
    And the action "tick" in session "b" gives the result 1 per Decision (§jace-sessions)
    And the action "tick" in session "a" gives the result 3 per Decision (§jace-sessions)
    # c needs a VM: b's is the least recently used, a's is kept
    And the action "tick" in session "c" gives the result 1 per Decision (§jace-sessions)
    And the action "tick" in session "b" gives the result 1 per Decision (§jace-sessions)
    And the action "tick" in session "a" gives the result 1 per Decision (§jace-sessions)
    And the action "tick" in session "b" gives the result 2 per Decision (§jace-sessions)
    And the action "tick" in session "c" gives the result 1 per Decision (§jace-sessions)
    And the action "tick" in session "b" gives the result 3 per Decision (§jace-sessions)
    And the action "tick" in session "a" gives the result 1 per Decision (§jace-sessions)
    And the action "tick" in session "c" gives the result 1 per Decision (§jace-sessions)
    And the action "tick" in session "b" gives the result 1 per Decision (§jace-sessions)

  @§jace-sessions
  Scenario: before an action or a view runs, the session's state is assigned to jace.___state
    Given the module "mirror.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "mirror", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { type: "mirror", seen: globalThis.jace.___state }; },
        actions: {
          inc(state) { return { state: { n: state.n + 1 } }; },
          mirror(state) { return { state, result: globalThis.jace.___state }; },
        },
      };
      """
    When the client posts to /press {"action":"inc","env":{"session_id":"a"}}
    And the client posts to /press {"action":"inc","env":{"session_id":"a"}}
    And the client posts to /press {"action":"inc","env":{"session_id":"b"}}
    And the client posts to /press {"action":"mirror","env":{"session_id":"a"}}
    Then the response status is 200 and $.result is {"n":2}
    When the client posts to /press {"action":"mirror","env":{"session_id":"b"}}
    Then the response status is 200 and $.result is {"n":1}
    When the session "a" is viewed by an agent
    Then $.jace.seen is {"n":2}

  @§jace-sessions
  Scenario: an action is never told it runs in a session whose state it was not given
    # The env given at load reaches every later call; a session_id in it
    # must not make an action of another session believe it runs there.
    Given the calculator module is loaded
    And a module file "whoami.js" containing:
      """
      globalThis.jace = {
        manifest: { name: "whoami", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: {
          inc(state) { return { state: { n: state.n + 1 } }; },
          who(state, params, env) { return { state, result: { session_id: env.session_id, n: state.n } }; },
        },
      };
      """
    When the client posts to /load-file {"path":"<file:whoami.js>","env":{"session_id":"x"}}
    Then the response status is 200 and $ is {"ok":true}
    When the agent posts to /actions {"action":"inc","session_id":"x"}
    And the agent posts to /actions {"action":"inc","session_id":"x"}
    And the agent posts to /actions {"action":"who","session_id":"x"}
    Then the response status is 200 and $.result.n is 2
    When the agent posts to /actions {"action":"who","session_id":"y"}
    Then the response status is 200 and $.result.n is 0
    And where $.result.session_id is "x", $.result.n is 2
    When the agent posts to /actions {"action":"who"}
    Then the response status is 200
    And where $.result.session_id is "x", $.result.n is 2
