@chatlog
Feature: Concurrency
  Each instance has its own log and its own queue: a stuck page holds up
  nobody else, and the requests of one log are taken in file order.

  @§chatlog-instances-independent
  Scenario: a stuck page does not delay another
    Given a running server
    And the page "Slow" is connected
    And the page "Fast" is connected
    And the page "Slow" hangs
    When agent "agent" asks "Slow" to run "1+1"
    And agent "agent" asks "Fast" to run "2+2"
    And 1 s passes
    Then the log of "Fast" ends with:
      """
      **<stem:Fast>** to agent at 09:00:00 (5ms)
      ```JSON
      4
      ```
      """
    And the job running "1+1" went through requested, dispatched

  @§chatlog-instances-independent
  Scenario: a reply the disk will not take back into a deleted log holds up nobody else
    # The log of a running job is deleted and no new file may be made: its
    # reply has nowhere to go. The server must go on serving the other page.
    Given a running server
    And the page "Slow" is connected
    And the page "Fast" is connected
    And the page "Slow" takes 3000 ms to run each job
    When agent "agent" asks "Slow" to run "1+1"
    And 1 s passes
    And agent "agent" deletes the log of "Slow"
    And the disk refuses new files
    And 5 s pass
    And the disk accepts new files
    And agent "agent" asks "Fast" to run "2+2"
    And 1 s passes
    Then the log of "Fast" ends with:
      """
      **<stem:Fast>** to agent at 09:00:06 (5ms)
      ```JSON
      4
      ```
      """

  @§chatlog-instances-independent @§chatlog-timeout
  Scenario: a page whose log was deleted under its running job holds up nobody else
    # Whether the job then times out into a new log or is cancelled with its request is left open
    # here; the other page's reply is not.
    Given a running server with a 5 s job timeout
    And the page "Slow" is connected
    And the page "Fast" is connected
    And the page "Slow" hangs
    When agent "agent" asks "Slow" to run "1+1"
    And 1 s passes
    And agent "agent" deletes the log of "Slow"
    And 5 s pass
    And agent "agent" asks "Fast" to run "2+2"
    And 1 s passes
    Then the log of "Fast" ends with:
      """
      **<stem:Fast>** to agent at 09:00:06 (5ms)
      ```JSON
      4
      ```
      """

  @§chatlog-instance-order
  Scenario: requests appended together are run and answered in file order
    Given a running server
    And the page "Index - 7 Zen" is connected
    When agent "agent" appends to the log of "Index - 7 Zen":
      """
      **agent** to <page> at <now>
      ```JS
      globalThis.trace = ["a"]; 1
      ```
      **agent** to <page> at <now>
      ```JS
      trace.push("b"); 2
      ```
      **agent** to <page> at <now>
      ```JS
      trace.push("c"); trace.join("")
      ```
      """
    And 2 s pass
    Then the log of "Index - 7 Zen" ends with:
      """
      ```JSON
      "abc"
      ```
      """
    And the job running "trace.push(\"b\"); 2" went through requested, dispatched, completed
    When the log of "Index - 7 Zen" is parsed
    Then the reply carrying 1 pairs with the request running "globalThis.trace = [\"a\"]; 1"
    And the reply carrying 2 pairs with the request running "trace.push(\"b\"); 2"
    And the reply carrying "abc" pairs with the request running "trace.push(\"c\"); trace.join(\"\")"
    And the reply on line 15 pairs with the request on line 1 per Decision (§chatlog-result-fences)
    And the reply on line 21 pairs with the request on line 5 per Decision (§chatlog-result-fences)
    And the reply on line 27 pairs with the request on line 9 per Decision (§chatlog-result-fences)

  @§chatlog-request-job @§chatlog-instance-order
  Scenario: a request written just before the server answers an earlier one still runs
    # The request for 6*7 is written 100 ms before the server appends the reply
    # to 12+13, so the server first reads both together: its own reply answers
    # 12+13, and 6*7 still becomes a job.
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 3000 ms to run each job
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 3.1 s pass
    And agent "agent" asks "Index - 7 Zen" to run "6*7"
    And 4 s pass
    Then "Index - 7 Zen" has 2 jobs
    And the log of "Index - 7 Zen" contains:
      """
      **<page>** to agent at 09:00:03 (3.005s)
      ```JSON
      25
      ```
      """
    And the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:06 (3.005s)
      ```JSON
      42
      ```
      """

  @§chatlog-request-job @§chatlog-late-result
  Scenario: a request written just before a late result still runs
    # The late result of 12+13 is appended right after the request for 6*7,
    # before the server has read that request.
    Given a running server with a 5 s job timeout
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" hangs
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 6 s pass
    And agent "agent" asks "Index - 7 Zen" to run "6*7"
    And the page "Index - 7 Zen" recovers and posts what it held
    And 1 s passes
    Then "Index - 7 Zen" has 2 jobs
    And the log of "Index - 7 Zen" has a timeout entry for the request running "12+13"
    And the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:06 (5ms)
      ```JSON
      42
      ```
      """
