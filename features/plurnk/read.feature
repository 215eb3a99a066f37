@plurnk
Feature: READ
  A READ returns a channel's content with its mimetype, every line numbered
  `N:\t`; a missing entry answers 404.

  @§read-read-content
  Scenario: a READ returns the numbered content and its mimetype
    Given the entry known:///notes.md contains "# Notes\n- buy milk"
    When the model emits <<READ(known:///notes.md)::READ
    Then the action answers 200
    And the result content is:
      """
      1:\t# Notes
      2:\t- buy milk
      """
    And the result mimetype is "text/markdown"

  @§read-read-content
  Scenario: a READ with <L> returns only those lines, numbered as in the source
    Given the entry known:///list.md contains "a\nb\nc\nd"
    When the model emits <<READ(known:///list.md)<2,3>::READ
    Then the action answers 200
    And the result content is:
      """
      2:\tb
      3:\tc
      """

  @§read-read-404
  Scenario: a READ of an entry that does not exist answers 404
    When the model emits <<READ(known:///missing.md)::READ
    Then the action answers 404

  @§read-read-content
  Scenario: a READ over a glob returns one item per entry
    Given the entry known:///docs/a.md contains "alpha"
    And the entry known:///docs/b.md contains "beta"
    And the entry known:///other.md contains "gamma"
    When the model emits <<READ(known:///docs/*.md)::READ
    Then the action answers 200
    And the result lists 2 items
    And item 1 is known:///docs/a.md with content:
      """
      1:\talpha
      """
    And item 2 is known:///docs/b.md with content:
      """
      1:\tbeta
      """

  @§read-read-content @decision
  Scenario: <N> reads line N alone, <a,b> a range, a negative mark counts from the end
    Given the entry known:///list.md contains "a\nb\nc\nd"
    When the model emits <<READ(known:///list.md)<2>::READ
    Then the action answers 200
    And the result content is:
      """
      2:\tb
      """
    When the model emits <<READ(known:///list.md)<-2,-1>::READ
    Then the result content is: per Decision (§read-read-content)
      """
      3:\tc
      4:\td
      """
    When the model emits <<READ(known:///list.md)<5>::READ
    Then the action answers 416 per Decision (§read-read-content)
    When the model emits <<READ(known:///list.md)<1.5>::READ
    Then the action answers 400 per Decision (§read-read-content)

  @§matcher-result-read-returns-lines @decision
  Scenario: a READ through a glob records one log row per entry with a match, each with that entry's lines
    Given the entry known:///docs/a.md contains "alpha\nTODO one"
    And the entry known:///docs/b.md contains "beta"
    And the entry known:///docs/c.md contains "TODO two\ngamma"
    When the model emits <<READ(known:///docs/*.md):TODO*:READ
    Then the action answers 200
    And the action's log rows are: per Decision (§matcher-result-read-returns-lines)
      | row          | target             | status |
      | log:///1/1/1 | known:///docs/a.md | 200    |
      | log:///1/1/2 | known:///docs/c.md | 200    |
    And item 1 is known:///docs/a.md with content: per Decision (§matcher-result-read-returns-lines)
      """
      2:\tTODO one
      """
    And item 2 is known:///docs/c.md with content: per Decision (§matcher-result-read-returns-lines)
      """
      1:\tTODO two
      """
    When the model emits <<READ(known:///docs/*.md):/nowhere/:READ
    Then the action answers 204
    And the action's log rows are: per Decision (§matcher-result-read-returns-lines)
      | row          | target             | status |
      | log:///1/1/3 | known:///docs/*.md | 204    |

  @§read-read-content @§render-rule-line-navigable-prefix
  Scenario: content that looks numbered already is numbered again: READ prefixes every line it returns
    Given the entry known:///nums.md contains "1:\tone\n2:\ttwo"
    When the model emits <<READ(known:///nums.md)::READ
    Then the action answers 200
    And the result content is "1:\t1:\tone\n2:\t2:\ttwo\n"
