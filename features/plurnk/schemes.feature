@plurnk
Feature: Schemes and addressing
  A registered scheme folds the URI authority into the path, so the two-slash
  and three-slash forms name one entry; web schemes keep their host; project
  paths resolve against the workspace root. A scheme handler that throws
  fails only its own action, with 500.

  @§scheme-address-namespace-fold
  Scenario: known://x, known:///x and the pathname /x are one entry
    When the model emits <<EDIT(known://france/capital):Paris:EDIT
    Then the action answers 201
    When the model emits <<EDIT(known:///france/capital):Paris:EDIT
    Then the action answers 304 on the same entry as before
    When the model emits <<READ(known://france/capital)::READ
    Then the action answers 200 on the same entry as before
    And the address of known://france/capital is known:///france/capital

  @§scheme-address-namespace-fold
  Scenario: an unregistered web scheme keeps its host
    Then the address of https://example.com/docs is https://example.com/docs
    And the address of known://example.com/docs is known:///example.com/docs

  @§scheme-address-namespace-fold
  Scenario: a relative project path resolves against the workspace root
    Given the workspace file src/app.go contains "package main"
    When the model emits <<READ(src/../src/app.go)::READ
    Then the action answers 200
    And the result content is:
      """
      1:\tpackage main
      """
    When the model emits <<EDIT(./notes.txt):written:EDIT
    Then the action answers 201
    And the workspace file notes.txt holds "written"

  @§scheme-address-namespace-fold
  Scenario: a project path that escapes the workspace root answers 403
    When the model emits <<READ(../secrets.txt)::READ
    Then the action answers 403
    When the model emits <<EDIT(src/../../escape.txt):x:EDIT
    Then the action answers 403

  Scenario: a binary project file answers 415 to READ and EDIT
    Given the workspace holds the binary file logo.png
    When the model emits <<READ(logo.png)::READ
    Then the action answers 415
    When the model emits <<EDIT(logo.png):not an image:EDIT
    Then the action answers 415

  @§scheme-surface-exception-500 @decision
  Scenario: a scheme handler that throws fails its action with 500 on the action's row
    Given a scheme "flaky" whose handler throws
    When the model emits <<EDIT(known:///kept.md):fine:EDIT
    Then the action answers 201
    When the model emits <<EDIT(flaky:///x):boom:EDIT
    Then the action answers 500
    And the result reason mentions "handler exploded" per Decision (§scheme-surface-exception-500)
    And the action's log row records status 500 at log:///1/1/2
    And the errors of turn 1/1 point at "500 log:///1/1/2"
    And the body channel of known:///kept.md holds "fine"

  @§scheme-surface-exception-500 @decision
  Scenario: what a handler wrote before it threw is rolled back
    Given a scheme "flaky" whose handler throws after saving
    When the model emits <<EDIT(flaky:///x):half written:EDIT
    Then the action answers 500
    And the result reason mentions "handler exploded after saving" per Decision (§scheme-surface-exception-500)
    And the entry flaky:///x does not exist per Decision (§scheme-surface-exception-500)
    And the action's log row records status 500 at log:///1/1/1
    And the errors of turn 1/1 point at "500 log:///1/1/1"

  @§scheme-surface-exception-500 @§edit-tags-additive @decision
  Scenario: an EDIT a throwing handler fails removes none of the entry's tags
    Given a scheme "flaky" whose handler throws while removing
    And the entry flaky:///x contains "kept" tagged "beta, delta, gamma"
    And the scheme "flaky" now throws after saving
    When the model emits <<EDIT[alpha](flaky:///x):half written:EDIT
    Then the action answers 500
    And the entry flaky:///x still carries the tags "beta, delta, gamma"
    And the entry flaky:///x has tags "beta, delta, gamma" per Decision (§scheme-surface-exception-500)
    And the body channel of flaky:///x holds "kept" per Decision (§scheme-surface-exception-500)

  @§scheme-surface-exception-500
  Scenario Outline: an exception in any handler call fails just that action with 500
    Given the entry known:///kept.md contains "fine"
    And a scheme "flaky" whose handler throws <when>
    When the model emits <emission>
    Then the action answers 500
    And the result reason mentions "handler exploded <when>"
    And the action's log row records status 500 at log:///1/1/1
    And the errors of turn 1/1 point at "500 log:///1/1/1"
    When the model emits <<READ(known:///kept.md)::READ
    Then the action answers 200

    Examples:
      | when          | emission                                    |
      | while loading | <<READ(flaky:///x)::READ                    |
      | while listing | <<FIND(flaky:///**)::FIND                   |
      | while saving  | <<COPY(known:///kept.md):flaky:///copy:COPY |
      | while loading | <<KILL(flaky:///x)::KILL                    |

  @§scheme-surface-exception-500 @decision
  Scenario: a MOVE whose source handler throws while removing leaves the destination file unwritten
    Given a scheme "flaky" whose handler throws while removing
    And the entry flaky:///draft.md contains "moved text"
    When the model emits <<MOVE(flaky:///draft.md):notes/draft.md:MOVE
    Then the action answers 500
    And the workspace file notes/draft.md does not exist per Decision (§scheme-surface-exception-500)
    And the body channel of flaky:///draft.md holds "moved text" per Decision (§scheme-surface-exception-500)

  @§scheme-surface-exception-500
  Scenario: a handler error that carries no status answers 500 too
    Given a scheme "flaky" whose handler fails with a plain error while saving
    When the model emits <<EDIT(flaky:///x):text:EDIT
    Then the action answers 500
    And the result reason mentions "the disk behind flaky:///x is full"
    And the errors of turn 1/1 point at "500 log:///1/1/1"
