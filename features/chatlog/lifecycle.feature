@chatlog
Feature: Job lifecycle and timing
  A job is requested when the server parses its request, dispatched when
  the page takes it, and ends completed, failed or timed out. Its duration
  is the time between the page receiving the code and posting the result.

  @§chatlog-job-states @§chatlog-job-times @§chatlog-duration-definition
  Scenario: a job's times and the duration in its reply header
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 12 ms to run each job
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    Then the job running "12+13" went through requested, dispatched, completed
    And the job running "12+13" was requested 200 ms after the last write, started 10 ms after that and finished 17 ms after it started
    And the log of "Index - 7 Zen" contains:
      """
      **<page>** to agent at 09:00:00 (17ms)
      """

  @§chatlog-job-states
  Scenario: a failed job ends failed and never moves again
    Given a running server
    And the page "Index - 7 Zen" is connected
    When agent "agent" asks "Index - 7 Zen" to run "throw 1"
    And 70 s pass
    Then the job running "throw 1" went through requested, dispatched, failed

  @§chatlog-timeout @§chatlog-job-states @§chatlog-reply-header @decision
  Scenario: a job with no answer after 60 s times out
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" hangs
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 61 s pass
    Then the job running "12+13" went through requested, dispatched, timeout
    And the log of "Index - 7 Zen" ends with a timeout entry for the request running "12+13"
    And the log of "Index - 7 Zen" ends with, byte for byte per Decision (§chatlog-timeout)
      """
      **<page>** to agent at 09:01:00 (**ERROR** after 60s, timeout)
      ```Error
      timeout: no result after 60s
      ```
      """
    And the registry reports a timeout as failed after 60000 ms
    And the registry line of "Index - 7 Zen" reads "* <name> (http://localhost:8302/) last 09:01:00 state: failed after 60000ms (timeout)"
    And that holds byte for byte per Decision (§chatlog-registry-header)
    And the registry contains "* <page>#1 JS from agent at 09:00:00: timeout failed after 60000ms (timeout)" per Decision (§chatlog-registry-pointers)
    And the registry has fewer than 200 lines
    And the registry lists at most 1 recent jobs per Decision (§chatlog-registry-pointers)
    And the console says "job <page>#1 timed out after 60s" per Decision (§chatlog-timeout)
    And the console does not say "without being dispatched" per Decision (§chatlog-timeout)

  @§chatlog-timeout
  Scenario: the timeout can be configured
    Given a running server with a 5 s job timeout
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" hangs
    When agent "agent" asks "Index - 7 Zen" to run "1"
    And 6 s pass
    Then the log of "Index - 7 Zen" has a timeout entry for the request running "1"
    And the log of "Index - 7 Zen" contains "(**ERROR** after 5s, timeout)" per Decision (§chatlog-reply-header)
    And the registry reports a timeout as failed after 5000 ms

  @§chatlog-timeout @§chatlog-job-states @decision
  Scenario: a job no page ever takes times out too, counted from its request
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" asks "Quiet" to run "12+13"
    And 60.1 s pass
    Then the job running "12+13" went through requested
    When 0.2 s pass
    Then the job running "12+13" was never dispatched
    And the log of "Quiet" does not contain "executing ..."
    And the job running "12+13" went through requested, timeout per Decision (§chatlog-timeout)
    And the log of "Quiet" ends with, byte for byte per Decision (§chatlog-timeout)
      """
      **<page>** to agent at 09:01:00 (**ERROR** after 60s, timeout)
      ```Error
      timeout: no realm took this job within 60s
      ```
      """
    And the registry line of "Quiet" reads "* <name> (http://localhost:8302/) last 09:00:00 state: failed after 60000ms (timeout)" per Decision (§chatlog-timeout)
    And the console says "job <page>#1 timed out after 60s without being dispatched: no realm took it" per Decision (§chatlog-timeout)

  @§chatlog-timeout @decision
  Scenario: a job taken late by its page still times out 60 s after its request
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 40000 ms to run each job
    When agent "agent" asks "Index - 7 Zen" to run "1"
    And agent "agent" asks "Index - 7 Zen" to run "2"
    And 60.1 s pass
    Then the job running "2" went through requested, dispatched
    When 0.2 s pass
    Then the job running "2" went through requested, dispatched, timeout per Decision (§chatlog-timeout)
    And the log of "Index - 7 Zen" contains, byte for byte per Decision (§chatlog-timeout)
      """
      **<page>** to agent at 09:01:00 (**ERROR** after 60s, timeout)
      ```Error
      timeout: no result after 60s
      ```
      """

  @§chatlog-timeout @§chatlog-instance-order @decision
  Scenario: a job that times out while waiting leaves the queue, and the job behind it is still taken
    Given a running server with a 5 s job timeout
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 7000 ms to run each job
    When agent "agent" asks "Index - 7 Zen" to run "1"
    And 1 s passes
    And agent "agent" asks "Index - 7 Zen" to run "2"
    And 2 s pass
    And agent "agent" asks "Index - 7 Zen" to run "3"
    And 10 s pass
    Then the log of "Index - 7 Zen" has a timeout entry for the request running "1"
    And the log of "Index - 7 Zen" contains, byte for byte per Decision (§chatlog-timeout)
      """
      **<page>** to agent at 09:00:05 (**ERROR** after 5s, timeout)
      ```Error
      timeout: no result after 5s
      ```
      """
    And the log of "Index - 7 Zen" contains, byte for byte per Decision (§chatlog-timeout)
      """
      **<page>** to agent at 09:00:06 (**ERROR** after 5s, timeout)
      ```Error
      timeout: no realm took this job within 5s
      ```
      """
    And the log of "Index - 7 Zen" contains, byte for byte per Decision (§chatlog-timeout)
      """
      **<page>** to agent at 09:00:08 (**ERROR** after 5s, timeout)
      ```Error
      timeout: no result after 5s
      ```
      """
    And the job running "3" went through requested, dispatched, timeout per Decision (§chatlog-timeout)

  @§chatlog-job-times @§chatlog-duration-definition @§chatlog-late-result @decision
  Scenario: a job that times out while its code is on the way still measures from the page's receipt
    # The page takes 5983 ms per job and answers 5 ms later; it takes the
    # second job 2 ms before that job's 5 s timeout and receives it 3 ms after.
    Given a running server with a 5 s job timeout
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 5983 ms to run each job
    When agent "agent" asks "Index - 7 Zen" to run "1"
    And 1 s passes
    And agent "agent" asks "Index - 7 Zen" to run "2"
    And 13 s pass
    Then the log of "Index - 7 Zen" has a timeout entry for the request running "1"
    And the log of "Index - 7 Zen" contains:
      """
      ```JSON
      1
      ```
      """
    And the log of "Index - 7 Zen" contains:
      """
      ```JSON
      2
      ```
      """
    And the log of "Index - 7 Zen" contains, byte for byte per Decision (§chatlog-job-times)
      """
      **<page>** to agent at 09:00:06 (5.988s, late)
      ```JSON
      1
      ```
      """
    And the log of "Index - 7 Zen" contains, byte for byte per Decision (§chatlog-job-times)
      """
      **<page>** to agent at 09:00:06 (**ERROR** after 5s, timeout)
      ```Error
      timeout: no result after 5s
      ```
      """
    And the log of "Index - 7 Zen" contains, byte for byte per Decision (§chatlog-job-times)
      """
      **<page>** to agent at 09:00:12 (5.988s, late)
      ```JSON
      2
      ```
      """
