@plurnk
Feature: Tier 3a — the default section order with every section present
  With a capability enabled, a git repository behind the file scheme, the
  operator's notes and both policies, requirements set and a failed row to
  point at, every default section has something to say, and the packet
  keeps the seed's order in both slots. The git section is fed by the
  session's membership. The scenario creates a real repository with the git
  binary in a temporary directory.

  Background:
    Given a git repository holding:
      | path     | content        | tracked |
      | main.go  | package main\n | yes     |
      | util.go  | package util\n | yes     |
      | notes.md | scratch\n      | no      |
    And the model's context window is 100000 tokens

  @§packet-plugin-transform @§tools-capability-sheet
  Scenario: with every section present the packet keeps the default order of both slots
    Given the engine offers the EXEC runtimes "sh"
    And the operator's file ~/.plurnk/AGENTS.md reads:
      """
      Never push to main.
      """
    And the operator's file /work/AGENTS.md reads:
      """
      Run the tests before you finish.
      """
    And the operator's file /etc/plurnk/notes.md reads:
      """
      Deploys freeze on Fridays.
      """
    And the operator sets PLURNK_PACKET_INJECT to "/etc/plurnk/notes.md"
    And the operator sets PLURNK_REQUIREMENTS to "Answer in English."
    And the model will reply:
      """
      <<PLAN:look:PLAN
      <<READ(known:///absent.md)::READ
      <<SEND[102]:going on:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then packet 2 has the system sections "definition, tools, schemes, operator-notes, system-policy, project-policy, budget"
    And packet 2 has the user sections "prompt, errors, log, git, requirements"
    And the system slot of packet 2 shows, in order, the headers:
      """
      ## Plurnk System Tools
      ## Plurnk System Schemes
      ## Plurnk Operator Notes
      ## Plurnk System Policy
      ## Project Policy
      ## Plurnk System Budget
      """
    And the user slot of packet 2 shows, in order, the headers:
      """
      ## Plurnk System Prompt
      ## Plurnk System Errors
      ## Plurnk System Log
      ## Plurnk System Git
      ## Plurnk System Requirements
      """
    And the tools section of packet 2 reads: per Decision (§tools-capability-sheet)
      """
      * <<EXEC[sh](.):command:EXEC
      """
    And the git section of packet 2 reads: per Decision (§membership-git-membership)
      """
      * .: 2 files tracked
      """

  @§membership-git-membership @decision
  Scenario: the git section names each repository membership covers once, with the files it tracks; without git it is left out
    Given the session's overlay declares the repo "."
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then the git section of packet 1 reads: per Decision (§membership-git-membership)
      """
      * .: 2 files tracked
      """
    Given the service runs with PLURNK_GIT_ALLOWED="0" and PLURNK_GIT_AUTO="1"
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    Then packet 2 has no git section
