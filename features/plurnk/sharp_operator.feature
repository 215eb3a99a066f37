@plurnk
Feature: the operator's variables reach the daemon that reads them
  The daemon reads its limits from the operator's environment at boot. These
  scenarios set each variable on the daemon itself, not on the library under
  it, and check the value just inside and just outside each limit.

  @§run-scheme-cap
  Scenario: PLURNK_SESSION_RUNS_MAX_ACTIVE caps the runs the model spawns through the daemon
    Given the daemon's operator sets PLURNK_SESSION_RUNS_MAX_ACTIVE to "2"
    And a connection "A" to the daemon
    And "A" creates a session named "capped"
    And the daemon's run "model" will reply:
      """
      <<PLAN:delegate twice:PLAN
      <<EDIT(run://one):stand by:EDIT
      <<EDIT(run://two):stand by:EDIT
      <<SEND[202]:waiting for one:SEND
      """
    And the daemon's run "one" will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    And the daemon's run "model" will reply:
      """
      <<PLAN:report:PLAN
      <<SEND[200]:one is done:SEND
      """
    When "A" runs a loop with the prompt "delegate"
    Then the loop "A" started ended with status 200
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "A" has status = 201
    When "A" calls log.read with {"runId": <A.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 2}
    Then the entry in the answer to "A" has status = 508

  @§proposal-timeout-cancels @decision
  Scenario: a PLURNK_PROPOSAL_TIMEOUT_MS of 0 refuses the boot
    Given the daemon's operator sets PLURNK_PROPOSAL_TIMEOUT_MS to "0"
    When the daemon boots
    Then the daemon refused to start, saying "PLURNK_PROPOSAL_TIMEOUT_MS" per Decision (§proposal-timeout-cancels)

  @§proposal-timeout-cancels
  Scenario: a PLURNK_PROPOSAL_TIMEOUT_MS of 1 is a timeout of one millisecond
    Given the daemon's operator sets PLURNK_PROPOSAL_TIMEOUT_MS to "1"
    When the daemon boots
    Then the daemon started

  @§provider-instantiation-alias-resolution @decision
  Scenario: discover lists each provider package in use once, in alphabetical order
    Given the daemon's model is served over the OpenAI-compatible protocol
    And the daemon's operator sets PLURNK_MODEL_a to "openai/scripted"
    And the daemon's operator sets PLURNK_MODEL_b to "mock/first"
    And the daemon's operator sets PLURNK_MODEL_c to "openai/other"
    And the daemon's operator sets PLURNK_MODEL to "a"
    And a connection "A" to the daemon
    When "A" calls discover
    Then the answer to "A" has capabilities.providers = ["mock", "openai"] per Decision (§provider-instantiation-alias-resolution)

  @§methods-auto-envelope
  Scenario Outline: <method> called before any session is made first makes the envelope
    Given a connection "A" to the daemon
    When "A" calls <method> with <params>
    Then "A" got 1 "session/created" notification
    When "A" calls session.runs
    Then the answer to "A" lists the runs "<runs>"

    Examples:
      | method            | params                                     | runs                    |
      | session.members   | {}                                         | plurnk, client-1        |
      | session.runs      | {}                                         | plurnk, client-1        |
      | log.read          | {}                                         | plurnk, client-1        |
      | session.constrain | {"effect": "pick", "pattern": "notes.md"}  | plurnk, client-1        |
      | loop.cancel       | {}                                         | plurnk, client-1, model |

  @§notifications-log-entry-notify
  Scenario: the rows of a loop's last turn are heard before the loop's end
    Given a connection "A" to the daemon
    And "A" creates a session named "work"
    And the daemon's model will reply:
      """
      <<PLAN:one:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<SEND[200]:done:SEND
      """
    When "A" runs a loop with the prompt "go"
    Then the loop "A" started ended with status 200
    And "A" got the "log/entry" of log:///1/1/2/SEND before its first "loop/terminated"

  @§methods-loop-run
  Scenario: loop.run on a loop parked at 202 resumes it in place, its prompt the client's row of the next turn
    Given a connection "A" to the daemon
    And "A" creates a session named "wait"
    And the daemon's model will reply:
      """
      <<PLAN:wait for the word:PLAN
      <<SEND[202]:waiting:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:use it:PLAN
      <<SEND[200]:got it:SEND
      """
    When "A" runs a loop with the prompt "wait for my word"
    Then the loop "A" started is parked at 202
    When "A" runs a loop with the prompt "the word is periwinkle"
    Then the answer to "A" has action = "injected_next_turn"
    And the loop "A" started ended with status 200
    And the daemon's model's packet 1 does not contain "periwinkle"
    And the daemon's model's packet 2 contains "the word is periwinkle"
