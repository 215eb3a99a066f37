@jace
Feature: Exact JSON on the wire
  Requests and results whose strings are not plain printable ASCII, and
  requests without a declared media type, come back exactly as the JSON
  format says: quotes, backslashes and control characters escaped, other
  text kept as it was sent.

  @§jace-action-result @§jace-audit-log @decision
  Scenario: an intent made only of characters JSON must escape comes back unchanged
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":3},"intent":"\"\\\n\t","session_id":"w1"}
    Then the response status is 200 and $.intent is "\"\\\n\t"
    And the response body contains "\"intent\":\"\\\"\\\\\\n\\t\""
    And $.state.display is "3"
    And audit record 1 has $.intent is "\"\\\n\t"
    And audit record 1 has $.via is "/actions"
    And audit record 1 has $.dry_run is false

  @§jace-action-result @decision
  Scenario: line and paragraph separators in a string come back escaped, other non-ASCII text as UTF-8
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":1},"intent":"a\u2028b\u2029c","session_id":"w2"}
    Then the response status is 200 and $.intent is "a\u2028b\u2029c"
    And the response body contains "\"intent\":\"a\\u2028b\\u2029c\""
    When the agent posts to /actions {"action":"calc.input","params":{"digit":2},"intent":"Zoë","session_id":"w2"}
    Then the response body contains "\"intent\":\"Zoë\""

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
    And audit record 1 has $.audit_preview is "rename \"\" → Zoë"

  @§jace-json-only @decision
  Scenario: a JSON body sent without any Content-Type is accepted
    Given the calculator module is loaded
    When the client posts to /press the raw body '{"action":"calc.input","params":{"digit":5}}' without a Content-Type
    Then the response status is 200 and $.state.display is "5"
