@plurnk
Feature: Matcher
  A READ whose body is a matcher returns the matching source lines, numbered
  in source coordinates, as text/markdown. The matcher's outcome is a
  status: 200 match, 204 none, 400 malformed, 203 source unparseable, 501
  for the parked ~semantic dialect.

  @§matcher-result-read-returns-lines @§matcher-dispatch-203-soft-fallback
  Scenario: a glob matcher returns the matching lines themselves
    Given the entry known:///todo.md contains "# Plan\nTODO call Ann\ndone: mail\nTODO pay rent"
    When the model emits <<READ(known:///todo.md):TODO*:READ
    Then the action answers 200
    And the result content is:
      """
      2:\tTODO call Ann
      4:\tTODO pay rent
      """
    And the result mimetype is "text/markdown"

  @§matcher-result-read-returns-lines
  Scenario: inside an <L> slice the lines keep their source numbers
    Given the entry known:///todo.md contains "TODO one\nskip\nTODO three\nTODO four"
    When the model emits <<READ(known:///todo.md)<2,3>:/TODO/:READ
    Then the action answers 200
    And the result content is:
      """
      3:\tTODO three
      """

  @§matcher-result-read-returns-lines
  Scenario: a jsonpath matcher returns the line where the path resolves, not the value
    Given the entry known:///config.json contains "{\n  \"host\": \"example.org\",\n  \"port\": 8080\n}"
    When the model emits <<READ(known:///config.json):$.port:READ
    Then the action answers 200
    And the result content is:
      """
      3:\t  "port": 8080
      """
    And the result mimetype is "text/markdown"

  @§matcher-result-read-returns-lines @§matcher-dispatch-203-soft-fallback
  Scenario: no match answers 204
    Given the entry known:///todo.md contains "all done"
    When the model emits <<READ(known:///todo.md):/TODO/:READ
    Then the action answers 204
    And the result content is empty

  @§matcher-dispatch-203-soft-fallback
  Scenario: a malformed expression answers 400
    Given the entry known:///todo.md contains "TODO"
    When the model emits <<READ(known:///todo.md):/(unclosed/:READ
    Then the action answers 400

  @§matcher-dispatch-203-soft-fallback @decision
  Scenario: a source that cannot be parsed answers 203 with the raw text and a reason
    Given the entry known:///broken.json contains "{\"host\": "
    When the model emits <<READ(known:///broken.json):$.host:READ
    Then the action answers 203
    And the result content is "{\"host\": "
    And the result mimetype is "text/markdown"
    And the result reason mentions "not valid JSON"

  @§matcher-dispatch-203-soft-fallback
  Scenario: the parked semantic dialect answers 501
    Given the entry known:///notes.md contains "Rome was founded in 753 BC"
    When the model emits <<READ(known:///notes.md):~founding of cities:READ
    Then the action answers 501
