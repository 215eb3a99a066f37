@plurnk
Feature: EXEC output streams
  A command's output is appended to the stdout and stderr channels of its
  entry as it arrives. Only the exec scheme moves those channels' state:
  active while the command runs, closed when it exits by itself, errored
  when it is stopped. Every growth and every state change is announced as a
  stream/event notification carrying the entry, the channel, its state and
  its length, never its content.

  Background:
    Given the simulated command "build" prints:
      | after ms | channel | output              |
      | 100      | stdout  | compiling a\n       |
      | 200      | stderr  | warning: unused x\n |
      | 300      | stdout  | compiling b\n       |
    And the simulated command "build" exits with code 0 after 1000 ms

  @§chunk-accumulation-chunks-accumulate
  Scenario: output shows in its channel while the command is still running
    When the model's EXEC 1/1/2 is accepted: <<EXEC:build:EXEC
    And 150 ms pass for the running commands
    Then the stdout channel of sh:///1/1/2 holds "compiling a\n"
    And the stderr channel of sh:///1/1/2 holds ""
    And the stream sh:///1/1/2 is still running
    When 200 ms pass for the running commands
    Then the stdout channel of sh:///1/1/2 holds "compiling a\ncompiling b\n"
    And the stderr channel of sh:///1/1/2 holds "warning: unused x\n"
    And the stdout channel of sh:///1/1/2 is active
    When 650 ms pass for the running commands
    Then the stream sh:///1/1/2 ended with 200
    And the stdout channel of sh:///1/1/2 holds "compiling a\ncompiling b\n"

  @§channel-state-schemes-own-state-transitions
  Scenario: the exec scheme moves its channels from active to closed, and the model cannot write them
    When the model's EXEC 1/1/2 is accepted: <<EXEC:build:EXEC
    And 150 ms pass for the running commands
    Then the stdout channel of sh:///1/1/2 is active
    When the model emits <<EDIT(sh:///1/1/2#stdout):forged:EDIT
    Then the action answers 403
    And the stdout channel of sh:///1/1/2 holds "compiling a\n"
    And the stdout channel of sh:///1/1/2 is active
    When 850 ms pass for the running commands
    Then the stdout channel of sh:///1/1/2 is closed
    And the stderr channel of sh:///1/1/2 is closed

  @§channel-state-schemes-own-state-transitions
  Scenario: a cancelled command leaves its channels errored with what they had
    When the model's EXEC 1/1/2 is accepted: <<EXEC:build:EXEC
    And 150 ms pass for the running commands
    And the model cancels sh:///1/1/2 with SEND[499]
    Then the stream sh:///1/1/2 ended with 499
    And the stdout channel of sh:///1/1/2 is errored
    And the stderr channel of sh:///1/1/2 is errored
    And the stdout channel of sh:///1/1/2 holds "compiling a\n"
    When 1000 ms pass for the running commands
    Then the stdout channel of sh:///1/1/2 holds "compiling a\n"

  @§notifications-stream-event-on-channel-change
  Scenario: each chunk and each state change sends a stream/event
    When the model's EXEC 1/1/2 is accepted: <<EXEC:build:EXEC
    Then the stream events so far are:
      | entry       | channel | state  | contentLength |
      | sh:///1/1/2 | stderr  | active | 0             |
      | sh:///1/1/2 | stdout  | active | 0             |
    When 350 ms pass for the running commands
    Then the stream events so far are:
      | entry       | channel | state  | contentLength |
      | sh:///1/1/2 | stdout  | active | 12            |
      | sh:///1/1/2 | stderr  | active | 18            |
      | sh:///1/1/2 | stdout  | active | 24            |
    When 500 ms pass for the running commands
    Then the stream events so far are:
      | entry | channel | state | contentLength |
    When 500 ms pass for the running commands
    Then the stream events so far are:
      | entry       | channel | state  | contentLength |
      | sh:///1/1/2 | stderr  | closed | 18            |
      | sh:///1/1/2 | stdout  | closed | 24            |

  @§notifications-stream-event-on-channel-change @decision
  Scenario: contentLength counts bytes, and a stop announces the errored state of every channel
    Given the simulated command "greet" prints:
      | after ms | channel | output   |
      | 10       | stdout  | héllo\n  |
    And the simulated command "greet" never exits on its own
    When the model's EXEC 1/1/4 is accepted: <<EXEC<1>:greet:EXEC
    And 1000 ms pass for the running commands
    Then the stream events so far are: per Decision (§notifications-stream-event-on-channel-change)
      | entry       | channel | state   | contentLength |
      | sh:///1/1/4 | stderr  | active  | 0             |
      | sh:///1/1/4 | stdout  | active  | 0             |
      | sh:///1/1/4 | stdout  | active  | 7             |
      | sh:///1/1/4 | stderr  | errored | 0             |
      | sh:///1/1/4 | stdout  | errored | 7             |
