@plurnk
Feature: Sharp edges of the parse-error rows and the slot scanner
  A parse failure is an actionless error row whose body shows the offending
  line around the column with a caret under it; a long line is clipped on
  both sides. A stray or trailing angle bracket in the slot region is a
  parse error, never a crash.

  Background:
    Given the model's context window is 100000 tokens

  @§telemetry-content-offset-snippet @decision
  Scenario: the snippet of a parse error on a long line is clipped sixty bytes either side of the column
    Given the model will reply:
      """
      <<PLAN:look:PLAN
      <<KILL(known:///aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.md)(known:///bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.md)::KILL
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the model run's log records error - with status 400 by plurnk
    And the log section of packet 2 contains "aaaa.md)(known:///bbbb"
    And the log section of packet 2 contains "…aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.md)(known:///bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n" per Decision (§telemetry-content-offset-snippet)
    And the log section of packet 2 contains "\n                                                             ^" per Decision (§telemetry-content-offset-snippet)

  @§telemetry-content-offset-snippet
  Scenario: the snippet of a parse error on a long line of two-byte letters holds whole letters only
    # The snippet is a slice of the model's own text: wherever a long line
    # is clipped, no letter is cut in two (a cut one would show as U+FFFD).
    Given the model will reply:
      """
      <<PLAN:look:PLAN
      <<KILL(known:///a.md)(known:///xéééééééééééééééééééééééééééééééééééééééé.md)::KILL
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the model run's log records error - with status 400 by plurnk
    And the log section of packet 2 contains "(known:///xéééé"
    And the log section of packet 2 does not contain "�"
    And the log section of packet 2 contains "(known:///xéééééééééééééééééééééééé\n" per Decision (§telemetry-content-offset-snippet)

  @§telemetry-content-offset-snippet @decision
  Scenario: the snippet of a parse error on a short line shows the whole line and the caret under the column
    Given the model will reply:
      """
      <<PLAN:look:PLAN
      <<KILL(known:///a.md)(known:///b.md)::KILL
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the log section of packet 2 contains "<<KILL(known:///a.md)(known:///b.md)::KILL\n                     ^" per Decision (§telemetry-content-offset-snippet)
    And the log section of packet 2 contains "parse: 2:22:" per Decision (§provider-surface-generate)

  @§provider-surface-generate
  Scenario: an emission that ends on a lone < in the slot region is a parse-error row, and the loop goes on
    Given the entry known:///a.md contains "alpha"
    And the model will reply, its text ending on the last character shown:
      """
      <<PLAN:look:PLAN
      <<READ(known:///a.md)<
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200
    And the model was called 2 times
    And the model run's log records error - with status 400 by plurnk
    And the log section of packet 2 contains "<<READ(known:///a.md)<"
    And the log section of packet 2 contains "<L> slot of <<READ not closed" per Decision (§provider-surface-generate)
    And the log section of packet 2 contains "<<READ(known:///a.md)<\n                     ^" per Decision (§telemetry-content-offset-snippet)

  @§provider-surface-generate @§telemetry-no-error-scheme @decision
  Scenario Outline: an emission that ends just after an op's name is a parse-error row, not prose, and the loop goes on
    Given the model will reply, its text ending on the last character shown:
      """
      <<PLAN:look:PLAN
      <<<op>
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200
    And the model was called 2 times
    And the model run's log records error - with status 400 by plurnk
    And the log section of packet 2 contains "<<<op> ended before its body" per Decision (§provider-surface-generate)

    Examples:
      | op   |
      | READ |
      | SEND |

  @§provider-surface-generate
  Scenario: a doubled << in the slot region is refused with its own parse error, a single < opens the scope slot
    Given the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<PLAN:look:PLAN
      <<READ(known:///a.md)<<x>::READ
      <<READ(known:///a.md)<x>::READ
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the log section of packet 2 contains "unexpected '<<' in the slot region of <<READ" per Decision (§provider-surface-generate)
    And the log section of packet 2 does not contain "<L> slot of <<READ not closed" per Decision (§provider-surface-generate)

  @§provider-surface-generate
  Scenario Outline: a heredoc suffix of <what> closes the statement it opened
    When the model emits <<EDIT<suffix>(known:///n.md):noted:EDIT<suffix>
    Then the action answers 201
    And the body channel of known:///n.md holds "noted"

    Examples:
      | what                     | suffix  |
      | the digits 0 and 9       | 09      |
      | the letters a and z      | az      |
      | the capitals A and Z     | AZ      |
      | an underscore            | _       |

  @§provider-surface-generate
  Scenario: a non-SEND statement carrying a status and no target is never the turn's terminal
    Given the model will reply:
      """
      <<PLAN:look:PLAN
      <<READ[200]::READ
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200
    And the model was called once per turn, 2 times in all
    And the log section of packet 2 contains "* log:///1/1/1/READ 400 (folded)\n* log:///1/1/2/SEND 102" per Decision (§render-rule-find-renders-result)

  @§send-dispatch-entry-schemes-501-on-non-410
  Scenario: a SEND[200] aimed at a target is an ordinary op, never the turn's terminal
    Given the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<PLAN:look:PLAN
      <<SEND[200](known:///a.md):hello:SEND
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200
    And the model was called once per turn, 2 times in all
    And the log section of packet 2 contains "* log:///1/1/1/SEND 501" per Decision (§render-rule-find-renders-result)

  @§telemetry-content-offset-snippet @decision
  Scenario: a parse error exactly sixty bytes into its line shows the line unclipped
    Given the model will reply:
      """
      <<PLAN:look:PLAN
      <<KILL(known:///aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.md)(known:///b.md)::KILL
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the log section of packet 2 contains "\n<<KILL(known:///aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.md)(known:///b.md)::KILL\n                                                            ^" per Decision (§telemetry-content-offset-snippet)

  @§provider-surface-generate @decision
  Scenario: a second [signal] slot is a parse error: neither status of the statement counts
    Given the model will reply:
      """
      <<PLAN:look:PLAN
      <<SEND[102][200]:done?:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the loop ends with status 200
    And the model was called once per turn, 2 times in all per Decision (§provider-surface-generate)
    And the log section of packet 2 contains "second [signal] slot on <<SEND" per Decision (§provider-surface-generate)
