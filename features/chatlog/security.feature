@chatlog
Feature: Security
  Logs stay on the machine, only the server writes replies and the
  registry, and code runs only in a registered realm that asks for it.

  @§chatlog-local-only
  Scenario: the transport never serves a log or the registry
    Given a running server
    And the page "Index - 7 Zen" is connected
    And agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    Then GET "/debug.md" serves no log
    And GET "/debug/<page>.md" serves no log
    And GET "/debug/" serves no log
    And GET "/..%2fdebug.md" serves no log
    And GET "/debug/<page>.md" answers 404 per Decision (§chatlog-adapter-contract)

  @§chatlog-verified-realm @decision
  Scenario: code is not run without a registered realm, nor for a forged token
    Given a running server
    And a log for "Quiet" that no realm polls
    And the adapter transport is served over HTTP
    When agent "agent" asks "Quiet" to run "globalThis.ran = true"
    And 70 s pass
    Then the job running "globalThis.ran = true" was never dispatched
    And the job running "globalThis.ran = true" went through requested, timeout per Decision (§chatlog-timeout)
    And a poll for "Quiet" with a forged token answers 403
    And a poll for "Quiet" with a forged token answers 403
    And a heartbeat for "Quiet" with a forged token answers 403
    And a heartbeat for "Quiet" with a forged token answers 403 in JSON per Decision (§chatlog-verified-realm)
    And a result for the job running "globalThis.ran = true" with a forged token is refused
    And POST "/api/result" with the body "{\"id\": " is refused
    And POST "/api/heartbeat" with the body "not json" is refused
    And POST "/api/register" with the body "[1, 2]" is refused
    And POST "/api/result" with the body "{\"id\": " answers 400 per Decision (§chatlog-verified-realm)
    And POST "/api/heartbeat" with the body "not json" answers 400 per Decision (§chatlog-verified-realm)
    And POST "/api/register" with the body "[1, 2]" answers 400 per Decision (§chatlog-verified-realm)
    And the console says "refused a call for <stem:Quiet>: wrong token" once per Decision (§chatlog-verified-realm)
    And the console says "registered \"Quiet\" as <stem:Quiet> (debug/<stem:Quiet>.md)" per Decision (§chatlog-verified-realm)
    And the log of "Quiet" does not contain "executing ..."
    And the log of "Quiet" does not contain "forged"

  @§chatlog-server-writes @§chatlog-append-only
  Scenario: every reply and the registry come from the server, by appending
    Given a running server
    And the page "Index - 7 Zen" is connected
    When agent "agent" asks "Index - 7 Zen" to run "1"
    And 1 s passes
    And agent "agent" asks "Index - 7 Zen" to run "2"
    And 1 s passes
    When the log of "Index - 7 Zen" is parsed
    Then the reply carrying 1 pairs with the request running "1"
    And the reply carrying 2 pairs with the request running "2"
    And the log has 2 requests and 4 replies per Decision (§chatlog-executing-placeholder)
    And the reply on line 7 pairs with the request on line 1 per Decision (§chatlog-result-fences)
    And the reply on line 17 pairs with the request on line 11 per Decision (§chatlog-result-fences)
    And the console says "job <page>#2 requested by agent at 09:00:01 (debug/<page>.md)" per Decision (§chatlog-tail-only)
    And the registry starts with:
      """
      # Connected pages:
      """
    And no server write changed a byte that was already in a log

  @§chatlog-verified-realm @§chatlog-server-writes
  Scenario: only the page that was given a job can answer it
    Given a running server
    And the adapter transport is served over HTTP with a 25 s long poll
    And a page titled "Remote" registers over HTTP
    And a page titled "Other" registers over HTTP
    When agent "agent" asks "Remote" to run "6*7"
    And 1 s passes
    And the page "Remote" polls over HTTP in the background
    Then the background poll of "Remote" answers 200 with the job running "6*7"
    When the page "Other" posts the result 666 for the job "Remote" was given over HTTP: refused
    And 1 s passes
    Then the log of "Remote" has no reply carrying 666
    And the job running "6*7" went through requested, dispatched
    When the page "Remote" posts the result 42 for the job "Remote" was given over HTTP: accepted
    And 1 s passes
    Then the log of "Remote" ends with:
      """
      ```JSON
      42
      ```
      """
    And the job running "6*7" went through requested, dispatched, completed

  @§chatlog-verified-realm @§chatlog-late-result @decision
  Scenario: a page cannot answer a job it was never given, not even after the job timed out
    Given a running server with a 5 s job timeout
    And the adapter transport is served over HTTP with a 25 s long poll
    And a page titled "Remote" registers over HTTP
    When agent "agent" asks "Remote" to run "6*7"
    And 1 s passes
    Then the page "Remote" posts the result 41 for the job running "6*7", which it was never given, over HTTP: 404 per Decision (§chatlog-verified-realm)
    When 5 s pass
    Then the log of "Remote" contains "timeout: no realm took this job within 5s\n```" per Decision (§chatlog-timeout)
    And the page "Remote" posts the result 42 for the job running "6*7", which it was never given, over HTTP: 404 per Decision (§chatlog-verified-realm)
    When 1 s passes
    Then the log of "Remote" does not contain "late"
    And the log of "Remote" has no reply carrying 41
    And the log of "Remote" has no reply carrying 42
    And the registry does not contain "late"
