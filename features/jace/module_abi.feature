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
    Then the response is a JSON error
    And the response status is 400 per Decision (§jace-module-shape)
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-module-shape)
    And the error message contains "<named>" per Decision (§jace-module-shape)
    When the agent posts to /actions {"action":"calc.input","params":{"digit":4}}
    Then the response status is 200 and $.state.display is "4" per Decision (§jace-module-shape)

    Examples:
      | source                                                                                                              | named                   |
      | globalThis.jace = {init(){return {}}, view(s){return {}}, actions:{}};                                              | manifest                |
      | globalThis.jace = {manifest:{name:'m',version:'1'}, view(s){return {}}, actions:{}};                                | init (a function)       |
      | globalThis.jace = {manifest:{name:'m',version:'1'}, init(){return {}}, actions:{}};                                 | view (a function)       |
      | globalThis.jace = {manifest:{name:'m',version:'1'}, init(){return {}}, view(s){return {}}};                         | actions                 |
      | globalThis.jace = {manifest:{name:'m'}, init(){return {}}, view(s){return {}}, actions:{}};                         | manifest.version        |
      | var app = 1;                                                                                                        | globalThis.jace         |

  @§jace-module-shape @decision
  Scenario: a module missing both view and actions names both
    Given the calculator module is loaded
    When the client posts to /load {"source":"globalThis.jace = {manifest:{name:'x',version:'1'}, init(){return {}}}"}
    Then the response is a JSON error
    And the error message contains "view (a function), actions (an object of functions)" per Decision (§jace-module-shape)
    And the response body does not contain "top-level" per Decision (§jace-module-shape)
    And the error message contains "module.js" per Decision (§jace-module-shape)

  @§jace-module-shape @decision
  Scenario: the reference names a module after the name member of /load, its own extension
    # The seed's /load body is {source, env?}; name is the reference's own member,
    # so this scenario needs the embedded reference.
    Given the runtime is the embedded reference
    And the calculator module is loaded
    When the client posts to /load {"name":"half.js","source":"globalThis.jace = {manifest:{name:'x',version:'1'}, init(){return {}}}"}
    Then the response is a JSON error
    And the error message contains "half.js" per Decision (§jace-module-shape)
    And the response body does not contain "module.js" per Decision (§jace-module-shape)
    When the client posts to /load {"source":"globalThis.jace = {\n  manifest: ;\n};","name":"broken.js"}
    Then the response is a JSON error
    And the error message contains "module broken.js: SyntaxError" per Decision (§jace-module-shape)
    When the client posts to /load {"name":"spin.js","source":"for (;;) {}"}
    Then the response is a JSON error
    And the error message contains "module spin.js: top-level code: Action timed out" per Decision (§jace-module-shape)

  @§jace-module-shape @decision
  Scenario: the manifest is read once, so a getter cannot answer the check one thing and the runtime another
    # GET /manifest is the reference's own endpoint, not the seed's.
    Given the runtime is the embedded reference
    And the calculator module is loaded
    When the client posts to /load {"source":"let reads = 0; globalThis.jace = {manifest:{get name(){ reads++; return reads > 1 ? 42 : 'fickle'; }, version:'1'}, init(){return {}}, view(s){return {}}, actions:{}};"}
    Then the response status is 200 and $ is {"ok":true}
    When the client sends GET /manifest
    Then $.name is "fickle" per Decision (§jace-module-shape)

  @§jace-module-shape @§jace-untrusted @decision
  Scenario: a manifest getter that throws while the shape is checked refuses the module with the module's own message
    Given the calculator module is loaded
    When the client posts to /load {"source":"globalThis.jace = {manifest:{get name(){ throw new Error('no name today'); }, version:'1'}, init(){return {}}, view(s){return {}}, actions:{}};"}
    Then the response is a JSON error
    And the response status is 400 per Decision (§jace-module-shape)
    And the error message contains "no name today" per Decision (§jace-module-shape)
    When the agent posts to /actions {"action":"calc.input","params":{"digit":4}}
    Then the response status is 200 and $.state.display is "4" per Decision (§jace-module-shape)

  @§jace-module-shape @decision
  Scenario: a module that does not parse is refused, naming the line and column where parsing stopped
    Given the calculator module is loaded
    When the client posts to /load {"source":"globalThis.jace = {manifest: "}
    Then the response is a JSON error
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-module-shape)
    And the error message contains "SyntaxError" per Decision (§jace-module-shape)
    When the client posts to /load {"source":"globalThis.jace = {\n  manifest: ;\n};"}
    Then the response is a JSON error
    And the error message contains "module module.js: SyntaxError" per Decision (§jace-module-shape)
    And the error message contains "(at <eval>:2:13)" per Decision (§jace-module-shape)
    And the response body does not contain "top-level" per Decision (§jace-module-shape)

  @§jace-action-result @decision
  Scenario: state is stored and result, preview and events pass through
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
    And $.events.0.id is "e-1"
    And $.events.0.changes is {"balance":7}
    And $.events is [{"type":"ledger.spent","id":"e-1","ts":"2026-01-01T00:00:00Z","entity":"ledger","changes":{"balance":7}}] per Decision (§jace-action-result)
    When the agent posts to /actions {"action":"spend","params":{"amount":2}}
    Then $.state is {"balance":5}

  @§jace-action-result @§jace-errors @decision
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
    Then the response is a JSON error "CONFLICT" with status 409
    And $.error.message is "not enough money"
    And $.audit_preview is "overdraw"
    When the session "" is viewed by an agent
    Then $.jace.balance is 10 per Decision (§jace-errors)

  @§jace-action-result @§jace-errors
  Scenario Outline: a code of the spec family gets the family's status, whatever error.status says
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
    Then the response is a JSON error "<code>" with status <status>
    And $.error.message is "no"

    Examples:
      | code                | explicit | status |
      | CONFLICT            | 399      | 409    |
      | CONFLICT            | 400      | 409    |
      | INVALID_PARAMS      | 500      | 400    |
      | UNAUTHORIZED        | 400      | 401    |
      | FORBIDDEN           | 400      | 403    |
      | NOT_FOUND           | 400      | 404    |
      | PRECONDITION_FAILED | 400      | 412    |
      | RATE_LIMITED        | 400      | 429    |
      | POLICY_DENIED       | 400      | 451    |
      | INTERNAL            | 400      | 500    |
      | DRY_RUN_UNSUPPORTED | 400      | 501    |

  @§jace-action-result @§jace-errors @decision
  Scenario Outline: a code of the module's own takes an explicit error.status inside 400-599
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
    Then the response is a JSON error
    And $.error is {"code":"<code>","message":"no"}
    And the response status is <status> per Decision (§jace-errors)

    Examples:
      | code     | explicit | status |
      | ODD      | 503      | 503    |
      | ODD      | 600      | 400    |
      | ODD      | 399      | 400    |
      | TIMEOUT  | 0        | 504    |

  @§jace-action-result @§jace-errors @decision
  Scenario: an ActionResult without state or with an error without a code is an error, one whose state is null stores null
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
    Then the response, if it is an error, is a JSON error
    And the response is a JSON error per Decision (§jace-action-result)
    And the response status is 500 per Decision (§jace-action-result)
    And its code is the spec family's code for its status
    And its code is "INTERNAL" per Decision (§jace-action-result)
    When the agent posts to /actions {"action":"nameless"}
    Then the response, if it is an error, is a JSON error
    And the response is a JSON error per Decision (§jace-action-result)
    And its code is the spec family's code for its status
    And its code is "INTERNAL" per Decision (§jace-action-result)
    When the session "" is viewed by an agent
    Then $.jace.state is {"n":1} per Decision (§jace-action-result)
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
    Then the response status is 200 and $.state.n is 2
    And $.audit_preview is "add {\"by\":2,\"note\":\"x\"}" per Decision (§jace-audit-preview)
    When the agent posts to /actions {"action":"add","params":{"note":"y","by":1},"dry_run":true}
    Then $.audit_preview is "add {\"by\":1,\"note\":\"y\"}" per Decision (§jace-audit-preview)
    When the client posts to /press {"action":"add","params":{"by":1}}
    Then the response status is 200 and $.state.n is 3
    And $.audit_preview is "add {\"by\":1}" per Decision (§jace-audit-preview)

  @§jace-module-shape @decision
  Scenario: a module that throws while it loads is refused, and the one in service stays
    Given the calculator module is loaded
    When the client posts to /load {"source":"throw new Error('not today')"}
    Then the response is a JSON error
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-module-shape)
    And the error message contains "Error: not today" per Decision (§jace-module-shape)
    When the agent posts to /actions {"action":"calc.input","params":{"digit":7}}
    Then the response status is 200 and $.state.display is "7" per Decision (§jace-module-shape)
