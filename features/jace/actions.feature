@jace
Feature: Action semantics
  An action can be previewed (dry run) or committed; commits can carry an
  Idempotency-Key so that a retry is not applied twice; failures come back
  as JSON errors.

  @§jace-dry-run @decision
  Scenario: a dry run in the envelope previews without storing
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":7},"dry_run":true,"session_id":"s1"}
    Then the response status is 200 and $.state.display is "7"
    And $.dry_run is true or absent
    And $.dry_run is true per Decision (§jace-actions)
    And $.audit_preview is "INPUT 7"
    When the session "s1" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "0"

  @§jace-dry-run @decision
  Scenario: env.dry_run on /press is a dry run too, and the module sees the flag
    Given the module "flag.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "flag", version: "1.0.0" },
        init(env) { return { n: 0, initDryRun: env.dry_run }; },
        view(state) { return { type: "counter", n: state.n }; },
        actions: { inc(state, params, env) { return { state: { n: state.n + 1, initDryRun: state.initDryRun }, result: { sawDryRun: env.dry_run } }; } },
      };
      """
    When the client posts to /press {"action":"inc","env":{"dry_run":true}}
    Then the response status is 200 and $.state.n is 1
    And $.result.sawDryRun is true
    And $.state.initDryRun is false per Decision (§jace-dry-run)
    When the client posts to /press {"action":"inc"}
    Then $.state.n is 1
    And $.result.sawDryRun is false or absent
    And $.state.initDryRun is false or absent
    And $.result.sawDryRun is false per Decision (§jace-dry-run)

  @§jace-commit
  Scenario: the same request without the dry-run flag is stored
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":7},"dry_run":true,"session_id":"s1"}
    And the agent posts to /actions {"action":"calc.input","params":{"digit":7},"session_id":"s1"}
    Then the response status is 200 and $.dry_run is false or absent
    And $.dry_run is false per Decision (§jace-actions)
    When the session "s1" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "7"
    When the agent posts to /actions {"action":"calc.input","params":{"digit":1},"session_id":"s1"}
    Then $.state.display is "71"

  @§jace-idempotency @decision
  Scenario: a retried commit is answered with the first result and not applied again
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":4},"session_id":"a"} with Idempotency-Key k1
    Then the response status is 200 and $.state.display is "4"
    And the response header "Idempotent-Replayed" is absent per Decision (§jace-idempotency)
    When the response is remembered as "first"
    And the agent posts to /actions {"action":"calc.input","params":{"digit":4},"session_id":"a"} with Idempotency-Key k1
    Then the response status is that of the remembered "first"
    And $.state equals that of the remembered "first"
    And the response is byte-for-byte the remembered "first" per Decision (§jace-idempotency)
    And the response header "Idempotent-Replayed" is "true" per Decision (§jace-idempotency)
    When the session "a" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "4"

  @§jace-idempotency @decision
  Scenario: a key reused with a different payload is not applied
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":4},"session_id":"a"} with Idempotency-Key k1
    And the agent posts to /actions {"action":"calc.input","params":{"digit":5},"session_id":"a"} with Idempotency-Key k1
    Then the response, if it is an error, is a JSON error
    And the response is a JSON error per Decision (§jace-idempotency)
    And the response status is 422 per Decision (§jace-idempotency)
    And its code is the spec family's code for its status
    And its code is "IDEMPOTENCY_KEY_REUSED" per Decision (§jace-idempotency)
    When the session "a" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "4"

  @§jace-idempotency @§jace-errors @decision
  Scenario: a domain error the module returned is remembered and replayed for its key
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":"x"},"session_id":"a"} with Idempotency-Key bad
    Then the response status is 400 and $.error.code is "INVALID_PARAMS"
    When the response is remembered as "refusal"
    And the agent posts to /actions {"action":"calc.input","params":{"digit":"x"},"session_id":"a"} with Idempotency-Key bad
    Then the response is byte-for-byte the remembered "refusal" per Decision (§jace-idempotency)
    And the response header "Idempotent-Replayed" is "true" per Decision (§jace-idempotency)

  @§jace-idempotency @decision
  Scenario: keys are tracked separately for each session
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":4},"session_id":"a"} with Idempotency-Key k1
    And the agent posts to /actions {"action":"calc.input","params":{"digit":5},"session_id":"b"} with Idempotency-Key k1
    Then the response status is 200 and $.state.display is "5"
    And the response header "Idempotent-Replayed" is absent per Decision (§jace-idempotency)

  @§jace-idempotency @decision @slow
  Scenario: a key whose first request is still running is not run twice, and is released if it never completed
    # The reference runs a session's actions one after another, so the second
    # request waits for the first; that one timed out before the module
    # answered, which leaves the key free, so the second runs the action in
    # its turn and times out as well. A runtime that refuses the second at
    # once (409, say) keeps the spec too: either way it is not a success.
    Given the action time limit is the 2 s wall clock
    And the module "slow.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "slow", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: {
          spin(state) { for (;;) {} },
          inc(state) { return { state: { n: state.n + 1 } }; },
        },
      };
      """
    When the agent starts /actions {"action":"spin","session_id":"w"} with Idempotency-Key k9 in the background as "slow"
    And the agent posts to /actions {"action":"spin","session_id":"w"} with Idempotency-Key k9
    Then the response is a JSON error
    And the response is a JSON error "INTERNAL" with status 500 per Decision (§jace-idempotency)
    And its code is the spec family's code for its status
    And $.error.message is "Action timed out" per Decision (§jace-idempotency)
    When the background request "slow" finishes
    Then the response is a JSON error "INTERNAL" with status 500
    And $.error.message is "Action timed out"
    When the agent posts to /actions {"action":"inc","session_id":"w"} with Idempotency-Key k10
    Then the response status is 200 and $.state.n is 1

  @§jace-dry-run-keys
  Scenario: a dry run neither stores nor uses up its key
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":9},"session_id":"a","dry_run":true} with Idempotency-Key k2
    Then the response status is 200 and $.state.display is "9"
    When the agent posts to /actions {"action":"calc.input","params":{"digit":8},"session_id":"a"} with Idempotency-Key k2
    Then the response status is 200 and $.state.display is "8"
    And the response header "Idempotent-Replayed" is absent per Decision (§jace-idempotency)
    When the agent posts to /actions {"action":"calc.input","params":{"digit":8},"session_id":"a"} with Idempotency-Key k2
    Then the response header "Idempotent-Replayed" is "true" per Decision (§jace-idempotency)
    When the session "a" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "8"

  @§jace-errors @decision
  Scenario: a refused argument is a 400 with the module's code and preview, and the state stays
    Given the calculator module is loaded
    When the agent presses "calc.input" with params {"digit":3}
    And the agent posts to /actions {"action":"calc.input","params":{"digit":"x"}}
    Then the response is a JSON error "INVALID_PARAMS" with status 400
    And the response is a JACE Action Result
    And $.error.message is "params.digit must be a digit 0-9 or \".\""
    And $.audit_preview is "INPUT ?"
    And $.ok is false or absent
    And $.ok is false per Decision (§jace-actions)
    When the session "" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "3"

  @§jace-errors @decision
  Scenario: a module error code the runtime does not know is an error with that code
    Given the calculator module is loaded
    When the agent presses "calc.input" with params {"digit":1}
    And the agent presses "calc.op" with params {"op":"divide"}
    And the agent presses "calc.input" with params {"digit":0}
    And the agent posts to /actions {"action":"calc.equals"}
    Then the response is a JSON error
    And $.error.code is "DIVIDE_BY_ZERO"
    And $.error.message is "cannot divide by zero"
    And $.audit_preview is "EQUALS 1 / 0"
    And the response status is 400 per Decision (§jace-errors)
    And $.state.display is "0" per Decision (§jace-errors)
    When the session "" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "0"
    And $.jace.children.#(type=="display").pending is {"acc":1,"op":"divide"}

  @§jace-errors @decision
  Scenario: an unknown action is a 4xx and a throwing action the family's INTERNAL 500, both with a preview
    Given the module "thrower.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "thrower", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: {
          inc(state) { return { state: { n: state.n + 1 } }; },
          boom(state) { state.n = 99; throw new RangeError("out of range"); },
          shout(state) { throw "no way"; },
        },
      };
      """
    When the agent presses "inc"
    And the agent posts to /actions {"action":"calc.sqrt"}
    Then the response is a JSON error with a 4xx status
    And the response is a JACE Action Result
    And $.audit_preview is a string
    And the response status is 404 per Decision (§jace-errors)
    And its code is the spec family's code for its status
    And its code is "NOT_FOUND" per Decision (§jace-errors)
    And $.error has exactly the keys "code" and "message" per Decision (§jace-errors)
    And $.audit_preview is "calc.sqrt {}" per Decision (§jace-audit-preview)
    When the agent posts to /actions {"action":"calc.sqrt","params":{"x":1,"x":2}}
    Then the response is a JSON error with a 4xx status
    And $.audit_preview is "calc.sqrt {\"x\":2}" per Decision (§jace-audit-preview)
    When the agent posts to /actions {"action":"calc.sqrt","params":{"b":{"n":12345678901234567890,"f":1.50},"a":1}}
    Then $.audit_preview is "calc.sqrt {\"a\":1,\"b\":{\"f\":1.50,\"n\":12345678901234567890}}" per Decision (§jace-audit-preview)
    When the client posts to /press {"action":"calc.sqrt","params":{"big":1e400}}
    Then the response is a JSON error with a 4xx status
    And $.audit_preview is "calc.sqrt {\"big\":1e400}" per Decision (§jace-audit-preview)
    When the agent posts to /actions {"action":"shout"}
    Then the response is a JSON error "INTERNAL" with status 500
    And the response is a JACE Action Result
    And $.audit_preview is a string
    And $.error.message is "action \"shout\": no way" per Decision (§jace-errors)
    When the agent posts to /actions {"action":"boom"}
    Then the response is a JSON error "INTERNAL" with status 500
    And the error message contains "RangeError: out of range (at boom (" per Decision (§jace-errors)
    And the error message contains "))" per Decision (§jace-errors)
    And the error message contains ":7:" per Decision (§jace-errors)
    And $.audit_preview is "boom {}" per Decision (§jace-audit-preview)
    When the session "" is viewed by an agent
    Then $.jace.n is 1

  @§jace-commit @§jace-dry-run @decision
  Scenario: an explicit "dry_run": false commits like no flag at all
    Given the module "counter.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "counter", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: { inc(state) { return { state: { n: state.n + 1 }, result: state.n + 1 }; } },
      };
      """
    When the agent posts to /actions {"action":"inc","dry_run":false,"session_id":"s1"}
    Then the response status is 200 and $.result is 1
    And $.dry_run is false or absent
    And $.dry_run is false per Decision (§jace-actions)
    When the agent posts to /actions {"action":"inc","session_id":"s1"}
    Then the response status is 200 and $.result is 2

  @§jace-action-result @§jace-errors @decision
  Scenario: a failing action's events come back in its answer unchanged
    Given the module "failing.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "failing", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: { fail(state) { return { state: { n: 99 }, error: { code: "CONFLICT", message: "taken" }, events: [{ type: "attempt", entity: "seat-4" }] }; } },
      };
      """
    When the agent posts to /actions {"action":"fail","session_id":"s1"}
    Then the response is a JSON error "CONFLICT" with status 409
    And the response is a JACE Action Result
    And $.error.message is "taken"
    And $.events is [{"type":"attempt","entity":"seat-4"}] per Decision (§jace-action-result)

  @§jace-errors @§jace-action-result @decision
  Scenario: a module's error passes on its hints and details, and hints that are not strings make a bad ActionResult
    Given the module "approval.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "approval", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: {
          wire(state) { return { state, error: { code: "POLICY_DENIED", message: "needs approval", hints: ["ask an approver"], details: { limit: 100 }, extra: 1 } }; },
          odd(state) { return { state, error: { code: "POLICY_DENIED", hints: "ask an approver" } }; },
        },
      };
      """
    When the agent posts to /actions {"action":"wire"}
    Then the response is a JSON error "POLICY_DENIED" with status 451
    And the response is a JACE Action Result
    And $.error.message is "needs approval"
    And $.error.extra is absent
    And $.error.hints is ["ask an approver"] per Decision (§jace-errors)
    And $.error.details is {"limit":100} per Decision (§jace-errors)
    When the agent posts to /actions {"action":"odd"}
    Then the response is a JSON error
    And the response is a JSON error "INTERNAL" with status 500 per Decision (§jace-action-result)
    And its code is the spec family's code for its status

  @§jace-idempotency @decision
  Scenario: a released key does not push a remembered one out early, and the oldest is forgotten first
    Given the embedded reference runtime remembering at most 2 Idempotency-Keys per session
    And the module "count.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "count", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: { inc(state) { return { state: { n: state.n + 1 } }; } },
      };
      """
    When the agent posts to /actions {"action":"inc","session_id":"q"} with Idempotency-Key k1
    And the agent posts to /actions {"action":"inc","session_id":"q"} with Idempotency-Key k2
    And the agent posts to /actions {"action":"nope","session_id":"q"} with Idempotency-Key k3
    Then the response is a JSON error with a 4xx status
    When the agent posts to /actions {"action":"inc","session_id":"q"} with Idempotency-Key k4
    Then the response status is 200 and $.state.n is 3
    When the agent posts to /actions {"action":"inc","session_id":"q"} with Idempotency-Key k2
    Then the response status is 200 and $.state.n is 2 per Decision (§jace-idempotency)
    And the response header "Idempotent-Replayed" is "true" per Decision (§jace-idempotency)
    When the agent posts to /actions {"action":"inc","session_id":"q"} with Idempotency-Key k1
    Then the response status is 200 and $.state.n is 4 per Decision (§jace-idempotency)
    And the response header "Idempotent-Replayed" is absent per Decision (§jace-idempotency)

  @§jace-dry-run @§jace-fixed-clock @decision
  Scenario: the env a module sees carries what the request gives, and the dry-run flag always
    Given the module "env.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "env", version: "1.0.0" },
        init() { return {}; },
        view(state) { return { type: "env" }; },
        actions: { echo(state, params, env) { return { state, result: env }; } },
      };
      """
    When the client posts to /press {"action":"echo","env":{"now":"2030-05-06T07:08:09Z","session_id":"e1"}}
    Then the response status is 200 and $.result.now is "2030-05-06T07:08:09Z"
    And $.result.session_id is "e1"
    And $.result is {"dry_run":false,"now":"2030-05-06T07:08:09Z","session_id":"e1"} per Decision (§jace-dry-run)
    When the client posts to /press {"action":"echo","env":{"now":"2030-05-06T07:08:09Z"}}
    Then the response status is 200
    And $.result is {"dry_run":false,"now":"2030-05-06T07:08:09Z"} per Decision (§jace-dry-run)
    When the client posts to /press {"action":"echo","env":{"intent":"why"}}
    Then the response status is 200 and $.result.intent is "why"
    And $.result is {"dry_run":false,"intent":"why"} per Decision (§jace-dry-run)
    When the agent posts to /actions {"action":"echo","intent":"how"}
    Then the response status is 200
    And $.result.intent is "how" per Decision (§jace-dry-run)
    And $.result is {"dry_run":false,"intent":"how"} per Decision (§jace-dry-run)
    When the client posts to /press {"action":"echo","env":{"intent":"","now":"2030-05-06T07:08:09Z"}}
    Then the response status is 200
    And $.result is {"dry_run":false,"now":"2030-05-06T07:08:09Z"} per Decision (§jace-dry-run)
    When the agent posts to /actions {"action":"echo","session_id":"e2"}
    Then the response status is 200
    And $.result.session_id is "e2" per Decision (§jace-dry-run)
    And $.result is {"dry_run":false,"session_id":"e2"} per Decision (§jace-dry-run)
    When the agent posts to /actions {"action":"echo"}
    Then the response status is 200
    And $.result is {"dry_run":false} per Decision (§jace-dry-run)
    When the agent posts to /actions {"action":"echo","intent":"why","dry_run":true}
    Then the response status is 200
    And $.result.dry_run is true
    And $.result.intent is "why" per Decision (§jace-dry-run)
    And $.result is {"dry_run":true,"intent":"why"} per Decision (§jace-dry-run)

  @§jace-action-result @decision
  Scenario: members of an ActionResult beyond its five are ignored, whatever their names
    Given the module "extra.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "extra", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: {
          plain(state) { return { state: { n: state.n + 1 }, result: "plain", note: 1 }; },
          accented(state) { return { state: { n: state.n + 10 }, result: "accented", "übrig": true }; },
          quoted(state) { return { "say \"hi\"": 2, state: { n: state.n + 100 }, result: "quoted" }; },
        },
      };
      """
    When the agent posts to /actions {"action":"plain"}
    Then the response status is 200 and $.result is "plain"
    And the response is a JACE Action Result
    And the response body does not contain "note" per Decision (§jace-action-result)
    And $.events is absent per Decision (§jace-action-result)
    When the agent posts to /actions {"action":"accented"}
    Then the response status is 200 and $.result is "accented"
    And $.state is {"n":11}
    And the response body does not contain "brig" per Decision (§jace-action-result)
    When the agent posts to /actions {"action":"quoted"}
    Then the response status is 200 and $.result is "quoted"
    And $.state is {"n":111}
    And the response body does not contain "say" per Decision (§jace-action-result)

  @§jace-press @§jace-json-only
  Scenario: quotes and backslashes in the env's strings reach the module and come back as valid JSON
    Given the module "echo.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "echo", version: "1.0.0" },
        init() { return {}; },
        view(state) { return { type: "echo" }; },
        actions: { echo(state, params, env) { return { state, result: { intent: env.intent, session_id: env.session_id } }; } },
      };
      """
    When the client posts to /press {"action":"echo","env":{"intent":"\"","session_id":"\"\\"}}
    Then the response status is 200 and $.result.intent is "\""
    And $.result.session_id is "\"\\"
    When the client posts to /press {"action":"echo","env":{"intent":"a\\b\"c"}}
    Then the response status is 200 and $.result.intent is "a\\b\"c"
    When the client posts to /press {"action":"echo","env":{"intent":"\\\\","session_id":"\\"}}
    Then the response status is 200 and $.result.intent is "\\\\"
    And $.result.session_id is "\\"
