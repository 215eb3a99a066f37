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

  @§matcher-result-read-returns-lines
  Scenario: a jsonpath matcher reads the content as it is now, not as an earlier READ saw it
    Given the entry known:///config.json contains "{\n  \"host\": \"example.org\",\n  \"port\": 8080\n}"
    When the model emits <<READ(known:///config.json):$.port:READ
    Then the result content is:
      """
      3:\t  "port": 8080
      """
    When the entry known:///config.json contains "{\"port\": 8081}"
    And the model emits <<READ(known:///config.json):$.port:READ
    Then the action answers 200
    And the result content is:
      """
      1:\t{"port": 8081}
      """

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
    Given the workspace file broken.json contains "{\"host\": "
    When the model emits <<READ(broken.json):$.host:READ
    Then the action answers 203
    And the result content is "{\"host\": "
    And the result mimetype is "text/markdown"
    And the result reason mentions "not valid JSON" per Decision (§telemetry-no-error-scheme)
    And the result reason mentions "unexpected end of JSON input" per Decision (§telemetry-no-error-scheme)

  @§matcher-dispatch-203-soft-fallback
  Scenario: the parked semantic dialect answers 501
    Given the entry known:///notes.md contains "Rome was founded in 753 BC"
    When the model emits <<READ(known:///notes.md):~founding of cities:READ
    Then the action answers 501

  @§matcher-dispatch-203-soft-fallback @§matcher-result-read-returns-lines @decision
  Scenario: the regex dialect is RE2, with ^ and $ anchoring at every line
    Given the entry known:///todo.md contains "TODO one\n  TODO indented\nnot todo\ntodo lower"
    When the model emits <<READ(known:///todo.md):/^todo/i:READ
    Then the action answers 200
    And the result content is: per Decision (§matcher-dispatch-203-soft-fallback)
      """
      1:\tTODO one
      4:\ttodo lower
      """
    When the model emits <<READ(known:///todo.md):/(?<!not )todo/:READ
    Then the action answers 400 per Decision (§matcher-dispatch-203-soft-fallback)
    And the result reason mentions "RE2 has no lookbehind" per Decision (§matcher-dispatch-203-soft-fallback)
    When the model emits <<READ(known:///todo.md):/(todo)(?=x)\1/:READ
    Then the action answers 400 per Decision (§matcher-dispatch-203-soft-fallback)
    And the result reason mentions "RE2 has no lookahead" per Decision (§matcher-dispatch-203-soft-fallback)
    When the model emits <<FIND(known:///**):/(?<!not )todo/:FIND
    Then the action answers 400 per Decision (§matcher-dispatch-203-soft-fallback)
    And the result reason mentions "RE2 has no lookbehind" per Decision (§matcher-dispatch-203-soft-fallback)
    When the model emits <<READ(known:///todo.md):/(todo) \1/:READ
    Then the action answers 400 per Decision (§matcher-dispatch-203-soft-fallback)
    And the result reason mentions "RE2 has no backreferences" per Decision (§matcher-dispatch-203-soft-fallback)
    When the model emits <<READ(known:///todo.md):/todo(/:READ
    Then the action answers 400
    And the result reason mentions "not valid in the regex dialect" per Decision (§matcher-dispatch-203-soft-fallback)
    And the result reason does not mention "RE2 has no" per Decision (§matcher-dispatch-203-soft-fallback)

  @§matcher-result-read-returns-lines
  Scenario: a regex whose only match is the empty one at the end of the content selects the last line
    Given the entry known:///todo.md contains "all done"
    When the model emits <<READ(known:///todo.md):/$/:READ
    Then the action answers 200
    And the result content is:
      """
      1:\tall done
      """

  @§matcher-result-read-returns-lines @decision
  Scenario: a regex hit that crosses a line break selects every line it touches
    Given the entry known:///todo.md contains "call Ann\nabout rent\npay"
    When the model emits <<READ(known:///todo.md):/Ann\nabout/:READ
    Then the action answers 200
    And the result content is: per Decision (§matcher-result-read-returns-lines)
      """
      1:\tcall Ann
      2:\tabout rent
      """

  @§matcher-result-read-returns-lines
  Scenario: RFC 9535 jsonpath selects every line the selected values span
    Given the entry known:///config.json contains:
      """
      {
        "host": "example.org",
        "port": 8080,
        "server": {
          "name": "api",
          "port": 9090
        }
      }
      """
    When the model emits <<READ(known:///config.json):$..port:READ
    Then the action answers 200
    And the result content is:
      """
      3:\t  "port": 8080,
      6:\t    "port": 9090
      """
    When the model emits <<READ(known:///config.json):$.server[?@ == 'api']:READ
    Then the result content is:
      """
      5:\t    "name": "api",
      """
    When the model emits <<READ(known:///config.json):$.server:READ
    Then the result content is: per Decision (§matcher-result-read-returns-lines)
      """
      4:\t  "server": {
      5:\t    "name": "api",
      6:\t    "port": 9090
      7:\t  }
      """
    When the model emits <<READ(known:///config.json):$.server[:READ
    Then the action answers 400

  @§matcher-result-read-returns-lines
  Scenario: a jsonpath hit whose value sits on the line after its key returns the value's line
    Given the entry known:///config.json contains "{\n  \"port\":\n    8080\n}"
    When the model emits <<READ(known:///config.json):$.port:READ
    Then the action answers 200
    And the result content holds the line "3:\t    8080"

  @§matcher-result-read-returns-lines
  Scenario: an xpath matcher returns the lines of the nodes it selects in HTML
    Given the workspace file page.html contains "<html>\n<body>\n<h1 class=\"title\">Plan</h1>\n<p>see <a\n  href=\"/x\">x</a></p>\n</body>\n</html>"
    When the model emits <<READ(page.html)://h1:READ
    Then the action answers 200
    And the result content is:
      """
      3:\t<h1 class="title">Plan</h1>
      """
    And the result mimetype is "text/markdown"
    When the model emits <<READ(page.html)://a/@href:READ
    Then the result content is: per Decision (§matcher-result-read-returns-lines)
      """
      5:\t  href="/x">x</a></p>
      """
    When the model emits <<READ(page.html)://p:READ
    Then the result content is:
      """
      4:\t<p>see <a
      5:\t  href="/x">x</a></p>
      """

  @§matcher-result-read-returns-lines @decision
  Scenario: xpath reads JSON through its XML projection, members as elements and items as <item>
    Given the entry known:///users.json contains "{\n  \"users\": [\n    {\"name\": \"Ann\"},\n    {\"name\": \"Bo\"}\n  ]\n}"
    When the model emits <<READ(known:///users.json)://users/item[2]/name:READ
    Then the action answers 200
    And the result content is: per Decision (§matcher-result-read-returns-lines)
      """
      4:\t    {"name": "Bo"}
      """

  @§matcher-dispatch-203-soft-fallback @§mimetype-methods-process-entry-point @decision
  Scenario: xpath reads markup held in content of another type through its XML parse
    Given the entry known:///notes.md contains "<a>\n<b>x</b>\n</a>"
    When the model emits <<READ(known:///notes.md)://b:READ
    Then the action answers 200 or 203
    And the action answers 200 per Decision (§mimetype-methods-process-entry-point)
    And the result content is "2:\t<b>x</b>\n" per Decision (§mimetype-methods-process-entry-point)

  @§matcher-dispatch-203-soft-fallback @decision
  Scenario: xpath over content with no XML projection answers 203 with the raw text
    Given the entry known:///notes.md contains "just words, no markup"
    When the model emits <<READ(known:///notes.md)://p:READ
    Then the action answers 203
    And the result content is "just words, no markup"
    And the result carries a reason
    And the result mimetype is "text/markdown"
    And the result reason mentions "no XML projection" per Decision (§matcher-dispatch-203-soft-fallback)

  @§matcher-dispatch-203-soft-fallback
  Scenario Outline: a malformed expression answers 400 in every dialect
    Given the entry known:///config.json contains "{\"a\": 1}"
    When the model emits <<READ(known:///config.json):<matcher>:READ
    Then the action answers 400

    Examples:
      | matcher |
      | /(a/    |
      | $.a[    |
      | //a[    |
      | [a      |
