@jace
Feature: Determinism and safety
  Inside the VM the clock is fixed and Math.random is a seeded xorshift, so
  a run can be repeated byte for byte; there is no I/O, no code from
  strings, only JSON crosses the boundary, and guards stop runaway actions.

  Background:
    Given the module "probe.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "probe", version: "1.0.0" },
        init() { return { rolls: [] }; },
        view(state) { return { type: "probe", rolls: state.rolls }; },
        actions: {
          clock(state) {
            const before = Date.now();
            let spent = 0;
            for (let i = 0; i < 200000; i++) spent += i % 7;
            const fixed = Date.now() === before && new Date().getTime() === before;
            return { state, result: { now: Date.now(), iso: new Date().toISOString(), epoch: new Date(0).toISOString(), fixed } };
          },
          roll(state) {
            const r = [Math.random(), Math.random(), Math.random()];
            return { state: { rolls: state.rolls.concat([r]) }, result: r };
          },
          globals(state) {
            const names = ["setTimeout", "setInterval", "setImmediate", "queueMicrotask", "fetch", "XMLHttpRequest", "WebSocket", "Worker", "SharedArrayBuffer", "Atomics"];
            const types = {};
            for (const n of names) types[n] = typeof globalThis[n];
            return { state, result: types };
          },
          timer(state) { setTimeout(() => {}, 1); return { state }; },
          evalIt(state) { return { state, result: eval("1 + 1") }; },
          functionIt(state) { return { state, result: Function("return 2")() }; },
          ctorIt(state) { return { state, result: (function () {}).constructor("return 3")() }; },
          shapes(state, params, env) {
            return {
              state,
              result: {
                paramsPlain: Object.getPrototypeOf(params) === Object.prototype,
                envPlain: Object.getPrototypeOf(env) === Object.prototype,
                nestedArray: Array.isArray(params.list),
                marshalled: { keep: 1, fn: function () {}, missing: undefined, date: new Date(0), nan: NaN },
              },
            };
          },
          spin(state) { for (;;) {} },
          ok(state) { return { state, result: "still here" }; },
        },
      };
      """

  @§jace-fixed-clock @decision
  Scenario: Date gives the fixed instant, and new Date with arguments is untouched
    When the agent posts to /actions {"action":"clock"}
    Then the response status is 200 and $.result.fixed is true
    And $.result.epoch is "1970-01-01T00:00:00.000Z"
    And $.result.now is 1767225600000 per Decision (§jace-fixed-clock)
    And $.result.iso is "2026-01-01T00:00:00.000Z" per Decision (§jace-fixed-clock)
    When the response is remembered as "first"
    And the agent posts to /actions {"action":"clock","session_id":"later"}
    Then $.result.now equals that of the remembered "first"

  @§jace-fixed-clock
  Scenario: env.now replaces the fixed instant
    When the client posts to /press {"action":"clock","env":{"now":"2030-05-06T07:08:09Z"}}
    Then the response status is 200 and $.result.now is 1904281689000
    And $.result.iso is "2030-05-06T07:08:09.000Z"
    And $.result.fixed is true

  @§jace-fixed-clock @§jace-schema @decision
  Scenario: an env.now that is not a timestamp is refused
    When the client posts to /press {"action":"clock","env":{"now":"yesterday"}}
    Then the response, if it is an error, is a JSON error
    And the response is a JSON error per Decision (§jace-fixed-clock)
    And the response status is 400 per Decision (§jace-fixed-clock)
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-fixed-clock)
    And the error message contains "/env/now" per Decision (§jace-fixed-clock)
    And $.state is absent per Decision (§jace-fixed-clock)

  @§jace-fixed-clock @§jace-schema
  Scenario: an env.now that is not a string fails the seed's ActionEnv, on every endpoint that takes an env
    # Seed §2 types the env's now as a string (an ISO timestamp).
    When the client posts to /init {"env":{"now":12}}
    Then the response is a JSON error with a 4xx status
    When the client posts to /press {"action":"clock","env":{"now":true}}
    Then the response is a JSON error with a 4xx status
    When the client posts to /load-file {"path":"/no/such/module.js","env":{"now":{}}}
    Then the response is a JSON error with a 4xx status

  @§jace-seeded-rng
  Scenario: Math.random is xorshift32 from the configured seed
    Given the embedded reference runtime with seed 7
    And the module "probe.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "probe", version: "1.0.0" },
        init() { return {}; },
        view(state) { return {}; },
        actions: { roll(state) { return { state, result: [Math.random(), Math.random(), Math.random()] }; } },
      };
      """
    When the agent posts to /actions {"action":"roll"}
    Then the response status is 200
    And every number in $.result is at least 0 and below 1
    And $.result is [0.00044065131805837154, 0.10952103300951421, 0.9038964069914073] per Decision (§jace-seeded-rng)

  @§jace-seeded-rng @§jace-init
  Scenario: the generator goes on from the numbers init drew for a state it stored
    Given the module "drawer.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "drawer", version: "1.0.0" },
        init() { return { n: Math.random() }; },
        view(state) { return {}; },
        actions: { draw(state) { return { state: { n: Math.random() } }; } },
      };
      """
    When the client posts to /init {}
    Then the response status is 200
    And the response is remembered as "init"
    When the agent posts to /actions {"action":"draw"}
    Then the response status is 200
    And $.state.n differs from that of the remembered "init"

  @§jace-seeded-rng @decision
  Scenario: every session starts the same sequence and a commit carries it forward
    When the agent posts to /actions {"action":"roll","session_id":"a"}
    And the response is remembered as "a1"
    And the agent posts to /actions {"action":"roll","session_id":"b"}
    Then the response status is 200
    And every number in $.result is at least 0 and below 1
    And $.result equals that of the remembered "a1" per Decision (§jace-seeded-rng)
    When the agent posts to /actions {"action":"roll","session_id":"a"}
    Then $.result differs from that of the remembered "a1"

  @§jace-deterministic @decision
  Scenario: the same requests from a freshly loaded module give the same bytes
    When the request sequence is recorded:
      """
      /actions {"action":"roll","session_id":"d"}
      /actions {"action":"clock","session_id":"d"}
      /actions {"action":"roll","session_id":"d","dry_run":true}
      /actions {"action":"roll","session_id":"d"}
      /view {"session_id":"d"}
      /press {"action":"roll"}
      /actions {"action":"nope"}
      """
    Then the recorded sequence gives byte-identical responses on a second run from a freshly loaded module per Decision (§jace-deterministic)

  @§jace-deterministic
  Scenario: a second runtime with the same seed answers the same bytes
    Given the embedded reference runtime with seed 20260101
    And the module "probe.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "probe", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: { roll(state) { return { state: { n: state.n + Math.random() }, result: Date.now() }; } },
      };
      """
    When the request sequence is recorded:
      """
      /actions {"action":"roll","session_id":"x"}
      /actions {"action":"roll","session_id":"x"}
      /press {"action":"roll","env":{"now":"2027-01-01T00:00:00Z"}}
      /view {"session_id":"x","audience":"agent"}
      """
    Then the recorded sequence gives byte-identical responses on a second embedded runtime with the same seed

  @§jace-deterministic @§jace-fixed-clock
  Scenario: the answers do not depend on the time zone of the runtime's host
    # The same module and requests give the same bytes on any host: a module
    # that reads the fixed instant in local time reads it the same way
    # whatever zone the machine running the runtime is set to.
    Given the module "wall.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "wall", version: "1.0.0" },
        init() { return {}; },
        view(state) { return { type: "wall" }; },
        actions: {
          local(state) {
            const d = new Date();
            return { state, result: { hours: d.getHours(), offset: d.getTimezoneOffset(), text: d.toString() } };
          },
        },
      };
      """
    When the agent posts to /actions {"action":"local"}
    Then the response status is 200
    When the response is remembered as "here"
    And the host's time zone is "JST-9"
    And the agent posts to /actions {"action":"local","session_id":"elsewhere"}
    Then the response status is 200
    And $.result equals that of the remembered "here"

  @§jace-no-io
  Scenario: timers, network and threads do not exist in the VM
    When the agent posts to /actions {"action":"globals"}
    Then the response status is 200 and $.result is {"setTimeout":"undefined","setInterval":"undefined","setImmediate":"undefined","queueMicrotask":"undefined","fetch":"undefined","XMLHttpRequest":"undefined","WebSocket":"undefined","Worker":"undefined","SharedArrayBuffer":"undefined","Atomics":"undefined"}
    When the agent posts to /actions {"action":"timer"}
    Then the response is a JSON error "INTERNAL" with status 500
    And the error message contains "'setTimeout' is not defined" per Decision (§jace-errors)

  @§jace-no-eval
  Scenario Outline: code from strings is refused
    When the agent posts to /actions {"action":"<action>"}
    Then the response is a JSON error "INTERNAL" with status 500
    And the error message contains "<message>" per Decision (§jace-errors)
    When the agent posts to /actions {"action":"ok"}
    Then the response status is 200 and $.result is "still here"

    Examples:
      | action     | message                                          |
      | evalIt     | 'eval' is not defined                            |
      | functionIt | EvalError: code generation from strings is disabled |
      | ctorIt     | EvalError: code generation from strings is disabled |

  @§jace-json-marshal
  Scenario: params and env arrive as plain JSON values and results leave as JSON
    When the client posts to /press {"action":"shapes","params":{"list":[1,2]},"env":{"tenant":"t1"}}
    Then the response status is 200 and $.result is {"paramsPlain":true,"envPlain":true,"nestedArray":true,"marshalled":{"keep":1,"date":"1970-01-01T00:00:00.000Z","nan":null}}

  @§jace-timeout @§jace-untrusted @slow @decision
  Scenario: an endless action is halted with "Action timed out" and the runtime keeps serving
    When the agent posts to /actions {"action":"spin","session_id":"attacker"}
    Then the response is a JSON error "INTERNAL" with status 500
    And $.error.message is "Action timed out"
    And $.audit_preview is a string
    And $.audit_preview is "spin {}" per Decision (§jace-audit-preview)
    When the client sends GET /healthz
    Then the response status is 200 and $ is {"ok":true}
    When the agent posts to /actions {"action":"ok","session_id":"attacker"}
    Then the response status is 200 and $.result is "still here"
    When the agent posts to /actions {"action":"ok","session_id":"bystander"}
    Then the response status is 200 and $.result is "still here"

  @§jace-timeout
  Scenario: the default limit is two seconds of wall time, measured where it fires
    Given the action time limit is the runtime's default wall-clock watchdog
    And the module "spinner.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "spinner", version: "1.0.0" },
        init() { return {}; },
        view(state) { return {}; },
        actions: { spin(state) { for (;;) {} }, ok(state) { return { state, result: "fine" }; } },
      };
      """
    When the agent posts to /actions {"action":"spin"} and is answered once 2000 ms have passed on the runtime's clock, not before
    Then the response is a JSON error "INTERNAL" with status 500
    And $.error.message is "Action timed out"
    When the agent posts to /actions {"action":"ok"}
    Then the response status is 200 and $.result is "fine"

  @§jace-timeout @slow
  Scenario: the 2 s limit holds on the real clock too
    Given the action time limit is the 2 s wall clock
    And the module "spinner.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "spinner", version: "1.0.0" },
        init() { return {}; },
        view(state) { return {}; },
        actions: { spin(state) { for (;;) {} }, ok(state) { return { state, result: "fine" }; } },
      };
      """
    When the agent posts to /actions {"action":"spin"}
    Then the response is a JSON error "INTERNAL" with status 500
    And $.error.message is "Action timed out"
    When the agent posts to /actions {"action":"ok"}
    Then the response status is 200 and $.result is "fine"

  @§jace-fuel @decision
  Scenario: with a fuel budget an endless action stops with "Fuel exhausted" and its VM is discarded
    Given the embedded reference runtime with a fuel budget of 50 units
    And the module "spinner.js" is loaded:
      """
      let calls = 0; // lives in the VM, which a guard breach discards
      globalThis.jace = {
        manifest: { name: "spinner", version: "1.0.0" },
        init() { return {}; },
        view(state) { return {}; },
        actions: { spin(state) { for (;;) {} }, ok(state) { calls++; return { state, result: calls }; } },
      };
      """
    When the agent posts to /actions {"action":"ok"}
    Then the response status is 200 and $.result is 1
    When the agent posts to /actions {"action":"spin"}
    Then the response is a JSON error "INTERNAL" with status 500
    And $.error.message is "Fuel exhausted"
    When the agent posts to /actions {"action":"ok"}
    Then the response status is 200
    And $.result is 1 per Decision (§jace-sessions)

  @§jace-fuel @decision
  Scenario: a module whose top level runs out of fuel is not loaded, and the module before it keeps serving
    Given the embedded reference runtime with a fuel budget of 50 units
    When the client posts to /load {"source":"for (;;) {}"}
    Then the response is a JSON error
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-module-shape)
    And the error message contains "module module.js: top-level code: Fuel exhausted" per Decision (§jace-module-shape)
    When the agent posts to /actions {"action":"calc.input","params":{"digit":4}}
    Then the response status is 200 and $.state.display is "4" per Decision (§jace-module-shape)

  @§jace-fuel @§jace-deterministic
  Scenario: fuel caps each action, so an action that finishes within it finishes every time it is repeated
    Given the embedded reference runtime with a fuel budget of 3 units
    And the module "counter.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "counter", version: "1.0.0" },
        init() { return {}; },
        view(state) { return {}; },
        actions: { count(state, params) { let s = 0; for (let i = 0; i < params.n; i++) s += 1; return { state, result: s }; } },
      };
      """
    When the agent posts to /actions {"action":"count","params":{"n":10000},"session_id":"s"}
    Then the response status is 200 and $.result is 10000
    When the agent posts to /actions {"action":"count","params":{"n":10000},"session_id":"s"}
    Then the response status is 200 and $.result is 10000
    When the agent posts to /actions {"action":"count","params":{"n":10000},"session_id":"s"}
    Then the response status is 200 and $.result is 10000

  @§jace-fuel @decision
  Scenario Outline: a fuel budget of N units lets an action spend N units and stops it at the first unit past them
    # A unit is one QuickJS interrupt check, made every 10,000 interpreter ticks; a turn
    # of this counting loop takes two, so every 5,000 turns spend a unit: 17,500 turns
    # spend 3 units, 22,500 spend 4.
    Given the embedded reference runtime with a fuel budget of <budget> units
    And the module "counter.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "counter", version: "1.0.0" },
        init() { return {}; },
        view(state) { return {}; },
        actions: { count(state, params) { let s = 0; for (let i = 0; i < params.n; i++) s += 1; return { state, result: s }; } },
      };
      """
    When the agent posts to /actions {"action":"count","params":{"n":<turns>}}
    Then the response status is <status> and <outcome> per Decision (§jace-fuel)

    Examples:
      | budget | turns | status | outcome                                                         |
      | 3      | 17500 | 200    | $.result is 17500                                               |
      | 2      | 17500 | 500    | $.error.message is "Fuel exhausted"                             |
      | 3      | 22500 | 500    | $.error.message is "Fuel exhausted"                             |
      | 4      | 22500 | 200    | $.result is 22500                                               |
