@jace
Feature: HTTP API
  The runtime exposes the loaded module through a small JSON API: health,
  loading from source or file, init, view (JACE JSON or HTML, filtered by
  audience) and the two ways of running an action.

  @§jace-healthz @§jace-json-only
  Scenario: the health check answers ok
    Given the calculator module is loaded
    When the client sends GET /healthz
    Then the response status is 200 and $ is {"ok":true}
    And the response is JSON
    And the response header "Content-Type" is "application/json" per Decision (§jace-json-only)
    And the response body is "{\"ok\":true}\n" per Decision (§jace-json-only)

  @§jace-load
  Scenario: a module is loaded from source and serves its actions
    Given the calculator module is loaded
    When the client posts to /load:
      """
      {"source": "globalThis.jace = {manifest:{name:'counter',version:'0.1.0'}, init(env){return {n:0}}, view(s){return {type:'counter', n:s.n}}, actions:{inc(s){return {state:{n:s.n+1}}}}};"}
      """
    Then the response status is 200 and $ is {"ok":true}
    When the agent posts to /actions {"action":"inc"}
    Then the response status is 200 and $.state is {"n":1}

  @§jace-load-file
  Scenario: a module is loaded from a file on the runtime's disk
    Given the calculator module is loaded
    And a module file "greeter.js" containing:
      """
      globalThis.jace = {
        manifest: { name: "greeter", version: "2.0.0" },
        init(env) { return { greeting: env.greeting || "hello" }; },
        view(state) { return { type: "text", value: state.greeting }; },
        actions: { shout(state) { return { state: { greeting: state.greeting.toUpperCase() } }; } },
      };
      """
    When the client posts to /load-file {"path":"<file:greeter.js>","env":{"greeting":"hi"}}
    Then the response status is 200 and $ is {"ok":true}
    When the agent posts to /actions {"action":"shout"}
    Then the response status is 200 and $.state.greeting is "HI"

  @§jace-load-file @§jace-json-only @decision
  Scenario: a module file that does not exist is a JSON error
    Given the calculator module is loaded
    When the client posts to /load-file {"path":"/no/such/module.js"}
    Then the response is a JSON error
    And the response status is 404 per Decision (§jace-load-file)
    And its code is the spec family's code for its status
    And its code is "NOT_FOUND" per Decision (§jace-load-file)
    And the error message contains "/no/such/module.js" per Decision (§jace-load-file)

  @§jace-init
  Scenario: init answers the state the module returns, reading its env
    Given the module "env-echo.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "env-echo", version: "1.0.0" },
        init(env) { return { owner: env.owner, items: [] }; },
        view(state) { return { type: "list", owner: state.owner }; },
        actions: {},
      };
      """
    When the client posts to /init {"env":{"owner":"ada"}}
    Then the response status is 200 and $ is {"state":{"owner":"ada","items":[]}}

  @§jace-init @§jace-sessions @decision
  Scenario: init stores its state for the session named in the env
    Given the calculator module is loaded
    When the agent presses "calc.input" with params {"digit":8} in session "s"
    And the client posts to /init {"env":{"session_id":"s"}}
    Then the response status is 200 and $.state.display is "0"
    When the session "s" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "0" per Decision (§jace-init)

  @§jace-init @§jace-dry-run
  Scenario: an init whose env has dry_run true stores nothing
    # Seed §3's notes: with env.dry_run === true the runtime does not persist
    # the returned state, whichever endpoint returned it.
    Given the calculator module is loaded
    When the agent presses "calc.input" with params {"digit":8} in session "s"
    And the client posts to /init {"env":{"session_id":"s","dry_run":true}}
    Then the response status is 200 and $.state.display is "0"
    When the session "s" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "8"

  @§jace-view @§jace-view-negotiate
  Scenario: the view of the stored state is JACE JSON
    Given the calculator module is loaded
    When the client posts to /view {} accepting "application/jace+json"
    Then the response status is 200 and $.jace.type is "app"
    And $.jace.children.#(type=="display").value is "0"
    And the response's media type is "application/jace+json"
    And $.jace.children.#(type=="hint").id is "agent-hint"

  @§jace-view
  Scenario: the view of a state given in the request
    Given the calculator module is loaded
    When the client posts to /view {"state":{"display":"42","acc":null,"op":null,"fresh":true},"audience":"agent"}
    Then the response status is 200 and $.jace.children.#(type=="display").value is "42"
    When the client posts to /view {"audience":"agent"}
    Then $.jace.children.#(type=="display").value is "0"

  @§jace-view-agent
  Scenario: agents get no presentation and no human-only nodes
    Given the calculator module is loaded
    When the client posts to /view {"audience":"agent"}
    Then the response status is 200
    And the response's media type is "application/jace+json"
    And the response body does not contain "presentation"
    And $.jace.children.#(type=="keypad") is absent
    And $.jace.children.#(type=="hint").id is "agent-hint"
    And $.jace.children.#(type=="display") has exactly the keys "type", "id", "value" and "pending"

  @§jace-view-agent
  Scenario: filtering reaches nested nodes
    Given the module "nested.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "nested", version: "1.0.0" },
        init() { return {}; },
        view() {
          return { type: "app", presentation: { theme: "dark" }, children: [
            { type: "group", children: [
              { type: "badge", audience: "human", text: "decoration" },
              { type: "field", name: "total", value: 3, reviewer: "human", illustration: "chart", presentation: { bold: true } },
            ] },
          ] };
        },
        actions: {},
      };
      """
    # reviewer and illustration are as long as audience and presentation but are
    # neither: the field keeps both.
    When the client posts to /view {"audience":"agent"}
    Then the response status is 200 and $.jace is {"type":"app","children":[{"type":"group","children":[{"type":"field","name":"total","value":3,"reviewer":"human","illustration":"chart"}]}]}

  @§jace-view-human @§jace-view-negotiate @decision
  Scenario: humans keep presentation and lose agent-only nodes
    # ?format=jace comes before the audience (the family's order), so the human
    # view can be read as JACE JSON.
    Given the calculator module is loaded
    When the client posts to /view?format=jace {"audience":"human"}
    Then the response status is 200
    And the response's media type is "application/jace+json"
    And $.jace.children.#(type=="keypad").id is "keypad"
    And $.jace.children.#(type=="display").presentation is {"align":"right","font":"monospace","size":"xl"} per Decision (§jace-view-human)
    And $.jace.children.#(type=="hint") is absent per Decision (§jace-view-human)

  @§jace-view-human @§jace-view-negotiate @decision
  Scenario: a human view is HTML, whatever the Accept header says
    # The family's order: the audience comes before the Accept header.
    Given the calculator module is loaded
    When the client posts to /view {"audience":"human"} accepting "application/jace+json"
    Then the response status is 200
    And the response is an HTML document
    And the HTML shows the text "Calculator"
    And the response body contains "keypad" per Decision (§jace-view)
    And the response body does not contain "agent-hint" per Decision (§jace-view-human)
    And the response body ends with "</main>\n</body>\n</html>\n" per Decision (§jace-view)

  @§jace-view-negotiate
  Scenario: ?format= comes before the audience and the Accept header
    Given the calculator module is loaded
    When the client posts to /view?format=html {"audience":"agent"} accepting "application/jace+json"
    Then the response status is 200
    And the response is an HTML document
    When the client posts to /view?format=jace {} accepting "text/html"
    Then the response status is 200
    And the response is JSON
    And $.jace.id is "calculator"

  @§jace-view-negotiate
  Scenario: Accept application/jace+json yields JACE JSON
    Given the calculator module is loaded
    When the client posts to /view {} accepting "application/jace+json"
    Then the response status is 200
    And the response header "Vary" lists "Accept"
    And the response's media type is "application/jace+json"
    And $.jace.id is "calculator"
    And the response header "Content-Type" is "application/jace+json" per Decision (§jace-view-negotiate)

  @§jace-view-negotiate
  Scenario: a client that rates JACE JSON above HTML gets JSON, whatever else it names
    # The family honours the Accept header's q values: JACE JSON at 0.9
    # beats HTML at 0.1, and a form only some runtimes serve
    # (application/json, rated higher still) cannot make the answer HTML.
    Given the calculator module is loaded
    When the client posts to /view {} accepting "application/json, application/jace+json;q=0.9, text/html;q=0.1"
    Then the response status is 200
    And the response is JSON
    And $.jace.id is "calculator"
    And the response header "Vary" lists "Accept"
    And the response's media type is "application/json" per Decision (§jace-view-negotiate)

  @§jace-view-negotiate
  Scenario: without an audience or an Accept header the view is HTML
    Given the calculator module is loaded
    When the client posts to /view {} accepting ""
    Then the response status is 200
    And the response is an HTML document
    And the response header "Vary" lists "Accept"

  @§jace-view-negotiate @decision
  Scenario: among equally acceptable forms HTML comes first, then JACE JSON, then JSON
    Given the calculator module is loaded
    When the client posts to /view {} accepting "*/*"
    Then the response status is 200
    And the response's media type is "text/html" per Decision (§jace-view-negotiate)
    When the client posts to /view {} accepting "application/json, application/jace+json"
    Then the response status is 200
    And the response is JSON
    And the response's media type is "application/jace+json" per Decision (§jace-view-negotiate)
    When the client posts to /view {} accepting "*/*;q=0.5, application/json"
    Then the response status is 200
    And the response is JSON per Decision (§jace-view-negotiate)
    And the response's media type is "application/json" per Decision (§jace-view-negotiate)

  @§jace-view-negotiate @decision
  Scenario: a media range named twice in Accept counts with its first q
    Given the calculator module is loaded
    When the client posts to /view {} accepting "application/jace+json, application/jace+json;q=0"
    Then the response status is 200
    And the response's media type is "application/jace+json" per Decision (§jace-view-negotiate)
    When the client posts to /view {} accepting "application/jace+json;q=0, application/jace+json"
    Then the response status is 200
    And the response's media type is "text/html" per Decision (§jace-view-negotiate)

  @§jace-view-negotiate @§jace-view @decision
  Scenario: Accept text/html yields the view rendered as HTML
    Given the calculator module is loaded
    When the client posts to /view {} accepting "text/html"
    Then the response status is 200
    And the response is an HTML document
    And the response header "Vary" lists "Accept"
    And the HTML shows the text "Calculator"
    And the response header "Content-Type" is "text/html; charset=utf-8" per Decision (§jace-view)
    And the response body contains "<!DOCTYPE html>" per Decision (§jace-view)
    And the response body contains "<title>calculator 1.0.0</title>" per Decision (§jace-view)
    And the response body contains "<body" per Decision (§jace-view)
    And the response body contains "<dl><dt>type</dt><dd>app</dd><dt>id</dt><dd>calculator</dd>" per Decision (§jace-view)
    And the response body does not contain "agent-hint" per Decision (§jace-view)
    And the response body contains "<dl><dt>align</dt>" per Decision (§jace-view)
    And the response body contains "<main class=\"jace\" data-module=\"calculator\">" per Decision (§jace-view)
    And the response body contains "<ol><li>" per Decision (§jace-view)
    And the response body contains "</li></ol>" per Decision (§jace-view)
    And the response header "Vary" is "Accept" per Decision (§jace-view-negotiate)

  @§jace-view-negotiate
  Scenario: an Accept header the view cannot satisfy gets the default HTML
    Given the calculator module is loaded
    When the client posts to /view {} accepting "image/png"
    Then the response status is 200
    And the response is an HTML document
    And the response header "Vary" lists "Accept"

  @§jace-press
  Scenario: pressing returns state, view, result and preview
    Given the calculator module is loaded
    When the client posts to /press {"action":"calc.input","params":{"digit":7}}
    Then the response status is 200 and $.state.display is "7"
    And $.result is {"display":"7"}
    And $.audit_preview is "INPUT 7"
    And $.jace.children.#(type=="display").value is "7"
    And $.jace.children.#(type=="keypad").id is "keypad" per Decision (§jace-press)
    And the response header "Idempotent-Replayed" is absent per Decision (§jace-idempotency)

  @§jace-press @§jace-action-result
  Scenario: pressing passes the module's events through
    Given the calculator module is loaded
    When the client posts to /press {"action":"calc.input","params":{"digit":6}}
    And the client posts to /press {"action":"calc.op","params":{"op":"multiply"}}
    And the client posts to /press {"action":"calc.input","params":{"digit":7}}
    And the client posts to /press {"action":"calc.equals"}
    Then the response status is 200 and $.state.display is "42"
    And $.events.0.type is "calc.result"
    And $.events.0.changes is {"display":"42"}
    And $.events is [{"type":"calc.result","entity":"calculator","changes":{"display":"42"}}] per Decision (§jace-action-result)

  @§jace-actions @decision
  Scenario: the agent envelope is answered with a JACE Action Result
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":3},"intent":"start a sum","session_id":"agent-1"}
    Then the response status is 200
    And the response is a JACE Action Result
    And $.ok is true or absent
    And $.dry_run is false or absent
    And $.state.display is "3"
    And $.result is {"display":"3"}
    And $.audit_preview is "INPUT 3"
    And $.ok is true per Decision (§jace-actions)
    And $.dry_run is false per Decision (§jace-actions)
    And the response body is "{\"ok\":true,\"dry_run\":false,\"state\":{\"display\":\"3\",\"acc\":null,\"op\":null,\"fresh\":false},\"result\":{\"display\":\"3\"},\"audit_preview\":\"INPUT 3\"}\n" per Decision (§jace-actions)
    When the session "agent-1" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "3"

  @§jace-actions
  Scenario: the agent envelope takes the family's members only
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":3},"env":{"dry_run":true}}
    Then the response is a JSON error with a 4xx status
    When the agent posts to /actions {"action":"calc.input","params":[3]}
    Then the response is a JSON error with a 4xx status
    When the session "" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "0"

  @§jace-json-only @decision
  Scenario Outline: a body that does not parse is a 4xx JSON error
    Given the calculator module is loaded
    When the client posts to <path> the raw body '<body>'
    Then the response is a JSON error with a 4xx status
    And the response status is 400 per Decision (§jace-json-only)
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-json-only)

    Examples:
      | path     | body                  |
      | /press   | {"action":            |
      | /actions | {"action":"a"} {}     |
      | /actions | {"action":"a","params":{"x":[1 |
      | /actions | {"action":"a","params":"x |
      | /actions | {"action":"calc.clear",} |
      | /actions | {"action":"calc.cle |
      | /actions | {"action" |
      | /actions | {"action":"calc.clear","params":{"a" |
      | /actions | {"action":"calc.clear","dry_run":truex} |
      | /actions | {"action":"calc.clear"}x |
      | /actions | {"action":"calc.clear" "dry_run":true} |
      | /load    | not json at all       |
      | /init    | [1,2                  |

  @§jace-json-only @decision
  Scenario: a body declared as something other than JSON is refused with 415
    Given the calculator module is loaded
    When the client posts to /press the raw body '{"action":"calc.clear"}' as "text/plain"
    Then the response, if it is an error, is a JSON error
    And the response is a JSON error per Decision (§jace-json-only)
    And the response status is 415 per Decision (§jace-json-only)
    And its code is the spec family's code for its status
    And its code is "UNSUPPORTED_MEDIA_TYPE" per Decision (§jace-json-only)

  @§jace-json-only @decision
  Scenario: a JSON body may name its charset or a +json type
    Given the calculator module is loaded
    When the client posts to /actions the raw body '{"action":"calc.input","params":{"digit":4}}' as "application/json; charset=utf-8"
    Then the response status is 200 and $.state.display is "4"
    When the client posts to /actions the raw body '{"action":"calc.input","params":{"digit":2}}' as "application/jace+json"
    Then the response status is 200 per Decision (§jace-json-only)
    And $.state.display is "42" per Decision (§jace-json-only)
    When the client posts to /actions the raw body '{"action":"calc.clear"}' as "application/json; charset"
    Then the response, if it is an error, is a JSON error
    And the response status is 415 per Decision (§jace-json-only)
    And its code is the spec family's code for its status
    And its code is "UNSUPPORTED_MEDIA_TYPE" per Decision (§jace-json-only)

  @§jace-json-only @decision
  Scenario: wrong methods and unknown paths are JSON errors too
    Given the calculator module is loaded
    When the client sends GET /press
    Then the response is a JSON error with a 4xx status
    And if the answer is a 405, its Allow header names "POST"
    And the response status is 405 per Decision (§jace-json-only)
    And its code is the spec family's code for its status
    And its code is "METHOD_NOT_ALLOWED" per Decision (§jace-json-only)
    When the client sends GET /nowhere
    Then the response is a JSON error with a 4xx status
    And the response status is 404 per Decision (§jace-json-only)
    And its code is the spec family's code for its status
    And its code is "NOT_FOUND" per Decision (§jace-json-only)
    When the client sends POST /healthz
    Then the response is a JSON error with a 4xx status
    And if the answer is a 405, its Allow header names "GET"
    And the response status is 405 per Decision (§jace-json-only)
    And the response header "Allow" is "GET" per Decision (§jace-json-only)
    When the client sends HEAD /healthz
    Then the response status is 200 per Decision (§jace-json-only)
    When the client sends HEAD /actions
    Then the response status is 405 per Decision (§jace-json-only)

  @§jace-view-negotiate
  Scenario: a media type refused with q=0 is never chosen
    Given the calculator module is loaded
    When the client posts to /view {} accepting "text/html;q=0, application/jace+json;q=0.5"
    Then the response status is 200
    And the response's media type is "application/jace+json"
    When the client posts to /view {} accepting "application/jace+json;q=0, application/json;q=0"
    Then the response status is 200
    And the response is an HTML document

  @§jace-view-negotiate
  Scenario Outline: the Accept header's q values choose the form, a type taking the q of the most specific range
    # HTTP's rules for Accept (RFC 9110, section 12.5.1), which the family's
    # "then the Accept header" brings in: the form with the higher q wins,
    # media types and parameter names compare without case, blanks around
    # the parts do not count, and a media type takes the q of the most
    # specific range that matches it.
    Given the calculator module is loaded
    When the client posts to /view {} accepting "<accept>"
    Then the response status is 200
    And the response is <form>

    Examples:
      | accept                                          | form             |
      | text/html;q=0.5, application/jace+json          | JSON             |
      | application/jace+json;q=0.4, text/html;q=0.6    | an HTML document |
      | text/html;q=0.3, */*;q=0.9                      | JSON             |
      | application/*;q=0.8, text/*;q=0.2               | JSON             |
      | text/*, application/jace+json;q=0.1             | an HTML document |
      | TEXT/HTML;Q=0.1, Application/JACE+JSON;q=0.9    | JSON             |
      |  text/html ; q=0.1 ,  application/jace+json     | JSON             |

  @§jace-json-only @decision
  Scenario Outline: a broken /actions body is a JSON error, however it breaks
    Given the calculator module is loaded
    When the agent posts to /actions the raw body '<body>'
    Then the response is a JSON error with a 4xx status
    And the response status is 400 per Decision (§jace-json-only)
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-json-only)
    When the client sends GET /healthz
    Then the response status is 200 and $ is {"ok":true}

    Examples:
      | body                                             |
      | {"action":"calc.input"                           |
      | {"action":"calc.input",                          |
      | {"action":"calc.input","params":[1,}             |
      | {"action":"calc.input","params":{"digit":7}      |
      | {"action":"calc.input","dry_run":true,}          |
      | {"action":"calc.input"}}                         |
      | {"action":"                                      |
      | {"action":xcalc.clear"}                          |
      | {"action":5calc.clear"}                          |
      | {"action":"\\"}                                  |
      | {"action":"calc.clear","params":{"a":"b           |
      | {"action":"calc.clear","params":                 |
      | ["action":"calc.clear"}                          |
      | x"action":"calc.clear"}                          |
      | {"action":"calc.clear","params":{"a":}}          |

  @§jace-actions @§jace-json-only
  Scenario: whitespace before, between and after the envelope's tokens is JSON like any other
    Given the calculator module is loaded
    When the agent posts to /actions the raw body '   {"action":"calc.input","params":{"digit":7}}'
    Then the response status is 200 and $.state.display is "7"
    When the agent posts to /actions the raw body '⏎{⏎  "action" : "calc.input",⏎  "params" : { "digit" : 2 }⏎}⏎' with "⏎" standing for a line break
    Then the response status is 200 and $.state.display is "72"
    When the agent posts to /actions the raw body '⇥{"action":"calc.input",⇥"params":{"digit":5}}⇥' with "⇥" standing for a tab
    Then the response status is 200 and $.state.display is "725"

  @§jace-json-only @decision
  Scenario: a message about a body that is not JSON points at the first byte that is not JSON
    Given the calculator module is loaded
    When the agent posts to /actions the raw body '{"action":x,"params":{}}'
    Then the response is a JSON error with a 4xx status
    And the error message contains "line 1, column 11" per Decision (§jace-json-only)
    When the agent posts to /actions the raw body '{"action":"calc.clear",⏎  "dry_run": tru}' with "⏎" standing for a line break
    Then the response is a JSON error with a 4xx status
    And the error message contains "line 2, column 17" per Decision (§jace-json-only)
    When the agent posts to /actions the raw body '{"action":"calc.clear"'
    Then the response is a JSON error with a 4xx status
    And the error message contains "line 1, column 23" per Decision (§jace-json-only)
    When the agent posts to /actions the raw body '{7:"calc.clear"}'
    Then the response is a JSON error with a 4xx status
    And the error message contains "line 1, column 2" per Decision (§jace-json-only)

  @§jace-json-only @§jace-schema @decision
  Scenario: a request that names its session but no action lacks its action
    Given the calculator module is loaded
    When the agent posts to /actions the raw body '{"session_id":"s1","dry_run":true}'
    Then the response is a JSON error with a 4xx status
    And the response status is 400 per Decision (§jace-schema)
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-schema)
    And the error message contains "missing property 'action'" per Decision (§jace-schema)
    And $.error.message is "invalid /actions request: at '': missing property 'action'" per Decision (§jace-schema)

  @§jace-json-only @§jace-schema @decision
  Scenario: a body of blanks only is an empty request, which lacks its action
    Given the calculator module is loaded
    When the agent posts to /actions the raw body '   '
    Then the response is a JSON error with a 4xx status
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-schema)
    And the error message contains "missing property 'action'" per Decision (§jace-schema)

  @§jace-json-only @decision
  Scenario: a raw control character inside a JSON string is a 4xx JSON error
    Given the calculator module is loaded
    When the agent posts to /actions the raw body '{"action":"calc.clear⇥"}' with "⇥" standing for a tab
    Then the response is a JSON error with a 4xx status
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-json-only)
    When the agent posts to /actions the raw body '{"action":"calc.clear","intent":"a⇥b"}' with "⇥" standing for a tab
    Then the response is a JSON error with a 4xx status
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-json-only)

  @§jace-view-agent @§jace-view-negotiate
  Scenario: an agent view asked for as JACE JSON is JACE JSON
    Given the calculator module is loaded
    When the client posts to /view {"audience":"agent"} accepting "application/jace+json"
    Then the response status is 200
    And the response's media type is "application/jace+json"
    And the response body does not contain "presentation"

  @§jace-view-negotiate @§jace-view @decision
  Scenario: the HTML view shows the view's text, escaped for HTML
    Given the module "markup.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "markup", version: "1.0.0" },
        init() { return { note: "1 < 2 & 3", trap: "<script>alert(1)</script>" }; },
        view(state) { return { type: "note", text: state.note, trap: state.trap, count: 12 }; },
        actions: {},
      };
      """
    When the client posts to /view {} accepting "text/html"
    Then the response status is 200
    And the response is an HTML document
    And the HTML shows the text "1 < 2 & 3"
    And the HTML shows the text "<script>alert(1)</script>"
    And the HTML shows the text "12"
    And the response body does not contain "<script"
    And the response body contains "1 &lt; 2 &amp; 3" per Decision (§jace-view)
    And the response body contains "<dd>12</dd>" per Decision (§jace-view)

  @§jace-init @§jace-action-result @decision
  Scenario: <, > and & in JSON answers are written as themselves
    Given the module "markup.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "markup", version: "1.0.0" },
        init(env) { return { note: env.note }; },
        view(state) { return { type: "note", text: state.note }; },
        actions: { set(state, params) { return { state: { note: params.note }, result: params.note }; } },
      };
      """
    When the client posts to /init {"env":{"note":"<b>a & b</b>"}}
    Then the response status is 200 and $.state.note is "<b>a & b</b>"
    And the response body contains "\"<b>a & b</b>\"" per Decision (§jace-action-result)
    When the client posts to /press {"action":"set","params":{"note":"x<y>&z"}}
    Then the response status is 200 and $.result is "x<y>&z"
    And the response body contains "\"x<y>&z\"" per Decision (§jace-action-result)
