@jace
Feature: Security checklist
  Requests are bounded and schema-checked before any module code runs,
  every action is audited, and a hostile module cannot take the runtime or
  other sessions down with it.

  @§jace-max-body
  Scenario: a body far over any sensible limit is refused, and the action in it does not run
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":9}} padded with blanks to 67108864 bytes
    Then the response is a JSON error with a 4xx status
    When the session "" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "0"

  @§jace-max-body
  Scenario: a body of exactly the maximum size does not exceed it, and is served
    # Seed §11 refuses a body that exceeds the maximum size; whatever the
    # maximum is set to, a body of that size is within it (the runtime
    # serves the calculator demo it starts with).
    Given the embedded reference runtime with a body limit of 256 bytes
    # The intent pads each body: 256 bytes, then 257.
    When the agent posts to /actions {"action":"calc.input","params":{"digit":8},"intent":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}
    Then the response status is 200 and $.state.display is "8"
    When the agent posts to /actions {"action":"calc.input","params":{"digit":8},"intent":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}
    Then the response is a JSON error with a 4xx status
    When the session "" is viewed by an agent
    Then $.jace.children.#(type=="display").value is "8"

  @§jace-max-body @decision
  Scenario: a body over the 1 MiB default limit is refused with 413
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":9}} padded with blanks to 1048577 bytes
    Then the response, if it is an error, is a JSON error
    And the response is a JSON error with a 4xx status per Decision (§jace-max-body)
    And the response status is 413 per Decision (§jace-max-body)
    And its code is the spec family's code for its status
    And its code is "PAYLOAD_TOO_LARGE" per Decision (§jace-max-body)
    When the agent posts to /actions {"action":"calc.input","params":{"digit":8}} padded with blanks to 1048576 bytes
    Then the response status is 200 per Decision (§jace-max-body)
    And $.state.display is "8" per Decision (§jace-max-body)

  @§jace-max-body @decision
  Scenario: an oversized action is refused before the module runs
    Given the runtime is the embedded reference
    And the embedded reference runtime with a body limit of 256 bytes
    When the agent posts to /actions a JSON body of 257 bytes
    Then the response is a JSON error with a 4xx status
    And its code is the spec family's code for its status
    And its code is "PAYLOAD_TOO_LARGE" per Decision (§jace-max-body)
    And the error message contains "256 bytes" per Decision (§jace-max-body)
    And the audit log has 0 records per Decision (§jace-max-body)

  @§jace-max-body @decision
  Scenario: a body of exactly the limit is read, and one byte more is refused even without a Content-Length
    Given the embedded reference runtime with a body limit of 256 bytes
    When the client posts to /load a JSON body of 256 bytes
    Then the response is a JSON error
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-max-body)
    When the client posts to /load a JSON body of 256 bytes sent in chunks
    Then the response is a JSON error
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-max-body)
    When the client posts to /load a JSON body of 257 bytes sent in chunks
    Then the response is a JSON error with a 4xx status
    And the response status is 413 per Decision (§jace-max-body)

  @§jace-schema @decision
  Scenario Outline: a payload that fails its schema is a 4xx naming the field
    Given the calculator module is loaded
    When the client posts to <path> <body>
    Then the response is a JSON error with a 4xx status
    And the response status is 400 per Decision (§jace-schema)
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-schema)
    And the error message contains "<field>" per Decision (§jace-schema)

    Examples:
      | path       | body                                          | field     |
      | /actions   | {"params":{}}                                 | action    |
      | /actions   | {"action":"calc.clear","dry_run":"yes"}       | /dry_run  |
      | /actions   | {"action":"calc.clear","dryrun":true}         | dryrun    |
      | /actions   | {"action":"calc.clear","env":{}}              | env       |
      | /actions   | {"action":"calc.clear","params":"digit"}      | /params   |
      | /press     | {"action":7}                                  | /action   |
      | /view      | {"audience":"robot"}                          | /audience |
      | /load-file | {}                                            | path      |
      | /init      | {"env":{"dry_run":1}}                         | /env/dry_run |

  @§jace-schema @decision
  Scenario Outline: an empty source or session_id fails the reference's schema
    Given the calculator module is loaded
    When the client posts to <path> <body>
    Then the response, if it is an error, is a JSON error
    And the response is a JSON error with a 4xx status per Decision (§jace-schema)
    And the error message contains "<field>" per Decision (§jace-schema)

    Examples:
      | path       | body                                          | field       |
      | /actions   | {"action":"calc.clear","session_id":""}       | /session_id |
      | /load      | {"source":""}                                 | /source     |

  @§jace-schema @decision
  Scenario: action and session_id may be 256 characters long, intent 4096, and one more is a 400
    Given the calculator module is loaded
    When the agent posts to /actions {"action":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}
    Then the response is a JSON error "INVALID_PARAMS" with status 400 per Decision (§jace-schema)
    And its code is the spec family's code for its status
    And the error message contains "/action" per Decision (§jace-schema)
    When the agent posts to /actions {"action":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}
    Then the response is a JSON error "NOT_FOUND" with status 404 per Decision (§jace-schema)
    And its code is the spec family's code for its status
    When the agent posts to /actions {"action":"calc.clear","session_id":"sssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss"}
    Then the response is a JSON error "INVALID_PARAMS" with status 400 per Decision (§jace-schema)
    And its code is the spec family's code for its status
    And the error message contains "/session_id" per Decision (§jace-schema)
    When the agent posts to /actions {"action":"calc.input","params":{"digit":1},"session_id":"ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss"}
    Then the response status is 200 and $.state.display is "1" per Decision (§jace-schema)
    When the agent posts to /actions {"action":"calc.clear","intent":"iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii"}
    Then the response is a JSON error "INVALID_PARAMS" with status 400 per Decision (§jace-schema)
    And its code is the spec family's code for its status
    And the error message contains "/intent" per Decision (§jace-schema)
    When the agent posts to /actions {"action":"calc.input","params":{"digit":2},"intent":"iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii"}
    Then the response status is 200 and $.state.display is "2" per Decision (§jace-schema)

  @§jace-audit-log
  Scenario: each action is logged with its name, params, preview, session and key
    Given the runtime is the embedded reference
    And the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":4},"session_id":"s1","intent":"type four"} with Idempotency-Key k1
    And the agent posts to /actions {"action":"calc.input","params":{"digit":5},"session_id":"s1","dry_run":true}
    And the agent posts to /actions {"action":"calc.input","params":{"digit":4},"session_id":"s1","intent":"type four"} with Idempotency-Key k1
    And the client posts to /press {"action":"calc.input","params":{"digit":"x"}}
    And the agent posts to /actions {"action":"calc.clear","params":{"ticket":12345678901234567890}}
    Then the audit log has 5 records
    And audit record 1 has $.action is "calc.input"
    And audit record 1 has $.params is {"digit":4}
    And audit record 1 has $.audit_preview is "INPUT 4"
    And audit record 1 has $.session_id is "s1"
    And audit record 1 has $.idempotency_key is "k1"
    And audit record 1 has $.intent is "type four" per Decision (§jace-audit-log)
    And audit record 1 has $.outcome is "committed" per Decision (§jace-audit-log)
    And audit record 1 has $.status is 200 per Decision (§jace-audit-log)
    And audit record 2 has $.outcome is "dry_run" per Decision (§jace-audit-log)
    And audit record 2 has $.idempotency_key is "" per Decision (§jace-audit-log)
    And audit record 3 has $.outcome is "replayed" per Decision (§jace-audit-log)
    And audit record 4 has $.outcome is "error" per Decision (§jace-audit-log)
    And audit record 4 has $.error_code is "INVALID_PARAMS" per Decision (§jace-audit-log)
    And audit record 4 has $.status is 400 per Decision (§jace-audit-log)
    And audit record 4 has $.audit_preview is "INPUT ?"
    And audit record 4 has $.session_id is "" per Decision (§jace-audit-log)
    And audit record 5 has $.params.ticket written as 12345678901234567890

  @§jace-audit-log @§jace-action-result @decision
  Scenario: the audit log keeps strings that JSON must escape, and says which endpoint an action came through
    Given the runtime is the embedded reference
    And the calculator module is loaded
    When the agent posts to /actions {"action":"calc.input","params":{"digit":3},"intent":"\"\\\n\t","session_id":"w1"}
    Then the response status is 200 and $.state.display is "3"
    And audit record 1 has $.intent is "\"\\\n\t" per Decision (§jace-audit-log)
    And audit record 1 has $.via is "/actions" per Decision (§jace-audit-log)
    And audit record 1 has $.dry_run is false per Decision (§jace-audit-log)
    When the client posts to /press {"action":"calc.input","params":{"digit":4},"env":{"session_id":"w1"}}
    Then audit record 2 has $.via is "/press" per Decision (§jace-audit-log)

  @§jace-audit-log @§jace-audit-preview
  Scenario: the audit log keeps the module's preview as it wrote it
    Given the runtime is the embedded reference
    And the module "names.js" is loaded:
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
    And audit record 1 has $.audit_preview is "rename \"\" → Zoë"

  @§jace-untrusted @§jace-sessions @slow @decision
  Scenario Outline: a hostile action fails alone and the runtime keeps serving everyone
    Given the module "hostile.js" is loaded:
      """
      let calls = 0; // lives in the session's VM, which a guard breach discards
      globalThis.jace = {
        manifest: { name: "hostile", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: {
          loop(state) { for (;;) {} },
          recurse(state) { const f = (n) => f(n + 1) + 1; return { state: { n: f(0) } }; },
          hog(state) { const a = []; for (;;) a.push(new Array(100000).fill(7)); },
          // QuickJS throws null when it runs out of memory while making its
          // own error, so a thrown null is taken for an exhausted VM.
          vanish(state) { throw null; },
          ok(state) { calls++; return { state: { n: state.n + 1 }, result: calls }; },
        },
      };
      """
    When the agent posts to /actions {"action":"ok","session_id":"bystander"}
    And the agent posts to /actions {"action":"ok","session_id":"attacker"}
    And the agent posts to /actions {"action":"<attack>","session_id":"attacker"}
    Then the response is a JSON error "INTERNAL" with status 500
    And the error message contains "<message>" per Decision (§jace-untrusted)
    When the client sends GET /healthz
    Then the response status is 200
    When the agent posts to /actions {"action":"ok","session_id":"bystander"}
    Then the response status is 200 and $.state.n is 2
    And $.result is 2 per Decision (§jace-sessions)
    When the agent posts to /actions {"action":"ok","session_id":"attacker"}
    Then the response status is 200 and $.state.n is 2
    And $.result is <calls> per Decision (§jace-sessions)

    Examples:
      | attack  | message                | calls |
      | loop    | Action timed out       | 1     |
      | recurse | stack overflow         | 2     |
      | hog     | Memory limit exceeded  | 1     |
      | vanish  | Memory limit exceeded  | 1     |

  @§jace-untrusted @§jace-sessions @slow
  Scenario: module loads and closed session VMs give their memory back
    # Each round loads the module again (which checks it in a VM of its own
    # and retires every session's VM) and acts in three sessions, one more
    # than the VMs the runtime keeps: 150 rounds open and close 600 VMs. A
    # QuickJS VM holds a few hundred kB; one left behind each time would
    # starve the runtime in the end.
    Given the embedded reference runtime keeping at most 2 session VMs
    And the module "counter.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "counter", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: { bump(state) { return { state: { n: state.n + 1 }, result: state.n + 1 }; } },
      };
      """
    And the module is loaded again and "bump" run in the sessions "a", "b" and "c", 10 times over
    And the runtime's memory is measured
    When the module is loaded again and "bump" run in the sessions "a", "b" and "c", 150 times over
    Then the runtime's memory has grown by less than 16 MB

  @§jace-untrusted @§jace-sessions @slow
  Scenario: many sessions do not take a VM each for good
    # A session's VM is kept only while the runtime is within its VM limit;
    # 300 sessions, each acting once, would hold 300 QuickJS VMs otherwise.
    Given the embedded reference runtime keeping at most 2 session VMs
    And the module "counter.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "counter", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { return { n: state.n }; },
        actions: { bump(state) { return { state: { n: state.n + 1 }, result: state.n + 1 }; } },
      };
      """
    And "bump" is run once in each of 10 new sessions
    And the runtime's memory is measured
    When "bump" is run once in each of 300 new sessions
    Then the runtime's memory has grown by less than 16 MB

  @§jace-untrusted @§jace-sessions @slow
  Scenario: a VM broken by a guard breach gives its memory back at once
    # An action that runs its VM out of memory, keeping what it took in a
    # global, leaves the VM full; the runtime must let it go then, not when
    # (or if) that session comes back: 16 sessions that each break their VM
    # once and never return would hold 16 VMs at their memory limit (some
    # 400 MB) otherwise.
    Given the module "hog.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "hog", version: "1.0.0" },
        init() { return {}; },
        view(state) { return {}; },
        actions: { hog(state) { globalThis.kept = []; for (;;) globalThis.kept.push(new Array(100000).fill(7)); } },
      };
      """
    And "hog" breaches a guard once in each of 4 new sessions "warm"
    And the runtime's memory is measured
    When "hog" breaches a guard once in each of 16 new sessions "gone"
    Then the runtime's memory has grown by less than 64 MB

  @§jace-untrusted @§jace-idempotency @slow
  Scenario: a session's remembered Idempotency-Keys do not pile up
    # Each commit's answer is kept for its key's replays; with a state of
    # 20 kB, 1,500 keys all kept would hold 30 MB.
    Given the embedded reference runtime remembering at most 5 Idempotency-Keys per session
    And the module "ballast.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "ballast", version: "1.0.0" },
        init() { return { n: 0, pad: "x".repeat(20000) }; },
        view(state) { return { n: state.n }; },
        actions: { bump(state) { return { state: { n: state.n + 1, pad: state.pad } }; } },
      };
      """
    And "bump" is committed 20 times in session "heavy", each time with a new Idempotency-Key
    And the runtime's memory is measured
    When "bump" is committed 1500 times in session "heavy", each time with a new Idempotency-Key
    Then the runtime's memory has grown by less than 16 MB

  @§jace-untrusted @§jace-events-sse @slow
  Scenario: event listeners that come and go leave nothing behind
    # Each listener the runtime has answered is one more client it relays
    # to; one it kept after its client went away, with the queue of events
    # waiting for it, would pile up with every listener served.
    Given the calculator module is loaded
    And 200 clients listen on /agent/events one after another, each going away once answered
    And the runtime's memory is measured
    When 3000 clients listen on /agent/events one after another, each going away once answered
    Then the runtime's memory has grown by less than 8 MB

  @§jace-untrusted @§jace-load @decision
  Scenario: the reference's own log names the modules it loads and the session VMs it discards
    Given the runtime is the embedded reference
    And the embedded reference runtime with a fuel budget of 5 units
    And the module "spinner.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "spinner", version: "2.0.0" },
        init() { return {}; },
        view(state) { return {}; },
        actions: { spin(state) { for (;;) {} } },
      };
      """
    When the agent posts to /actions {"action":"spin","session_id":"s1"}
    Then the response is a JSON error "INTERNAL" with status 500
    And the runtime's log has an INFO line saying "module loaded" per Decision (§jace-load)
    And the runtime's log has an INFO line saying "name=spinner version=2.0.0" per Decision (§jace-load)
    And the runtime's log has a WARN line saying "session VM discarded after a guard breach" per Decision (§jace-untrusted)
    And the runtime's log has a WARN line saying "session_id=s1" per Decision (§jace-untrusted)

  @§jace-untrusted @decision
  Scenario Outline: an ActionResult whose JSON is longer than the output limit is refused and not stored
    Given the embedded reference runtime with an output limit of 100 bytes
    And the module "grower.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "grower", version: "1.0.0" },
        init() { return { s: "" }; },
        view(state) { return { len: state.s.length }; },
        actions: { grow(state, params) { return { state: { s: "x".repeat(params.n) } }; } },
      };
      """
    # {"state":{"s":"…"}} is 18 bytes around the n x's.
    When the agent posts to /actions {"action":"grow","params":{"n":<n>}}
    Then the response, if it is an error, is a JSON error
    And the response status is <status> per Decision (§jace-untrusted)
    When the session "" is viewed by an agent
    Then $.jace.len is <stored> per Decision (§jace-untrusted)

    Examples:
      | n  | status | stored |
      | 82 | 200    | 82     |
      | 83 | 500    | 0      |

  @§jace-untrusted @decision
  Scenario: by default an entry point may return 4 MiB of JSON and no more
    Given the module "grower.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "grower", version: "1.0.0" },
        init() { return { s: "" }; },
        view(state) { return { len: state.s.length }; },
        actions: { grow(state, params) { return { state: { s: "x".repeat(params.n) } }; } },
      };
      """
    # {"state":{"s":"…"}} is 18 bytes around the n x's: 4,194,286 of them make 4 MiB.
    When the agent posts to /actions {"action":"grow","params":{"n":4194287}}
    Then the response, if it is an error, is a JSON error
    And the response status is 500 per Decision (§jace-untrusted)
    When the agent posts to /actions {"action":"grow","params":{"n":4194286}}
    Then the response status is 200 per Decision (§jace-untrusted)

  @§jace-untrusted @decision
  Scenario: an output over the limit is an error naming the limit
    Given the embedded reference runtime with an output limit of 100 bytes
    And the module "grower.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "grower", version: "1.0.0" },
        init() { return { s: "" }; },
        view(state) { return {}; },
        actions: { grow(state, params) { return { state: { s: "x".repeat(params.n) } }; } },
      };
      """
    When the agent posts to /actions {"action":"grow","params":{"n":83}}
    Then the response is a JSON error
    And the response status is 500 per Decision (§jace-untrusted)
    And its code is the spec family's code for its status
    And its code is "INTERNAL" per Decision (§jace-untrusted)
    And the error message contains "100" per Decision (§jace-untrusted)

  @§jace-untrusted @decision
  Scenario: a module whose init throws fails its requests but not the runtime
    Given the module "bad-init.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "bad-init", version: "1.0.0" },
        init() { throw new Error("init refuses"); },
        view(state) { return {}; },
        actions: { ok(state) { return { state }; } },
      };
      """
    When the agent posts to /actions {"action":"ok"}
    Then the response is a JSON error "INTERNAL" with status 500
    And the error message contains "init refuses" per Decision (§jace-errors)
    And $.state is absent per Decision (§jace-errors)
    When the client posts to /init {}
    Then the response is a JSON error "INTERNAL" with status 500
    When the client sends GET /healthz
    Then the response status is 200 and $ is {"ok":true}
    Given the calculator module is loaded
    When the agent presses "calc.input" with params {"digit":1}
    Then $.state.display is "1"

  @§jace-untrusted @decision
  Scenario: a module whose view throws fails the view but not the runtime
    Given the module "bad-view.js" is loaded:
      """
      globalThis.jace = {
        manifest: { name: "bad-view", version: "1.0.0" },
        init() { return { n: 0 }; },
        view(state) { throw new TypeError("view refuses"); },
        actions: { ok(state) { return { state: { n: state.n + 1 } }; } },
      };
      """
    When the client posts to /view {"audience":"agent"}
    Then the response is a JSON error "INTERNAL" with status 500
    And the error message contains "view refuses" per Decision (§jace-errors)
    When the client posts to /press {"action":"ok"}
    Then the response is a JSON error "INTERNAL" with status 500
    When the client sends GET /healthz
    Then the response status is 200 and $ is {"ok":true}

  @§jace-untrusted @§jace-module-shape @decision
  Scenario: a module that loops at load time is refused and the old one stays
    Given the calculator module is loaded
    When the client posts to /load {"source":"for (;;) {}"}
    Then the response is a JSON error
    And its code is the spec family's code for its status
    And its code is "INVALID_PARAMS" per Decision (§jace-module-shape)
    And the error message contains "Action timed out" per Decision (§jace-module-shape)
    When the agent posts to /actions {"action":"calc.input","params":{"digit":2}}
    Then the response status is 200 and $.state.display is "2" per Decision (§jace-module-shape)
