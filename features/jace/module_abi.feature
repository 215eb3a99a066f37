@jace
Feature: Module ABI
  A module is plain JavaScript that sets globalThis.jace to a manifest, an
  init, a view and a map of actions; each action hands back an
  ActionResult, and every action response carries an audit preview.

  @§jace-module-shape @decision
  Scenario Outline: a module lacking a part of the ABI is refused, naming the part
    Given the calculator module is loaded
    When the client posts to /load:
      """
      {"source": "<source>"}
      """
    Then the response is a JSON error "INVALID_MODULE" with status 400
    And the error message contains "<named>"
    When the client sends GET /manifest
    Then $.name is "calculator"

    Examples:
      | source                                                                                                              | named                   |
      | globalThis.jace = {init(){return {}}, view(s){return {}}, actions:{}};                                              | manifest                |
      | globalThis.jace = {manifest:{name:'m',version:'1'}, view(s){return {}}, actions:{}};                                | init (a function)       |
      | globalThis.jace = {manifest:{name:'m',version:'1'}, init(){return {}}, actions:{}};                                 | view (a function)       |
      | globalThis.jace = {manifest:{name:'m',version:'1'}, init(){return {}}, view(s){return {}}};                         | actions                 |
      | globalThis.jace = {manifest:{name:'m'}, init(){return {}}, view(s){return {}}, actions:{}};                         | manifest.version        |
      | var app = 1;                                                                                                        | globalThis.jace         |

  @§jace-module-shape @decision
  Scenario: a module missing both view and actions names both, and the module
    Given the calculator module is loaded
    When the client posts to /load {"source":"globalThis.jace = {manifest:{name:'x',version:'1'}, init(){return {}}}"}
    Then the response is a JSON error "INVALID_MODULE" with status 400
    And the error message contains "view (a function), actions (an object of functions)"
    And the response body does not contain "top-level"
    And the error message contains "module.js"
    When the client posts to /load {"name":"half.js","source":"globalThis.jace = {manifest:{name:'x',version:'1'}, init(){return {}}}"}
    Then the response is a JSON error "INVALID_MODULE" with status 400
    And the error message contains "half.js"
    And the response body does not contain "module.js"

  @§jace-module-shape @decision
  Scenario: the manifest is read once, so a getter cannot answer the check one thing and the runtime another
    Given the calculator module is loaded
    When the client posts to /load {"source":"let reads = 0; globalThis.jace = {manifest:{get name(){ reads++; return reads > 1 ? 42 : 'fickle'; }, version:'1'}, init(){return {}}, view(s){return {}}, actions:{}};"}
    Then the response status is 200 and $ is {"ok":true}
    When the client sends GET /manifest
    Then $.name is "fickle"

  @§jace-module-shape @§jace-untrusted
  Scenario: a manifest getter that throws while the shape is checked refuses the module with the module's own message
    Given the calculator module is loaded
    When the client posts to /load {"source":"globalThis.jace = {manifest:{get name(){ throw new Error('no name today'); }, version:'1'}, init(){return {}}, view(s){return {}}, actions:{}};"}
    Then the response status is 400
    And the error message contains "no name today"
    When the agent presses "calc.input" with params {"digit":4}
    Then $.state.display is "4"

  @§jace-module-shape @decision
  Scenario: a module that does not parse is refused, naming the line and column where parsing stopped
    Given the calculator module is loaded
    When the client posts to /load {"source":"globalThis.jace = {manifest: "}
    Then the response is a JSON error "INVALID_MODULE" with status 400
    And the error message contains "SyntaxError"
    When the client posts to /load {"source":"globalThis.jace = {\n  manifest: ;\n};","name":"broken.js"}
    Then the response is a JSON error "INVALID_MODULE" with status 400
    And the error message contains "module broken.js: SyntaxError"
    And the error message contains "(<eval>:2:13)"
    And the response body does not contain "top-level"

  @§jace-action-result
  Scenario: state is stored and result, preview and events pass through unchanged
    Given the module "ledger.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "ledger", version: "1.0.0" },
        init() { return { balance: 10 }; },
        view(state) { return { type: "ledger", balance: state.balance }; },
        actions: {
          spend(state, params) {
            const balance = state.balance - params.amount;
            return {
              state: { balance },
              result: { spent: params.amount, left: balance, nested: [1, { deep: true }] },
              audit_preview: "spend " + params.amount + " of " + state.balance,
              events: [{ type: "ledger.spent", id: "e-1", ts: "2026-01-01T00:00:00Z", entity: "ledger", changes: { balance } }],
            };
          },
        },
      };
      """
    When the agent posts to /actions {"action":"spend","params":{"amount":3}}
    Then the response status is 200 and $.state is {"balance":7}
    And $.result is {"spent":3,"left":7,"nested":[1,{"deep":true}]}
    And $.audit_preview is "spend 3 of 10"
    And $.events is [{"type":"ledger.spent","id":"e-1","ts":"2026-01-01T00:00:00Z","entity":"ledger","changes":{"balance":7}}]
    When the agent posts to /actions {"action":"spend","params":{"amount":2}}
    Then $.state is {"balance":5}

  @§jace-action-result @§jace-errors
  Scenario: an error in the ActionResult is passed on and its state is not stored
    Given the module "ledger.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "ledger", version: "1.0.0" },
        init() { return { balance: 10 }; },
        view(state) { return { type: "ledger", balance: state.balance }; },
        actions: {
          overdraw(state) {
            return { state: { balance: -1 }, error: { code: "CONFLICT", message: "not enough money" }, audit_preview: "overdraw" };
          },
        },
      };
      """
    When the agent posts to /actions {"action":"overdraw"}
    Then the response status is 409 and $.error is {"code":"CONFLICT","message":"not enough money"}
    And $.audit_preview is "overdraw"
    When the session "" is viewed by an agent
    Then $.jace.balance is 10

  @§jace-action-result @§jace-errors @decision
  Scenario Outline: an explicit error.status inside 400-599 is used, outside it the code decides
    Given the module "refuser.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "refuser", version: "1.0.0" },
        init() { return {}; },
        view(state) { return {}; },
        actions: {
          refuse(state, params) { return { state, error: { code: params.code, message: "no", status: params.status } }; },
        },
      };
      """
    When the agent posts to /actions {"action":"refuse","params":{"code":"<code>","status":<explicit>}}
    Then the response status is <status> and $.error is {"code":"<code>","message":"no"}

    Examples:
      | code     | explicit | status |
      | CONFLICT | 399      | 409    |
      | CONFLICT | 400      | 400    |
      | CONFLICT | 599      | 599    |
      | CONFLICT | 600      | 409    |
      | ODD      | 503      | 503    |

  @§jace-action-result @§jace-errors @decision
  Scenario: an ActionResult without state or with an error without a code is a 500 BAD_RESULT, one whose state is null stores null
    Given the module "blank.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "blank", version: "1.0.0" },
        init() { return { n: 1 }; },
        view(state) { return { type: "blank", state }; },
        actions: {
          nothing(state) { return { result: "lost" }; },
          clear(state) { return { state: null, result: "cleared" }; },
          nameless(state) { return { state: { n: 2 }, error: { message: "an error without a code" } }; },
        },
      };
      """
    When the agent posts to /actions {"action":"nothing"}
    Then the response is a JSON error "BAD_RESULT" with status 500
    When the agent posts to /actions {"action":"nameless"}
    Then the response is a JSON error "BAD_RESULT" with status 500
    When the session "" is viewed by an agent
    Then $.jace.state is {"n":1}
    When the agent posts to /actions {"action":"clear"}
    Then the response status is 200 and $.state is null
    And $.result is "cleared"
    When the session "" is viewed by an agent
    Then $.jace.state is null

  @§jace-audit-preview
  Scenario: the module's own audit preview is used
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.clear"}
    Then the response status is 200 and $.audit_preview is "CLEAR"

  @§jace-audit-preview @decision
  Scenario: without a module preview the runtime derives one from the action and its params
    Given the module "quiet.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "quiet", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: { add(state, params) { return { state: { n: state.n + params.by } }; } },
      };
      """
    When the agent posts to /actions {"action":"add","params":{"by":2,"note":"x"}}
    Then the response status is 200 and $.audit_preview is "add {\"by\":2,\"note\":\"x\"}"
    When the agent posts to /actions {"action":"add","params":{"note":"y","by":1},"dry_run":true}
    Then $.audit_preview is "add {\"by\":1,\"note\":\"y\"}"
    When the client posts to /press {"action":"add","params":{"by":1}}
    Then the response status is 200 and $.audit_preview is "add {\"by\":1}"

  @§jace-module-shape @decision
  Scenario: a module that throws while it loads is refused, and the one in service stays
    Given the calculator module is loaded
    When the client posts to /load {"source":"throw new Error('not today')"}
    Then the response is a JSON error "INVALID_MODULE" with status 400
    And the error message contains "Error: not today"
    When the agent presses "calc.input" with params {"digit":7}
    Then $.state.display is "7"
