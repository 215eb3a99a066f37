@plurnk
Feature: Sharp edges of the loop's usage
  The loop's usage adds up what the provider reported for each turn: the
  prompt tokens of a two-turn loop are the sum of the two calls' prompt
  tokens, as the model server counted them.

  @§methods-loop-run @decision
  Scenario: loop/terminated reports the prompt tokens of every turn added up
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply:
      """
      <<PLAN:note:PLAN
      <<EDIT(known:///n.md):noted:EDIT
      <<SEND[102]:go on:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:noted it:SEND
      """
    When "A" runs a loop with the prompt "note it"
    Then the loop "A" started ended with status 200
    And "A" got a "loop/terminated" notification whose usage.promptTokens is the sum the daemon's model reported over its 2 calls per Decision (§methods-loop-run)
