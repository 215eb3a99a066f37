@plurnk
Feature: Tier 3a — COPY, MOVE and FIND
  COPY and MOVE are engine orchestrations: a missing source is 404, an
  identical destination 304, a different one 409 with nothing overwritten.
  MOVE copies then deletes in one transaction and never deletes alone. FIND
  selects entries by the scope its target names, ANDs its tags, tests its
  body against content and answers uniform catalog rows.

  @§copy-missing-source-404
  Scenario Outline: a COPY from a source that does not exist answers 404 and creates nothing
    Given the entry known:///present.md contains "here"
    When the model emits <<COPY(<source>):known:///dest.md:COPY
    Then the action answers 404
    And the entry known:///dest.md does not exist

    Examples:
      | source               |
      | known:///absent.md   |
      | unknown:///absent.md |
      | notes/absent.md      |

  @§copy-noop-304
  Scenario: a COPY onto an identical destination answers 304; a tag difference is a change
    Given the entry known:///a.md contains "same" tagged "draft"
    And the entry known:///b.md contains "same" tagged "draft"
    When the model emits <<COPY(known:///a.md):known:///b.md:COPY
    Then the action answers 304
    When the model emits <<COPY[final](known:///a.md):known:///b.md:COPY
    Then the action answers 201
    And the entry known:///b.md has tags "final"

  @§copy-conflict-409
  Scenario Outline: a COPY onto a destination with other content answers 409 and overwrites nothing
    Given the entry known:///a.md contains "new words"
    And the entry known:///b.md contains "<existing>"
    When the model emits <<COPY(known:///a.md):known:///b.md:COPY
    Then the action answers 409
    And the body channel of known:///b.md holds "<existing>"
    And the body channel of known:///a.md holds "new words"

    Examples:
      | existing   |
      | old words  |
      | new words\n |
      | new word   |

  @§move-relocation-deletes-source
  Scenario: a MOVE copies and deletes the source, answering 201
    Given the entry known:///draft.md contains "text" tagged "wip"
    When the model emits <<MOVE(known:///draft.md):known:///final.md:MOVE
    Then the action answers 201
    And the body channel of known:///final.md holds "text"
    And the entry known:///final.md has tags "wip"
    And the entry known:///draft.md does not exist

  @§move-relocation-deletes-source
  Scenario: a MOVE whose copy fails deletes nothing (one transaction)
    Given the entry known:///a.md contains "new"
    And the entry known:///b.md contains "old"
    When the model emits <<MOVE(known:///a.md):known:///b.md:MOVE
    Then the action answers 409
    And the body channel of known:///a.md holds "new"
    And the body channel of known:///b.md holds "old"

  @§move-relocation-deletes-source
  Scenario: a MOVE whose source removal fails leaves the destination unwritten
    Given a scheme "vault" whose handler throws while removing
    And the entry vault:///a.md contains "text"
    When the model emits <<MOVE(vault:///a.md):known:///b.md:MOVE
    Then the action answers 500
    And the entry known:///b.md does not exist
    And the body channel of vault:///a.md holds "text"

  @§move-cross-scheme-move
  Scenario Outline: a MOVE across schemes behaves as a MOVE within one
    Given the entry known:///q.md contains "Who founded Rome?"
    When the model emits <<MOVE(known:///q.md):<dest>:MOVE
    Then the action answers 201
    And the entry known:///q.md does not exist
    And the body channel of <dest> holds "Who founded Rome?"

    Examples:
      | dest                 |
      | known:///r.md        |
      | unknown:///rome.md   |
      | /rome.md             |

  @§move-cross-scheme-move
  Scenario: a MOVE from a project file into known removes the file
    Given the workspace file src/app.go contains "package main\n"
    When the model emits <<MOVE(src/app.go):known:///app.go:MOVE
    Then the action answers 201
    And the body channel of known:///app.go holds "package main\n"
    And the workspace file src/app.go does not exist

  @§move-missing-source-404
  Scenario Outline: a MOVE of a source that does not exist answers 404
    When the model emits <<MOVE(<source>):known:///dest.md:MOVE
    Then the action answers 404
    And the entry known:///dest.md does not exist

    Examples:
      | source             |
      | known:///absent.md |
      | notes/absent.md    |

  @§move-null-body-400
  Scenario Outline: a MOVE without a destination answers 400 and deletes nothing
    Given the entry known:///a.md contains "kept"
    When the model emits <emission>
    Then the action answers 400
    And the body channel of known:///a.md holds "kept"

    Examples:
      | emission                        |
      | <<MOVE(known:///a.md)::MOVE     |
      | <<MOVE(known:///a.md):   :MOVE  |

  @§move-dev-null-not-special @decision
  Scenario: /dev/null is an ordinary destination: the content moves there and is not lost
    Given the entry known:///a.md contains "precious"
    When the model emits <<MOVE(known:///a.md):/dev/null:MOVE
    Then the action answers 201
    And the entry known:///a.md does not exist
    And the workspace file dev/null holds "precious" per Decision (§move-dev-null-not-special)
    When the model emits <<READ(/dev/null)::READ
    Then the result content is "1:\tprecious\n" per Decision (§move-dev-null-not-special)

  @§move-dev-null-not-special
  Scenario: a MOVE to known:///dev/null keeps the content at that address
    Given the entry known:///a.md contains "precious"
    When the model emits <<MOVE(known:///a.md):known:///dev/null:MOVE
    Then the action answers 201
    And the body channel of known:///dev/null holds "precious"

  @§find-scope-prefix-filter @decision
  Scenario: a project folder the disk refuses to list fails the FIND 500 naming it, never a partial answer
    Given the workspace file notes/a.md contains "alpha"
    And the workspace file src/b.md contains "beta"
    And the disk refuses once to list the folder /work/src
    When the model emits <<FIND(**)::FIND
    Then the action answers 500
    And the result reason mentions "/work/src" per Decision (§find-scope-prefix-filter)
    When the model emits <<FIND(**)::FIND
    Then the action answers 200
    And the found paths are "/notes/a.md, /src/b.md"

  @§find-scope-prefix-filter
  Scenario Outline: FIND considers only entries under its target's scheme and path prefix or glob
    Given the entry known:///docs/a.md contains "x"
    And the entry known:///docs/deep/b.md contains "x"
    And the entry known:///other/c.md contains "x"
    And the entry unknown:///docs/d.md contains "x"
    When the model emits <<FIND(<target>)::FIND
    Then the action answers 200
    And the found paths are "<paths>"

    Examples:
      | target            | paths                                              |
      | known:///**       | known:///docs/a.md, known:///docs/deep/b.md, known:///other/c.md |
      | known:///docs/**  | known:///docs/a.md, known:///docs/deep/b.md        |
      | known:///docs/*   | known:///docs/a.md                                 |
      | known:///*/c.md   | known:///other/c.md                                |
      | unknown:///**     | unknown:///docs/d.md                               |

  @§find-glob-filter-on-content
  Scenario Outline: a FIND body is matched against each entry's content, never its path
    Given the entry known:///todo.md contains "- [ ] TODO ship it"
    And the entry known:///done.md contains "all shipped"
    And the entry known:///conf.json contains "{\"port\": 80}"
    When the model emits <<FIND(known:///**):<matcher>:FIND
    Then the found paths are "<paths>"

    Examples:
      | matcher    | paths                               |
      | *TODO*     | known:///todo.md                    |
      | /shipp?ed/ | known:///done.md                    |
      | $.port     | known:///conf.json                  |
      | *todo.md*  |                                     |

  @§find-glob-filter-on-content @§matcher-dispatch-203-soft-fallback
  Scenario Outline: a FIND whose body is a malformed matcher answers 400, never a listing
    Given the entry known:///config.json contains "{\"a\": 1}"
    When the model emits <<FIND(known:///**):<matcher>:FIND
    Then the action answers 400

    Examples:
      | matcher |
      | /(a/    |
      | $.a[    |
      | //a[    |
      | [a      |

  @§find-tag-filter-and-semantics
  Scenario Outline: FIND's tags are ANDed
    Given the entry known:///a.md contains "x" tagged "red, big"
    And the entry known:///b.md contains "x" tagged "red"
    And the entry known:///c.md contains "x" tagged "big"
    When the model emits <<FIND[<tags>](known:///**)::FIND
    Then the found paths are "<paths>"

    Examples:
      | tags      | paths                          |
      | red       | known:///a.md, known:///b.md   |
      | big       | known:///a.md, known:///c.md   |
      | red,big   | known:///a.md                  |
      | red,small |                                |

  @§find-scoped-isolation
  Scenario: FIND never returns another session's entries nor another scheme's
    Given a second session holds the entry known:///secret.md containing "theirs"
    And the entry known:///mine.md contains "ours"
    And the entry unknown:///mine.md contains "ours"
    When the model emits <<FIND(known:///**)::FIND
    Then the found paths are "known:///mine.md"
    When the model emits <<FIND(known:///secret.md)::FIND
    Then the action answers 204

  @§find-result-catalog-rows @decision
  Scenario: FIND answers application/json catalog rows of one shape
    Given the entry known:///docs/a.md contains "one\ntwo" tagged "draft"
    And 90 seconds pass on the session clock
    And the entry known:///docs/b.md contains "three"
    When the model emits <<FIND(known:///docs/*)::FIND
    Then the action answers 200
    And the result mimetype is "application/json"
    And the result is a catalog whose rows are shaped {path, seconds?, tags?, channels}
    And the found paths are "known:///docs/a.md, known:///docs/b.md"
    And catalog row 1 of the result has the tags "draft"
    And catalog row 2 of the result has the tags ""
    And catalog row 1 of the result has 2 lines in its body channel
    And catalog row 2 of the result has 1 line in its body channel
    And the result is the JSON: per Decision (§find-result-catalog-rows)
      """
      [
        {"path": "known:///docs/a.md", "seconds": 90, "tags": ["draft"],
         "channels": {"known:///docs/a.md#body": {"mimetype": "text/markdown", "tokens": 2, "lines": 2}}},
        {"path": "known:///docs/b.md",
         "channels": {"known:///docs/b.md#body": {"mimetype": "text/markdown", "tokens": 2, "lines": 1}}}
      ]
      """

  @§find-result-catalog-rows
  Scenario: a content matcher only keeps or drops an entry: the row is the same as without it
    Given the entry known:///a.md contains "alpha\nbeta\ngamma"
    When the model emits <<FIND(known:///**):/beta/:FIND
    Then the result is a catalog whose rows are shaped {path, seconds?, tags?, channels}
    And the found paths are "known:///a.md"
    And catalog row 1 of the result has 3 lines in its body channel
    And the result is the JSON: per Decision (§find-result-catalog-rows)
      """
      [{"path": "known:///a.md", "channels": {"known:///a.md#body": {"mimetype": "text/markdown", "tokens": 4, "lines": 3}}}]
      """

  @§find-tag-filter-and-semantics
  Scenario: a KILLed project file takes its tags with it: the file written again is a new entry without them
    Given the workspace file notes/a.md contains "alpha"
    When the model emits <<EDIT[draft](notes/a.md):alpha v2:EDIT
    And the model emits <<KILL(notes/a.md)::KILL
    Then the action answers 200
    When the model emits <<EDIT(notes/a.md):fresh:EDIT
    Then the action answers 201
    When the model emits <<FIND[draft](**)::FIND
    Then the action answers 204

  @§find-tag-filter-and-semantics
  Scenario: tags given to a project file are kept with it and FIND by tag finds it
    Given the workspace file notes/a.md contains "alpha"
    And the workspace file notes/b.md contains "beta"
    When the model emits <<EDIT[draft](notes/a.md):alpha v2:EDIT
    Then the action answers 200
    When the model emits <<FIND[draft](**)::FIND
    Then the found paths are "/notes/a.md"

  @§find-result-catalog-rows @decision
  Scenario Outline: an <L> on FIND keeps catalog rows by position, as READ keeps lines
    Given the entry known:///docs/a.md contains "x"
    And the entry known:///docs/b.md contains "x"
    And the entry known:///docs/c.md contains "x"
    And the entry known:///docs/d.md contains "x"
    When the model emits <<FIND(known:///docs/*)<marks>::FIND
    Then the action does not answer 500
    And the action answers <status> per Decision (§find-result-catalog-rows)
    And the found paths are "<paths>" per Decision (§find-result-catalog-rows)

    Examples:
      | marks  | status | paths                                    |
      | <2>    | 200    | known:///docs/b.md                       |
      | <2,3>  | 200    | known:///docs/b.md, known:///docs/c.md   |
      | <3,9>  | 200    | known:///docs/c.md, known:///docs/d.md   |
      | <4>    | 200    | known:///docs/d.md                       |
      | <5>    | 204    |                                          |
