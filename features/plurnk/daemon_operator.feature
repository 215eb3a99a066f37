@plurnk
Feature: operator and session configuration of the daemon
  The operator's variables set the daemon's limits; a session's settings
  may narrow some of them for that session's loops, never widen them.

  @§proposal-timeout-cancels
  Scenario: the operator's PLURNK_PROPOSAL_TIMEOUT_MS replaces the default
    Given the daemon asks before host commands
    And the daemon's simulated command "deploy" exits with code 0 after 200 ms
    And the daemon's operator sets PLURNK_PROPOSAL_TIMEOUT_MS to "1000"
    And a connection "B" to the daemon
    And "B" creates a session named "short"
    And the daemon's model will reply:
      """
      <<PLAN:deploy:PLAN
      <<EXEC:deploy:EXEC
      <<SEND[202]:waiting for approval:SEND
      """
    When "B" runs a loop with the prompt "deploy"
    And 999 ms pass on the daemon's clock
    And "B" calls log.read with {"runId": <B.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "B" has status = 202
    When 1 ms pass on the daemon's clock
    And "B" calls log.read with {"runId": <B.modelRunId>, "loopSeq": 1, "turnSeq": 1, "sequence": 1}
    Then the entry in the answer to "B" has status = 499

  @§operator-config-session-max-commands
  Scenario: settings.maxCommands narrows the cap on ops per emission and the surplus is reported
    Given a connection "A" to the daemon
    And the daemon's model will reply:
      """
      <<PLAN:three notes:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<EDIT(known:///b.md):b:EDIT
      <<EDIT(known:///c.md):c:EDIT
      <<SEND[200]:noted:SEND
      """
    When "A" calls session.create with {"name": "tight", "settings": {"maxCommands": 2}}
    And "A" runs a loop with the prompt "note three things"
    Then the loop "A" started ended with status 200
    And "A" got a telemetry notice with kind = "max_commands_exceeded"
    When "A" calls entry.read with {"target": "known:///b.md"}
    Then the answer to "A" has status = 200
    When "A" calls entry.read with {"target": "known:///c.md"}
    Then the answer to "A" has status = 404

  @§operator-config-session-max-commands
  Scenario: a session asking for more than PLURNK_MAX_COMMANDS still gets the operator's cap
    Given the daemon's operator sets PLURNK_MAX_COMMANDS to "2"
    And a connection "A" to the daemon
    And the daemon's model will reply:
      """
      <<PLAN:three notes:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<EDIT(known:///b.md):b:EDIT
      <<EDIT(known:///c.md):c:EDIT
      <<SEND[200]:noted:SEND
      """
    When "A" calls session.create with {"name": "loose", "settings": {"maxCommands": 3}}
    And "A" runs a loop with the prompt "note three things"
    Then "A" got a telemetry notice with kind = "max_commands_exceeded"
    When "A" calls entry.read with {"target": "known:///c.md"}
    Then the answer to "A" has status = 404

  @§operator-config-session-max-commands
  Scenario: a session cap just above the emission's ops drops nothing
    Given a connection "A" to the daemon
    And the daemon's model will reply:
      """
      <<PLAN:three notes:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<EDIT(known:///b.md):b:EDIT
      <<EDIT(known:///c.md):c:EDIT
      <<SEND[200]:noted:SEND
      """
    When "A" calls session.create with {"name": "exact", "settings": {"maxCommands": 3}}
    And "A" runs a loop with the prompt "note three things"
    Then "A" got no "telemetry/event" notification
    When "A" calls entry.read with {"target": "known:///c.md"}
    Then the answer to "A" has status = 200

  @§operator-config-session-max-commands-floor
  Scenario: with maxCommands 0 PLAN and the terminal SEND still go through, and every other op is dropped
    Given a connection "A" to the daemon
    And the daemon's model will reply:
      """
      <<PLAN:try a note:PLAN
      <<EDIT(known:///a.md):a:EDIT
      <<SEND[200]:done without notes:SEND
      """
    When "A" calls session.create with {"name": "zero", "settings": {"maxCommands": 0}}
    And "A" runs a loop with the prompt "note it"
    Then the loop "A" started ended with status 200
    And "A" got a "loop/terminated" notification with reason = "SEND[200]" per Decision (§methods-loop-run)
    And "A" got a telemetry notice with kind = "max_commands_exceeded"
    When "A" calls entry.read with {"target": "known:///a.md"}
    Then the answer to "A" has status = 404
    When "A" calls session.create with {"name": "negative", "settings": {"maxCommands": -1}}
    Then the answer to "A" is the error -32602

  @§operator-config-session-md-docs
  Scenario: a session's mdDocs merge with the operator's documents by alias, the client's content winning
    Given the daemon's operator sets PLURNK_MD_GUIDE to "/home/operator/guide.md"
    And the daemon's operator sets PLURNK_MD_STYLE to "/home/operator/style.md"
    And the daemon's operator file /home/operator/guide.md reads "the operator's guide"
    And the daemon's operator file /home/operator/style.md reads "the operator's style"
    And the daemon's model will reply:
      """
      <<PLAN:read:PLAN
      <<SEND[200]:read:SEND
      """
    And the daemon's model will reply:
      """
      <<PLAN:read:PLAN
      <<SEND[200]:read:SEND
      """
    And a connection "A" to the daemon
    And a connection "B" to the daemon
    When "A" calls session.create with {"name": "docs", "settings": {"mdDocs": [{"alias": "GUIDE", "content": "the client's guide"}, {"alias": "EXTRA", "content": "the client's extra"}]}}
    And "A" runs a loop with the prompt "read the docs"
    Then the daemon's model's packet 1 contains "the client's guide"
    And the daemon's model's packet 1 does not contain "the operator's guide"
    And the daemon's model's packet 1 contains "the operator's style"
    And the daemon's model's packet 1 contains "the client's extra"
    And the daemon's model's packet 1 contains "plurnk:///EXTRA.md"
    When "B" calls session.create with {"name": "plain"}
    And "B" runs a loop with the prompt "read the docs"
    Then the daemon's model's packet 2 contains "the operator's guide"
    And the daemon's model's packet 2 does not contain "the client's guide"
    And the daemon's model's packet 2 does not contain "plurnk:///EXTRA.md"

  @§operator-config-session-md-docs @decision
  Scenario Outline: a session's mdDocs alias must name a plurnk path: <alias> is refused -32602 and no session is made
    Given a connection "A" to the daemon
    When "A" calls session.create with {"name": "docs", "settings": {"mdDocs": [{"alias": "<alias>", "content": "x"}]}}
    Then the answer to "A" is the error -32602 per Decision (§operator-config-session-md-docs)
    When "A" calls session.create with {"name": "docs", "settings": {"mdDocs": [{"alias": "OK", "content": "x"}]}}
    Then the answer to "A" has name = "docs"

    Examples:
      | alias |
      |       |
      | a/b   |
      | a b   |
      | a*    |

  @§operator-config-shipped-defaults
  Scenario: the shipped .env.example declares no model and no document, so loop.run has no model
    Given the daemon's operator variables are those of the shipped .env.example
    When the daemon boots
    Then the daemon started
    And the daemon's model was called 0 times
    Given a connection "A" to the daemon
    And "A" creates a session named "fresh"
    When "A" calls loop.run with {"prompt": "hello"}
    Then the answer to "A" is the error -32004
    And the error answered to "A" mentions "PLURNK_MODEL" per Decision (§errors-error-codes)

  @§operator-config-shipped-defaults
  Scenario: with the shipped .env.example the grammar check is on: a model that ignores grammars is refused at boot
    Given the daemon's operator variables are those of the shipped .env.example
    And the daemon's operator sets PLURNK_MODEL_local to "mock/local-1"
    And the daemon's operator sets PLURNK_MODEL to "local"
    And the daemon's model "local-1" will reply:
      """
      <<PLAN:p:PLAN
      <<SEND[200]:not the probe:SEND
      """
    When the daemon boots
    Then the daemon refused to start, saying ""
    And the daemon refused to start, saying "does not enforce grammars" per Decision (§grammar-enforcement-verified-at-boot)

  @§operator-config-shipped-defaults
  Scenario: with the shipped .env.example and a grammar-enforcing model, the policy is one section and no document is read
    Given the daemon's operator variables are those of the shipped .env.example
    And the daemon's model is served over the OpenAI-compatible protocol
    And the daemon's model enforces grammars
    And the daemon's operator sets PLURNK_MODEL_local to "openai/scripted"
    And the daemon's operator sets PLURNK_MODEL to "local"
    And the daemon's operator file /home/operator/.plurnk/AGENTS.md reads "Be brief."
    And the daemon's model will reply:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:brief:SEND
      """
    When the daemon boots
    Then the daemon started
    Given a connection "A" to the daemon
    And "A" creates a session named "fresh"
    When "A" runs a loop with the prompt "hello"
    Then the loop "A" started ended with status 200
    And the daemon's model's packet 1 holds "## Plurnk System Policy" exactly once
    And the daemon's model's packet 1 holds "Be brief." exactly once
    And the daemon's model's packet 1 does not contain ".md origin=plurnk" per Decision (§render-rule-find-renders-result)

  @§operator-config-rpc-timeout
  Scenario: a handler still running after 30000 ms is answered -32007 and its late result only logged
    Given a connection "A" to the daemon
    And "A" creates a session named "slow"
    When "A" calls op.exec with {"body": "deploy"} while the daemon holds its command's registration
    And 29999 ms pass on the daemon's clock while the call is held
    Then the held call of "A" has no answer yet
    When 1 ms pass on the daemon's clock while the call is held
    Then the held call of "A" is answered with the error -32007
    And the error answered to "A" has data method = "op.exec"
    And the error answered to "A" has data timeoutMs = 30000
    When the daemon releases the held registration
    Then the daemon logged that op.exec answered after its timeout

  @§operator-config-rpc-timeout @decision
  Scenario: a PLURNK_RPC_TIMEOUT below zero turns the limit off
    Given the daemon's operator sets PLURNK_RPC_TIMEOUT to "-1"
    And a connection "A" to the daemon
    And "A" creates a session named "patient"
    When "A" calls op.exec with {"body": "deploy"} while the daemon holds its command's registration
    And 60000 ms pass on the daemon's clock while the call is held
    Then the held call of "A" has no answer yet per Decision (§operator-config-rpc-timeout)
    When the daemon releases the held registration

  @§operator-config-rpc-timeout
  Scenario: PLURNK_RPC_TIMEOUT sets the limit
    Given the daemon's operator sets PLURNK_RPC_TIMEOUT to "5000"
    And a connection "A" to the daemon
    And "A" creates a session named "slow"
    When "A" calls op.exec with {"body": "deploy"} while the daemon holds its command's registration
    And 4999 ms pass on the daemon's clock while the call is held
    Then the held call of "A" has no answer yet
    When 1 ms pass on the daemon's clock while the call is held
    Then the held call of "A" is answered with the error -32007
    When the daemon releases the held registration
    Then the daemon logged that op.exec answered after its timeout

  @§operator-config-session-git
  Scenario: settings.git false turns git membership off for that session alone; its picks still admit files
    Given the daemon keeps a membership of a git workspace holding:
      | path     | content      | tracked |
      | main.go  | package main | yes     |
      | util.go  | package main | yes     |
      | notes.md | scratch      | no      |
    And a connection "A" to the daemon
    And a connection "B" to the daemon
    And a connection "C" to the daemon
    When "A" calls session.create with {"name": "default"}
    And "A" calls session.members
    Then the answer to "A" has members = [{"path": "main.go", "effect": "member"}, {"path": "util.go", "effect": "member"}]
    When "B" calls session.create with {"name": "nogit", "settings": {"git": false}}
    And "B" calls session.members
    Then the answer to "B" has members = []
    When "B" calls session.constrain with {"effect": "pick", "pattern": "notes.md"}
    Then the answer to "B" has members = [{"path": "notes.md", "effect": "member"}]
    When "C" calls session.create with {"name": "withgit", "settings": {"git": true}}
    And "C" calls session.members
    Then the answer to "C" has members = [{"path": "main.go", "effect": "member"}, {"path": "util.go", "effect": "member"}]
    When "B" calls op.edit with {"target": "file:///main.go", "body": "changed"}
    Then the answer to "B" has status = 403
    When "A" calls op.edit with {"target": "file:///main.go", "body": "changed"}
    Then the answer to "A" has status = 200

  @§operator-config-session-git @decision
  Scenario Outline: a session's settings.git true never turns git membership on past PLURNK_GIT_ALLOWED=0
    Given the daemon's operator sets PLURNK_GIT_ALLOWED to "<allowed>"
    And the daemon keeps a membership of a git workspace holding:
      | path     | content      | tracked |
      | main.go  | package main | yes     |
      | notes.md | scratch      | no      |
    And a connection "A" to the daemon
    When "A" calls session.create with {"name": "wantsgit", "settings": {"git": true}}
    Then the answer to "A" has name = "wantsgit" per Decision (§operator-config-session-git)
    When "A" calls session.members
    Then the answer to "A" has members = <members>
    When "A" calls op.edit with {"target": "file:///main.go", "body": "changed"}
    Then the answer to "A" has status = <edit>

    Examples:
      | allowed | members                                   | edit |
      | 1       | [{"path": "main.go", "effect": "member"}] | 200  |
      | 0       | []                                        | 403  |
