@chatlog
Feature: A failing disk
  The server's own writes can fail: a write error, a full disk, a write torn
  halfway. Whatever happens, the bytes already in a log stay, the log never
  ends inside a fence the server opened, and the next request is answered.

  Background:
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 12 ms to run each job

  @§chatlog-append-only @§chatlog-executing-placeholder
  Scenario Outline: a placeholder that cannot be written holds the job back until it can
    Given the disk fails the server's next write to the log of "Index - 7 Zen" with <how>
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    Then the console says "job <page>#1 not dispatched, its placeholder not written: append to debug/<page>.md:" per Decision (§chatlog-append-only)
    And the console says "<error>" per Decision (§chatlog-append-only)
    And the console does not say "short write" per Decision (§chatlog-append-only)
    And the log of "Index - 7 Zen" ends with per Decision (§chatlog-append-only)
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
    And that holds byte for byte per Decision (§chatlog-append-only)
    And the job running "12+13" went through requested, dispatched, completed
    And no server write changed a byte that was already in a log

    Examples:
      | how            | error                   |
      | EIO            | input/output error      |
      | ENOSPC         | no space left on device |
      | a refused open | permission denied       |

  @§chatlog-append-only @decision
  Scenario: a reply whose log fails to close is told on the console
    # The bytes were written before the close failed: the reply is there, but
    # the server cannot know it is safe on the disk.
    Given the disk fails the server's next write to the log of "Index - 7 Zen" after 1 good ones with a failed close
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:00 (17ms)
      ```JSON
      25
      ```
      """
    And the console says "job <page>#1: reply not written: append to debug/<page>.md: close: " per Decision (§chatlog-append-only)
    And the console says "input/output error" per Decision (§chatlog-append-only)

  @§chatlog-append-only @§chatlog-partial-fence
  Scenario Outline: a reply torn halfway is closed off, and the next request still gets its answer
    Given the disk fails the server's next write to the log of "Index - 7 Zen" after 1 good ones with <how>
    When agent "agent" asks "Index - 7 Zen" to run "'x'.repeat(300)"
    And 1 s passes
    Then the console says "job <page>#1: reply not written: append to debug/<page>.md:" per Decision (§chatlog-append-only)
    When agent "agent" asks "Index - 7 Zen" to run "6*7"
    And 1 s passes
    Then the log of "Index - 7 Zen" matches per Decision (§chatlog-append-only)
      """
      \*\*<page>\*\* to agent at 09:00:00 \(17ms\)
      ```JSON
      "x{50,250}
      ```
      \*\*agent\*\* to <page> at 09:00:01
      ```JS
      6\*7
      ```
      """
    And the log of "Index - 7 Zen" contains, byte for byte per Decision (§chatlog-append-only)
      """
      **<page>** to agent at 09:00:01 (17ms)
      ```JSON
      42
      ```
      """
    And the job running "6*7" went through requested, dispatched, completed
    # Whichever entry the disk tore, the log is outside any fence after it:
    # the next request runs and is answered.
    When agent "agent" asks "Index - 7 Zen" to run "1+2"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **agent** to <page> at 09:00:02
      ```JS
      1+2
      ```
      **<page>** to agent at 09:00:02 (17ms)
      ```JSON
      3
      ```
      """
    And the console does not say "<nil>" per Decision (§chatlog-append-only)
    And the console does not say "healing the torn entry failed" per Decision (§chatlog-append-only)
    And no server write changed a byte that was already in a log

    Examples:
      | how           |
      | a torn write  |
      | a short write |

  @§chatlog-registry-server-owned @decision
  Scenario: a registry the disk refuses to write does not stop the jobs
    Given the disk fails every write of the registry
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:00 (17ms)
      ```JSON
      25
      ```
      """
    And the console says "registry debug.md not written: " per Decision (§chatlog-registry-server-owned)
    And the file ".debug.md.new" does not exist per Decision (§chatlog-registry-server-owned)

  @§chatlog-instance-dir
  Scenario: a page whose log cannot be made is refused, and joins once it can be
    # An instance has its own log: one the disk will not let the server
    # create is no instance; the page is told so and may try again.
    Given the adapter transport is served over HTTP
    And the disk refuses new files
    Then a page titled "Remote" that registers over HTTP is refused
    And the registry does not contain "remote"
    When the disk accepts new files
    And a page titled "Remote" registers over HTTP
    Then the registry contains "remote"

  @§chatlog-append-only
  Scenario: a log that does not end with a line break gets the server's entry on a line of its own
    When agent "agent" appends to the log of "Index - 7 Zen" without a final line break:
      """
      **agent** to <page> at 09:00:00
      ```JS
      12+13
      ```
      """
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
    And that holds byte for byte per Decision (§chatlog-append-only)
    And no server write changed a byte that was already in a log

  @§chatlog-request-job @§chatlog-append-only
  Scenario: a request whose closing line has no line break runs once, however long it runs
    # The server reads the request again while the page runs it: its
    # placeholder is below it, its reply not yet.
    Given the page "Index - 7 Zen" takes 3000 ms to run each job
    When agent "agent" appends to the log of "Index - 7 Zen" without a final line break:
      """
      **agent** to <page> at 09:00:00
      ```JS
      12+13
      ```
      """
    And 5 s pass
    Then "Index - 7 Zen" has 1 job
    And the log of "Index - 7 Zen" ends with:
      """
      **agent** to <page> at 09:00:00
      ```JS
      12+13
      ```
      **<page>** to agent at 09:00:03 (3.005s)
      ```JSON
      25
      ```
      """
