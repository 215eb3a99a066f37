@plurnk
Feature: Provider surface — generate, countTokens, costFor, contextSize and meta
  The engine talks to the model through a provider: one generate call per
  turn under the run's abort signal, whose content it parses with the plurnk
  grammar; a synchronous token counter used when content is written and when
  the packet is rendered; a price per completed turn; and the context size
  the budget reads. The scripted provider used here counts one token per four
  characters, rounded up.

  @§provider-surface-generate
  Scenario: generate is called once per turn with the packet, and its content is parsed into ops
    Given the model will reply:
      """
      <<PLAN:note the answer:PLAN
      <<EDIT(known:///answer.md):42:EDIT
      <<SEND[102]:noted:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:The answer is 42.:SEND
      """
    When the user starts a loop with the prompt "What is the answer?"
    Then the loop ends with status 200
    And the model was called 2 times
    And every call to the model carried the run's abort signal
    And the model run's log records EDIT known:///answer.md with status 201 by model
    And the body channel of known:///answer.md holds "42"

  @§provider-surface-generate
  Scenario: the run's abort signal reaches the provider: a loop cancelled mid-generate ends 499
    Given the client will cancel the loop while the model is generating
    When the user starts a loop with the prompt "What is the answer?"
    Then the loop ends with status 499
    And the model was called 1 time

  @§provider-surface-generate @decision
  Scenario: a provider failure ends the loop with 500 and an error row, never a crash
    Given the provider will fail the next call with "upstream 503"
    When the user starts a loop with the prompt "What is the answer?"
    Then the loop ends with status 500
    And the model run's log records error - with status 500 by plurnk
    And the provider priced 0 completed turns per Decision (§provider-surface-generate)

  @§provider-surface-generate @decision
  Scenario: text that does not parse becomes actionless error rows the next packet points at
    Given the model will reply:
      """
      I think the answer is <<EDIT(known:///answer.md:42:EDIT
      """
    And the model will reply:
      """
      <<PLAN:try again properly:PLAN
      <<EDIT(known:///answer.md):42:EDIT
      <<SEND[200]:The answer is 42.:SEND
      """
    When the user starts a loop with the prompt "What is the answer?"
    Then the loop ends with status 200
    And the model run's log records error - with status 400 by plurnk
    And the errors section of packet 2 points at 1/1/1 with status 400
    And the errors section of packet 2 contains "* {\"coordinate\":\"1/1/1\",\"kind\":\"action_failure\",\"op\":\"error\",\"status\":400,\"target\":null}" per Decision (§telemetry-no-error-scheme)
    And the log section of packet 2 contains "log:///1/1/1/error 400" per Decision (§render-rule-find-renders-result)

  @§provider-surface-generate @decision
  Scenario: an op after the terminal SEND is a shape violation and is not dispatched, even when the SEND comes first
    Given the model will reply:
      """
      <<SEND[102]:first things first:SEND
      <<EDIT(known:///late.md):too late:EDIT
      """
    And the model will reply:
      """
      <<PLAN:properly:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Note it"
    Then the loop ends with status 200
    And the entry known:///late.md does not exist per Decision (§provider-surface-generate)

  @§provider-surface-counttokens @§tokenomics-tokens-stored-at-write
  Scenario: content tokens are counted with the provider's tokenizer when the content is written
    Given the model will reply:
      """
      <<PLAN:write:PLAN
      <<EDIT(known:///forty.md):0123456789012345678901234567890123456789:EDIT
      <<SEND[102]:written:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<READ(known:///forty.md)::READ
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Write forty characters"
    Then the body channel of known:///forty.md stored 10 tokens
    And the row log:///1/2/1 of the model run stored 11 tokens

  @§provider-surface-counttokens @§tokenomics-tokens-stored-at-write
  Scenario Outline: the count stored at write is the model's tokenizer's, not the length estimate
    Given the provider's tokenizer counts one token per <chars> characters
    And the model will reply:
      """
      <<PLAN:write:PLAN
      <<EDIT(known:///forty.md):0123456789012345678901234567890123456789:EDIT
      <<SEND[200]:written:SEND
      """
    When the user starts a loop with the prompt "Write forty characters"
    Then the body channel of known:///forty.md stored <tokens> tokens

    Examples:
      | chars | tokens |
      | 5     | 8      |
      | 8     | 5      |
      | 3     | 14     |

  @§provider-surface-counttokens @§tokenomics-tokens-stored-at-write
  Scenario: a later change of tokenizer does not rewrite the counts stored at write
    Given the model will reply:
      """
      <<PLAN:write:PLAN
      <<EDIT(known:///forty.md):0123456789012345678901234567890123456789:EDIT
      <<SEND[200]:written:SEND
      """
    When the user starts a loop with the prompt "Write forty characters"
    And the provider's tokenizer counts one token per 2 characters
    Then the body channel of known:///forty.md stored 10 tokens

  @§provider-surface-counttokens
  Scenario: the packet is measured with the same tokenizer at render time
    Given the model's context window is 100000 tokens
    And the provider's tokenizer counts one token per 2 characters
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then the budget usage of packet 1 is the token count of the whole rendered packet

  @§provider-surface-costfor
  Scenario: each completed turn is priced once and rolled up into the run and the session
    Given the provider charges 3 pico-USD per prompt token and 5 per completion token
    And the model will reply:
      """
      <<PLAN:note:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<SEND[102]:go on:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Price me"
    Then the provider priced 2 completed turns
    And each turn's cost is its usage at the provider's prices
    And the run and the session each rolled up the loop's cost

  @§provider-surface-identity
  Scenario: with a context size the budget has a ceiling
    Given the model's context window is 50000 tokens
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then the budget headline of packet 1 gives usage as a percent of a 50000-token ceiling

  @§provider-surface-identity @decision
  Scenario: with no context size (null) there is no ceiling: the headline gives usage alone
    Given the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then the budget section of packet 1 contains "usage "
    And the budget section of packet 1 does not contain "ceiling" per Decision (§provider-surface-identity)

  @§provider-surface-identity @decision
  Scenario: PLURNK_BUDGET_CEILING narrows the provider's context size, never widens it
    Given the model's context window is 50000 tokens
    And the operator sets PLURNK_BUDGET_CEILING to "20000"
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then the budget headline of packet 1 gives usage as a percent of a 20000-token ceiling per Decision (§provider-surface-identity)

  @§meta-passthrough
  Scenario: the newest turn's meta reaches the loop's usage payload untouched
    Given the model will reply with the meta {"balancePico":900,"tier":"gold"}:
      """
      <<PLAN:note:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<SEND[102]:go on:SEND
      """
    And the model will reply with the meta {"balancePico":850,"x":{"nested":[1,2]}}:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Meta please"
    Then the loop's meta is {"balancePico":850,"x":{"nested":[1,2]}}

  @§meta-passthrough
  Scenario: a loop whose provider returned no meta passes {}
    Given the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Meta please"
    Then the loop's meta is {}

  @§meta-passthrough @decision
  Scenario: meta that is not valid JSON is not stored; an earlier turn's meta stays the newest
    Given the model will reply with the meta {"balancePico":900}:
      """
      <<PLAN:note:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<SEND[102]:go on:SEND
      """
    And the model will reply with the meta {"broken":
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Meta please"
    Then the loop's meta is {"balancePico":900} per Decision (§meta-passthrough)
