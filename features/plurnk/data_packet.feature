@plurnk
Feature: Tier 3a — packet sections and turn totals
  The requirements close the user packet and vanish when empty; the tools
  sheet lists each available capability and is left out when there is
  none; the prompt is a plurnk EDIT whose row is born folded; the budget
  carries the render weight of each turn, oldest first.

  Background:
    Given the model's context window is 100000 tokens

  @§requirements-requirements-render-last
  Scenario: the requirements render last in the user packet, under their header
    Given the operator sets PLURNK_REQUIREMENTS to "Answer in English."
    And the model will reply:
      """
      <<PLAN:look:PLAN
      <<READ(known:///absent.md)::READ
      <<SEND[102]:going on:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then packet 2 has the user sections "prompt, errors, log, requirements"
    And the user slot of packet 2 shows the header "## Plurnk System Requirements"
    And the requirements section of packet 2 reads:
      """
      Answer in English.
      """

  @§requirements-requirements-omitted-when-empty
  Scenario: empty requirements drop the section, header and all
    Given the operator sets PLURNK_REQUIREMENTS to ""
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then packet 1 has the user sections "prompt, log"
    And packet 1 has no requirements section
    And no packet mentions "Plurnk System Requirements"

  @§tools-capability-sheet
  Scenario: with no capability enabled the tools sheet is left out
    Given the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then packet 1 has no tools section
    And no packet mentions "Plurnk System Tools"

  @§tools-capability-sheet
  Scenario: each available executor adds one line to the tools sheet, after the definition
    Given run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then packet 1 of run "main" contains "KILL SEND.\n\n## Plurnk System Tools\n* <<EXEC[db](.):command:EXEC\n* <<EXEC[sh](.):command:EXEC\n\n## Plurnk System Schemes" per Decision (§tools-capability-sheet)

  @§prompt-fold
  Scenario: the prompt is a plurnk EDIT of plurnk:///prompt/<loop> whose row is born folded
    Given the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then the model run's log records EDIT plurnk:///prompt/1 with status 201 by plurnk
    And the model run's row log:///1/0/1 is folded
    And the prompt section of packet 1 reads:
      """
      Say done
      """

  @§tokenomics-turn-totals
  Scenario: the budget carries the render weight of each turn, oldest first
    Given the model will reply:
      """
      <<PLAN:one:PLAN
      <<EDIT(known:///a.md):first:EDIT
      <<SEND[102]:going on:SEND
      """
    And the model will reply:
      """
      <<PLAN:two:PLAN
      <<EDIT(known:///b.md):second:EDIT
      <<SEND[102]:going on:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then the budget section of packet 3 contains "| turn | tokens |\n|---|---|\n| 1/0 |" per Decision (§tokenomics-largest-entries)
    And the budget section of packet 3 contains "|\n| 1/1 | " per Decision (§tokenomics-largest-entries)
    And the budget section of packet 3 contains "|\n| 1/2 | " per Decision (§tokenomics-largest-entries)
    And the budget section of packet 2 does not contain "| 1/2 |" per Decision (§tokenomics-largest-entries)
    And the turn table of packet 3 lists the turns "1/0, 1/1, 1/2"

  @§tokenomics-turn-totals
  Scenario: across loops the turn table stays oldest first, loop by loop
    Given the model will reply:
      """
      <<PLAN:one:PLAN
      <<EDIT(known:///a.md):first:EDIT
      <<SEND[102]:going on:SEND
      """
    And the model will reply:
      """
      <<PLAN:two:PLAN
      <<EDIT(known:///b.md):second:EDIT
      <<SEND[102]:going on:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    And the model will reply:
      """
      <<PLAN:again:PLAN
      <<EDIT(known:///c.md):third:EDIT
      <<SEND[102]:going on:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    And the user starts a loop with the prompt "Once more"
    Then the turn table of packet 5 lists the turns "1/0, 1/1, 1/2, 1/3, 2/0, 2/1"

  @§packet-catalog
  Scenario: the catalog is one FIND(scheme:///**) per scheme, every entry a catalog row, tags only when present
    Given the entry known:///a.md contains "alpha" tagged "draft"
    And the entry known:///b.md contains "beta"
    And the entry unknown:///q.md contains "why?"
    And the operator sets PLURNK_MANIFEST_ITEMS to "-1"
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the model run's log records FIND known:///** with status 200 by plurnk
    And the model run's log records FIND unknown:///** with status 200 by plurnk
    And the model run has no FIND of log:///** in its log
    And the log section of packet 1 contains "[{\"path\":\"known:///a.md\",\"tags\":[\"draft\"],\"channels\":{\"known:///a.md#body\":{\"mimetype\":\"text/markdown\",\"tokens\":2,\"lines\":1}}},{\"path\":\"known:///b.md\",\"channels\":{\"known:///b.md#body\":{\"mimetype\":\"text/markdown\",\"tokens\":1,\"lines\":1}}}]" per Decision (§find-result-catalog-rows)
    And the log section of packet 1 contains "[{\"path\":\"unknown:///q.md\",\"channels\"" per Decision (§find-result-catalog-rows)
    And no packet mentions "manifest.json"

  @§schemes-directory @decision
  Scenario: an entry with two channels counts once among its scheme's entries
    Given the entry known:///a.md contains "alpha\nbeta"
    And the entry known:///a.md#symbols contains "[\"alpha\"]"
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the schemes section of packet 1 contains "* known:/// 1 entries, " per Decision (§schemes-directory)

  @§schemes-directory @decision
  Scenario: the schemes section has one usage line per scheme that ships an example and points at its docs, which are plurnk://docs entries
    Given the entry known:///a.md contains "alpha\nbeta"
    And the model will reply:
      """
      <<PLAN:read the docs:PLAN
      <<READ(plurnk://docs/known.md)::READ
      <<READ(plurnk://docs/plurnk.md)::READ
      <<FIND(plurnk://docs/**)::FIND
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then packet 1 has the system sections "definition, schemes, budget"
    And the schemes section of packet 1 reads: per Decision (§schemes-directory)
      """
      * file:/// 0 entries, 0 lines: <<READ(main.go)<1,40>::READ (plurnk://docs/file.md)
      * known:/// 1 entries, 2 lines: <<EDIT(known:///plan.md):what to keep:EDIT (plurnk://docs/known.md)
      * log:/// 0 entries, 0 lines: <<FOLD(log:///1/1/1)::FOLD (plurnk://docs/log.md)
      * skill:/// 0 entries, 0 lines: <<READ(skill:///name.md)::READ (plurnk://docs/skill.md)
      * unknown:/// 0 entries, 0 lines: <<EDIT(unknown:///question.md):what is still open:EDIT (plurnk://docs/unknown.md)
      """
    And the schemes section of packet 1 does not contain "Every run of the session sees"
    And the model run's log records READ plurnk:///docs/known.md with status 200
    And the model run's log records READ plurnk://docs/plurnk.md with status 404
    And the plurnk run's log records EDIT plurnk:///docs/known.md with status 201 by plurnk per Decision (§schemes-directory)
    And the log section of packet 2 contains "* log:///1/1/1/READ 200 plurnk:///docs/known.md\n<<plurnk:///docs/known.md:\n1:\t# known://\n2:\t\n3:\tWhat you have learned" per Decision (§render-rule-find-renders-result)
    And the log section of packet 2 contains "* log:///1/1/2/READ 404 plurnk://docs/plurnk.md (folded)" per Decision (§render-rule-find-renders-result)
    And the log section of packet 2 contains "[{\"path\":\"plurnk:///docs/file.md\",\"channels\"" per Decision (§find-result-catalog-rows)
    And the log section of packet 2 contains "{\"path\":\"plurnk:///docs/unknown.md\",\"channels\"" per Decision (§find-result-catalog-rows)
    And the log section of packet 2 does not contain "plurnk:///docs/plurnk.md\"" per Decision (§find-result-catalog-rows)

  @§schemes-directory @decision
  Scenario: a loop that finds every scheme doc as the build ships it writes none of them again
    Given the model will reply:
      """
      <<PLAN:one:PLAN
      <<SEND[200]:one:SEND
      """
    And the model will reply:
      """
      <<PLAN:two:PLAN
      <<SEND[200]:two:SEND
      """
    When the user starts a loop with the prompt "one"
    And the user starts a loop with the prompt "two"
    Then the plurnk run's log records EDIT plurnk:///docs/known.md with status 201 by plurnk per Decision (§schemes-directory)
    And the plurnk run's log records 5 EDIT rows per Decision (§schemes-directory)

  @§render-rule-find-renders-result @§render-rule-line-navigable-prefix @§machine-processes-run-is-its-log
  Scenario: an open READ row shows its lines numbered in the log section; folded, it shows only its address
    Given the entry known:///a.md contains "alpha\nbeta"
    And the model will reply:
      """
      <<PLAN:read it:PLAN
      <<READ(known:///a.md)::READ
      <<SEND[102]:read:SEND
      """
    And the model will reply:
      """
      <<PLAN:put it away:PLAN
      <<FOLD(log:///1/1/1)::FOLD
      <<SEND[102]:folded:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200
    And the log section of packet 2 contains "log:///1/1/1/READ"
    And the log section of packet 2 contains "1:\talpha\n2:\tbeta"
    And the log section of packet 3 contains "log:///1/1/1/READ"
    And the log section of packet 3 does not contain "1:\talpha"

  @§render-rule-find-renders-result @decision
  Scenario: READ and FIND rows at 200 render their body under the query's fence; a row without a body re-emits its statement
    Given the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<PLAN:look around:PLAN
      <<FIND(known:///**)::FIND
      <<READ(known:///a.md)::READ
      <<READ(known:///a.md):/beta/:READ
      <<KILL(known:///a.md)::KILL
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the log section of packet 2 contains "* log:///1/1/1/FIND 200 known:///**\n<<known:///**:\n[{\"path\":\"known:///a.md\",\"channels\":{\"known:///a.md#body\":{\"mimetype\":\"text/markdown\",\"tokens\":2,\"lines\":1}}}]\n:known:///**\n" per Decision (§render-rule-find-renders-result)
    And the log section of packet 2 contains "* log:///1/1/2/READ 200 known:///a.md\n<<known:///a.md:\n1:\talpha\n:known:///a.md\n" per Decision (§render-rule-find-renders-result)
    And the log section of packet 2 contains "<<READ(known:///a.md):/beta/:READ"
    And the log section of packet 2 contains "<<KILL(known:///a.md)::KILL"
    And the log section of packet 2 contains "* log:///1/1/3/READ 204 known:///a.md\n<<READ(known:///a.md):/beta/:READ\n* log:///1/1/4/KILL 200 known:///a.md\n<<KILL(known:///a.md)::KILL\n" per Decision (§render-rule-find-renders-result)

  @§edit-result-render
  Scenario: an EDIT row that spliced in more lines than its context shows every line it wrote, numbered in the new content
    Given the entry known:///list.md contains "a\nb\nc\nd\ne\nf\ng\nh\n"
    And the model will reply:
      """
      <<PLAN:edit the list:PLAN
      <<EDIT(known:///list.md)<4>:L1
      L2
      L3
      L4
      L5:EDIT
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "edit"
    Then the log section of packet 2 contains "4:\tL1"
    And the log section of packet 2 contains "6:\tL3"
    And the log section of packet 2 contains "8:\tL5"
    And the log section of packet 2 does not contain "<<EDIT(known:///list.md)<4>:L1"

  @§edit-result-render @decision
  Scenario Outline: an EDIT row renders the span it produced, numbered in the new content, two lines of context either side
    Given the entry known:///list.md contains "a\nb\nc\nd\ne\nf\ng\nh\n"
    And the model will reply:
      """
      <<PLAN:edit the list:PLAN
      <<EDIT(known:///list.md)<marks>:<body>:EDIT
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "edit"
    Then the log section of packet 2 contains "* log:///1/1/1/EDIT 200 known:///list.md\n:::\n<span>:::\n* log:///1/1/2/SEND" per Decision (§edit-result-render)

    Examples:
      | marks | body  | span                                           |
      | <4>   | D     | 2:\tb\n3:\tc\n4:\tD\n5:\te\n6:\tf\n   |
      | <1>   | A     | 1:\tA\n2:\tb\n3:\tc\n                     |
      | <-1>  | i     | 7:\tg\n8:\th\n9:\ti\n                     |
      | <4,5> | X\nY | 2:\tb\n3:\tc\n4:\tX\n5:\tY\n6:\tf\n7:\tg\n |
      | <4,5> |       | 2:\tb\n3:\tc\n4:\tf\n5:\tg\n            |

  @§edit-result-render
  Scenario: an EDIT that writes the whole entry shows all of it; an EDIT that changed nothing re-emits its statement
    Given the model will reply:
      """
      <<PLAN:write:PLAN
      <<EDIT(known:///n.md):one
      two:EDIT
      <<EDIT(known:///n.md):one
      two:EDIT
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "write"
    Then the log section of packet 2 contains "* log:///1/1/1/EDIT 201 known:///n.md\n:::\n1:\tone\n2:\ttwo\n:::\n* log:///1/1/2/EDIT 304 known:///n.md\n<<EDIT(known:///n.md):one\ntwo:EDIT\n* log:///1/1/3/SEND" per Decision (§edit-result-render)

  @§packet-inject
  Scenario: the operator notes are read again at every turn of one loop, not once per loop
    Given the operator's file /work/notes.md reads:
      """
      First note.
      """
    And the operator sets PLURNK_PACKET_INJECT to "/work/notes.md"
    And the model will reply:
      """
      <<PLAN:change the notes:PLAN
      <<EDIT(notes.md):Second note.:EDIT
      <<SEND[102]:changed:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then the operator-notes section of packet 1 reads:
      """
      First note.
      """
    And the operator-notes section of packet 2 reads:
      """
      Second note.
      """
