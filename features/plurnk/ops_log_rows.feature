@plurnk
Feature: Log rows: OPEN, FOLD and KILL
  A run keeps no view of the world beside its log: what it has open or
  folded is a bit on its own log rows, addressed log:///<loop>/<turn>/<seq>
  (or by the handle log:///<loop>/<turn>/<seq>/<OP>). OPEN and FOLD flip that
  bit and change nothing else; like every executed op they record their own
  row. Aimed at an entry they answer 501, since entries carry no open or
  folded state. A failed action is such a row too, and the
  model curates it like any other: there is no error:// scheme.

  Background:
    Given the entry known:///plan.md contains "step one\nTODO step two"
    And the model emits <<READ(known:///plan.md)::READ
    And the model emits <<READ(known:///absent.md)::READ
    And the model emits <<EDIT(known:///notes.md):draft:EDIT
    And the model's turn 1/2 begins

  @§machine-processes-run-is-its-log
  Scenario: FOLD collapses one of the run's rows and OPEN restores it, each recording its own row
    Then the model's log holds the rows:
      | row        | state  |
      | 1/1/1/READ | open   |
      | 1/1/2/READ | folded |
      | 1/1/3/EDIT | open   |
    When the model emits <<FOLD(log:///1/1/1)::FOLD
    Then the action answers 200
    And the action's log row records status 200 at log:///1/2/1
    And the model's log row log:///1/1/1 is folded
    And the body channel of known:///plan.md holds "step one\nTODO step two"
    When the model emits <<OPEN(log:///1/1/1/READ)::OPEN
    Then the action answers 200
    And the action's log row records status 200 at log:///1/2/2
    And the model's log holds the rows:
      | row        | state  |
      | 1/1/1/READ | open   |
      | 1/1/2/READ | folded |
      | 1/1/3/EDIT | open   |
      | 1/2/1/FOLD | open   |
      | 1/2/2/OPEN | open   |

  @§machine-processes-run-is-its-log @decision
  Scenario: OPEN of a row already open changes nothing and answers 304
    When the model emits <<OPEN(log:///1/1/1)::OPEN
    Then the action answers 304 per Decision (§machine-processes-run-is-its-log)
    And the action's log row records status 304 at log:///1/2/1 per Decision (§machine-processes-run-is-its-log)
    And the model's log row log:///1/1/1 is open

  @§machine-processes-run-is-its-log @decision
  Scenario: a glob and a body matcher pick the rows to fold
    When the model emits <<FOLD(log:///1/1/*):/TODO/:FOLD
    Then the action answers 200
    And the result content is: per Decision (§machine-processes-run-is-its-log)
      """
      log:///1/1/1/READ
      """
    And the model's log holds the rows:
      | row        | state  |
      | 1/1/1/READ | folded |
      | 1/1/2/READ | folded |
      | 1/1/3/EDIT | open   |
      | 1/2/1/FOLD | open   |
    When the model emits <<OPEN(log:///**/READ)::OPEN
    Then the action answers 200
    And the model's log holds the rows:
      | row        | state  |
      | 1/1/1/READ | open   |
      | 1/1/2/READ | open   |
      | 1/1/3/EDIT | open   |
      | 1/2/1/FOLD | open   |
      | 1/2/2/OPEN | open   |
    When the model emits <<FOLD(log:///**):/nowhere/:FOLD
    Then the action answers 204 per Decision (§machine-processes-run-is-its-log)
    And the action's log row records status 204 at log:///1/2/3

  @§machine-processes-run-is-its-log @§scheme-address-namespace-fold
  Scenario: log://1/1/3 and log:///1/1/3 name the same row
    When the model emits <<FOLD(log://1/1/3)::FOLD
    Then the action answers 200
    And the model's log row log:///1/1/3 is folded
    When the model emits <<FOLD(log:///1/1/3)::FOLD
    Then the action answers 304

  @§machine-processes-run-is-its-log @decision
  Scenario: OPEN and FOLD aimed at an entry answer 501 and leave it as it was
    When the model emits <<FOLD(known:///plan.md)::FOLD
    Then the action answers 501
    And the result reason mentions "known:// entries carry no open or folded state" per Decision (§telemetry-no-error-scheme)
    And the action's log row records status 501 at log:///1/2/1
    When the model emits <<OPEN(notes.md)::OPEN
    Then the action answers 501
    And the body channel of known:///plan.md holds "step one\nTODO step two"

  @§machine-processes-run-is-its-log
  Scenario: a run curates only its own log
    Given a second run "B" in the session
    When run "B" emits <<FOLD(log:///1/1/1)::FOLD
    Then the action answers 404
    And the model's log row log:///1/1/1 is open
    When run "B" emits <<READ(known:///plan.md)::READ
    And run "B" emits <<FOLD(log:///1/2/2)::FOLD
    Then the action answers 200
    And run "B"'s log row log:///1/2/2 is folded
    And the model's log holds the rows:
      | row        | state  |
      | 1/1/1/READ | open   |
      | 1/1/2/READ | folded |
      | 1/1/3/EDIT | open   |

  @§machine-processes-run-is-its-log @decision
  Scenario: a coordinate the log does not hold answers 404 and records the failure
    When the model emits <<OPEN(log:///1/1/9)::OPEN
    Then the action answers 404
    And the action's log row records status 404 at log:///1/2/1
    When the model emits <<OPEN(log:///1/1/1/EDIT)::OPEN
    Then the action answers 404
    When the model emits <<OPEN(log:///1/1/9/READ)::OPEN
    Then the action answers 404
    When the model emits <<OPEN(log:///1/1/1#nope)::OPEN
    Then the action answers 400 per Decision (§machine-processes-run-is-its-log)

  @§telemetry-no-error-scheme
  Scenario: a failed action is a log row the model folds, reopens and kills like any other
    Then the errors of turn 1/1 point at "404 log:///1/1/2"
    When the model emits <<OPEN(log:///1/1/2)::OPEN
    Then the action answers 200
    When the model emits <<READ(log:///1/1/2)::READ
    Then the action answers 200
    And the result content is: per Decision (§machine-processes-run-is-its-log)
      """
      1:\t<<READ(known:///absent.md)::READ
      """
    When the model emits <<FOLD(log:///1/1/2)::FOLD
    Then the action answers 200
    When the model emits <<KILL(log:///1/1/2)::KILL
    Then the action answers 200
    And the model's log holds no row log:///1/1/2
    And the errors of turn 1/1 point at ""

  @§telemetry-no-error-scheme
  Scenario: there is no error:// scheme to read failures from
    When the model emits <<READ(error:///1/1/2)::READ
    Then the action answers 501
    And the result reason mentions "no handler for scheme \"error\"" per Decision (§telemetry-no-error-scheme)

  @§telemetry-no-error-scheme @decision
  Scenario: KILL deletes rows by coordinate, by glob or with SEND[410]; a missing row answers 404
    When the model emits <<KILL(log:///1/1/3/EDIT)::KILL
    Then the action answers 200
    And the model's log holds no row log:///1/1/3
    And the result content is "log:///1/1/3/EDIT\n" per Decision (§telemetry-no-error-scheme)
    And the body channel of known:///notes.md holds "draft"
    When the model emits <<KILL(log:///1/1/3)::KILL
    Then the action answers 404 per Decision (§telemetry-no-error-scheme)
    When the model emits <<SEND[410](log:///1/1/*)::SEND
    Then the action answers 200
    And the model's log holds the rows:
      | row        | state  |
      | 1/2/1/KILL | open   |
      | 1/2/2/KILL | folded |
      | 1/2/3/SEND | open   |
