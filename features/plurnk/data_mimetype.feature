@plurnk
Feature: Tier 3a — mimetype handlers behind one process entry point
  The derivation pass that runs at each packet assembly hands every channel
  to its mimetype's process handler, which derives the line count, the
  JSON and XML projections, the symbols declared and the references made.
  The pass becomes the session's symbol index, which the @graph matcher
  resolves; every match is the service's own.

  @§mimetype-methods-process-entry-point @decision
  Scenario: Go source: declarations are symbols, uses are references, resolved by @graph after a pass
    When the model emits <<EDIT(lib/util.go):package lib\n\nfunc Helper() int {\n\treturn 1\n}\n:EDIT
    And the model emits <<EDIT(cmd/main.go):package main\n\nimport "lib"\n\nfunc main() {\n\tx := lib.Helper()\n\t_ = x\n}\n:EDIT
    When the model emits <<FIND(**):@Helper:FIND
    Then the action answers 204 per Decision (§mimetype-methods-process-entry-point)
    When the packet is assembled
    And the model emits <<FIND(**):@Helper:FIND
    Then the found paths are "/cmd/main.go, /lib/util.go" per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<FIND(**):@<Helper:FIND
    Then the found paths are "/cmd/main.go" per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<FIND(**):@>Helper:FIND
    Then the found paths are "/lib/util.go" per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<READ(cmd/main.go):@Helper:READ
    Then the result content is "6:\t\tx := lib.Helper()\n" per Decision (§mimetype-methods-process-entry-point)
    And every line of the result content mentions "Helper"

  @§mimetype-methods-process-entry-point @decision
  Scenario: markdown headings are symbols
    Given the entry known:///guide.md contains "# Guide\n\nintro\n\n## Install\n\nrun it\n\n```\n# not a heading\n```\n"
    When the packet is assembled
    And the model emits <<READ(known:///guide.md):@Install:READ
    Then the result content is "5:\t## Install\n" per Decision (§mimetype-methods-process-entry-point)
    And every line of the result content mentions "Install"
    When the model emits <<READ(known:///guide.md):@not a heading:READ
    Then the action answers 204 per Decision (§mimetype-methods-process-entry-point)

  @§mimetype-methods-process-entry-point @decision
  Scenario: six #s then a blank still make a heading
    Given the entry known:///guide.md contains "# Guide\n###### Six\n"
    When the packet is assembled
    And the model emits <<READ(known:///guide.md):@Six:READ
    Then the result content is "2:\t###### Six\n" per Decision (§mimetype-methods-process-entry-point)

  @§mimetype-methods-process-entry-point @decision
  Scenario Outline: only one to six #s then a blank make a heading: <line> is no symbol
    Given the entry known:///guide.md contains "# Guide\n<line>\n"
    When the packet is assembled
    And the model emits <<READ(known:///guide.md):@<name>:READ
    Then the action answers 204 per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<READ(known:///guide.md):@Guide:READ
    Then the result content is "1:\t# Guide\n" per Decision (§mimetype-methods-process-entry-point)

    Examples:
      | line            | name    |
      | ####### Seven   | Seven   |
      | ##              | nothing |
      | #Tight          | Tight   |
      |   Indented text | Indented text |
      | plain words     | plain words |

  @§mimetype-methods-process-entry-point
  Scenario: a markdown heading after a line longer than 64 KiB is still a symbol
    Given the entry known:///long.md contains a line of 70000 "x" characters, then "# After\ntext\n"
    When the packet is assembled
    And the model emits <<READ(known:///long.md):@After:READ
    Then the action answers 200 per Decision (§mimetype-methods-process-entry-point)
    And the result content is "2:\t# After\n" per Decision (§mimetype-methods-process-entry-point)

  @§mimetype-methods-process-entry-point @decision
  Scenario Outline: JSON keys and XML/HTML ids are symbols; a +json type uses the JSON handler
    Given the entry <target> contains "<content>"
    When the packet is assembled
    And the model emits <<READ(<target>):@<symbol>:READ
    Then the action answers 200 per Decision (§mimetype-methods-process-entry-point)
    And the result content is "<lines>" per Decision (§mimetype-methods-process-entry-point)

    Examples:
      | target                | content                                        | symbol | lines                            |
      | known:///conf.json    | {\n  \"host\": \"a\",\n  \"port\": 80\n}       | port   | 3:\t  \"port\": 80\n             |
      | known:///page.html    | <div>\n<p id=\"intro\">hi</p>\n</div>          | intro  | 2:\t<p id=\"intro\">hi</p>\n     |
      | known:///feed.xml     | <feed>\n  <entry name=\"e1\"/>\n</feed>        | e1     | 2:\t  <entry name=\"e1\"/>\n     |
      | known:///tail.xml     | <feed>\n  <entry name=\"e2\"/>\n</feed>\n      | e2     | 2:\t  <entry name=\"e2\"/>\n     |
      | known:///more.html    | <div>\n<p>a&nbsp;b<br></p>\n<p id=\"later\">hi</p>\n</div> | later | 3:\t<p id=\"later\">hi</p>\n |
      | known:///cafe.html    | <div>\n<p id=\"caf&eacute;\">x</p>\n</div>  | café   | 2:\t<p id=\"caf&eacute;\">x</p>\n |

  @§mimetype-methods-process-entry-point
  Scenario: the index is the last pass's: a write shows only after the next assembly
    Given the entry known:///guide.md contains "# Old\n"
    When the packet is assembled
    And the model emits <<EDIT(known:///guide.md):# New\n:EDIT
    And the model emits <<READ(known:///guide.md):@New:READ
    Then the action answers 204 per Decision (§mimetype-methods-process-entry-point)
    When the packet is assembled
    And the model emits <<READ(known:///guide.md):@New:READ
    Then the result content is "1:\t# New\n" per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<READ(known:///guide.md):@Old:READ
    Then the action answers 204 per Decision (§mimetype-methods-process-entry-point)

  @§mimetype-methods-process-entry-point
  Scenario: a @ with no symbol is malformed
    Given the entry known:///guide.md contains "# Guide\n"
    When the model emits <<READ(known:///guide.md):@<:READ
    Then the action answers 400 per Decision (§mimetype-methods-process-entry-point)
