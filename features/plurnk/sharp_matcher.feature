@plurnk
Feature: Sharp edges of the XPath matcher on XML
  XML is parsed strictly: a document that is not well-formed cannot be
  matched, so the READ answers 203 with the raw text and the reason, as a
  broken JSON source does. Only HTML is read leniently.

  @§matcher-dispatch-203-soft-fallback
  Scenario: an XPath READ of XML that is not well-formed answers 203 with the raw text
    Given the entry known:///feed.xml contains "<feed>\n<entry/>\n<entry>\n</feed>"
    When the model emits <<READ(known:///feed.xml)://entry:READ
    Then the action answers 203
    And the result content is "<feed>\n<entry/>\n<entry>\n</feed>"
    And the result carries a reason

  @§matcher-dispatch-203-soft-fallback @decision
  Scenario: the same unclosed markup in an HTML file is read leniently and matched
    Given the entry known:///page.html contains "<feed>\n<entry/>\n<entry>\n</feed>"
    When the model emits <<READ(known:///page.html)://entry:READ
    Then the action answers 200 per Decision (§matcher-dispatch-203-soft-fallback)

  @§matcher-dispatch-203-soft-fallback @§matcher-result-read-returns-lines
  Scenario Outline: HTML that breaks off mid-tag keeps the elements read before the break
    Given the entry known:///<file> contains "<div>\n<p>hi</p>\n<"
    When the model emits <<READ(known:///<file>)://p:READ
    Then the action answers <status> per Decision (§matcher-dispatch-203-soft-fallback)
    And the result content is "<content>" per Decision (§matcher-dispatch-203-soft-fallback)

    Examples:
      | file      | status | content                  |
      | cut.html  | 200    | 2:\t<p>hi</p>\n           |
      | cut.xml   | 203    | <div>\n<p>hi</p>\n<       |

  @§matcher-dispatch-203-soft-fallback
  Scenario: HTML in which no element can be read has no XML projection
    Given the entry known:///bare.html contains "just <"
    When the model emits <<READ(known:///bare.html)://p:READ
    Then the action answers 203 per Decision (§matcher-dispatch-203-soft-fallback)
    And the result reason mentions "no XML projection" per Decision (§matcher-dispatch-203-soft-fallback)

  @§matcher-result-read-returns-lines
  Scenario: an XPath READ of XML whose file ends in a newline matches like any other
    Given the entry known:///feed.xml contains "<feed>\n<entry id=\"a\"/>\n<entry id=\"b\"/>\n</feed>\n"
    When the model emits <<READ(known:///feed.xml)://entry[@id='b']:READ
    Then the action answers 200
    And the result content is "3:\t<entry id=\"b\"/>\n"

  @§matcher-result-read-returns-lines @decision
  Scenario: xpath over JSON compares a boolean member by its text
    Given the entry known:///flags.json contains "{\n  \"debug\": true,\n  \"quiet\": false\n}"
    When the model emits <<READ(known:///flags.json)://*[.='false']:READ
    Then the action answers 200 per Decision (§matcher-result-read-returns-lines)
    And the result content is "3:\t  \"quiet\": false\n" per Decision (§matcher-result-read-returns-lines)

  @§matcher-result-read-returns-lines
  Scenario: an attribute that starts its line or follows a tab is read on its own line
    Given the workspace file page.html contains "<p>\n<a\nhref=\"/x\"\n\ttitle=\"t\">x</a>\n</p>"
    When the model emits <<READ(page.html)://a/@href:READ
    Then the action answers 200
    And the result content holds the line "3:\thref=\"/x\""
    And the result content is "3:\thref=\"/x\"\n" per Decision (§matcher-result-read-returns-lines)
    When the model emits <<READ(page.html)://a/@title:READ
    Then the result content holds the line "4:\t\ttitle=\"t\">x</a>"
    And the result content is "4:\t\ttitle=\"t\">x</a>\n" per Decision (§matcher-result-read-returns-lines)

  @§matcher-result-read-returns-lines @decision
  Scenario Outline: a text node selects its non-blank text's lines, a blank one all of its own
    Given the entry known:///<file> contains "<content>"
    When the model emits <<READ(known:///<file>):<xpath>:READ
    Then the action answers 200
    And the result content is "<lines>" per Decision (§matcher-result-read-returns-lines)

    Examples:
      | file     | content                          | xpath        | lines                                   |
      | t.xml    | <a>\n  hi\n</a>                   | //a/text()   | 2:\t  hi\n                              |
      | u.xml    | <a>\n\n</a>                       | //a/text()   | 1:\t<a>\n2:\t\n                          |
      | v.json   | {\n  \"a\":\n    \"x\"\n}            | //a/text()   | 3:\t    \"x\"\n                          |
      | v.json   | {\n  \"a\":\n    \"x\"\n}            | //a          | 2:\t  \"a\":\n3:\t    \"x\"\n              |
      | w.json   | {\n  \"a\": 1\n}                   | //a/..       | 1:\t{\n2:\t  \"a\": 1\n3:\t}\n            |

  @§matcher-dispatch-203-soft-fallback
  Scenario: an XML file holding JSON has no XML projection; the same text as JSON has one
    Given the entry known:///j.xml contains "{\"a\": 1}"
    And the entry known:///j.json contains "{\"a\": 1}"
    When the model emits <<READ(known:///j.xml)://a:READ
    Then the action answers 203
    When the model emits <<READ(known:///j.json)://a:READ
    Then the action answers 200
