@plurnk
Feature: EXEC environment
  A command runs with the project's environment (the shell's variables and
  the project's .env) minus the provider API keys and every PLURNK_*
  setting, so it cannot read the service's secrets. These scenarios run the
  real sh executor and look at what `env` prints.

  Background:
    Given the real sh executor runs the commands

  @§exec-env-scoped
  Scenario: the command sees the project's variables but no provider key and no PLURNK_* setting
    Given the shell environment of the service is:
      | name             | value            |
      | PATH             | /usr/bin:/bin    |
      | HOME             | /home/dev        |
      | OPENAI_API_KEY   | sk-openai-secret |
      | PLURNK_MAX_TURNS | 40               |
    And the project's .env file reads:
      """
      # project settings
      DATABASE_URL=postgres://localhost/app
      ANTHROPIC_API_KEY=sk-ant-secret
      PLURNK_POLICY=/etc/plurnk/AGENTS.md
      """
    When the model's EXEC 1/1/1 is accepted: <<EXEC:env:EXEC
    And the commands run to completion
    Then the stream sh:///1/1/1 ended with 200
    And the stdout of sh:///1/1/1 has the line "HOME=/home/dev"
    And the stdout of sh:///1/1/1 has the line "DATABASE_URL=postgres://localhost/app"
    And the stdout of sh:///1/1/1 has no line starting "OPENAI_API_KEY="
    And the stdout of sh:///1/1/1 has no line starting "ANTHROPIC_API_KEY="
    And the stdout of sh:///1/1/1 has no line starting "PLURNK_"

  @§exec-env-scoped @decision
  Scenario: any variable ending in _API_KEY counts as a provider key, and the .env wins over the shell
    Given the shell environment of the service is:
      | name            | value         |
      | PATH            | /usr/bin:/bin |
      | APP_MODE        | shell         |
      | MISTRAL_API_KEY | mk-secret     |
    And the project's .env file reads:
      """
      export APP_MODE="dotenv"
      """
    When the model's EXEC 1/1/1 is accepted: <<EXEC:env:EXEC
    And the commands run to completion
    Then the stdout of sh:///1/1/1 has the line "APP_MODE=dotenv" per Decision (§exec-env-scoped)
    And the stdout of sh:///1/1/1 has no line starting "MISTRAL_API_KEY=" per Decision (§exec-env-scoped)

  @§exec-env-scoped @decision
  Scenario: the command runs in the directory it was given
    Given the shell environment of the service is:
      | name | value         |
      | PATH | /usr/bin:/bin |
    When the model's EXEC 1/1/1 is accepted: <<EXEC:pwd:EXEC
    And the commands run to completion
    Then the stream sh:///1/1/1 ended with 200
    And the stdout of sh:///1/1/1 has the line naming the directory the command was given per Decision (§exec-env-scoped)

  @§exec-env-scoped @decision
  Scenario: a .env value loses one matching pair of quotes around it, and a lone quote is kept
    Given the shell environment of the service is:
      | name | value         |
      | PATH | /usr/bin:/bin |
    And the project's .env file reads:
      """
      EMPTY=""
      SINGLE='x'
      LONE="
      MIXED="y'
      """
    When the model's EXEC 1/1/1 is accepted: <<EXEC:env:EXEC
    And the commands run to completion
    Then the stdout of sh:///1/1/1 has the line "EMPTY=" per Decision (§exec-env-scoped)
    And the stdout of sh:///1/1/1 has the line "SINGLE=x" per Decision (§exec-env-scoped)
    And the stdout of sh:///1/1/1 has the line "LONE=\"" per Decision (§exec-env-scoped)
    And the stdout of sh:///1/1/1 has the line "MIXED=\"y'" per Decision (§exec-env-scoped)

  @§exec-timeout @decision
  Scenario: a real command that exits with a code of its own ends its stream 200, the code kept
    Given the shell environment of the service is:
      | name | value         |
      | PATH | /usr/bin:/bin |
    When the model's EXEC 1/1/1 is accepted: <<EXEC:echo done; exit 3:EXEC
    And the commands run to completion
    Then the stream sh:///1/1/1 ended with 200
    And the stream sh:///1/1/1 ended with 200 and exit code 3 per Decision (§exec-timeout)
    And the stdout of sh:///1/1/1 has the line "done"
