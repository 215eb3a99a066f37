@chatlog
Feature: Per-instance log format
  A request is a header line and a fenced block; the reply is a header with
  the duration and the result in a JSON, Text or Error fence. The server
  only ever appends.

  Background:
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 12 ms to run each job

  @§chatlog-request-header @§chatlog-reply-header @§chatlog-result-fences @§chatlog-executing-placeholder @§chatlog-append-only @decision
  Scenario: a request gets an executing placeholder, then its reply below it
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **agent** to <page> at 09:00:00
      ```JS
      12+13
      ```
      **<page>** to agent at 09:00:00
      executing ...
      **<page>** to agent at 09:00:00 (17ms)
      ```JSON
      25
      ```
      """
    And that holds byte for byte per Decision (§chatlog-executing-placeholder)
    And no server write changed a byte that was already in a log

  @§chatlog-error-header @§chatlog-result-fences
  Scenario: a thrown error gives an ERROR header and an Error fence with the stack
    When agent "agent" asks "Index - 7 Zen" to run "throw new Error('test error')"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:00 (**ERROR** after 17ms)
      ```Error
      Error: test error
          at …
      …
      ```
      """
    And that holds byte for byte per Decision (§chatlog-result-fences)

  @§chatlog-result-fences
  Scenario: a value with no JSON form is written as Text
    When agent "agent" asks "Index - 7 Zen" to run "(x) => x + 1"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:00 (17ms)
      ```Text
      (x) => x + 1
      ```
      """
    And that holds byte for byte per Decision (§chatlog-result-fences)

  @§chatlog-duration-format @decision
  Scenario Outline: durations are milliseconds up to 2000 ms, seconds above
    Given the page "Index - 7 Zen" takes <work> ms to run each job
    When agent "agent" asks "Index - 7 Zen" to run "1"
    And 5 s pass
    Then the log of "Index - 7 Zen" contains:
      """
      **<page>** to agent at <at> (<shown>)
      """
    And that holds byte for byte per Decision (§chatlog-duration-format)

    Examples:
      | work | shown  | at       |
      | 737  | 742ms  | 09:00:00 |
      | 1995 | 2000ms | 09:00:02 |
      | 2495 | 2.5s   | 09:00:02 |

  @§chatlog-timestamp
  Scenario: a request without a time takes the file's modification time
    When 7.9 s pass
    And agent "agent" appends to the log of "Index - 7 Zen":
      """
      **agent** to <page>
      ```JS
      6*7
      ```
      """
    And 1 s passes
    Then the job running "6*7" is stamped "09:00:07"
    And the registry contains "<page>#1 JS from agent at 09:00:07: completed (17ms)" per Decision (§chatlog-registry-pointers)
    And the log of "Index - 7 Zen" contains:
      """
      **<page>** to agent at 09:00:08 (17ms)
      ```JSON
      42
      ```
      """

  @§chatlog-fence-closed @§chatlog-partial-fence
  Scenario: a request whose fence is not closed is a draft, left alone until finished
    When agent "agent" appends to the log of "Index - 7 Zen":
      """
      **agent** to <page> at 09:00:00
      ```JS
      1+
      """
    And 10 s pass
    Then "Index - 7 Zen" has 0 jobs
    And the log of "Index - 7 Zen" ends with:
      """
      ```JS
      1+
      """
    When agent "agent" appends to the log of "Index - 7 Zen":
      """
      2
      ```
      """
    And 1 s passes
    Then "Index - 7 Zen" has 1 job
    And the log of "Index - 7 Zen" contains:
      """
      ```JSON
      3
      ```
      """
    And no server write changed a byte that was already in a log

  @§chatlog-reply-header @§chatlog-request-header @decision
  Scenario Outline: a page name that would not read back in a reply header is replaced by the instance's name
    When agent "agent" appends to the log of "Index - 7 Zen":
      """
      **agent** to <name> at 09:00:00
      ```JS
      1+1
      ```
      """
    And 1 s passes
    Then the job running "1+1" went through requested, dispatched, completed
    And the log of "Index - 7 Zen" ends with per Decision (§chatlog-reply-header)
      """
      **<page>** to agent at 09:00:00
      executing ...
      **<page>** to agent at 09:00:00 (17ms)
      ```JSON
      2
      ```
      """
    And that holds byte for byte per Decision (§chatlog-reply-header)

    # odd**name gives a reply header that does not parse at all; a** to b
    # gives one that parses, but from "a" to "b** to agent".
    Examples:
      | name      |
      | odd**name |
      | a** to b  |

  @§chatlog-reply-header @§chatlog-request-header @decision
  Scenario: a reply whose header would not read back because the agent's name ends in a space names the instance
    When agent "agent" appends to the log of "Index - 7 Zen":
      """
      **agent ** to tab at 09:00:00
      ```JS
      1+1
      ```
      """
    And 1 s passes
    Then the job running "1+1" went through requested, dispatched, completed
    And the log of "Index - 7 Zen" ends with per Decision (§chatlog-reply-header)
      """
      **<page>** to agent  at 09:00:00
      executing ...
      **<page>** to agent  at 09:00:00 (17ms)
      ```JSON
      2
      ```
      """
    And that holds byte for byte per Decision (§chatlog-reply-header)

  @§chatlog-result-fences @§chatlog-append-only
  Scenario: a result with a fence of its own inside gets a longer fence
    When agent "agent" asks "Index - 7 Zen" to run "(() => 'a\\\n```')"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:00 (17ms)
      ````Text
      () => 'a\
      ```'
      ````
      """
    And that holds byte for byte per Decision (§chatlog-result-fences)
    When agent "agent" asks "Index - 7 Zen" to run "1+1"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:01 (17ms)
      ```JSON
      2
      ```
      """

  @§chatlog-adapter-language @decision
  Scenario Outline: js, javascript, mjs, ecmascript and node name the realm's language, the first word of the fence's info
    When agent "agent" asks "Index - 7 Zen" in "<tag>" to run "6*7"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with per Decision (§chatlog-adapter-language)
      """
      **<page>** to agent at 09:00:00 (17ms)
      ```JSON
      42
      ```
      """
    And that holds byte for byte per Decision (§chatlog-adapter-language)

    Examples:
      | tag        |
      | js         |
      | javascript |
      | JavaScript |
      | mjs        |
      | ecmascript |
      | node       |
      | js sum     |
      | js	sum    |

  @§chatlog-background-errors @decision
  Scenario: an error whose text holds "*/" cannot end the comment block early
    When the page "Index - 7 Zen" throws "throw new Error('a */ b')" in the background
    And agent "agent" asks "Index - 7 Zen" to run "1"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:00 (17ms)
      ```JSON
      1
      ```

      ```
      /*
      Error: a * / b
      …
      */
      ```
      """
    And that holds byte for byte per Decision (§chatlog-background-errors)
    And the log of "Index - 7 Zen" does not contain "a */ b" per Decision (§chatlog-background-errors)
