@plurnk
Feature: Sharp edges of the OpenAI-compatible provider
  A chat-completions server may send a null finish_reason (the protocol
  allows it, and several servers do on their last choice). The provider
  takes the reply as it is: the turn is the model's text all the same.

  @§provider-surface-generate
  Scenario: a reply whose finish_reason is null is taken as a whole reply (one body)
    Given the daemon's model is served over the OpenAI-compatible protocol
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply without a finish reason:
      """
      <<PLAN:note:PLAN
      <<EDIT(known:///n.md):noted:EDIT
      <<SEND[102]:go on:SEND
      """
    And the daemon's model will reply without a finish reason:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:noted it:SEND
      """
    When "A" runs a loop with the prompt "note it"
    Then the loop "A" started ended with status 200
    And the daemon's model was called 2 times
    And "A" got a "loop/terminated" notification with turns = 2


  @§provider-surface-generate
  Scenario: a reply whose finish_reason is null is taken as a whole reply (event stream)
    Given the daemon's model is served over the OpenAI-compatible protocol with streaming
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply without a finish reason:
      """
      <<PLAN:note:PLAN
      <<EDIT(known:///n.md):noted:EDIT
      <<SEND[102]:go on:SEND
      """
    And the daemon's model will reply without a finish reason:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:noted it:SEND
      """
    When "A" runs a loop with the prompt "note it"
    Then the loop "A" started ended with status 200
    And the daemon's model was called 2 times
    And "A" got a "loop/terminated" notification with turns = 2


  @§provider-instantiation-alias-resolution
  Scenario: a PLURNK_OPENAI_BASE_URL that is no URL fails the call 500 without reaching any server
    Given the daemon's model is served over the OpenAI-compatible protocol
    And the daemon's operator sets PLURNK_MODEL_local to "openai/scripted"
    And the daemon's operator sets PLURNK_MODEL to "local"
    And the daemon's operator sets PLURNK_OPENAI_BASE_URL to "http://model server/v1"
    And the daemon's model will reply:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:never reached:SEND
      """
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    When "A" runs a loop with the prompt "hello"
    Then the loop "A" started ended with status 500
    And the daemon's model was called 0 times
