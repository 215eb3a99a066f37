@plurnk
Feature: Sharp edges of the DSL: positions, short tails, executor ids and the written statement
  A parse error points at the offending character; an emission may end in the
  middle of an op's name without harm; an executor id is a word that may hold
  dots, plus and minus signs; a statement written back (the tx of a row) keeps
  its signal in brackets.

  Background:
    Given the model's context window is 100000 tokens

  @§telemetry-content-offset-snippet
  Scenario: a bad mark in an <L> slot is reported at the mark, not at the slot
    Given the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<PLAN:look:PLAN
      <<READ(known:///a.md)<1,x>::READ
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the log section of packet 2 contains "parse: 2:25:" per Decision (§provider-surface-generate)

  @§provider-surface-generate
  Scenario Outline: an <L> slot missing a mark, as in <slot>, is a parse-error row and the loop goes on
    Given the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<PLAN:look:PLAN
      <<READ(known:///a.md)<slot>::READ
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200
    And the model was called 2 times
    And the model run's log records error - with status 400 by plurnk per Decision (§provider-surface-generate)
    And the log section of packet 2 contains "bad <L> on <<READ" per Decision (§provider-surface-generate)

    Examples:
      | slot  |
      | <>    |
      | <3,>  |
      | <3, > |

  @§provider-surface-generate
  Scenario: an emission that ends in the first letters of an op is prose
    Given the model will reply, its text ending on the last character shown:
      """
      <<PLAN:look:PLAN
      <<SEND[102]:next:SEND
      <<SE
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200
    And the log section of packet 2 contains "* log:///1/1/1/SEND 102" per Decision (§render-rule-find-renders-result)
    And the log section of packet 2 does not contain "parse:" per Decision (§provider-surface-generate)

  @§exec-registry-resolves
  Scenario: an executor id is a word from a to z that may hold dots, never a slash
    Given the model will reply:
      """
      <<PLAN:look:PLAN
      <<EXEC[node.js]:print:EXEC
      <<EXEC[node/js]:print:EXEC
      <<EXEC[zsh]:print:EXEC
      <<EXEC[ash]:print:EXEC
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the log section of packet 2 contains "expected executor for EXEC (like sh, node, python), found \"node/js\"" per Decision (§provider-surface-generate)
    And the log section of packet 2 does not contain "found \"node.js\"" per Decision (§provider-surface-generate)
    And the log section of packet 2 contains "* log:///1/1/2/EXEC 501" per Decision (§render-rule-find-renders-result)
    And the log section of packet 2 contains "* log:///1/1/3/EXEC 501" per Decision (§render-rule-find-renders-result)
    And the log section of packet 2 contains "* log:///1/1/4/EXEC 501" per Decision (§render-rule-find-renders-result)
    And the log section of packet 2 does not contain "found \"zsh\"" per Decision (§provider-surface-generate)
    And the log section of packet 2 does not contain "found \"ash\"" per Decision (§provider-surface-generate)

  @§exec-registry-resolves
  Scenario Outline: a runtime tag that could be a URI scheme, dots and all, is looked up and an unknown one gives 501
    Given the model will reply:
      """
      <<PLAN:look:PLAN
      <<EXEC[<runtime>]:print:EXEC
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200
    And the model run's log records EXEC * with status 501
    And the model run has no error of * in its log

    Examples:
      | runtime  |
      | node.js  |
      | c++      |
      | x-sh     |
      | zsh      |

  @§methods-op-mirror
  Scenario: the op mirror writes the statement with its signal and its target's channel
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    When "A" calls op.find with {"signal": "draft", "target": "known:///**"}
    Then the answer to "A" has entries.0.tx = "<<FIND[draft](known:///**)::FIND"
    When "A" calls op.edit with {"target": "known:///a.md", "body": "alpha"}
    And "A" calls op.read with {"target": "known:///a.md#body"}
    Then the answer to "A" has entries.0.tx = "<<READ(known:///a.md#body)::READ"

  @§grinder-strike-coupling @decision
  Scenario: a turn that breaks the turn shape counts a strike: two in a row end the loop at a limit of 2
    Given the operator sets PLURNK_MAX_STRIKES to "2"
    And the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<READ(known:///a.md)::READ
      <<SEND[102]:no plan:SEND
      """
    And the model will reply:
      """
      <<READ(known:///a.md)::READ
      <<SEND[102]:still no plan:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 500 per Decision (§grinder-strike-coupling)
    And the model was called 2 times per Decision (§grinder-strike-coupling)

  @§grinder-strike-coupling @decision
  Scenario: two turns that break the turn shape stay under a limit of 3
    Given the operator sets PLURNK_MAX_STRIKES to "3"
    And the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<READ(known:///a.md)::READ
      <<SEND[102]:no plan:SEND
      """
    And the model will reply:
      """
      <<READ(known:///a.md)::READ
      <<SEND[102]:still no plan:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200 per Decision (§grinder-strike-coupling)
    And the model was called 3 times per Decision (§grinder-strike-coupling)

  @§provider-surface-generate @decision
  Scenario: a turn that is only its terminal SEND is a shape failure row, and the SEND still ends the loop
    Given the model will reply:
      """
      <<SEND[200]:done without a plan:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200 per Decision (§provider-surface-generate)
    And the model was called 1 time
    And the model run's log records error - with status 400 by plurnk per Decision (§provider-surface-generate)
    And the model run's log records SEND - with status 200 by model

  @§provider-surface-generate @decision
  Scenario: a turn without a terminal SEND is a shape failure row, and the loop goes on as 102
    Given the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<PLAN:look:PLAN
      <<READ(known:///a.md)::READ
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200
    And the log section of packet 2 contains "missing_terminal: a turn must end with a terminal <<SEND[status]:…:SEND" per Decision (§provider-surface-generate)

  @§telemetry-content-offset-snippet
  Scenario: blanks between an op's slots may be spaces or tabs
    Given the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<PLAN:look:PLAN
      <<READ	(known:///a.md)	::READ
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200
    And the log section of packet 2 does not contain "parse:" per Decision (§provider-surface-generate)
    And the log section of packet 2 contains "* log:///1/1/1/READ 200 known:///a.md" per Decision (§render-rule-find-renders-result)

  @§provider-surface-generate
  Scenario: PLAN takes no slots: a PLAN with a signal or a target is a parse error row
    Given the model will reply:
      """
      <<PLAN[1]:look:PLAN
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the log section of packet 2 contains "PLAN takes no slots" per Decision (§provider-surface-generate)

  @§exec-registry-resolves @decision
  Scenario Outline: an executor id starts with a letter or an underscore, never a digit
    Given the model will reply:
      """
      <<PLAN:look:PLAN
      <<EXEC[<runtime>]:print:EXEC
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the log section of packet 2 <parse> "found \"<runtime>\"" per Decision (§provider-surface-generate)

    Examples:
      | runtime | parse            |
      | 9x      | contains         |
      | _x      | does not contain |
      | x_9     | does not contain |
