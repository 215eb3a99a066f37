@plurnk
Feature: Tier 3a — streams and subscriptions
  Opening a stream answers 102 and records who holds it; the model's own
  SEND[499] or KILL on the stream's address is routed to that holder, which
  stops the process. Folding the stream's row only changes how it renders.
  Chunks are appended to channels and announced as stream/event, but only
  lifecycle events become log rows.

  Background:
    Given the simulated command "serve" prints:
      | after ms | channel | output     |
      | 100      | stdout  | listening\n |
      | 400      | stdout  | request 1\n |
    And the simulated command "serve" never exits on its own

  @§subscriptions-subscription-registry-routes-cancellation @decision
  Scenario Outline: the model's SEND[499] or KILL on a running stream stops it; its output stays readable
    When the model's EXEC 1/1/2 is accepted: <<EXEC:serve:EXEC
    Then the action answers 102
    When 150 ms pass for the running commands
    And the model emits <emission>
    Then the action answers 200 per Decision (§subscriptions-subscription-registry-routes-cancellation)
    When 10 ms pass for the running commands
    Then the stream sh:///1/1/2 ended with 499
    And the stdout channel of sh:///1/1/2 is errored per Decision (§subscriptions-subscription-registry-routes-cancellation)
    When 1000 ms pass for the running commands
    Then the stdout channel of sh:///1/1/2 holds "listening\n"
    When the model emits <<READ(sh:///1/1/2)::READ
    Then the result content is "1:\tlistening\n"

    Examples:
      | emission                      |
      | <<SEND[499](sh:///1/1/2)::SEND |
      | <<KILL(sh:///1/1/2)::KILL      |

  @§subscriptions-subscription-registry-routes-cancellation @decision
  Scenario: on a stream that has ended, SEND[499] answers 304 and KILL is an ordinary delete the model may not do
    When the model's EXEC 1/1/2 is accepted: <<EXEC:serve:EXEC
    And 150 ms pass for the running commands
    And the model emits <<SEND[499](sh:///1/1/2)::SEND
    And 10 ms pass for the running commands
    Then the stream sh:///1/1/2 ended with 499
    When the model emits <<SEND[499](sh:///1/1/2)::SEND
    Then the action answers 304 per Decision (§subscriptions-subscription-registry-routes-cancellation)
    When the model emits <<KILL(sh:///1/1/2)::KILL
    Then the action answers 403 per Decision (§subscriptions-subscription-registry-routes-cancellation)
    And the stdout channel of sh:///1/1/2 holds "listening\n"

  @§subscriptions-subscription-registry-routes-cancellation
  Scenario: a cancellation reaches only the stream it names
    When the model's EXEC 1/1/2 is accepted: <<EXEC:serve:EXEC
    And the model's EXEC 1/1/3 is accepted: <<EXEC:serve:EXEC
    And 150 ms pass for the running commands
    And the model emits <<SEND[499](sh:///1/1/3)::SEND
    And 10 ms pass for the running commands
    Then the stream sh:///1/1/3 ended with 499
    And the stream sh:///1/1/2 is still running
    When 300 ms pass for the running commands
    Then the stdout channel of sh:///1/1/2 holds "listening\nrequest 1\n"

  @§subscriptions-subscription-registry-routes-cancellation
  Scenario: inside a run, the model's own KILL stops its stream, as the premature-terminate steer advises
    Given host commands are accepted without asking
    And the command "serve" prints "up\n" on stdout after 100 ms
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start the server:PLAN
      <<EXEC[sh]<0,1>:serve:EXEC
      <<SEND[202]:waiting for it to come up:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:stop it:PLAN
      <<KILL(sh:///1/1/1)::KILL
      <<SEND[202]:waiting for it to stop:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:stopped:SEND
      """
    When the client starts run "main" with the prompt "serve"
    Then the run stream sh:///1/1/1 is still running
    When 1000 ms pass on the session clock
    And 1000 ms pass on the session clock
    Then run "main"'s log holds an open KILL sh:///1/1/1 with status 200
    And the run stream sh:///1/1/1 ended with 499
    And run "main" has 1 loop, the last with status 200

  @§subscriptions-fold-keeps-subscription
  Scenario: folding a streaming row only collapses it; the stream runs on and can still be cancelled
    Given host commands are accepted without asking
    And the command "serve" prints "up\n" on stdout after 100 ms
    And the command "serve" prints "more\n" on stdout after 300 ms
    And the command "serve" never exits
    And run "main" will emit:
      """
      <<PLAN:start:PLAN
      <<EXEC[sh]:serve:EXEC
      <<FOLD(log:///1/1/1)::FOLD
      <<SEND[202]:waiting:SEND
      """
    When the client starts run "main" with the prompt "serve"
    Then run "main"'s log holds a folded EXEC sh:///1/1/1 with status 102
    When 400 ms pass on the session clock
    Then the run stream sh:///1/1/1 is still running
    And the stdout channel of the run stream sh:///1/1/1 holds "up\nmore\n"

  @§no-chunk-rows-log-captures-lifecycle-only
  Scenario: chunks grow the channel but write no log row; the open and the close do
    When the model's EXEC 1/1/2 is accepted: <<EXEC:serve:EXEC
    And 500 ms pass for the running commands
    Then the stdout channel of sh:///1/1/2 holds "listening\nrequest 1\n"
    And the model's log holds the rows:
      | row | state |
    When the model emits <<SEND[499](sh:///1/1/2)::SEND
    Then the model's log holds the rows:
      | row        | state |
      | 1/1/1/SEND | open  |

  @§no-chunk-rows-log-captures-lifecycle-only
  Scenario: inside a run, a stream of many chunks leaves only its lifecycle rows and one surfacing read per turn
    Given host commands are accepted without asking
    And the command "build" prints "a\n" on stdout after 10 ms
    And the command "build" prints "b\n" on stdout after 20 ms
    And the command "build" prints "c\n" on stdout after 30 ms
    And the command "build" exits after 50 ms
    And run "main" will emit:
      """
      <<PLAN:build:PLAN
      <<EXEC[sh]:build:EXEC
      <<SEND[202]:building:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:built:PLAN
      <<SEND[200]:built:SEND
      """
    When the client starts run "main" with the prompt "build"
    And 100 ms pass on the session clock
    Then run "main" has 1 loop, the last with status 200
    And run "main"'s log holds an open READ sh:///1/1/1#stdout with status 200 reading "1:\ta\n2:\tb\n3:\tc\n"

  @§live-updates-stream-event-fires-on-chunk
  Scenario: every chunk sends a stream/event carrying the new length, so clients need not poll
    When the model's EXEC 1/1/2 is accepted: <<EXEC:serve:EXEC
    And 500 ms pass for the running commands
    Then the stream events so far are:
      | entry       | channel | state  | contentLength |
      | sh:///1/1/2 | stderr  | active | 0             |
      | sh:///1/1/2 | stdout  | active | 0             |
      | sh:///1/1/2 | stdout  | active | 10            |
      | sh:///1/1/2 | stdout  | active | 20            |
    When the model emits <<SEND[499](sh:///1/1/2)::SEND
    And 10 ms pass for the running commands
    Then the stream events so far are:
      | entry       | channel | state   | contentLength |
      | sh:///1/1/2 | stderr  | errored | 0             |
      | sh:///1/1/2 | stdout  | errored | 20            |
