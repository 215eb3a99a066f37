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

  @§chatlog-filename-pattern @§chatlog-sanitize @§chatlog-short-id
  Scenario Outline: a page title becomes a safe file name with a short id
    Given a running server
    When a page titled "<title>" connects
    Then the log of "<title>" is "debug/<name>-[0-9a-f]{4,8}\.md"

    Examples:
      | title            | name        |
      | Index - 7 Zen    | index-7-zen |
      | 12 Dove          | 12-dove     |
      | ../../etc/passwd | etc-passwd  |
      | A_B--c           | a-b-c       |
      | -Lead Trail-     | lead-trail  |

  @§chatlog-filename-pattern @§chatlog-sanitize @§chatlog-short-id @decision
  Scenario Outline: non-ASCII letters are dropped, a long name is cut, and a name left empty becomes "page"
    # The seed lets non-ASCII characters be "removed or replaced" and gives no
    # length: the reference removes them, cuts at 48 characters, says "page".
    Given a running server
    When a page titled "<title>" connects
    Then the log of "<title>" is "debug/[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{4,8}\.md"
    And the log of "<title>" is "debug/<name>-[0-9a-f]{4,8}\.md" per Decision (§chatlog-sanitize)

    Examples:
      | title            | name        |
      | Café Olé!        | caf-ol      |
      | 🐳🐳🐳              | page        |
      |                  | page        |
      | aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bcd | aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa |
      | xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx |

  @§chatlog-sanitize @decision
  Scenario: a 10,000-character title still gives a short name inside debug/
    Given a running server
    When a page titled with 10000 "x" characters connects
    Then the log of "long" lies inside "debug/"
    And the log of "long" is "debug/x+-[0-9a-f]{4,8}\.md"
    And the name of the log of "long" is at most 60 characters per Decision (§chatlog-sanitize)
    And the log of "long" is "debug/x{48}-[0-9a-f]{4}\.md" per Decision (§chatlog-sanitize)

  @§chatlog-short-id @decision
  Scenario: when every 4-digit id of a name is taken, the short id grows
    Given a running server
    And debug/ already holds a log for every 4-digit short id of "full"
    When a page titled "Full" connects
    Then the log of "Full" is "debug/full-[0-9a-f]{4,8}\.md"
    And the log of "Full" is new
    And the log of "Full" is "debug/full-[0-9a-f]{5}\.md" per Decision (§chatlog-short-id)
    And the registry line of "Full" reads "* full (http://localhost:8302/) last 09:00:00 state: idle"
    And that holds byte for byte per Decision (§chatlog-registry-header)

  @§chatlog-short-id
  Scenario: two pages with the same name get different logs
    Given a running server
    When the page "Dup" is connected
    And a page titled "dup!" connects
    Then the logs of "Dup" and "dup!" differ
