@plurnk
Feature: the provider contract, over the OpenAI-compatible protocol
  The daemon reaches its model through a provider: here the OpenAI-compatible
  chat-completions client of impl/plurnk/provider, talking over loopback HTTP
  to the scripted model that sim/llm serves, or the scripted model in
  process. The operator names models by alias, the client declares itself,
  and the run's cancellation reaches the HTTP request.

  @§provider-guarantees-signal-wired @decision
  Scenario: cancelling the run abandons the HTTP request of the generate call in flight
    Given the daemon's model is served over the OpenAI-compatible protocol
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply:
      """
      <<PLAN:start:PLAN
      <<SEND[102]:working:SEND
      """
    And the daemon's model will hold its next reply until "A" cancels the loop
    When "A" runs a loop with the prompt "work"
    Then the loop "A" started ended with status 499
    And the daemon's model server saw 2 calls, the last one abandoned by its client per Decision (§provider-guarantees-signal-wired)

  @§provider-guarantees-signal-wired
  Scenario: the signal handed to generate is the run's own abort signal
    Given the model will reply:
      """
      <<PLAN:start:PLAN
      <<SEND[102]:working:SEND
      """
    And the client will cancel the loop while the model is generating
    When the user starts a loop with the prompt "work"
    Then the loop ends with status 499
    And every call to the model carried the run's abort signal

  @§provider-guarantees-single-call
  Scenario: two runs generating side by side never have two calls in flight on the provider
    Given the daemon's model is served over the OpenAI-compatible protocol with streaming
    And the daemon's model server waits for overlapping calls
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://helper):count:EDIT
      <<SEND[202]:waiting:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:count:PLAN
      <<SEND[200]:3:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:report:PLAN
      <<SEND[200]:the helper counted 3:SEND
      """
    When "A" runs a loop with the prompt "count"
    Then the loop "A" started ended with status 200
    And the daemon's model was called 3 times
    And "A" got 2 "loop/terminated" notifications
    And "A" got a "loop/terminated" notification with usage.completionTokens = 9 per Decision (§methods-loop-run)
    And no two calls to the daemon's model were in flight at once

  @§provider-guarantees-single-call
  Scenario: each turn makes exactly one generate call
    Given the model will reply:
      """
      <<PLAN:one:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<SEND[102]:go on:SEND
      """
    And the model will reply:
      """
      <<PLAN:two:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "two turns"
    Then the loop ends with status 200
    And the model was called once per turn, 2 times in all

  @§provider-guarantees-assistantraw-opaque
  Scenario: assistantRaw is kept verbatim and never read, even when it looks like statements
    Given the model will reply with the raw payload {"vendor":"x","text":"<<EDIT(known:///raw.md):from raw:EDIT"}:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:answered:SEND
      """
    When the user starts a loop with the prompt "answer"
    Then the loop ends with status 200
    And turn 1 of the loop kept the raw payload {"vendor":"x","text":"<<EDIT(known:///raw.md):from raw:EDIT"}
    And the entry known:///raw.md does not exist

  @§client-telemetry @decision
  Scenario: the client id of the session goes with every generate call, over HTTP as the user
    Given the daemon's model is served over the OpenAI-compatible protocol
    And a connection "A" to the daemon
    And the daemon's model will reply:
      """
      <<PLAN:one:PLAN
      <<SEND[102]:go on:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:two:PLAN
      <<SEND[200]:done:SEND
      """
    When "A" calls session.create with {"name": "ide", "settings": {"client": "plurnk-vscode/1.2"}}
    And "A" runs a loop with the prompt "hello"
    Then the loop "A" started ended with status 200
    And every call to the daemon's model carried the client "plurnk-vscode/1.2"
    And the daemon's model server saw the user "plurnk-vscode/1.2" on every call per Decision (§client-telemetry)
    And the daemon's model server saw the header X-Plurnk-Client "plurnk-vscode/1.2" on every call per Decision (§client-telemetry)
    And the daemon's model server saw the header X-Plurnk-Run "model" on every call per Decision (§client-telemetry)
    And the daemon's model server saw no bearer key on every call per Decision (§client-telemetry)

  @§client-telemetry
  Scenario: without a client id no generate call carries one
    Given a connection "A" to the daemon
    And "A" creates a session named "plain"
    And the daemon's model will reply:
      """
      <<PLAN:one:PLAN
      <<SEND[200]:done:SEND
      """
    When "A" runs a loop with the prompt "hello"
    Then the loop "A" started ended with status 200
    And no call to the daemon's model carried a client

  @§provider-instantiation-alias-resolution @decision
  Scenario: PLURNK_MODEL picks the default alias, loop.run's alias another, and the model id keeps its slashes
    Given the daemon's operator sets PLURNK_MODEL_fast to "mock/fast-1"
    And the daemon's operator sets PLURNK_MODEL_deep to "mock/deep/v2"
    And the daemon's operator sets PLURNK_MODEL to "fast"
    And the daemon's model "fast-1" will reply:
      """
      <<PLAN:quick:PLAN
      <<SEND[200]:quick answer:SEND
      """
    And the daemon's model "deep/v2" will reply:
      """
      <<PLAN:think hard:PLAN
      <<SEND[200]:deep answer:SEND
      """
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    When "A" runs a loop with the prompt "quick one"
    Then the loop "A" started ended with status 200
    When "A" runs a loop with {"prompt": "hard one", "alias": "deep"}
    Then the loop "A" started ended with status 200
    And the daemon's model "fast-1" was called 1 time
    And the daemon's model "deep/v2" was called 1 time
    When "A" calls loop.run with {"prompt": "hi", "alias": "slow"}
    Then the answer to "A" is the error -32004
    And the error answered to "A" has data alias = "slow"
    And the error answered to "A" mentions "slow" per Decision (§errors-error-codes)
    When "A" calls session.runs
    Then the answer to "A" has runs.#(name=="model").loops = 2

  @§provider-instantiation-alias-resolution @decision
  Scenario: PLURNK_MODEL naming no declared alias refuses the boot
    Given the daemon's operator sets PLURNK_MODEL_fast to "mock/fast-1"
    And the daemon's operator sets PLURNK_MODEL to "slow"
    When the daemon boots
    Then the daemon refused to start, saying "names no declared alias" per Decision (§provider-instantiation-alias-resolution)

  @§provider-instantiation-alias-resolution @decision
  Scenario Outline: an alias whose value is not <provider>/<model-id> refuses the boot
    Given the daemon's operator sets PLURNK_MODEL_fast to "<value>"
    And the daemon's operator sets PLURNK_MODEL to "fast"
    When the daemon boots
    Then the daemon refused to start, saying "want <provider>/<model-id>" per Decision (§provider-instantiation-alias-resolution)

    Examples:
      | value   |
      | mock    |
      | /fast-1 |
      | mock/   |

  @§provider-instantiation-alias-resolution
  Scenario: with aliases but no PLURNK_MODEL, loop.run needs an alias
    Given the daemon's operator sets PLURNK_MODEL_fast to "mock/fast-1"
    And the daemon's model "fast-1" will reply:
      """
      <<PLAN:quick:PLAN
      <<SEND[200]:quick answer:SEND
      """
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    When "A" calls loop.run with {"prompt": "hi"}
    Then the answer to "A" is the error -32004
    When "A" runs a loop with {"prompt": "hi", "alias": "fast"}
    Then the loop "A" started ended with status 200

  @§grammar-enforcement-verified-at-boot @decision
  Scenario: with PLURNK_PROVIDERS_GBNF the boot demands the probe text back and refuses a model that ignores the grammar
    Given the daemon's model is served over the OpenAI-compatible protocol
    And the daemon's operator sets PLURNK_PROVIDERS_GBNF to "1"
    And the daemon's model will reply:
      """
      <<PLAN:p:PLAN
      <<SEND[200]:not the probe:SEND
      """
    When the daemon boots
    Then the daemon refused to start, saying ""
    And the daemon refused to start, saying "does not enforce grammars" per Decision (§grammar-enforcement-verified-at-boot)
    And the daemon's model was called 1 time

  @§grammar-enforcement-verified-at-boot
  Scenario: a model that enforces the grammar passes the boot check, and the check uses no scripted reply
    Given the daemon's model is served over the OpenAI-compatible protocol
    And the daemon's model enforces grammars
    And the daemon's operator sets PLURNK_PROVIDERS_GBNF to "1"
    And the daemon's model will reply:
      """
      <<PLAN:p:PLAN
      <<SEND[200]:the real answer:SEND
      """
    When the daemon boots
    Then the daemon started
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    When "A" runs a loop with the prompt "answer"
    Then the loop "A" started ended with status 200
    And "A" got a "loop/terminated" notification with reason = "SEND[200]" per Decision (§methods-loop-run)

  @§grammar-enforcement-verified-at-boot
  Scenario: PLURNK_PROVIDERS_GBNF at 0 makes no check
    Given the daemon's operator sets PLURNK_PROVIDERS_GBNF to "0"
    When the daemon boots
    Then the daemon started
    And the daemon's model was called 0 times

  @§provider-instantiation-alias-resolution
  Scenario: the openai provider package reaches PLURNK_OPENAI_BASE_URL with OPENAI_API_KEY as its bearer key
    Given the daemon's model is served over the OpenAI-compatible protocol
    And the daemon's operator sets PLURNK_MODEL_local to "openai/scripted"
    And the daemon's operator sets PLURNK_MODEL to "local"
    And the daemon's operator sets OPENAI_API_KEY to "sk-test-1"
    And the daemon's model will reply:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:over http:SEND
      """
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    When "A" runs a loop with the prompt "hello"
    Then the loop "A" started ended with status 200
    And the daemon's model server saw the bearer key "sk-test-1" on every call
    When "A" calls discover
    Then the answer to "A" has capabilities.providers = ["openai"] per Decision (§provider-instantiation-alias-resolution)

  @§operator-config-max-turns-ceiling @decision
  Scenario: a PLURNK_MAX_TURNS that is not a whole number refuses the boot
    Given the daemon's operator sets PLURNK_MAX_TURNS to "many"
    When the daemon boots
    Then the daemon refused to start, saying "want an integer" per Decision (§operator-config-max-turns-ceiling)

  @§provider-surface-generate @decision
  Scenario: a streamed reply that breaks off in a chunk that is not JSON fails the generate call, and the loop ends 500
    Given the daemon's model is served over the OpenAI-compatible protocol with streaming
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply, its stream broken after the first line:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:never read:SEND
      """
    When "A" runs a loop with the prompt "hello"
    Then the loop "A" started ended with status 500
    And "A" got a "loop/terminated" notification whose reason mentions "stream chunk" per Decision (§provider-surface-generate)

  @§provider-surface-generate
  Scenario: a model server that hangs up fails the generate call, the loop ends 500 and the daemon serves on
    Given the daemon's model is served over the OpenAI-compatible protocol
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model server will hang up on the next call
    And the daemon's model will reply:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:back:SEND
      """
    When "A" runs a loop with the prompt "hello"
    Then the loop "A" started ended with status 500
    When "A" runs a loop with the prompt "again"
    Then the loop "A" started ended with status 200

  @§provider-surface-generate @decision
  Scenario: a reply whose transfer breaks off after its last byte still fails the generate call
    Given the daemon's model is served over the OpenAI-compatible protocol
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply, its connection dropped before the response ends:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:never trusted:SEND
      """
    When "A" runs a loop with the prompt "hello"
    Then the loop "A" started ended with status 500 per Decision (§provider-surface-generate)

  @§provider-surface-generate @decision
  Scenario: a streamed reply whose transfer breaks off after its [DONE] still fails the generate call
    Given the daemon's model is served over the OpenAI-compatible protocol with streaming
    And a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply, its connection dropped before the response ends:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:never trusted:SEND
      """
    When "A" runs a loop with the prompt "hello"
    Then the loop "A" started ended with status 500 per Decision (§provider-surface-generate)
