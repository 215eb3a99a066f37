@plurnk
Feature: Tier 3a — the structural matchers read what process derived
  The jsonpath and xpath dialects run over a channel's deepJson and deepXml
  projections as its mimetype's process derived them, never over a parse of
  their own. CSV content is not JSON, so only its handler's projection (an
  array of row objects) can answer a jsonpath or an xpath; the lines a hit
  selects are the CSV lines the projected node came from.

  @§mimetype-methods-process-entry-point @decision
  Scenario Outline: jsonpath and xpath answer CSV content through its handler's deepJson
    Given the entry known:///hosts.csv contains "name,port\nweb,80\ndb,5432\n"
    When the model emits <<READ(known:///hosts.csv):<matcher>:READ
    Then the action does not answer 203
    And the action answers 200 per Decision (§mimetype-methods-process-entry-point)
    And the result content is "<lines>" per Decision (§mimetype-methods-process-entry-point)
    And the result mimetype is "text/markdown"

    Examples:
      | matcher                  | lines                        |
      | $[1]                     | 3:\tdb,5432\n                |
      | $[0].port                | 2:\tweb,80\n                 |
      | $[?@.port=='5432'].name  | 3:\tdb,5432\n                |
      | $[*].name                | 2:\tweb,80\n3:\tdb,5432\n    |
      | //item[name='web']/port  | 2:\tweb,80\n                 |
      | //item[2]                | 3:\tdb,5432\n                |
      | //port                   | 2:\tweb,80\n3:\tdb,5432\n    |

  @§mimetype-methods-process-entry-point
  Scenario Outline: a CSV value is a string, and a quoted field across lines selects each of its lines
    Given the entry known:///notes.csv contains "name,note\nweb,\"two\nlines\"\ndb,x\n"
    When the model emits <<READ(known:///notes.csv):<matcher>:READ
    Then the action answers <status> per Decision (§mimetype-methods-process-entry-point)
    And the result content is "<lines>" per Decision (§mimetype-methods-process-entry-point)

    Examples:
      | matcher                 | status | lines                              |
      | $[0].note               | 200    | 2:\tweb,\"two\n3:\tlines\"\n       |
      | $[1]                    | 200    | 4:\tdb,x\n                         |
      | //item[1]/name          | 200    | 2:\tweb,\"two\n                    |
      | //item[1]/note/text()   | 200    | 2:\tweb,\"two\n3:\tlines\"\n       |
      | //item[2]/name/text()   | 200    | 4:\tdb,x\n                         |
      | $[?@.note=='x'].name    | 200    | 4:\tdb,x\n                         |
      | $[?@.note==1]           | 204    |                                    |
      | $[2]                    | 204    |                                    |

  @§matcher-dispatch-203-soft-fallback @§mimetype-methods-process-entry-point
  Scenario Outline: CSV whose handler derives no projection answers 203; glob still reads its lines
    Given the entry known:///ragged.csv contains "name,port\nweb\n"
    When the model emits <<READ(known:///ragged.csv):<matcher>:READ
    Then the action answers <status> per Decision (§mimetype-methods-process-entry-point)
    And the result content is "<content>" per Decision (§mimetype-methods-process-entry-point)
    And the result reason mentions "<reason>" per Decision (§matcher-dispatch-203-soft-fallback)

    Examples:
      | matcher  | status | content            | reason                 |
      | $[0]     | 203    | name,port\nweb\n   | wrong number of fields |
      | //item   | 203    | name,port\nweb\n   | no XML projection      |

  @§matcher-dispatch-203-soft-fallback
  Scenario Outline: a CSV record longer or shorter than its header still answers by the matcher table
    Given the entry known:///ragged.csv contains "<content>"
    When the model emits <<READ(known:///ragged.csv):<matcher>:READ
    Then the action answers 200, 204, or 203 with the raw content "<content>" and a reason

    Examples:
      | content            | matcher |
      | name,port\nweb\n   | $[0]    |
      | name,port\nweb\n   | //item  |
      | name\nweb,80\n     | $[0]    |
      | name\nweb,80\n     | //item  |

  @§matcher-dispatch-203-soft-fallback
  Scenario: glob and regex read the raw lines of content that has no projection
    Given the entry known:///ragged.csv contains "name,port\nweb\n"
    When the model emits <<READ(known:///ragged.csv):web*:READ
    Then the result content is "2:\tweb\n"
    When the model emits <<READ(known:///ragged.csv):/port$/:READ
    Then the result content is "1:\tname,port\n"

  @§mimetype-schemes-do-not-invoke-handlers @§mimetype-methods-process-entry-point @decision
  Scenario: a structural match reuses the pass's derivation, derives changed content once, and writes call no handler
    Given the built-in text/csv mimetype handler is watched for its calls
    And the entry known:///hosts.csv contains "name,port\nweb,80\n"
    When the model emits <<READ(known:///hosts.csv):$[0].port:READ
    Then the result content is "2:\tweb,80\n" per Decision (§mimetype-methods-process-entry-point)
    And the mimetype handler has been called 1 time per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<READ(known:///hosts.csv)://item/name:READ
    Then the result content is "2:\tweb,80\n" per Decision (§mimetype-methods-process-entry-point)
    And the mimetype handler has been called 1 time per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<FIND(known:///**):$[0].name:FIND
    Then the found paths are "known:///hosts.csv" per Decision (§mimetype-methods-process-entry-point)
    And the mimetype handler has been called 1 time per Decision (§mimetype-methods-process-entry-point)
    When the packet is assembled
    Then the mimetype handler has been called 2 times per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<READ(known:///hosts.csv):$[0]:READ
    Then the result content is "2:\tweb,80\n" per Decision (§mimetype-methods-process-entry-point)
    And the mimetype handler has been called 2 times per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<EDIT(known:///hosts.csv):name,port\nweb,80\ndb,5432\n:EDIT
    Then the action answers 200
    And the mimetype handler has been called 2 times per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<READ(known:///hosts.csv)://item[2]:READ
    Then the result content is "3:\tdb,5432\n" per Decision (§mimetype-methods-process-entry-point)
    And the mimetype handler has been called 3 times per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<READ(known:///hosts.csv):$[1].port:READ
    Then the result content is "3:\tdb,5432\n" per Decision (§mimetype-methods-process-entry-point)
    And the mimetype handler has been called 3 times per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<READ(known:///hosts.csv):db*:READ
    Then the result content is "3:\tdb,5432\n" per Decision (§mimetype-methods-process-entry-point)
    And the mimetype handler has been called 3 times per Decision (§mimetype-methods-process-entry-point)
    When the packet is assembled
    Then the mimetype handler has been called 4 times per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<READ(known:///hosts.csv):$[1]:READ
    Then the result content is "3:\tdb,5432\n" per Decision (§mimetype-methods-process-entry-point)
    And the mimetype handler has been called 4 times per Decision (§mimetype-methods-process-entry-point)

  @§mimetype-methods-process-entry-point @decision
  Scenario: a matcher's derivation of changed content does not feed the @graph index before the next pass
    Given the entry known:///hosts.csv contains "name,port\nweb,80\n"
    When the packet is assembled
    And the model emits <<READ(known:///hosts.csv):@port:READ
    Then the result content is "1:\tname,port\n" per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<EDIT(known:///hosts.csv):host,port\nweb,80\n:EDIT
    And the model emits <<READ(known:///hosts.csv):$[0].host:READ
    Then the result content is "2:\tweb,80\n" per Decision (§mimetype-methods-process-entry-point)
    When the model emits <<READ(known:///hosts.csv):@host:READ
    Then the action answers 204 per Decision (§mimetype-methods-process-entry-point)
    When the packet is assembled
    And the model emits <<READ(known:///hosts.csv):@host:READ
    Then the result content is "1:\thost,port\n" per Decision (§mimetype-methods-process-entry-point)

  @§mimetype-methods-process-entry-point
  Scenario: two channels with the same content are derived once each
    Given the built-in text/csv mimetype handler is watched for its calls
    And the entry known:///a.csv contains "k\nv\n"
    And the entry known:///b.csv contains "k\nv\n"
    When the model emits <<READ(known:///a.csv):$[0].k:READ
    And the model emits <<READ(known:///b.csv):$[0].k:READ
    And the model emits <<READ(known:///a.csv):$[0]:READ
    And the model emits <<READ(known:///b.csv):$[0]:READ
    Then the result content is "2:\tv\n" per Decision (§mimetype-methods-process-entry-point)
    And the mimetype handler has been called 2 times per Decision (§mimetype-methods-process-entry-point)

  @§mimetype-methods-process-entry-point @decision
  Scenario Outline: jsonpath and xpath answer block-style YAML through its handler's deepJson
    Given the entry known:///svc.yaml contains "# service\nname: api\nport: 8080\ntags:\n  - web\n  - edge\nservers:\n- host: a\n  port: 1\n- host: b\n"
    When the model emits <<READ(known:///svc.yaml):<matcher>:READ
    Then the action answers <status>
    And the result content is "<lines>" per Decision (§mimetype-methods-process-entry-point)

    Examples:
      | matcher                  | status | lines                                            |
      | $.port                   | 200    | 3:\tport: 8080\n                                 |
      | $[?@==8080]              | 200    | 3:\tport: 8080\n                                 |
      | $[?@=='8080']            | 204    |                                                  |
      | $.tags[1]                | 200    | 6:\t  - edge\n                                   |
      | $.tags                   | 200    | 4:\ttags:\n5:\t  - web\n6:\t  - edge\n           |
      | $.servers[?@.port==1]    | 200    | 8:\t- host: a\n9:\t  port: 1\n                  |
      | $.servers[1].host        | 200    | 10:\t- host: b\n                                 |
      | //name                   | 200    | 2:\tname: api\n                                  |

  @§mimetype-methods-process-entry-point
  Scenario Outline: a YAML document that is a sequence or a lone scalar ends on its last line, and a key with nothing under it is null
    Given the entry known:///list.yaml contains "<content>"
    When the model emits <<READ(known:///list.yaml):<matcher>:READ
    Then the action answers 200
    And the result content is "<lines>"

    Examples:
      | content            | matcher | lines                   |
      | - web\n- edge\n    | $[1]    | 2:\t- edge\n            |
      | - web\n- edge      | $[0]    | 1:\t- web\n             |
      | # one\nhello\n     | $       | 2:\thello\n             |
      | \"hello\"\n        | $       | 1:\t\"hello\"\n         |
      | a:\nb: 1\n          | $.b     | 2:\tb: 1\n              |
      | - \"a\"\n- b\n      | $[0]    | 1:\t- \"a\"\n           |
      | - web\n- edge\n    | $[?@=='edge'] | 2:\t- edge\n    |
      | k: 'it''s'\n       | $[?@=='it\'s'] | 1:\tk: 'it''s'\n |

  @§matcher-dispatch-203-soft-fallback @§mimetype-methods-process-entry-point
  Scenario Outline: YAML outside the block style the handler reads has no projection: 203, while glob reads its lines
    Given the entry known:///flow.yaml contains "<content>"
    When the model emits <<READ(known:///flow.yaml):$.a:READ
    Then the action answers 203 per Decision (§mimetype-methods-process-entry-point)
    And the result reason mentions "<reason>" per Decision (§matcher-dispatch-203-soft-fallback)
    When the model emits <<READ(known:///flow.yaml):a*:READ
    Then the result content is "1:\t<first>\n"

    Examples:
      | content                 | reason                | first        |
      | a: [1, 2]\n             | flow collections      | a: [1, 2]    |
      | a: one\n  two\n         | plain scalar over lines | a: one     |
      | a: 1\n---\nb: 2\n       | only one document     | a: 1         |

  @§matcher-dispatch-203-soft-fallback
  Scenario Outline: YAML that no YAML parser reads answers 203 with its raw content and a reason
    Given the entry known:///bad.yaml contains "<content>"
    When the model emits <<READ(known:///bad.yaml):$:READ
    Then the action answers 203
    And the result content is "<content>"
    And the result carries a reason

    Examples:
      | content               |
      | a: 1\njust words\n    |
      | a: 1\n\"b\" 2\n       |

  @§mimetype-methods-process-entry-point @§matcher-result-read-returns-lines
  Scenario: jsonpath reads a plain YAML mapping through its handler's projection and returns the line of the value
    Given the entry known:///svc.yaml contains "name: api\nport: 8080\n"
    When the model emits <<READ(known:///svc.yaml):$.port:READ
    Then the action answers 200
    And the result content is "2:\tport: 8080\n"
    When the model emits <<READ(known:///svc.yaml):$.name:READ
    Then the result content is "1:\tname: api\n"

  @§mimetype-methods-process-entry-point
  Scenario: a YAML mapping's top-level keys are symbols after a pass
    Given the entry known:///svc.yaml contains "name: api\nport: 8080\nnested:\n  port: 1\n"
    When the packet is assembled
    And the model emits <<READ(known:///svc.yaml):@port:READ
    Then the result content is "2:\tport: 8080\n" per Decision (§mimetype-methods-process-entry-point)

  @§mimetype-methods-process-entry-point @decision
  Scenario Outline: YAML scalars are typed by the core schema
    Given the entry known:///v.yaml contains "k: 1\nv: <value>\n"
    When the model emits <<READ(known:///v.yaml):$[?@<test>]:READ
    Then the action answers <status> per Decision (§mimetype-methods-process-entry-point)

    Examples:
      | value                  | test                         | status |
      | 007                    | ==7                          | 200    |
      | -3                     | ==-3                         | 200    |
      | +4                     | ==4                          | 200    |
      | 0o17                   | ==15                         | 200    |
      | 0x1F                   | ==31                         | 200    |
      | 0x                     | =='0x'                       | 200    |
      | 0x-1                   | =='0x-1'                     | 200    |
      | 0o+7                   | =='0o+7'                     | 200    |
      | 0xz                    | =='0xz'                      | 200    |
      | 1.                     | ==1                          | 200    |
      | .5                     | ==0.5                        | 200    |
      | 1e3                    | ==1000                       | 200    |
      | -2.5E-1                | ==-0.25                      | 200    |
      | 1e+2                   | ==100                        | 200    |
      | e3                     | =='e3'                       | 200    |
      | .                      | =='.'                        | 200    |
      | 1e                     | =='1e'                       | 200    |
      | 1ex                    | =='1ex'                      | 200    |
      | 1.2.3                  | =='1.2.3'                    | 200    |
      | 1x.2                   | =='1x.2'                     | 200    |
      | 1.2x                   | =='1.2x'                     | 200    |
      | -                      | =='-'                        | 200    |
      | 99999999999999999999   | ==1e20                       | 200    |
      | true                   | ==true                       | 200    |
      | True                   | ==true                       | 200    |
      | TRUE                   | ==true                       | 200    |
      | false                  | ==false                      | 200    |
      | False                  | ==false                      | 200    |
      | FALSE                  | ==false                      | 200    |
      | tRUE                   | =='tRUE'                     | 200    |
      | ~                      | ==null                       | 200    |
      | null                   | ==null                       | 200    |
      | Null                   | ==null                       | 200    |
      | NULL                   | ==null                       | 200    |
      | nULL                   | =='nULL'                     | 200    |
      | 'it''s'                | =='it\'s'                    | 200    |
      | \"a\\u0041\"           | =='aA'                       | 200    |
      | \"a # b\" # note       | =='a # b'                    | 200    |
      | 'x # y'                | =='x # y'                    | 200    |
      | a#b                    | =='a#b'                      | 200    |
      | a #b                   | =='a'                        | 200    |
      | http://x:1/y           | =='http://x:1/y'             | 200    |
      | .inf                   | =='.inf'                     | 200    |
      | 8080                   | =='8080'                     | 204    |

  @§matcher-dispatch-203-soft-fallback @§mimetype-methods-process-entry-point
  Scenario Outline: what the YAML handler does not read leaves no deepJson, and the reason says why
    Given the entry known:///x.yaml contains "<content>"
    When the model emits <<READ(known:///x.yaml):$:READ
    Then the action answers 200 or 203
    And the action answers 203 per Decision (§mimetype-methods-process-entry-point)
    And the result reason mentions "<reason>" per Decision (§matcher-dispatch-203-soft-fallback)

    Examples:
      | content                          | reason                     |
      | # only a comment\n               | the document is empty      |
      | a: [1, 2]\n                      | flow collections           |
      | a: {b: 1}\n                      | flow collections           |
      | a: &x 1\nb: *x\n                 | anchors                    |
      | a: !!str 1\n                     | tags                       |
      | a: \|\n  text\n                  | block scalars              |
      | a: >\n  text\n                   | block scalars              |
      | a: one\n  two\n                  | line 2 continues a plain scalar |
      | - one\n  two\n                   | line 2 continues a plain scalar |
      | one\n  two\n                     | line 2 continues a plain scalar |
      | one\ntwo\n                       | line 2 continues a plain scalar |
      | a:\n  one\n  two\n               | line 3 continues a plain scalar |
      | a: 1\n---\nb: 2\n                | line 2: only one document  |
      | ---\na: 1\n...\n                 | line 3: only one document  |
      | --- a\n                          | line 1: only one document  |
      | a:\n\tb: 1\n                     | line 2 is indented with a tab |
      | a:\n    b: 1\n  c: 2\n           | line 3 is indented inconsistently |
      | a:\n  - 1\n    - 2\n             | line 3 continues a plain scalar |
      | -\n    - 1\n  - 2\n             | line 3 is indented inconsistently |
      | a: 1\n- b\n                      | line 2 is indented inconsistently |
      | - a\nb: 1\n                      | line 2 is indented inconsistently |
      | ? a\n: 1\n                       | line 1: a complex key      |
      | a:\n  ?\n                        | line 2: a complex key      |
      | a: \"open\n                      | line 1: a double-quoted scalar |
      | a: \"x\" y\n                     | line 1: a double-quoted scalar |
      | a: 'x' y\n                       | line 1: a single-quoted scalar |
      | a: 'open\n                       | line 1: a single-quoted scalar |
      | a: \"\\q\"\n                     | invalid syntax             |
      | a: 1\njust words\n               | line 2 is no `key: value`  |
      | a: 1\n: b:\n                     | line 2 is no `key: value`  |
      | a: 1\n\"b\" 2\n                   | line 2 is no `key: value`  |

  @§mimetype-methods-process-entry-point
  Scenario Outline: YAML keys may be quoted, and xpath reads a number as its JSON text
    Given the entry known:///q.yaml contains "\"my key\": 1\n'it''s': 2\nbig: 12345678901234567\nzeros: 007\n"
    When the model emits <<READ(known:///q.yaml):<matcher>:READ
    Then the action answers 200 per Decision (§mimetype-methods-process-entry-point)
    And the result content is "<lines>" per Decision (§mimetype-methods-process-entry-point)

    Examples:
      | matcher                        | lines                              |
      | $['my key']                    | 1:\t\"my key\": 1\n                |
      | $[\"it's\"]                    | 2:\t'it''s': 2\n                    |
      | //big[.='12345678901234567']   | 3:\tbig: 12345678901234567\n        |
      | //zeros[.='7']                 | 4:\tzeros: 007\n                    |
