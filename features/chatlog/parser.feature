@chatlog
Feature: Parser and watcher
  The server polls the logs, waits for a write to settle, reads only the
  tail of a log, and turns each request into exactly one job. Replies pair
  with the requests they answer.

  @§chatlog-tail-only
  Scenario: noticing a request at the end of a large log reads only its tail
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the log of "Index - 7 Zen" already holds 8 MB of earlier conversation
    When I note how much the server has read
    And agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    Then noticing it read less than 128 KB
    And the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:01 (5ms)
      ```JSON
      25
      ```
      """

  @§chatlog-tail-only
  Scenario: plain notes appended to a log are read once: the next request is noticed from the end of them
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the log of "Index - 7 Zen" already holds 1 MB of earlier conversation
    When agent "agent" appends 20000 copies of this to the log of "Index - 7 Zen" in one write:
      """
      Notes on the design, plain prose and no request at all.
      """
    And 1 s passes
    And I note how much the server has read
    And agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    Then noticing it read less than 128 KB
    And the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:02 (5ms)
      ```JSON
      25
      ```
      """

  @§chatlog-debounce
  Scenario: a request written in two parts is parsed once the file has settled
    Given a running server
    And the page "Index - 7 Zen" is connected
    When agent "agent" appends to the log of "Index - 7 Zen" in two writes 120 ms apart:
      """
      **agent** to <page> at 09:00:00
      ```JS
      12+13
      ```
      """
    And 2 s pass
    Then "Index - 7 Zen" has 1 job
    And the job running "12+13" was requested between 150 and 200 ms after the last write

  @§chatlog-request-job
  Scenario: parsing the same request again never queues it twice
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" asks "Quiet" to run "1+1"
    And 1 s passes
    And someone touches the log of "Quiet" 5 times, a second apart
    Then "Quiet" has 1 job
    And the job running "1+1" went through requested

  @§chatlog-request-job
  Scenario: a log that grows by repeating its own last kilobytes is still noticed
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" appends 120 copies of this to the log of "Quiet" in one write:
      """
      **agent** to <page> at 09:00:00
      ```JS
      1+1
      ```
      """
    And 1 s passes
    Then "Quiet" has 120 jobs
    When agent "agent" appends 1 copies of this to the log of "Quiet" in one write:
      """
      **agent** to <page> at 09:00:00
      ```JS
      1+1
      ```
      """
    And 1 s passes
    Then "Quiet" has 121 jobs

  @§chatlog-debounce @decision
  Scenario: a log deleted while its change settles is reported in the console, not parsed
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" asks "Quiet" to run "1+1"
    And 60 ms pass
    And agent "agent" deletes the log of "Quiet"
    And 1 s passes
    Then "Quiet" has 0 jobs
    And the console says "debug/<stem:Quiet>.md: " per Decision (§chatlog-debounce)
    And the console says "file does not exist" per Decision (§chatlog-debounce)

  @§chatlog-rewrite-orphan @§chatlog-registry-pointers @decision
  Scenario: a request an editor takes out is orphaned, and the registry says so at once
    Given a running server with a 5 s job timeout
    And a log for "Quiet" that no realm polls
    When agent "agent" asks "Quiet" to run "1+1"
    And 1 s passes
    And an editor saves the log of "Quiet" without the request "1+1"
    And 1 s passes
    Then the job running "1+1" went through requested, orphaned
    And the registry contains "<stem:Quiet>#1 JS from agent at 09:00:00: orphaned" per Decision (§chatlog-registry-pointers)

  @§chatlog-rewrite-orphan @decision
  Scenario: a log deleted and written anew orphans the jobs whose requests went with it
    Given a running server with a 5 s job timeout
    And a log for "Quiet" that no realm polls
    When agent "agent" asks "Quiet" to run "1+1"
    And 1 s passes
    And agent "agent" deletes the log of "Quiet"
    And 1 s passes
    And agent "agent" asks "Quiet" to run "2+2"
    And 1 s passes
    Then the job running "1+1" went through requested, orphaned
    And the console notes a job orphaned or cancelled
    And the console says "job <page>#1 orphaned: its request (agent at 09:00:00) is gone from debug/<page>.md after a rewrite" per Decision (§chatlog-rewrite-orphan)
    When 10 s pass
    Then the log of "Quiet" reads, byte for byte per Decision (§chatlog-rewrite-orphan)
      """
      **agent** to <page> at 09:00:02
      ```JS
      2+2
      ```
      **<page>** to agent at 09:00:07 (**ERROR** after 5s, timeout)
      ```Error
      timeout: no realm took this job within 5s
      ```
      """

  @§chatlog-reply-pairing
  Scenario: a reply pairs with the closest earlier unanswered request of its agent
    Given the log:
      """
      **ann** to tab at 10:00:01
      ```JS
      1
      ```
      **bob** to tab at 10:00:02
      ```JS
      2
      ```
      **ann** to tab at 10:00:03
      ```JS
      3
      ```
      **tab** to ann at 10:00:04 (5ms)
      ```JSON
      3
      ```
      **tab** to ann at 10:00:05 (5ms)
      ```JSON
      1
      ```
      **tab** to bob at 10:00:05 (5ms)
      ```JSON
      2
      ```
        
      """
    Then the reply on line 13 pairs with the request on line 9
    And the reply on line 17 pairs with the request on line 1
    And the reply on line 21 pairs with the request on line 5

  @§chatlog-request-header @decision
  Scenario: a log written with CRLF line endings reads like one with LF
    Given the log "**a** to t at 10:00:00\r\n```JS\r\n1\r\n```\r\n**t** to a at 10:00:01 (5ms)\r\n```JSON\r\n1\r\n```\r"
    Then the log has 1 request and 1 reply per Decision (§chatlog-request-header)
    And the request on line 1 runs "1" per Decision (§chatlog-request-header)
    And the request on line 1 is closed per Decision (§chatlog-request-header)
    And the reply on line 5 took 5 ms per Decision (§chatlog-request-header)
    And the reply on line 5 pairs with the request on line 1 per Decision (§chatlog-request-header)

  @§chatlog-error-header @§chatlog-reply-header @decision
  Scenario: a reply marked ERROR without a duration is still an error
    Given the log "**a** to t at 10:00:00\n```JS\n1\n```\n**t** to a at 10:00:01 (**ERROR**)\n```Error\nrefused\n```\n**a** to t at 10:00:02\n```JS\n2\n```\n**t** to a at 10:00:03 (**ERROR**, interrupted)\n```Error\ninterrupted\n```"
    Then the log has 2 requests and 2 replies per Decision (§chatlog-reply-header)
    And the reply on line 5 is an error per Decision (§chatlog-reply-header)
    And the reply on line 13 is an error per Decision (§chatlog-reply-header)
    And the reply on line 5 pairs with the request on line 1 per Decision (§chatlog-reply-header)
    And the reply on line 13 pairs with the request on line 9 per Decision (§chatlog-reply-header)

  @§chatlog-reply-pairing @decision
  Scenario: a reply header shorter than a time of day is read, not a crash
    Given the log "**a** to t\n```JS\n1\n```\n**t** to a (5ms)\n```JSON\n1\n```"
    Then the log has 1 request and 1 reply per Decision (§chatlog-reply-pairing)
    And the reply on line 5 pairs with the request on line 1 per Decision (§chatlog-reply-pairing)
    And the reply on line 5 took 5 ms per Decision (§chatlog-reply-pairing)

  @§chatlog-reply-pairing @decision
  Scenario: a reply skips a request stamped after it, and a reply without a time takes the latest request
    Given the log:
      """
      **ann** to tab at 10:00:01
      ```JS
      1
      ```
      **ann** to tab at 10:00:09
      ```JS
      9
      ```
      **ann** to tab at 10:00:03
      ```JS
      3
      ```
      **bob** to tab at 10:00:08
      ```JS
      8
      ```
      **bob** to tab at 10:00:02
      ```JS
      2
      ```
      **tab** to ann at 10:00:04 (5ms)
      ```JSON
      3
      ```
      **tab** to bob (5ms)
      ```JSON
      8
      ```
      """
    Then the reply on line 21 pairs with the request on line 9
    And the reply on line 25 pairs with the request on line 13 per Decision (§chatlog-reply-pairing)
    And the reply on line 25 took 5 ms

  @§chatlog-reply-pairing @§chatlog-same-second @§chatlog-timestamp
  Scenario: requests of different seconds pair by time, and the console notes no ambiguity
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" appends to the log of "Quiet":
      """
      **agent** to <page> at 10:00:00
      ```JS
      1
      ```
      **agent** to <page> at 10:00:05
      ```JS
      2
      ```
      **<page>** to agent at 10:00:06 (4ms)
      ```JSON
      2
      ```
      """
    And 1 s passes
    Then the console notes no ambiguity
    And "Quiet" has 1 job
    And the job running "1" went through requested
    When the log of "Quiet" is parsed
    Then the request on line 1 is stamped "10:00:00"
    And the request on line 5 is stamped "10:00:05"
    And the reply on line 9 is stamped "10:00:06"
    And the reply on line 9 pairs with the request on line 5

  @§chatlog-reply-header @§chatlog-result-fences
  Scenario: a reply whose fence names no language still ends at its closing fence
    Given the log:
      """
      **ann** to tab at 10:00:00
      ```JS
      1
      ```
      **tab** to ann at 10:00:01 (5ms)
      ```
      1
      ```
      **ann** to tab at 10:00:02
      ```JS
      2
      ```
      """
    Then the log has 2 requests and 1 reply
    And the reply on line 5 pairs with the request on line 1
    And the request on line 9 is closed
    And the request on line 9 runs "2"

  @§chatlog-same-second @decision
  Scenario: same-second requests pair in append order and the console notes it
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" appends to the log of "Quiet":
      """
      **agent** to <page> at 10:00:00
      ```JS
      1
      ```
      **agent** to <page> at 10:00:00
      ```JS
      2
      ```
      **<page>** to agent at 10:00:01 (4ms)
      ```JSON
      1
      ```
      **<page>** to agent at 10:00:01 (4ms)
      ```JSON
      2
      ```
      """
    And 1 s passes
    Then the console notes an ambiguity
    And the console says "ambiguous pairing: reply of <page> to agent at 10:00:01: 2 requests at 10:00:00 are waiting; paired in append order with the first" per Decision (§chatlog-same-second)
    And "Quiet" has 0 jobs
    Given the log:
      """
      **agent** to tab at 10:00:00
      ```JS
      1
      ```
      **agent** to tab at 10:00:00
      ```JS
      2
      ```
      **tab** to agent at 10:00:01 (4ms)
      ```JSON
      1
      ```
      **tab** to agent at 10:00:01 (4ms)
      ```JSON
      2
      ```
      """
    Then the reply on line 9 pairs with the request on line 1
    And the reply on line 13 pairs with the request on line 5

  @§chatlog-partial-fence
  Scenario: a fence still open at the end of the file is a draft
    Given the log:
      """
      **agent** to tab at 10:00:00
      ```JS
      1+1
      ```
      **agent** to tab at 10:00:05
      ````JS
      let s = "```"
      ```
      """
    Then the request on line 1 is closed
    And the request on line 5 is a draft
    And the log has 2 requests and 0 replies

  @§chatlog-rewrite-orphan @decision
  Scenario: a request removed by a rewrite orphans its waiting job
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 10000 ms to run each job
    When agent "agent" asks "Index - 7 Zen" to run "1+1"
    And 1 s passes
    And agent "agent" asks "Index - 7 Zen" to run "2+2"
    And 1 s passes
    And an editor saves the log of "Index - 7 Zen" without the request "2+2"
    And 1 s passes
    Then the job running "2+2" went through requested, orphaned
    And the console notes a job orphaned or cancelled
    And the console says "job <page>#2 orphaned: its request (agent at 09:00:01) is gone from debug/<page>.md after a rewrite" per Decision (§chatlog-rewrite-orphan)
    # the new request starts where the removed one did
    When agent "agent" asks "Index - 7 Zen" to run "3+3"
    And 10 s pass
    Then the job running "1+1" went through requested, dispatched, completed
    And the log of "Index - 7 Zen" has no reply carrying 4
    When 12 s pass
    Then the log of "Index - 7 Zen" ends with:
      """
      ```JSON
      6
      ```
      """

  @§chatlog-late-result
  Scenario: a result after the timeout is still appended and marked late
    Given a running server with a 60 s job timeout
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 61000 ms to run each job
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 62 s pass
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:01:01 (61.005s, late)
      ```JSON
      25
      ```
      """
    And that holds byte for byte per Decision (§chatlog-late-result)
    And the registry contains "late"
    And the registry contains "<page>#1 JS from agent at 09:00:00: timeout (61.005s) failed after 60000ms (timeout) late" per Decision (§chatlog-registry-pointers)
    And the registry line of "Index - 7 Zen" reads "* <name> (http://localhost:8302/) last 09:01:01 state: failed late"
    And the registry line of "Index - 7 Zen" is marked "late" after its state
    And that holds byte for byte per Decision (§chatlog-late-result)
    And the console says "job <page>#1: late result after 61.005s" per Decision (§chatlog-late-result)
    And the console does not say "not written" per Decision (§chatlog-late-result)

  @§chatlog-rewrite-orphan @§chatlog-request-job @§chatlog-tail-only
  Scenario: a rewrite the server cannot read yet orphans nothing
    # The request is still in the log: a read that fails is no sign that it is gone.
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" appends to the log of "Quiet":
      """
      some notes written before the request
      """
    And agent "agent" asks "Quiet" to run "1+1"
    And 1 s passes
    And the disk fails every read of the log of "Quiet"
    And an editor saves the log of "Quiet" with "some notes written before the request" replaced by "notes"
    And 1 s passes
    And the disk reads again the log of "Quiet"
    And 1 s passes
    Then the job running "1+1" went through requested
    And "Quiet" has 1 job
    And the console notes no job orphaned or cancelled
    And the console says "read debug/<page>.md at " per Decision (§chatlog-tail-only)
    And the console says "input/output error" per Decision (§chatlog-tail-only)

  @§chatlog-reply-header @§chatlog-result-fences
  Scenario: a page's header without a duration, over a result fence, is a reply
    # The seed's first accepted reply form has no parenthesis; the result fence follows.
    Given the log:
      """
      **agent** to tab at 10:00:00
      ```JS
      1+1
      ```
      **tab** to agent at 10:00:01
      ```JSON
      2
      ```
      **agent** to tab at 10:00:02
      ```JS
      "a"+"b"
      ```
      **tab** to agent at 10:00:03
      ```Text
      ab
      ```
      **agent** to tab at 10:00:04
      ```JS
      throw 1
      ```
      **tab** to agent at 10:00:05
      ```Error
      1
      ```
      """
    Then the log has 3 requests and 3 replies
    And the reply on line 5 pairs with the request on line 1
    And the reply on line 13 pairs with the request on line 9
    And the reply on line 21 pairs with the request on line 17

  @§chatlog-request-header @decision
  Scenario: a header is a request only when a fence that is not a result fence follows at once
    Given the log:
      """
      **agent** to tab at 10:00:00

      ```JS
      1+1
      ```
      **agent** to tab at 10:00:01
      ```JSON
      2
      ```
      **agent** to tab at 10:00:02
      ```js
      3
      ```
      """
    Then the request on line 10 is closed
    And the log has no request on line 1
    And the log has 1 request and 2 replies per Decision (§chatlog-request-header)

  @§chatlog-request-header @decision
  Scenario: an untagged fence after a request header is a request that names no language, refused with a reason
    Given the log:
      """
      **agent** to tab at 10:00:00
      ```
      1+1
      ```
      """
    Then the log has 1 request and 0 replies per Decision (§chatlog-request-header)
    And the request on line 1 is closed per Decision (§chatlog-request-header)
    Given a running server
    And the page "Index - 7 Zen" is connected
    When agent "agent" appends to the log of "Index - 7 Zen":
      """
      **agent** to <page> at 09:00:00
      ```
      6*7
      ```
      """
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with, byte for byte per Decision (§chatlog-request-header)
      """
      **<page>** to agent at 09:00:00 (**ERROR**)
      ```Error
      refused: the fence names no language; this realm evaluates JS (open the fence with ```JS)
      ```
      """
    And "Index - 7 Zen" has 1 job per Decision (§chatlog-request-header)
    And the log of "Index - 7 Zen" has no reply carrying 42 per Decision (§chatlog-request-header)
    And the job running "6*7" went through requested, orphaned per Decision (§chatlog-request-header)

  @§chatlog-fence-closed @§chatlog-partial-fence @§chatlog-request-header
  Scenario Outline: a fence is three or more backticks or tildes, indented three spaces at most, closed by at least as many of the same
    Given the log "**a** to t at 10:00:00\n<open>\n1\n<close>\n**a** to t at 10:00:01\n```JS\n2\n```"
    Then the log has <requests> requests and <replies> replies
    And the request on line <line> is <state>
    And the request on line <line> runs "<code>"

    Examples:
      | open        | close       | requests | replies | line | state   | code                                          |
      | ```JS       | ```         | 2        | 0       | 1    | closed  | 1                                             |
      | ``JS        | ``          | 1        | 1       | 5    | closed  | 2                                             |
      | \u0020``JS | \u0020``   | 1        | 1       | 5    | closed  | 2                                             |
      | \u0020\u0020\u0020```JS | \u0020\u0020\u0020``` | 2 | 0 | 1 | closed | 1                                 |
      | ````JS      | ```         | 1        | 0       | 1    | a draft | 1\n```\n**a** to t at 10:00:01\n```JS\n2\n``` |
      | ```JS       | ````        | 2        | 0       | 1    | closed  | 1                                             |
      | ```JS       | ```\u0020x  | 1        | 0       | 1    | closed  | 1\n``` x\n**a** to t at 10:00:01\n```JS\n2 |
      | ```JS       | ```\u0020\t | 2        | 0       | 1    | closed  | 1                                             |
      | ~~~JS       | ```         | 1        | 0       | 1    | a draft | 1\n```\n**a** to t at 10:00:01\n```JS\n2\n``` |
      | ~~~JS       | ~~~~        | 2        | 0       | 1    | closed  | 1                                             |
      | ```JS`x     | ``          | 1        | 1       | 5    | closed  | 2                                             |
      | ```JS       | \u0020\u0020\u0020\u0020``` | 1 | 0 | 1 | closed | 1\n    ```\n**a** to t at 10:00:01\n```JS\n2 |
      | ````JS      | \u0020```  | 1        | 0       | 1    | a draft | 1\n ```\n**a** to t at 10:00:01\n```JS\n2\n``` |

  @§chatlog-request-header @§chatlog-timestamp
  Scenario Outline: a header needs bold agent, "to", a page and at most a valid HH:MM:SS
    Given the log "<header>\n```JS\n1\n```"
    Then the log has <requests> requests and <replies> replies

    Examples:
      | header                           | requests | replies |
      | **a** to t at 23:59:59           | 1        | 0       |
      | **a** to t at 00:00:00           | 1        | 0       |
      | **a** to t                       | 1        | 0       |
      | **a** to t at 24:00:00           | 0        | 0       |
      | **a** to t at 10:60:00           | 0        | 0       |
      | **a** to t at 10:00:60           | 0        | 0       |
      | ** ** to t at 10:00:00           | 0        | 0       |
      | **a**to t at 10:00:00            | 0        | 0       |
      | *a* to t at 10:00:00             | 0        | 0       |
      | **a** to t at 10:00:00 (5ms)     | 0        | 1       |
      | **a** to\u0020                    | 0        | 0       |
      | **a** to                         | 0        | 0       |
      | a*b** to t at 10:00:00           | 0        | 0       |
      | *a** to t at 10:00:00            | 0        | 0       |
      | a**b** to t at 10:00:00          | 0        | 0       |
      | **a*b to t at 10:00:00           | 0        | 0       |

  @§chatlog-request-header @§chatlog-timestamp @decision
  Scenario Outline: what is a header where the seed gives no rule
    Given the log "<header>\n```JS\n1\n```"
    Then the log has <requests> requests and <replies> replies per Decision (§chatlog-request-header)

    Examples:
      | header                           | requests | replies |
      | **a** to t at 10:00:00 \t        | 1        | 0       |
      | **a** to t at 10:00:00 (5 ms)    | 0        | 0       |
      | **a** to t at 10:00:00 (late)    | 0        | 1       |
      | **a** to t at 10:00:00 (soon)    | 0        | 0       |
      | **a** to t at 10:00:00 (soon     | 1        | 0       |
      | **a** to\u0020\u0020t at 10:00:00 | 0        | 0       |
      | **a** to \u000ct at 10:00:00     | 0        | 0       |
      | **a** to t\u000c                  | 0        | 0       |
      | **a** to t)                      | 1        | 0       |
      | **a** to t at 10:00:00 (**ERROR**) | 0      | 1       |
      | **a*** to t at 10:00:00          | 0        | 0       |

  @§chatlog-duration-format @§chatlog-reply-header @§chatlog-error-header
  Scenario Outline: a reply header's duration reads back in milliseconds
    Given the log "**a** to t at 10:00:00\n```JS\n1\n```\n**t** to a at 10:00:01 (<paren>)\n```JSON\n1\n```"
    Then the log has 1 request and 1 reply
    And the reply on line 5 took <ms> ms
    And the reply on line 5 <err> an error

    Examples:
      | paren                  | ms              | err    |
      | 0ms                    | 0               | is not |
      | 17ms                   | 17              | is not |
      | 2000ms                 | 2000            | is not |
      | 2.5s                   | 2500            | is not |
      | 60s                    | 60000           | is not |
      | 2.05s                  | 2050            | is not |
      | **ERROR** after 16ms   | 16              | is     |

  @§chatlog-duration-format @§chatlog-reply-header @decision
  Scenario Outline: a reply header's marks and long durations read back
    Given the log "**a** to t at 10:00:00\n```JS\n1\n```\n**t** to a at 10:00:01 (<paren>)\n```JSON\n1\n```"
    Then the log has 1 request and 1 reply per Decision (§chatlog-reply-header)
    And the reply on line 5 took <ms> ms per Decision (§chatlog-reply-header)
    And the reply on line 5 <err> an error per Decision (§chatlog-reply-header)

    Examples:
      | paren                  | ms              | err    |
      | 61.005s, late          | 61005           | is not |
      | 999999999999s          | 999999999999000 | is not |
      | **ERROR** after 60s, timeout | 60000     | is     |

  @§chatlog-duration-format @§chatlog-reply-header
  Scenario Outline: what is not a duration of the seed's forms makes the line no reply
    Given the log "**a** to t at 10:00:00\n```JS\n1\n```\n**t** to a at 10:00:01 (<paren>)\n```JSON\n1\n```"
    Then the log has 1 request and 0 replies

    Examples:
      | paren            |
      | -5ms             |
      | +5ms             |
      | -5s              |
      | +2.5s            |
      | **ERROR** after -5s |
      | 5s5ms            |
      | s                |
      | ms               |
      | **ERROR** after  |
      | **ERROR** after x |
      | 17               |
      | **ERROR** after 16 |
      | 2.5xs            |
      | **ERROR** after 2.5xs |

  @§chatlog-duration-format @§chatlog-reply-header @decision
  Scenario Outline: what is not a duration makes the line plain text
    Given the log "**a** to t at 10:00:00\n```JS\n1\n```\n**t** to a at 10:00:01 (<paren>)\n```JSON\n1\n```"
    Then the log has 1 request and 0 replies per Decision (§chatlog-duration-format)

    Examples:
      | paren            |
      | 17 ms            |
      | 2.s              |
      | .5s              |
      | 1.5ms            |
      | 9999999999999s   |
      | 2.5s, soon       |
      | 17ms,late        |

  @§chatlog-rewrite-orphan @§chatlog-job-states
  Scenario: a rewrite that removes answered requests orphans nothing
    Given a running server with a 5 s job timeout
    And the page "Index - 7 Zen" is connected
    When agent "agent" asks "Index - 7 Zen" to run "1+1"
    And 1 s passes
    And agent "agent" asks "Index - 7 Zen" to run "throw 2"
    And 1 s passes
    And the page "Index - 7 Zen" hangs
    And agent "agent" asks "Index - 7 Zen" to run "3+3"
    And 6 s pass
    And an editor saves the log of "Index - 7 Zen" without the requests "1+1", "throw 2" and "3+3"
    And 1 s passes
    Then the job running "1+1" went through requested, dispatched, completed
    And the job running "throw 2" went through requested, dispatched, failed
    And the job running "3+3" went through requested, dispatched, timeout
    And the console notes no job orphaned or cancelled
    And the console says "was rewritten; reparsing its tail" per Decision (§chatlog-tail-only)
    And the console does not say "no transition" per Decision (§chatlog-rewrite-orphan)

  @§chatlog-rewrite-orphan @§chatlog-tail-only
  Scenario: a rewrite read from the middle of a long reply still finds the request after it
    # The tail read after the rewrite starts inside the reply's text, among
    # plain lines and a blank one: the fence that closes the reply must not
    # be taken for one that opens.
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" appends to the log of "Quiet":
      """
      **<page>** to agent at 08:00:00 (1ms)
      ```Text
      """
    And agent "agent" appends 2000 copies of this to the log of "Quiet" in one write:
      """
      a line of the long text the page answered, forty bytes
      """
    And agent "agent" appends to the log of "Quiet":
      """

      ```
      """
    And agent "agent" asks "Quiet" to run "1+1"
    And agent "agent" asks "Quiet" to run "2+2"
    And 1 s passes
    And an editor saves the log of "Quiet" without the request "2+2"
    And 1 s passes
    Then the job running "2+2" went through requested, orphaned
    And the job running "1+1" went through requested

  @§chatlog-rewrite-orphan @§chatlog-debounce
  Scenario: an edit that keeps the log's size is still noticed
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" asks "Quiet" to run "1+2"
    And 1 s passes
    And an editor saves the log of "Quiet" with "1+2" replaced by "3+4"
    And 1 s passes
    Then the job running "1+2" went through requested, orphaned
    And the job running "3+4" went through requested

  @§chatlog-reply-pairing @§chatlog-executing-placeholder @decision
  Scenario: a final reply takes its placeholder's request, whatever the clocks say
    Given the log:
      """
      **a** to t at 10:00:05
      ```JS
      1
      ```
      **a** to t at 10:00:01
      ```JS
      2
      ```
      **t** to a at 10:00:06
      executing ...
      **t** to a at 10:00:03 (5ms)
      ```JSON
      1
      ```
      """
    Then the reply on line 11 pairs with the request on line 1 per Decision (§chatlog-reply-pairing)
    And the log has 2 requests and 2 replies per Decision (§chatlog-reply-pairing)

  @§chatlog-reply-pairing @§chatlog-executing-placeholder
  Scenario: an executing placeholder is a reply to the closest earlier request of its agent
    # The seed's closing examples show the placeholder as a reply to the request above it; what the
    # final reply after it takes is a Decision (the scenario above).
    Given the log:
      """
      **a** to t at 10:00:05
      ```JS
      1
      ```
      **a** to t at 10:00:01
      ```JS
      2
      ```
      **t** to a at 10:00:06
      executing ...
      """
    Then the log has 2 requests and 1 reply
    And the reply on line 9 pairs with the request on line 1

  @§chatlog-reply-pairing
  Scenario: a reply before any request takes nothing from the requests after it
    Given the log:
      """
      **t** to a at 10:00:00
      executing ...
      **a** to t at 10:00:01
      ```JS
      1
      ```
      **t** to a at 10:00:02 (5ms)
      ```JSON
      1
      ```
      """
    Then the reply on line 1 pairs with no request
    And the reply on line 7 pairs with the request on line 3

  @§chatlog-reply-pairing @§chatlog-late-result
  Scenario: a late reply answers its request, so the next reply finds none waiting
    Given the log:
      """
      **a** to t at 10:00:00
      ```JS
      1
      ```
      **t** to a at 10:01:01 (61.005s, late)
      ```JSON
      1
      ```
      **t** to a at 10:01:02 (5ms)
      ```JSON
      2
      ```
      """
    Then the reply on line 5 pairs with the request on line 1
    And the reply on line 9 pairs with no request

  @§chatlog-result-fences @§chatlog-request-job
  Scenario: a reply whose error stack stands as plain text answers its request
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" appends to the log of "Quiet":
      """
      **agent** to <page> at 09:00:00
      ```JS
      missing()
      ```
      **<page>** to agent at 09:00:00
      ReferenceError: missing is not defined
          at <anonymous>:1:1
      """
    And 1 s passes
    Then "Quiet" has 0 jobs
    When the log of "Quiet" is parsed
    Then the reply on line 5 pairs with the request on line 1

  @§chatlog-rewrite-orphan @§chatlog-instance-order
  Scenario: orphaning one queued job leaves the others queued in file order
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 10000 ms to run each job
    When agent "agent" asks "Index - 7 Zen" to run "1+1"
    And 1 s passes
    And agent "agent" asks "Index - 7 Zen" to run "2+2"
    And agent "agent" asks "Index - 7 Zen" to run "3+3"
    And 1 s passes
    And an editor saves the log of "Index - 7 Zen" without the request "2+2"
    And 30 s pass
    Then the job running "2+2" went through requested, orphaned
    And the job running "3+3" went through requested, dispatched, completed
    And the log of "Index - 7 Zen" ends with:
      """
      ```JSON
      6
      ```
      """

  @§chatlog-rewrite-orphan @§chatlog-instance-order @decision
  Scenario: orphaning the job a page is running frees the page for the next request, and its result is dropped
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 10000 ms to run each job
    When agent "agent" asks "Index - 7 Zen" to run "1+1"
    And 1 s passes
    And an editor saves the log of "Index - 7 Zen" without the request "1+1"
    And 1 s passes
    Then the console notes a job orphaned or cancelled
    And the console says "job <page>#1 orphaned: its request (agent at 09:00:00) is gone from debug/<page>.md after a rewrite" per Decision (§chatlog-rewrite-orphan)
    When agent "agent" asks "Index - 7 Zen" to run "3+3"
    And 20 s pass
    Then the console says "job <page>#1: result dropped, its request is gone from debug/<page>.md" per Decision (§chatlog-rewrite-orphan)
    And the log of "Index - 7 Zen" ends with:
      """
      ```JSON
      6
      ```
      """
    And the log of "Index - 7 Zen" has no reply carrying 2 per Decision (§chatlog-rewrite-orphan)

  @§chatlog-rewrite-orphan @§chatlog-timestamp @§chatlog-request-job @decision
  Scenario: a request written without a time keeps its one job through a rewrite
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" appends to the log of "Quiet":
      """
      Notes: draft
      **agent** to <page>
      ```JS
      1+1
      ```
      """
    And 2 s pass
    Then "Quiet" has 1 job
    When an editor saves the log of "Quiet" with "Notes: draft" replaced by "Notes: final"
    And 2 s pass
    Then "Quiet" has 1 job
    And the console notes no job orphaned or cancelled
    And the console says "debug/<page>.md was rewritten; reparsing its tail" per Decision (§chatlog-tail-only)

  @§chatlog-tail-only
  Scenario: after plain text the parse resumes where the text ends
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" appends to the log of "Quiet":
      """
      Notes before the first request.
      More notes.
      """
    And 1 s passes
    And agent "agent" asks "Quiet" to run "1"
    And 1 s passes
    Then "Quiet" has 1 job
    And the console says "job <page>#1 requested by agent at 09:00:01 (debug/<page>.md)" per Decision (§chatlog-tail-only)

  @§chatlog-tail-only
  Scenario: a note whose fence is not finished yet is read again from its start, not from the log's
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the log of "Index - 7 Zen" already holds 1 MB of earlier conversation
    When agent "agent" appends to the log of "Index - 7 Zen":
      """
      Notes with a sketch:
      ```
      unfinished
      """
    And 1 s passes
    And I note how much the server has read
    And agent "agent" appends to the log of "Index - 7 Zen":
      """
      ```
      """
    And agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    Then noticing it read less than 128 KB
    And the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:02 (5ms)
      ```JSON
      25
      ```
      """

  @§chatlog-tail-only
  Scenario: after a reply whose text is still being written the parse takes the text up again
    # The reply's one line of text has no line break yet: the parse stops after the
    # reply's header and takes the text up again when it is finished.
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" appends to the log of "Quiet" without a final line break:
      """
      **<page>** to agent at 08:00:00 (1ms)
      Error: the page went aw
      """
    And 1 s passes
    And agent "agent" appends to the log of "Quiet":
      """
      ay
      """
    And agent "agent" asks "Quiet" to run "1"
    And 1 s passes
    Then "Quiet" has 1 job
    And the console says "job <page>#1 requested by agent at 09:00:01 (debug/<page>.md)" per Decision (§chatlog-tail-only)

  @§chatlog-late-result @§chatlog-reply-pairing @decision
  Scenario: a late reply pairs with the request its timeout entry closed
    Given the log:
      """
      **ann** to tab at 10:00:00
      ```JS
      1
      ```
      **tab** to ann at 10:01:00 (**ERROR** after 60s, timeout)
      ```Error
      timeout: no result after 60s
      ```
      **ann** to tab at 10:01:30
      ```JS
      2
      ```
      **tab** to ann at 10:01:31 (61.005s, late)
      ```JSON
      1
      ```
      """
    Then the reply on line 5 pairs with the request on line 1
    And the reply on line 13 pairs with the request on line 1 per Decision (§chatlog-reply-pairing)

  @§chatlog-late-result @§chatlog-reply-pairing @decision
  Scenario: a late reply with no timeout entry before it answers a request, which the next reply then skips
    Given the log:
      """
      **ann** to tab at 10:00:00
      ```JS
      1
      ```
      **ann** to tab at 10:00:05
      ```JS
      2
      ```
      **tab** to ann at 10:01:01 (61.005s, late)
      ```JSON
      2
      ```
      **tab** to ann at 10:01:02 (3ms)
      ```JSON
      1
      ```
      """
    Then the reply on line 9 pairs with the request on line 5 per Decision (§chatlog-reply-pairing)
    And the reply on line 13 pairs with the request on line 1 per Decision (§chatlog-reply-pairing)

  @§chatlog-tail-only @§chatlog-executing-placeholder
  Scenario: an edit of a running job's placeholder is noticed as a rewrite
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" hangs
    When agent "agent" asks "Index - 7 Zen" to run "1"
    And 1 s passes
    Then the console does not say "was rewritten" per Decision (§chatlog-tail-only)
    # The placeholder is a MAY of the seed: a server that writes none has nothing to edit here.
    Given the log of "Index - 7 Zen" holds an executing placeholder
    When an editor saves the log of "Index - 7 Zen" with "executing ..." replaced by "executing !!!"
    And 1 s passes
    Then the console says "debug/<page>.md was rewritten; reparsing its tail" per Decision (§chatlog-tail-only)

  @§chatlog-tail-only @§chatlog-request-job @decision
  Scenario: after a restart a large log is read from its tail, and old answered requests are not run again
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the log of "Index - 7 Zen" already holds 1 MB of earlier conversation
    When the server restarts
    And 1 s passes
    And agent "agent" asks "Index - 7 Zen" to run "6*7"
    And 1 s passes
    Then "Index - 7 Zen" has 1 job
    And the job running "6*7" went through requested, dispatched, completed
    And the log of "Index - 7 Zen" ends with per Decision (§chatlog-instance-dir)
      """
      **<page>** to agent at 09:00:02 (5ms)
      ```JSON
      42
      ```
      """
    And that holds byte for byte per Decision (§chatlog-instance-dir)
    And no server write changed a byte that was already in a log

  @§chatlog-tail-only @§chatlog-request-job
  Scenario: after a restart a log that ends in a long run of blank lines is read from its tail
    # Wherever the tail read begins, it begins at a line break.
    Given a running server
    And the page "Index - 7 Zen" is connected
    When agent "agent" appends 100000 copies of this to the log of "Index - 7 Zen" in one write:
      """
      """
    And 1 s passes
    And the server restarts
    And 1 s passes
    And agent "agent" asks "Index - 7 Zen" to run "6*7"
    And 1 s passes
    Then "Index - 7 Zen" has 1 job
    And the job running "6*7" went through requested, dispatched, completed
    And no server write changed a byte that was already in a log

  @§chatlog-tail-only @§chatlog-rewrite-orphan @§chatlog-request-job
  Scenario: after a rewrite of a large log, a waiting request is not queued again
    Given a running server
    And a log for "Quiet" that no realm polls
    And the log of "Quiet" already holds 1 MB of earlier conversation
    When agent "agent" asks "Quiet" to run "6*7"
    And 1 s passes
    And an editor saves the log of "Quiet" with "1*2" replaced by "2"
    And 1 s passes
    And agent "agent" asks "Quiet" to run "7*8"
    And 1 s passes
    Then "Quiet" has 2 jobs
    And the console notes no job orphaned or cancelled
    And the console says "was rewritten; reparsing its tail" per Decision (§chatlog-tail-only)

  @§chatlog-tail-only @§chatlog-rewrite-orphan @decision
  Scenario: a cold read of a large log does not start at a header-like line followed by plain text
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" appends to the log of "Quiet":
      """
      Notes:
      ```
      """
    And agent "agent" appends 2000 copies of this to the log of "Quiet" in one write:
      """
      // a line of notes inside a fence, forty bytes
      """
    And agent "agent" appends to the log of "Quiet":
      """
      **note** to self
      a plain line
      ```
      **agent** to <page> at 10:00:01
      ```JS
      7*8
      ```
      """
    And 1 s passes
    Then "Quiet" has 1 job
    When an editor saves the log of "Quiet" with "Notes:" replaced by "N:"
    And 1 s passes
    Then the job running "7*8" went through requested
    And the console notes no job orphaned or cancelled
    And the console says "was rewritten; reparsing its tail" per Decision (§chatlog-tail-only)

  @§chatlog-rewrite-orphan @§chatlog-request-job @decision
  Scenario: of two requests alike, the job of the one an editor removed is orphaned, even after an earlier rewrite moved the other
    Given a running server
    And a log for "Quiet" that no realm polls
    When agent "agent" appends to the log of "Quiet":
      """
      Notes: these notes are long enough to move the first request well past where the second one will stand once they are gone.
      More notes, so that the first request moves by more than the length of a request.
      **agent** to first at 10:00:00
      ```JS
      1
      ```
      """
    And 1 s passes
    And an editor saves the log of "Quiet" with "Notes: these notes are long enough to move the first request well past where the second one will stand once they are gone.\nMore notes, so that the first request moves by more than the length of a request.\n" replaced by ""
    And 1 s passes
    And agent "agent" appends to the log of "Quiet":
      """
      **agent** to second at 10:00:00
      ```JS
      1
      ```
      """
    And 1 s passes
    Then "Quiet" has 2 jobs
    When an editor saves the log of "Quiet" with "**agent** to second at 10:00:00\n```JS\n1\n```\n" replaced by ""
    And 1 s passes
    Then job 2 of "Quiet" went through requested, orphaned
    And job 1 of "Quiet" went through requested
    And the console says "job <page>#2 orphaned" per Decision (§chatlog-rewrite-orphan)
    And the console does not say "job <page>#1 orphaned" per Decision (§chatlog-rewrite-orphan)

  @§chatlog-tail-only @§chatlog-partial-fence
  Scenario: a line still being written is read again whole once it is finished
    Given a running server
    And the page "Index - 7 Zen" is connected
    When agent "agent" appends to the log of "Index - 7 Zen" without a final line break:
      """
      **age
      """
    And 1 s passes
    And agent "agent" appends to the log of "Index - 7 Zen":
      """
      nt** to <page> at 09:00:01
      ```JS
      6*7
      ```
      """
    And 1 s passes
    Then "Index - 7 Zen" has 1 job
    And the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:01 (5ms)
      ```JSON
      42
      ```
      """

  @§chatlog-tail-only @§chatlog-executing-placeholder
  Scenario: after a placeholder the parse resumes past it
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" hangs
    When agent "agent" asks "Index - 7 Zen" to run "1"
    And 1 s passes
    And agent "agent" asks "Index - 7 Zen" to run "2"
    And 1 s passes
    Then "Index - 7 Zen" has 2 jobs
    And the console says "job <page>#2 requested by agent at 09:00:01 (debug/<page>.md)" per Decision (§chatlog-tail-only)

  @§chatlog-request-header @§chatlog-fence-closed @decision
  Scenario Outline: a line longer than 64 KiB is plain text, never a header or a fence
    Given a log whose request's <which> line is padded with spaces to <bytes> bytes
    Then the log has <requests> requests and <replies> replies per Decision (§chatlog-request-header)

    Examples:
      | which         | bytes | requests | replies |
      | header        | 65536 | 1        | 0       |
      | header        | 65537 | 0        | 0       |
      | opening fence | 65536 | 1        | 0       |
      | opening fence | 65537 | 0        | 1       |

  @§chatlog-request-header @§chatlog-fence-closed
  Scenario Outline: a very long header or opening fence line is either read whole or not read as one
    # Where a line becomes too long to be a header or a fence is ours to
    # choose; a request made of half a header or half a fence is not.
    Given a log whose request's <which> line is padded with spaces to <bytes> bytes
    Then every request the log has comes from "a" to "t" and runs "1"

    Examples:
      | which         | bytes |
      | header        | 65536 |
      | header        | 65537 |
      | opening fence | 65536 |
      | opening fence | 65537 |

  @§chatlog-fence-closed @decision
  Scenario Outline: a closing fence longer than 64 KiB does not close the request
    Given a log whose request's closing fence line is padded with spaces to <bytes> bytes
    Then the request on line 1 is <state> per Decision (§chatlog-fence-closed)

    Examples:
      | bytes | state   |
      | 65536 | closed  |
      | 65537 | a draft |
