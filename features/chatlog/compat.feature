@chatlog
Feature: Compatibility
  During a migration debug.md itself can be the log of a single instance.

  @§chatlog-single-file-compat @decision
  Scenario: in single-file mode the one page's log is debug.md
    Given a running server in single-file mode
    And the page "Index - 7 Zen" is connected
    When agent "agent" asks "Index - 7 Zen" to run "12+13"
    And 1 s passes
    Then the log of "Index - 7 Zen" is "debug\.md"
    And the log of "Index - 7 Zen" does not contain "# Connected pages:"
    And the log of "Index - 7 Zen" does not contain "state: "
    And the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:00 (5ms)
      ```JSON
      25
      ```
      """
