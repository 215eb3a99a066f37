@chatlog
Feature: Compatibility
  During a migration debug.md itself can be the log of a single instance.

  @§chatlog-single-file-compat @decision
  Scenario: in single-file mode the one page's log is debug.md
    Given a running server in single-file mode
    And the page "Index - 7 Zen" is connected
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    Then the log of "Index - 7 Zen" is "debug\.md" per Decision (§chatlog-single-file-compat)
    And the log of "Index - 7 Zen" does not contain "# Connected pages:" per Decision (§chatlog-single-file-compat)
    And the log of "Index - 7 Zen" does not contain "state: " per Decision (§chatlog-single-file-compat)
    And the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:00 (5ms)
      ```JSON
      25
      ```
      """

  @§chatlog-single-file-compat @decision
  Scenario: in single-file mode a second page is refused
    Given a running server in single-file mode
    And the adapter transport is served over HTTP
    And the page "Index - 7 Zen" is connected
    Then POST "/api/register" with the body "{\"name\": \"Other\", \"url\": \"http://localhost:8302/\", \"lang\": \"JS\"}" answers 400 per Decision (§chatlog-single-file-compat)
    And the page "Index - 7 Zen" is still registered as before per Decision (§chatlog-single-file-compat)

  @§chatlog-single-file-compat @§chatlog-tail-only @decision
  Scenario: a debug.md that already holds a request is read once the page connects
    Given a running server in single-file mode
    And someone replaces the registry with "**agent** to tab at 08:59:00\n```JS\n12+13\n```\n"
    When the page "Index - 7 Zen" is connected
    And 0.3 s pass
    Then "Index - 7 Zen" has 1 job per Decision (§chatlog-single-file-compat)
    And the log of "Index - 7 Zen" ends with per Decision (§chatlog-single-file-compat)
      """
      **<page>** to agent at 09:00:00
      executing ...
      **<page>** to agent at 09:00:00 (5ms)
      ```JSON
      25
      ```
      """
    And that holds byte for byte per Decision (§chatlog-single-file-compat)
