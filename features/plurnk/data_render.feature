@plurnk
Feature: Tier 3a — render rules, structured EDIT and extension mimetypes
  Content navigated by line renders numbered; content navigated as a tree
  (JSON, XML, HTML) renders verbatim. An EDIT of JSON splices top-level
  items, not lines. The path's extension decides the stored mimetype, and
  text the service derives is markdown.

  @§json-edit-structural-json-edit @decision
  Scenario: <L> on a JSON array splices elements
    Given the entry known:///list.json contains "[1, 2, 3]"
    When the model emits <<EDIT(known:///list.json)<-1>:4:EDIT
    Then the action answers 200
    And the body channel of known:///list.json holds the JSON value [1, 2, 3, 4]
    And the body channel of known:///list.json holds "[\n  1,\n  2,\n  3,\n  4\n]" per Decision (§json-edit-structural-json-edit)
    When the model emits <<EDIT(known:///list.json)<0>:0:EDIT
    Then the body channel of known:///list.json holds the JSON value [0, 1, 2, 3, 4]
    And the body channel of known:///list.json holds "[\n  0,\n  1,\n  2,\n  3,\n  4\n]" per Decision (§json-edit-structural-json-edit)
    When the model emits <<EDIT(known:///list.json)<2>:"one":EDIT
    Then the body channel of known:///list.json holds the JSON value [0, "one", 2, 3, 4]
    And the body channel of known:///list.json holds "[\n  0,\n  \"one\",\n  2,\n  3,\n  4\n]" per Decision (§json-edit-structural-json-edit)
    When the model emits <<EDIT(known:///list.json)<3,4>:[20, 30, 35]:EDIT
    Then the body channel of known:///list.json holds the JSON value [0, "one", 20, 30, 35, 4]
    And the body channel of known:///list.json holds "[\n  0,\n  \"one\",\n  20,\n  30,\n  35,\n  4\n]" per Decision (§json-edit-structural-json-edit)
    When the model emits <<EDIT(known:///list.json)<2>::EDIT
    Then the body channel of known:///list.json holds the JSON value [0, 20, 30, 35, 4]
    And the body channel of known:///list.json holds "[\n  0,\n  20,\n  30,\n  35,\n  4\n]" per Decision (§json-edit-structural-json-edit)
    When the model emits <<EDIT(known:///list.json)<1,-1>::EDIT
    Then the action answers 200
    And the body channel of known:///list.json holds the JSON value []
    And the body channel of known:///list.json holds "[]" per Decision (§json-edit-structural-json-edit)

  @§json-edit-structural-json-edit @decision
  Scenario: <L> on a JSON object splices members in document order
    Given the entry known:///conf.json contains "{\"host\": \"a\", \"port\": 80}"
    When the model emits <<EDIT(known:///conf.json)<-1>:{"tls": true}:EDIT
    Then the action answers 200
    And the body channel of known:///conf.json holds the JSON value {"host": "a", "port": 80, "tls": true}
    And the body channel of known:///conf.json holds "{\n  \"host\": \"a\",\n  \"port\": 80,\n  \"tls\": true\n}" per Decision (§json-edit-structural-json-edit)
    When the model emits <<EDIT(known:///conf.json)<0>:{"name": "x", "port": 8080}:EDIT
    Then the body channel of known:///conf.json holds the JSON value {"name": "x", "host": "a", "port": 8080, "tls": true}
    And the body channel of known:///conf.json holds "{\n  \"name\": \"x\",\n  \"host\": \"a\",\n  \"port\": 8080,\n  \"tls\": true\n}" per Decision (§json-edit-structural-json-edit)
    When the model emits <<EDIT(known:///conf.json)<2>::EDIT
    Then the body channel of known:///conf.json holds the JSON value {"name": "x", "port": 8080, "tls": true}
    And the body channel of known:///conf.json holds "{\n  \"name\": \"x\",\n  \"port\": 8080,\n  \"tls\": true\n}" per Decision (§json-edit-structural-json-edit)

  @§json-edit-structural-json-edit
  Scenario Outline: a marker on a JSON scalar answers 400; an item out of range 416; nothing is written
    Given the entry known:///v.json contains "<content>"
    When the model emits <<EDIT(known:///v.json)<<marker>>:<body>:EDIT
    Then the action answers <status>
    And the body channel of known:///v.json holds "<content>"

    Examples:
      | content   | marker | body | status |
      | 42        | -1     | 7    | 400    |
      | 42        | 0      | 7    | 400    |
      | \"text\"  | 1      | 7    | 400    |
      | [1, 2]    | 3      | 7    | 416    |
      | [1, 2]    | 2,3    | 7    | 416    |
      | {\"a\": 1} | -1    | 7    | 400    |

  @§json-edit-structural-json-edit
  Scenario: the same <L> on markdown splices lines, not items
    Given the entry known:///list.md contains "[1, 2, 3]"
    When the model emits <<EDIT(known:///list.md)<-1>:4:EDIT
    Then the action answers 200
    And the body channel of known:///list.md holds "[1, 2, 3]\n4"

  @§json-edit-json-parse-fail-400
  Scenario Outline: an EDIT of a JSON target whose body is not JSON answers 400 and writes nothing
    Given the entry known:///conf.json contains "{\"port\": 80}"
    When the model emits <emission>
    Then the action answers 400
    And the body channel of known:///conf.json holds "{\"port\": 80}"
    And the entry known:///new.json does not exist

    Examples:
      | emission                                        |
      | <<EDIT(known:///conf.json):port = 81:EDIT       |
      | <<EDIT(known:///conf.json):{"port": 81:EDIT     |
      | <<EDIT(known:///conf.json)<-1>:{"tls": :EDIT    |
      | <<EDIT(known:///new.json):not json:EDIT         |

  @§json-edit-json-parse-fail-400
  Scenario: a body that is not JSON spliced into a JSON array answers 400 and writes nothing
    Given the entry known:///list.json contains "[1, 2]"
    When the model emits <<EDIT(known:///list.json)<-1>:[3, :EDIT
    Then the action answers 400
    And the result reason mentions "does not parse as JSON" per Decision (§telemetry-no-error-scheme)
    And the body channel of known:///list.json holds "[1, 2]"

  @§json-edit-json-parse-fail-400
  Scenario: a JSON body that parses is accepted, and a non-JSON body into markdown is fine
    When the model emits <<EDIT(known:///new.json):{"port": 81}:EDIT
    Then the action answers 201
    When the model emits <<EDIT(known:///new.md):port = 81:EDIT
    Then the action answers 201

  @§ext-mimetype-extension-mimetype
  Scenario Outline: the path's extension decides the stored mimetype
    When the model emits <<EDIT(<target>):<body>:EDIT
    Then the action answers 201
    When the model emits <<READ(<target>)::READ
    Then the result mimetype is "<mimetype>"

    Examples:
      | target              | body         | mimetype         |
      | known:///a.json     | {"a": 1}     | application/json |
      | known:///a.yaml     | a: 1         | application/yaml |
      | known:///a.yml      | a: 1         | application/yaml |
      | known:///a.txt      | words        | text/markdown    |
      | known:///a.md       | words        | text/markdown    |
      | known:///README     | words        | text/markdown    |
      | notes/todo.txt      | words        | text/markdown    |
      | notes/page.html     | <p>x</p>     | text/html        |

  @§ext-mimetype-extension-mimetype
  Scenario: without an extension a channel's declared default applies
    Given the entry known:///noext contains "words"
    When the model emits <<EDIT(known:///noext#symbols):["a"]:EDIT
    Then the action answers 200
    When the model emits <<READ(known:///noext#symbols)::READ
    Then the result mimetype is "application/json"

  @§ext-mimetype-extension-mimetype
  Scenario: <L> and matchers act on the extension's mimetype
    Given the entry known:///a.json contains "[\"x\", \"y\", \"z\"]"
    And the entry known:///a.md contains "[\"x\", \"y\", \"z\"]"
    When the model emits <<READ(known:///a.json)<2>::READ
    Then the result content is "[\n  \"y\"\n]\n" per Decision (§render-rule-tree-navigable-verbatim)
    When the model emits <<READ(known:///a.md)<1>::READ
    Then the result content is "1:\t[\"x\", \"y\", \"z\"]\n"
    When the model emits <<READ(known:///a.json):$[1]:READ
    Then the action answers 200
    And the result content is "1:\t[\"x\", \"y\", \"z\"]\n"

  @§render-rule-line-navigable-prefix
  Scenario Outline: line-navigable content renders with N:\t on every line
    Given the workspace file <file> contains "<content>"
    When the model emits <<READ(<file>)::READ
    Then the result content is "<rendered>"

    Examples:
      | file      | content          | rendered                     |
      | a.md      | # T\nbody        | 1:\t# T\n2:\tbody\n          |
      | a.csv     | a,b\n1,2\n       | 1:\ta,b\n2:\t1,2\n           |
      | a.go      | package a\n      | 1:\tpackage a\n              |
      | a.yaml    | a: 1\nb: 2\n     | 1:\ta: 1\n2:\tb: 2\n         |
      | a.toml    | a = 1\n          | 1:\ta = 1\n                  |
      | notes     | plain            | 1:\tplain\n                  |

  @§render-rule-tree-navigable-verbatim
  Scenario Outline: tree-navigable content renders verbatim, without line prefixes
    Given the workspace file <file> contains "<content>"
    When the model emits <<READ(<file>)::READ
    Then the action answers 200
    And the result content is "<content>"

    Examples:
      | file        | content                               |
      | a.json      | {\n  \"a\": 1,\n  \"b\": [2]\n}\n     |
      | feed.xml    | <feed>\n  <entry/>\n</feed>\n         |
      | page.html   | <h1>T</h1>\n<p>x</p>\n                |

  @§render-rule-tree-navigable-verbatim @decision
  Scenario: <L> on JSON selects top-level items, verbatim; a matcher result stays numbered
    Given the entry known:///conf.json contains "{\"host\": \"a\", \"port\": 80, \"tls\": true}"
    When the model emits <<READ(known:///conf.json)<2,3>::READ
    Then the result content is "{\n  \"port\": 80,\n  \"tls\": true\n}\n" per Decision (§render-rule-tree-navigable-verbatim)
    When the model emits <<READ(known:///conf.json)<4>::READ
    Then the action answers 416 per Decision (§render-rule-tree-navigable-verbatim)
    Given the entry known:///pair.json contains "{\n  \"a\": 1,\n  \"b\": 2\n}\n"
    When the model emits <<READ(known:///pair.json)<3>::READ
    Then the action answers 416 per Decision (§render-rule-tree-navigable-verbatim)
    When the model emits <<READ(known:///conf.json):$.port:READ
    Then the result content is "1:\t{\"host\": \"a\", \"port\": 80, \"tls\": true}\n" per Decision (§render-rule-tree-navigable-verbatim)

  @§markdown-primitive-text-markdown-normalize
  Scenario: text the service derives is markdown; exec's declared text/plain survives
    Given the workspace file notes contains "one\ntwo\n"
    And the exec output sh:///1/1/2 has streamed "out\n" on stdout and is still active
    When the model emits <<READ(notes)<2>::READ
    Then the result mimetype is "text/markdown"
    When the model emits <<READ(sh:///1/1/2)::READ
    Then the result mimetype is "text/plain"
    When the model emits <<FOLD(log:///1/1/1)::FOLD
    And the model emits <<OPEN(log:///1/1/*)::OPEN
    Then the result mimetype is "text/markdown"

  @§slice-semantics-compose-pattern
  Scenario Outline: READ of an earlier matcher-result row with <N> picks out that one match, in source numbering
    Given the entry known:///todo.md contains "TODO a\nok\nTODO b\nTODO c"
    When the model emits <<READ(known:///todo.md):/TODO/:READ
    Then the result content is "1:\tTODO a\n3:\tTODO b\n4:\tTODO c\n"
    When the model emits <<READ(log:///1/1/1)<<n>>::READ
    Then the action answers 200
    And the result content is "<match>"
    And the result mimetype is "text/markdown"

    Examples:
      | n  | match          |
      | 1  | 1:\tTODO a\n   |
      | 2  | 3:\tTODO b\n   |
      | -1 | 4:\tTODO c\n   |

  @§slice-semantics-compose-pattern
  Scenario: a position past the stored matches answers 416
    Given the entry known:///todo.md contains "TODO a\nok\nTODO b"
    When the model emits <<READ(known:///todo.md):/TODO/:READ
    And the model emits <<READ(log:///1/1/1)<3>::READ
    Then the action answers 416

  @§slice-semantics-compose-pattern
  Scenario: a stored result keeps its numbering past line 9 when re-read by result
    Given the entry known:///todo.md contains "a\nb\nc\nd\ne\nf\ng\nh\nTODO nine\nTODO ten\nTODO eleven"
    When the model emits <<READ(known:///todo.md):/TODO/:READ
    And the model emits <<READ(log:///1/1/1)<1>::READ
    Then the result content is "9:\tTODO nine\n"
    When the model emits <<READ(log:///1/1/1)<2,3>::READ
    Then the result content is "10:\tTODO ten\n11:\tTODO eleven\n"

  @§matcher-result-read-returns-lines
  Scenario: an attribute hit is the line of that attribute, not of an attribute whose name ends the same
    Given the entry known:///feed.xml contains "<feed>\n<entry\n  data-n=\"1\"\n  n=\"2\"/>\n</feed>"
    When the model emits <<READ(known:///feed.xml)://entry/@n:READ
    Then the result content holds the line "4:\t  n=\"2\"/>"
    And the result content is "4:\t  n=\"2\"/>\n" per Decision (§matcher-result-read-returns-lines)
