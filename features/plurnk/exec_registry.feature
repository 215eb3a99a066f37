@plurnk
Feature: EXEC executors
  EXEC picks its executor by the runtime tag in its signal, sh when there is
  none. The executors are probed once when the service boots; a runtime that
  is unknown, or that its probe found unavailable, answers 501 with the
  probe's explanation. In these scenarios the sh executor is a simulated
  one: its commands print scripted output as simulated time passes.

  @§exec-registry-resolves
  Scenario: an EXEC with no runtime runs on sh and streams into sh:///<loop>/<turn>/<seq>
    Given the simulated command "make" never exits on its own
    When the model's EXEC 1/1/2 is accepted: <<EXEC:make:EXEC
    Then the action answers 102
    And the stream sh:///1/1/2 is still running
    And the stdout channel of sh:///1/1/2 is active
    And the stderr channel of sh:///1/1/2 is active

  @§exec-registry-resolves
  Scenario: a runtime no executor provides answers 501
    When the model's EXEC 1/1/2 is accepted: <<EXEC[python]:print(1):EXEC
    Then the action answers 501
    And the result reason mentions "no executor for runtime \"python\"" per Decision (§telemetry-no-error-scheme)

  @§exec-registry-resolves
  Scenario: a runtime whose boot probe failed answers 501 carrying the probe's detail
    Given an executor "node" whose boot probe reports "node: executable file not found in $PATH"
    When the model's EXEC 1/1/2 is accepted: <<EXEC[node]:console.log(1):EXEC
    Then the action answers 501
    And the result reason mentions "node: executable file not found in $PATH"

  @§exec-registry-resolves @decision
  Scenario Outline: an executor whose runtime is already a scheme's name refuses the boot
    Given the daemon's host also offers an executor named "<runtime>"
    When the daemon boots
    Then the daemon refused to start, saying "already registered" per Decision (§exec-registry-resolves)

    Examples:
      | runtime |
      | file    |
      | sh      |

  @§exec-registry-resolves @decision
  Scenario: an executor with a runtime of its own boots and its runtime becomes a scheme
    Given the daemon's host also offers an executor named "db"
    When the daemon boots
    Then the daemon started
    Given a connection "A" to the daemon
    When "A" calls discover
    Then the answer to "A" has capabilities.schemes = ["db", "exec", "file", "known", "log", "plurnk", "sh", "skill", "unknown"] per Decision (§exec-registry-resolves)
