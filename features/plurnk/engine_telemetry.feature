@plurnk
Feature: Telemetry — errors are log rows, notices are drained once seen
  A failed action or an emission that does not parse is a row of the run's
  log with a status of 400 or more; the errors section only points at those
  rows. Engine notices (steers, truncations, overflows, a provider's grammar
  divergence) are different: each renders as one canonical JSON line under
  `## Plurnk System Errors` on exactly one packet, in the order pushed, and
  is handed to the session's notification sink the moment it is pushed.

  @§telemetry-drain-on-read
  Scenario: notices render in push order on the next packet only
    Given the model will reply, the provider forwarding the notice {"source":"provider:mock","kind":"grammar_unenforced","message":"bytes left the grammar"}:
      """
      <<PLAN:wait:PLAN
      <<SEND[102]:waiting:SEND
      """
    And the model will reply:
      """
      <<PLAN:work:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<SEND[102]:working:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Go"
    Then the errors section of packet 2 contains "* {\"kind\":\"grammar_unenforced\",\"message\":\"bytes left the grammar\",\"source\":\"provider:mock\"}"
    And the errors section of packet 2 contains "If the turn's work is complete, terminate with 200. If awaiting a stream or run trigger, terminate with 202 to hibernate."
    And the errors section of packet 2 reads: per Decision (§send-idle-turn)
      """
      * {"kind":"grammar_unenforced","message":"bytes left the grammar","source":"provider:mock"}
      * {"kind":"idle_turn","message":"If the turn's work is complete, terminate with 200. If awaiting a stream or run trigger, terminate with 202 to hibernate.","source":"engine:rail"}
      """
    And the errors section of packet 3 does not contain "grammar_unenforced"
    And the errors section of packet 3 does not contain "terminate with 202"
    And packet 3 has no errors section per Decision (§telemetry-drain-on-read)

  @§telemetry-drain-on-read
  Scenario: a truncated emission is reported once as max_commands_exceeded
    Given the operator sets PLURNK_MAX_COMMANDS to "1"
    And the model will reply:
      """
      <<PLAN:write two notes:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<EDIT(known:///b.md):b:EDIT
      <<SEND[102]:written:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Go"
    Then the errors section of packet 2 reads:
      """
      * {"dropped":1,"emitted":2,"kind":"max_commands_exceeded","source":"engine:rail"}
      """
    And the model run's log has no row for known:///b.md

  @§telemetry-drain-on-read
  Scenario: PLURNK_MAX_COMMANDS of 0 is a cap of zero, not "no cap": every op besides PLAN and the terminal is dropped
    Given the operator sets PLURNK_MAX_COMMANDS to "0"
    And the model will reply:
      """
      <<PLAN:write a note:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<SEND[102]:written:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Go"
    Then the errors section of packet 2 reads:
      """
      * {"dropped":1,"emitted":1,"kind":"max_commands_exceeded","source":"engine:rail"}
      """
    And the model run's log has no row for known:///a.md

  @§telemetry-no-error-scheme
  Scenario: a failed action is a log row the errors section points at, curatable like any row
    Given the model will reply:
      """
      <<PLAN:read a missing note:PLAN
      <<READ(known:///missing.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:look at the failure:PLAN
      <<OPEN(log:///1/1/1)::OPEN
      <<READ(error://1)::READ
      <<SEND[102]:looking:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Go"
    Then the errors section of packet 2 points at 1/1/1 with status 404
    And the errors section of packet 2 reads: per Decision (§telemetry-no-error-scheme)
      """
      * {"coordinate":"1/1/1","kind":"action_failure","op":"READ","status":404,"target":"known:///missing.md"}
      """
    And the model run's row log:///1/1/1 is expanded
    And the model run's log records READ error://1 with status 501 by model
    And the log section of packet 3 contains "* log:///1/1/1/READ 404 known:///missing.md" per Decision (§render-rule-find-renders-result)

  @§telemetry-content-offset-snippet @decision
  Scenario: a content-offset notice brings the numbered lines around the spot of the model's own emission
    Given the model will reply, the provider forwarding the notice {"source":"provider:mock","kind":"grammar_unenforced","message":"unexpected byte","position":{"type":"content-offset","line":4,"column":3},"snippet":"<<XYZ"}:
      """
      <<PLAN:three notes:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<EDIT(known:///b.md):b:EDIT
      <<EDIT(known:///c.md):c:EDIT
      <<EDIT(known:///d.md):d:EDIT
      <<EDIT(known:///e.md):e:EDIT
      <<SEND[102]:written:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Go"
    Then the errors section of packet 2 contains "error://4"
    And the errors section of packet 2 contains "4:\t<<EDIT(known:///c.md):c:EDIT"
    And the errors section of packet 2 does not contain "\"snippet\""
    And the errors section of packet 2 reads: per Decision (§telemetry-content-offset-snippet)
      """
      * {"kind":"grammar_unenforced","message":"unexpected byte","position":{"column":3,"line":4,"type":"content-offset"},"source":"provider:mock"}
      :::error://4
      2:\t<<EDIT(known:///a.md):a:EDIT
      3:\t<<EDIT(known:///b.md):b:EDIT
      4:\t<<EDIT(known:///c.md):c:EDIT
      5:\t<<EDIT(known:///d.md):d:EDIT
      6:\t<<EDIT(known:///e.md):e:EDIT
      :::
      """

  @§telemetry-content-offset-snippet @decision
  Scenario: a notice whose position is not a content offset brings no lines of the emission
    Given the model will reply, the provider forwarding the notice {"source":"provider:mock","kind":"grammar_unenforced","message":"unexpected token","position":{"type":"token-offset","line":4,"column":3}}:
      """
      <<PLAN:three notes:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<EDIT(known:///b.md):b:EDIT
      <<EDIT(known:///c.md):c:EDIT
      <<SEND[102]:written:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Go"
    Then the errors section of packet 2 contains "unexpected token"
    And the errors section of packet 2 does not contain "<<EDIT(known:///b.md)" per Decision (§telemetry-content-offset-snippet)

  @§telemetry-telemetry-event-notify
  Scenario: notices go to the session's sink as they are pushed, error rows do not
    Given the model will reply:
      """
      <<PLAN:read a missing note and wait:PLAN
      <<READ(known:///missing.md)::READ
      <<SEND[102]:reading:SEND
      """
    And the model will reply:
      """
      <<PLAN:idle:PLAN
      <<SEND[102]:waiting:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Go"
    Then the session was notified of the notices "idle_turn" per Decision (§send-idle-turn)
    And the errors section of packet 3 contains "If the turn's work is complete, terminate with 200. If awaiting a stream or run trigger, terminate with 202 to hibernate."
    And the errors section of packet 3 contains "\"kind\":\"idle_turn\"" per Decision (§send-idle-turn)

  @§scheme-surface-exception-500
  Scenario: a scheme handler exception is the action's 500 row, and the next turn's errors section points at it
    Given a scheme "flaky" whose handler throws
    And the model will reply:
      """
      <<PLAN:write through the flaky scheme:PLAN
      <<EDIT(flaky:///x):boom:EDIT
      <<SEND[102]:written:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Go"
    Then the loop ends with status 200
    And the model run's log records EDIT flaky:///x with status 500 by model
    And the errors section of packet 2 points at 1/1/1 with status 500
    And the errors section of packet 2 reads: per Decision (§telemetry-no-error-scheme)
      """
      * {"coordinate":"1/1/1","kind":"action_failure","op":"EDIT","status":500,"target":"flaky:///x"}
      """
