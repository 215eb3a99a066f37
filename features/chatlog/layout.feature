@chatlog
Feature: Layout and naming
  The server keeps one registry, debug.md, and one log per realm instance
  under debug/, named after the page with a short hex id added.

  @§chatlog-registry-path @§chatlog-instance-dir
  Scenario: starting in an empty workspace creates the registry and the log directory
    Given an empty workspace
    When the server starts
    Then the file "debug.md" exists
    And the directory "debug" exists

  @§chatlog-filename-pattern @§chatlog-sanitize @§chatlog-short-id @decision
  Scenario Outline: a page title becomes a safe file name with a short id
    Given a running server
    When a page titled "<title>" connects
    Then the log of "<title>" is "debug/<name>-[0-9a-f]{4,8}\.md"

    Examples:
      | title            | name        |
      | Index - 7 Zen    | index-7-zen |
      | 12 Dove          | 12-dove     |
      | ../../etc/passwd | etc-passwd  |
      | Café Olé!        | caf-ol      |
      | 🐳🐳🐳              | page        |
      |                  | page        |
      | A_B--c           | a-b-c       |
      | -Lead Trail-     | lead-trail  |
      | aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bcd | aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa |
      | xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx |

  @§chatlog-sanitize
  Scenario: a 10,000-character title still gives a short name inside debug/
    Given a running server
    When a page titled with 10000 "x" characters connects
    Then the log of "long" lies inside "debug/" and its name is at most 60 characters
    And the log of "long" is "debug/x{48}-[0-9a-f]{4}\.md"

  @§chatlog-short-id
  Scenario: when every 4-digit id of a name is taken, the short id grows to 8 digits
    Given a running server
    And debug/ already holds a log for every 4-digit short id of "full"
    When a page titled "Full" connects
    Then the log of "Full" is "debug/full-[0-9a-f]{8}\.md"

  @§chatlog-short-id
  Scenario: two pages with the same name get different logs
    Given a running server
    When the page "Dup" is connected
    And a page titled "dup!" connects
    Then the logs of "Dup" and "dup!" differ
