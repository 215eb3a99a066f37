@jace
Feature: Exact JSON on the wire
  Requests and results whose strings are not plain printable ASCII, and
  requests without a declared media type, come back exactly as the JSON
  format says: quotes, backslashes and control characters escaped, other
  text kept as it was sent.

  Background:
    Given the module "echo.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "echo", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { type: "echo", n: state.n }; },
        actions: { say(state, params, env) { return { state: { n: state.n + 1 }, result: { intent: env.intent } }; } },
      };
      """

  @§jace-action-result @§jace-press @decision
  Scenario: an intent made only of characters JSON must escape reaches the module unchanged
    When the client posts to /press {"action":"say","env":{"intent":"\"\\\n\t","session_id":"w1"}}
    Then the response status is 200 and $.result.intent is "\"\\\n\t"
    And $.state.n is 1
    And the response body contains "\"intent\":\"\\\"\\\\\\n\\t\"" per Decision (§jace-action-result)

  @§jace-action-result @decision
  Scenario: line and paragraph separators in a string come back escaped, other non-ASCII text as UTF-8
    When the client posts to /press {"action":"say","env":{"intent":"a\u2028b\u2029c","session_id":"w2"}}
    Then the response status is 200 and $.result.intent is "a\u2028b\u2029c"
    And the response body contains "\"intent\":\"a\\u2028b\\u2029c\"" per Decision (§jace-action-result)
    When the client posts to /press {"action":"say","env":{"intent":"a\u2028b","session_id":"w2"}}
    Then the response status is 200 and $.result.intent is "a\u2028b"
    And the response body contains "\"intent\":\"a\\u2028b\"" per Decision (§jace-action-result)
    When the client posts to /press {"action":"say","env":{"intent":"b\u2029c","session_id":"w2"}}
    Then the response status is 200 and $.result.intent is "b\u2029c"
    And the response body contains "\"intent\":\"b\\u2029c\"" per Decision (§jace-action-result)
    When the client posts to /press {"action":"say","env":{"intent":"Zoë","session_id":"w2"}}
    Then the response status is 200 and $.result.intent is "Zoë"
    And the response body contains "\"intent\":\"Zoë\"" per Decision (§jace-action-result)

  @§jace-audit-preview
  Scenario: an audit preview with non-ASCII text and escaped quotes is passed on as the module wrote it
    Given the module "names.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "names", version: "1.0.0" },
        init() { return { name: "" }; },
        view(state) { return { type: "name", value: state.name }; },
        actions: { rename(state, params) { return { state: { name: params.to }, audit_preview: "rename \"" + state.name + "\" → " + params.to }; } },
      };
      """
    When the agent posts to /actions {"action":"rename","params":{"to":"Zoë"},"session_id":"n1"}
    Then the response status is 200 and $.audit_preview is "rename \"\" → Zoë"
    And $.state.name is "Zoë"

  @§jace-json-only @decision
  Scenario: a JSON body sent without any Content-Type is accepted
    When the client posts to /press the raw body '{"action":"say"}' without a Content-Type
    Then the response status is 200 per Decision (§jace-json-only)
    And $.state.n is 1 per Decision (§jace-json-only)
