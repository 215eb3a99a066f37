@plurnk
Feature: EXEC lifetime
  The T of EXEC <T,P> is a limit in seconds on the process's life. At T the
  service asks the process to stop, kills it if it is still there after
  PLURNK_EXEC_KILL_GRACE_MS, and ends the stream with 504. A deliberate kill
  ends it with 499 and a process that exits by itself with 200. Without a
  positive T there is no limit.

  Background:
    Given PLURNK_EXEC_KILL_GRACE_MS is 500
    And the simulated command "serve" prints:
      | after ms | channel | output      |
      | 200      | stdout  | listening\n |
    And the simulated command "serve" never exits on its own

  @§exec-timeout
  Scenario: at T the command is stopped politely and the stream ends 504
    When the model's EXEC 1/1/2 is accepted: <<EXEC<2>:serve:EXEC
    And 1999 ms pass for the running commands
    Then the stream sh:///1/1/2 is still running
    When 1 ms pass for the running commands
    Then the stream sh:///1/1/2 ended with 504 by SIGTERM at 2000 ms
    And the stdout channel of sh:///1/1/2 holds "listening\n"

  @§exec-timeout
  Scenario: a command that ignores the polite signal is killed once the grace has passed
    Given the simulated command "serve" ignores the polite signal
    When the model's EXEC 1/1/2 is accepted: <<EXEC<2>:serve:EXEC
    And 2499 ms pass for the running commands
    Then the stream sh:///1/1/2 is still running
    When 1 ms pass for the running commands
    Then the stream sh:///1/1/2 ended with 504 by SIGKILL at 2500 ms

  @§exec-timeout
  Scenario Outline: without a positive T a command runs for as long as it likes (<emission>)
    When the model's EXEC 1/1/2 is accepted: <emission>
    And 86400000 ms pass for the running commands
    Then the stream sh:///1/1/2 is still running

    Examples:
      | emission                  |
      | <<EXEC:serve:EXEC         |
      | <<EXEC<0>:serve:EXEC      |
      | <<EXEC<-1,5>:serve:EXEC   |

  @§exec-timeout
  Scenario: a deliberate kill ends 499, a clean exit 200, and neither is a timeout
    Given the simulated command "check" exits with code 0 after 100 ms
    When the model's EXEC 1/1/2 is accepted: <<EXEC<60>:serve:EXEC
    And the model's EXEC 1/1/3 is accepted: <<EXEC<60>:check:EXEC
    And the model cancels sh:///1/1/2 with SEND[499]
    And 100 ms pass for the running commands
    Then the stream sh:///1/1/2 ended with 499 by SIGTERM at 0 ms
    And the stream sh:///1/1/3 ended with 200
    When 60000 ms pass for the running commands
    Then the stream sh:///1/1/2 ended with 499
    And the stream sh:///1/1/3 ended with 200

  @§exec-timeout @decision
  Scenario: a command that fails by itself still ends 200, its channels closed; a stopped one leaves them errored
    Given the simulated command "lint" prints:
      | after ms | channel | output         |
      | 50       | stderr  | 3 problems\n   |
    And the simulated command "lint" exits with code 1 after 100 ms
    When the model's EXEC 1/1/2 is accepted: <<EXEC<1>:lint:EXEC
    And the model's EXEC 1/1/3 is accepted: <<EXEC<1>:serve:EXEC
    And 1000 ms pass for the running commands
    Then the stream sh:///1/1/2 ended with 200
    And the stream sh:///1/1/2 ended with 200 and exit code 1 per Decision (§exec-timeout)
    And the stderr channel of sh:///1/1/2 is closed per Decision (§exec-timeout)
    And the stdout channel of sh:///1/1/2 is closed per Decision (§exec-timeout)
    And the stream sh:///1/1/3 ended with 504
    And the stdout channel of sh:///1/1/3 is errored per Decision (§exec-timeout)
    And the stderr channel of sh:///1/1/3 is errored per Decision (§exec-timeout)
    And the stdout channel of sh:///1/1/3 holds "listening\n"

  @§exec-timeout @slow
  Scenario: the real sh executor stops a sleeping command at T
    Given the real sh executor runs the commands
    And the shell environment of the service is:
      | name | value         |
      | PATH | /usr/bin:/bin |
    When the model's EXEC 1/1/2 is accepted: <<EXEC<1>:echo started; sleep 5:EXEC
    And the commands run to completion
    Then the stream sh:///1/1/2 ended with 504 by SIGTERM
    And the stdout channel of sh:///1/1/2 holds "started\n"
    And the stdout channel of sh:///1/1/2 is errored
