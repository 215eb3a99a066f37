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
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:00 (5ms)
      ```JSON
      42
      ```

      ```
      /*
      ReferenceError: 'missing' is not defined
      …
      */
      ```
      """
    And that holds byte for byte per Decision (§chatlog-background-errors)

  @§chatlog-adapter-contract @decision
  Scenario: a page of another origin on this machine can be a realm, a page from elsewhere cannot
    Given a running server
    And the adapter transport is served over HTTP
    Then GET "/adapter.js" answers 200 with a body
    And GET "/" answers 200 per Decision (§chatlog-adapter-contract)
    And GET "/" is served as "text/html" per Decision (§chatlog-adapter-contract)
    And the body of GET "/" contains "<script src=\"/adapter.js\"></script>" per Decision (§chatlog-adapter-contract)
    And GET "/adapter.js" is served as "text/javascript" per Decision (§chatlog-adapter-contract)
    And the body of GET "/adapter.js" contains "/api/register" per Decision (§chatlog-adapter-contract)
    And a preflight from "http://localhost:5173" for POST "/api/register" with a JSON body is allowed
    And a preflight from "http://localhost:5173" for POST "/api/register" allows origin http://localhost:5173, methods GET, POST, headers Content-Type, max age 600, private network true per Decision (§chatlog-adapter-contract)
    And a preflight from "http://localhost:5173" for POST "/api/register" answers 204 with no body per Decision (§chatlog-adapter-contract)
    And a preflight from "https://evil.example" for POST "/api/register" is refused per Decision (§chatlog-adapter-contract)
    When a page served from "http://localhost:5173" titled "My App" registers over HTTP
    And a page served from "http://127.0.0.1:8080" titled "Other App" registers over HTTP
    And a page served from "http://[::1]:3000" titled "Six" registers over HTTP
    And a page served from "" titled "No Origin" registers over HTTP
    And a page served by the REPL server itself titled "Own" registers over HTTP
    Then each of these registrations was answered 200, the pages of other origins with their origin allowed
    And the registry contains "(http://localhost:5173/app.html) last"
    And the registry contains "(http://127.0.0.1:8080/app.html) last"
    And the registry contains "(http://[::1]:3000/app.html) last"
    # Pages of other machines: a realm is handed the code of a log's requests.
    When a page served from "https://evil.example" titled "Evil" registers over HTTP
    And a page served from "http://localhost.evil.example" titled "Sly" registers over HTTP
    And a page served from "http://203.0.113.7:8080" titled "Far" registers over HTTP
    And a page served from "http://[2001:db8::1]:3000" titled "Far Six" registers over HTTP
    Then each of these registrations was refused
    And each of these registrations was answered 403 per Decision (§chatlog-adapter-contract)
    And the registry does not contain "evil"
    And the registry does not contain "203.0.113.7"
    And the registry does not contain "2001:db8"
    And the console says "refused POST /api/register from origin https://evil.example (not an allowed origin)" per Decision (§chatlog-adapter-contract)
    # Origins that are no page of this machine's web servers.
    When a page served from "null" titled "Sandboxed" registers over HTTP
    And a page served from "ftp://localhost" titled "Ftp" registers over HTTP
    Then each of these registrations was answered 403 per Decision (§chatlog-adapter-contract)

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
    And that holds byte for byte per Decision (§chatlog-executing-placeholder)
    When agent "agent" asks "Lisp REPL" in "JS" to run "1+1"
    And 1 s passes
    Then the log of "Lisp REPL" answers the request running "1+1"
    And the log of "Lisp REPL" ends with, byte for byte per Decision (§chatlog-adapter-language)
      """
      **<page>** to agent at 09:00:01 (**ERROR**)
      ```Error
      refused: the fence names JS; this realm evaluates Lisp (open the fence with ```Lisp)
      ```
      """
    And the console says "not run: refused: the fence names JS; this realm evaluates Lisp" per Decision (§chatlog-adapter-language)
    And the console does not say "<nil>" per Decision (§chatlog-adapter-language)

  @§chatlog-adapter-contract @§chatlog-result-fences @decision
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
    Then the log of "Index - 7 Zen" ends with per Decision (§chatlog-adapter-contract)
      """
      **<page>** to agent at 09:00:02 (5ms)
      ```JSON
      42
      ```
      """
    And that holds byte for byte per Decision (§chatlog-adapter-contract)
    When agent "agent" asks "Index - 7 Zen" to run "let s = 'a;b'; await null; s.split(';').length"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with per Decision (§chatlog-adapter-contract)
      """
      ```JSON
      2
      ```
      """
    And that holds byte for byte per Decision (§chatlog-adapter-contract)
    When agent "agent" asks "Index - 7 Zen" to run "await null; const x = 1;"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with per Decision (§chatlog-adapter-contract)
      """
      ```Text
      undefined
      ```
      """
    And that holds byte for byte per Decision (§chatlog-adapter-contract)

  @§chatlog-adapter-contract @decision
  Scenario: a waiting long poll gets a new job as soon as its request is noticed
    Given a running server
    And the adapter transport is served over HTTP with a 25 s long poll
    And a page titled "Remote" registers over HTTP
    When the page "Remote" polls over HTTP in the background
    Then the background poll of "Remote" has not answered per Decision (§chatlog-adapter-contract)
    When agent "agent" asks "Remote" to run "1"
    And 1 s passes
    Then the background poll of "Remote" answers 200 with the job running "1" per Decision (§chatlog-adapter-contract)

  @§chatlog-adapter-contract @§chatlog-job-states
  Scenario: a page waiting in a long poll is given a new job before the job's timeout
    # How long a poll may wait is the server's choice; a page that is
    # waiting for work while its job runs out of time is not.
    Given a running server with a 5 s job timeout
    And the adapter transport is served over HTTP with a 25 s long poll
    And a page titled "Remote" registers over HTTP
    When the page "Remote" polls over HTTP in the background
    Then the background poll of "Remote" has not answered per Decision (§chatlog-adapter-contract)
    When agent "agent" asks "Remote" to run "1"
    And 1 s passes
    Then the background poll of "Remote" answers 200 with the job running "1" per Decision (§chatlog-adapter-contract)
    When 1 s passes
    And 30 s pass
    Then the job running "1" went through requested, dispatched, timeout

  @§chatlog-adapter-contract @decision
  Scenario: an idle long poll answers 204 when its configured wait is over, not before
    Given a running server
    And the adapter transport is served over HTTP with a 2 s long poll
    And a page titled "Idle" registers over HTTP
    When the page "Idle" polls over HTTP in the background
    Then the background poll of "Idle" has not answered per Decision (§chatlog-adapter-contract)
    When 1 s passes
    Then the background poll of "Idle" has not answered per Decision (§chatlog-adapter-contract)
    When 1 s passes
    Then the background poll of "Idle" answers 204 per Decision (§chatlog-adapter-contract)

  @§chatlog-adapter-contract @§chatlog-timeout @§chatlog-instance-order @decision
  Scenario: a waiting long poll gets the next job as soon as a timeout frees its page
    Given a running server
    And the adapter transport is served over HTTP with a 25 s long poll
    And a page titled "Remote" registers over HTTP
    When agent "agent" asks "Remote" to run "1"
    And 1 s passes
    And the page "Remote" polls over HTTP in the background
    Then the background poll of "Remote" answers 200 with the job running "1"
    And that answer was flushed to the page before the job counted as started per Decision (§chatlog-job-times)
    When 29 s pass
    And agent "agent" asks "Remote" to run "2"
    And 29 s pass
    And the page "Remote" polls over HTTP in the background
    Then the background poll of "Remote" has not answered per Decision (§chatlog-adapter-contract)
    When 2 s pass
    Then the background poll of "Remote" answers 200 with the job running "2" per Decision (§chatlog-timeout)
    And the job running "1" went through requested, dispatched, timeout
