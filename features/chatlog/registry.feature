@chatlog
Feature: Master registry
  debug.md lists the connected instances, their state and last heartbeat,
  a bounded list of recent jobs and where each instance's log is. The
  server owns it and rewrites it whole.

  @§chatlog-registry-header @§chatlog-registry-states @§chatlog-registry-pointers @decision
  Scenario: a connected page is listed idle, with a pointer to its log
    Given a running server
    When the page "Index - 7 Zen" is connected
    Then the registry starts with:
      """
      # Connected pages:
      * <name> (http://localhost:8302/) last 09:00:00 state: idle
      """
    And that holds byte for byte per Decision (§chatlog-registry-header)
    And the registry points to the log of "Index - 7 Zen"
    And the registry contains "* <page>: debug/<page>.md" per Decision (§chatlog-registry-pointers)
    And every instance line of the registry has a state among idle, executing, completed, failed

  @§chatlog-registry-states @§chatlog-registry-pointers
  Scenario: the state follows the page's job
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 3000 ms to run each job
    When agent "agent" asks "Index - 7 Zen" to run "1+1"
    And 1 s passes
    Then the registry line of "Index - 7 Zen" reads "* <name> (http://localhost:8302/) last 09:00:00 state: executing"
    And that holds byte for byte per Decision (§chatlog-registry-header)
    When 3 s pass
    Then the registry line of "Index - 7 Zen" reads "* <name> (http://localhost:8302/) last 09:00:03 state: completed"
    And the registry contains "<page>#1 JS from agent at 09:00:00: completed (3.005s)" per Decision (§chatlog-registry-pointers)
    When agent "agent" asks "Index - 7 Zen" to run "null.x"
    And 4 s pass
    Then the registry line of "Index - 7 Zen" reads "* <name> (http://localhost:8302/) last 09:00:07 state: failed"

  @§chatlog-registry-heartbeat
  Scenario: heartbeats move the last-seen time forward
    Given a running server
    And the page "Index - 7 Zen" is connected
    When 5 s pass
    Then the registry line of "Index - 7 Zen" reads "* <name> (http://localhost:8302/) last 09:00:05 state: idle"
    When 5 s pass
    Then the registry line of "Index - 7 Zen" reads "* <name> (http://localhost:8302/) last 09:00:10 state: idle"
    And its last-seen time is later than the one before

  @§chatlog-registry-heartbeat @§chatlog-adapter-contract
  Scenario: a heartbeat over HTTP moves the last-seen time forward
    Given a running server
    And the adapter transport is served over HTTP
    And a page titled "Remote" registers over HTTP
    When 5 s pass
    Then the registry line of "Remote" reads "* <name> (http://localhost:8302/http/1) last 09:00:00 state: idle"
    And a heartbeat of "Remote" over HTTP answers 204 with no body per Decision (§chatlog-adapter-contract)
    And the registry line of "Remote" reads "* <name> (http://localhost:8302/http/1) last 09:00:05 state: idle"

  @§chatlog-registry-server-owned
  Scenario: hand edits of the registry do not survive and do not break the server
    Given a running server
    And the page "Index - 7 Zen" is connected
    When someone types "* my own note" into the registry
    And 5 s pass
    Then the registry does not contain "my own note"
    When someone replaces the registry with "\x00\x01 garbage ```JS\n"
    And agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 5 s pass
    Then the registry starts with:
      """
      # Connected pages:
      * <name> (http://localhost:8302/) last 09:00:10 state: completed
      """
    And the log of "Index - 7 Zen" contains:
      """
      ```JSON
      25
      ```
      """

  @§chatlog-registry-bounded @decision
  Scenario: many pages and many jobs keep the registry short
    Given a running server
    And 90 pages connect
    And the page "Busy" is connected
    When agent "agent" asks "Busy" to run 90 jobs one second apart
    Then the registry has fewer than 200 lines
    And the registry lists at most 30 recent jobs per Decision (§chatlog-registry-bounded)
    And the registry contains "* tab-31 (" per Decision (§chatlog-registry-bounded)
    And the registry contains "* tab-89 (" per Decision (§chatlog-registry-bounded)
    And the registry does not contain "* tab-30 (" per Decision (§chatlog-registry-bounded)
    And the registry does not contain "* tab-0 (" per Decision (§chatlog-registry-bounded)

  @§chatlog-registry-heartbeat @§chatlog-instance-dir @decision
  Scenario: after a server restart a connected page rejoins by itself and keeps its log
    Given a running server
    And the page "Index - 7 Zen" is connected
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    And the server restarts
    Then the console says "debug/<page>.md: not watched until its page registers again" per Decision (§chatlog-instance-dir)
    When 1 s passes
    Then the console says "refused a call for <page>: no such instance since the server started; the page must register again" per Decision (§chatlog-instance-dir)
    And the console says "<page> rejoined after a server restart, keeping debug/<page>.md" per Decision (§chatlog-instance-dir)
    And the page "Index - 7 Zen" is still registered as before per Decision (§chatlog-instance-dir)
    And the registry line of "Index - 7 Zen" reads "* <name> (http://localhost:8302/) last 09:00:01 state: idle" per Decision (§chatlog-instance-dir)
    When agent "agent" asks "Index - 7 Zen" to run "6*7"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with per Decision (§chatlog-instance-dir)
      """
      **<page>** to agent at 09:00:02 (5ms)
      ```JSON
      42
      ```
      """
    And that holds byte for byte per Decision (§chatlog-instance-dir)
    And the log of "Index - 7 Zen" contains:
      """
      ```JSON
      25
      ```
      """
    And the console does not say "changed, but no realm is attached" per Decision (§chatlog-instance-dir)
    And no server write changed a byte that was already in a log

  @§chatlog-instance-dir @decision
  Scenario: after a restart a log whose page never comes back is left alone, and the console says why when it changes
    Given a running server with a 5 s job timeout
    And a log for "Quiet" that no realm polls
    When the server restarts
    Then the console says "debug/<page>.md: not watched until its page registers again" per Decision (§chatlog-instance-dir)
    When 1 s passes
    Then the console does not say "debug/<page>.md changed" per Decision (§chatlog-instance-dir)
    When agent "agent" asks "Quiet" to run "1+1"
    And 10 s pass
    Then the console says "debug/<page>.md changed, but no realm is attached to it since the server started: its requests are ignored until its page registers again" once per Decision (§chatlog-instance-dir)
    And the log of "Quiet" does not contain "timeout" per Decision (§chatlog-instance-dir)
    And the log of "Quiet" does not contain "executing" per Decision (§chatlog-instance-dir)

  @§chatlog-timeout
  Scenario: a stopped server writes nothing more, not even a timeout it had armed
    Given a running server with a 5 s job timeout
    And a log for "Quiet" that no realm polls
    When agent "agent" asks "Quiet" to run "1+1"
    And 1 s passes
    And the server restarts
    And 4.5 s pass
    Then the log of "Quiet" does not contain "timeout"

  @§chatlog-executing-placeholder @decision
  Scenario: a request that was executing when the server stopped is answered "interrupted", not run again
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" hangs
    When agent "agent" asks "Index - 7 Zen" to run "globalThis.n = (globalThis.n || 0) + 1"
    And 1 s passes
    And the server restarts
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with, byte for byte per Decision (§chatlog-executing-placeholder)
      """
      **<page>** to agent at 09:00:01 (**ERROR**, interrupted)
      ```Error
      interrupted: the server restarted while this request was executing; it was not run again
      ```
      """
    And the console says "debug/<page>.md: the request of agent at 09:00:00 was executing when the server stopped; not run again" per Decision (§chatlog-executing-placeholder)
    And the console does not say "<nil>" per Decision (§chatlog-executing-placeholder)
    When the page "Index - 7 Zen" recovers and posts what it held
    And agent "agent" asks "Index - 7 Zen" to run "globalThis.n"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with per Decision (§chatlog-executing-placeholder)
      """
      ```JSON
      1
      ```
      """
    And that holds byte for byte per Decision (§chatlog-executing-placeholder)

  @§chatlog-instance-dir @decision
  Scenario: a page may take back a log no connected page holds, never the log of a connected page
    Given a running server
    And the adapter transport is served over HTTP with a 1 s long poll
    And a page titled "Mine" registers over HTTP
    When a page titled "Thief" registers over HTTP as "<stem:Mine>" without a language
    Then the logs of "Mine" and "Thief" differ
    And the console says "\"Thief\" cannot rejoin as <stem:Mine>" per Decision (§chatlog-instance-dir)
    Given the workspace holds an empty log "debug/old-0a1b.md"
    When a page titled "Old" registers over HTTP as "old-0a1b" without a language
    Then the log of "Old" is "debug/old-0a1b\.md" per Decision (§chatlog-instance-dir)
    When agent "agent" asks "Old" to run "6*7"
    And 1 s passes
    And the page "Old" polls over HTTP in the background
    Then the background poll of "Old" answers 200 with the job running "6*7" per Decision (§chatlog-instance-dir)

  @§chatlog-registry-pointers @decision
  Scenario: the recent jobs are listed in the order of their last change, the latest last
    # Slow's first job completes after 2 s and its second is dispatched then: both move
    # behind Quick's job, which completed long before.
    Given a running server
    And the page "Slow" is connected
    And the page "Slow" takes 2000 ms to run each job
    And the page "Quick" is connected
    When agent "agent" asks "Slow" to run "1"
    And agent "agent" asks "Slow" to run "2"
    And 1 s passes
    And agent "agent" asks "Quick" to run "3"
    And 2 s passes
    Then the registry contains "## Recent jobs\n* <stem:Quick>#3 JS from agent at 09:00:01: completed (5ms)\n* <stem:Slow>#1 JS from agent at 09:00:00: completed (2.005s)\n* <stem:Slow>#2 JS from agent at 09:00:00: dispatched\n" per Decision (§chatlog-registry-pointers)

  @§chatlog-registry-pointers @decision
  Scenario: a job is listed as requested as soon as it is noticed, before any realm takes it
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" asks "Quiet" to run "1"
    And 1 s passes
    Then the registry contains "## Recent jobs\n* <stem:Quiet>#1 JS from agent at 09:00:00: requested\n" per Decision (§chatlog-registry-pointers)

  @§chatlog-registry-pointers @decision
  Scenario: the list of recent jobs appears with the first job
    Given a running server
    And the page "Index - 7 Zen" is connected
    Then the registry does not contain "## Recent jobs" per Decision (§chatlog-registry-pointers)
    And the registry contains "## Logs\n* <page>: debug/<page>.md\n" per Decision (§chatlog-registry-pointers)
    When agent "agent" asks "Index - 7 Zen" to run "1+1"
    And 1 s passes
    Then the registry contains "## Recent jobs\n* <page>#1 JS from agent at 09:00:00: completed (5ms)\n" per Decision (§chatlog-registry-pointers)
