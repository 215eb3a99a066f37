@chatlog
Feature: Adapters
  An adapter carries jobs to a realm and results back; the browser page and
  the simulated pages poll for jobs, other realms may use their own
  transport and their own fence language.

  @§chatlog-adapter-contract @§chatlog-error-buffer
  Scenario: the simulated page receives code with its metadata and returns result and diagnostics
    Given a running server
    And the page "Index - 7 Zen" is connected
    When the page "Index - 7 Zen" throws "missing()" in the background
    And agent "agent" asks "Index - 7 Zen" to run "await Promise.resolve(41) + 1"
    And 1 s passes
    Then the log of "Index - 7 Zen" matches:
      """
      \*\*<page>\*\* to agent at 09:00:00 \(5ms\)
      ```JSON
      42
      ```

      ```
      /\*
      ReferenceError: 'missing' is not defined
      """

  @§chatlog-adapter-contract
  Scenario: the browser adapter is served with the page that loads it
    Given a running server
    And the adapter transport is served over HTTP
    Then GET "/" answers 200
    And GET "/adapter.js" answers 200
    And the body of GET "/" contains "<script src=\"/adapter.js\">"
    And the body of GET "/adapter.js" contains "/api/poll?id="
    And the body of GET "/adapter.js" contains "post(\"/api/result\", out)"
    And the body of GET "/adapter.js" contains "out.errors = C.take()"
    And the body of GET "/adapter.js" contains "addEventListener(\"unhandledrejection\""

  @§chatlog-adapter-language @decision
  Scenario: a Lisp realm uses the same format with its own tag
    Given a running server
    And a Lisp realm "Lisp REPL" is connected
    When agent "agent" asks "Lisp REPL" in "Lisp" to run "(+ 1 2 39)"
    And 1 s passes
    Then the log of "Lisp REPL" ends with:
      """
      **agent** to <page> at 09:00:00
      ```Lisp
      (+ 1 2 39)
      ```
      **<page>** to agent at 09:00:00
      executing ...
      **<page>** to agent at 09:00:00 (4ms)
      ```JSON
      42
      ```
      """
    When agent "agent" asks "Lisp REPL" in "JS" to run "1+1"
    And 1 s passes
    Then the log of "Lisp REPL" ends with:
      """
      **<page>** to agent at 09:00:01 (**ERROR**)
      ```Error
      refused: this realm evaluates Lisp, not JS
      ```
      """

  @§chatlog-adapter-contract @§chatlog-result-fences
  Scenario: code that awaits answers with the value of its last expression statement
    Given a running server
    And the page "Index - 7 Zen" is connected
    When agent "agent" asks "Index - 7 Zen" to run "globalThis.window = globalThis; window._psys = {loadSystem: () => Promise.resolve({status: 'loaded'})}; 0"
    And 1 s passes
    And agent "agent" asks "Index - 7 Zen" to run "await window._psys.loadSystem();"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:01 (5ms)
      ```JSON
      {"status":"loaded"}
      ```
      """
    When agent "agent" asks "Index - 7 Zen" to run "const a = await Promise.resolve(50);\nconst b = 8;\na\n- b;;\n"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:02 (5ms)
      ```JSON
      42
      ```
      """
    When agent "agent" asks "Index - 7 Zen" to run "let s = 'a;b'; await null; s.split(';').length"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      ```JSON
      2
      ```
      """
    When agent "agent" asks "Index - 7 Zen" to run "await null; const x = 1;"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      ```Text
      undefined
      ```
      """
