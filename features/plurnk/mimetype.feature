@plurnk
Feature: Mimetype handlers
  Mimetype handlers run while the packet is assembled (and when a jsonpath
  or xpath matcher needs the projections of content written since, see
  mimetype_matcher.feature), never when a scheme writes content.

  @§mimetype-schemes-do-not-invoke-handlers
  Scenario: writing content calls no mimetype handler; assembling the packet does
    Given a text/markdown mimetype handler that counts its calls
    When the model emits <<EDIT(known:///notes.md):one\ntwo:EDIT
    Then the action answers 201
    When the model emits <<COPY(known:///notes.md):known:///copy.md:COPY
    Then the action answers 201
    And the mimetype handler has been called 0 times
    When the packet is assembled
    Then the mimetype handler has been called 2 times

  @§mimetype-schemes-do-not-invoke-handlers @decision
  Scenario Outline: no write and no glob, regex or @graph match calls a mimetype handler; each assembly calls it once per channel of its mimetype
    Given a text/markdown mimetype handler that counts its calls
    And the entry known:///a.md contains "one\ntwo"
    And the entry known:///keep.md contains "kept"
    When the model emits <emission>
    Then the action answers <status>
    And the mimetype handler has been called 0 times
    When the packet is assembled
    Then the mimetype handler has been called <channels> times per Decision (§mimetype-schemes-do-not-invoke-handlers)
    When the packet is assembled
    Then the mimetype handler has been called <twice> times per Decision (§mimetype-schemes-do-not-invoke-handlers)

    Examples:
      | emission                                   | status | channels | twice |
      | <<EDIT(known:///a.md):changed:EDIT         | 200    | 2        | 4     |
      | <<EDIT(known:///a.md)<1>:first:EDIT        | 200    | 2        | 4     |
      | <<COPY(known:///a.md):known:///b.md:COPY   | 201    | 3        | 6     |
      | <<MOVE(known:///a.md):known:///b.md:MOVE   | 201    | 2        | 4     |
      | <<KILL(known:///a.md)::KILL                | 200    | 1        | 2     |
      | <<SEND[410](known:///a.md)::SEND           | 200    | 1        | 2     |
      | <<READ(known:///a.md):/one/:READ           | 200    | 2        | 4     |
      | <<FIND(known:///**):two*:FIND              | 200    | 2        | 4     |
      | <<READ(known:///a.md):@two:READ            | 204    | 2        | 4     |
      | <<FIND(known:///**):@two:FIND              | 204    | 2        | 4     |
      | <<EDIT(notes.md):written to disk:EDIT      | 201    | 3        | 6     |

  @§mimetype-schemes-do-not-invoke-handlers
  Scenario: a streaming scheme appending chunks calls no mimetype handler
    Given a text/plain mimetype handler that counts its calls
    When the exec output sh:///1/1/2 streams "one\n" on stdout
    And the exec output sh:///1/1/2 streams "two\n" on stdout
    And the exec output sh:///1/1/2 closes
    Then the mimetype handler has been called 0 times
    When the packet is assembled
    Then the mimetype handler has been called 2 times
