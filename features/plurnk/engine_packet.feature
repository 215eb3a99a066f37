@plurnk
Feature: Packet assembly — the ordered sections, the plugin seam, operator notes and policy
  Every turn the engine builds the packet from an ordered list of sections in
  two slots. The system slot teaches (definition, tools, schemes), carries the
  operator's notes and the two policies, and ends with the budget; the user
  slot holds the prompt, the errors, the log, git and the requirements. A
  section with nothing to say is left out. Trusted plugins may rewrite the
  whole list before it is measured.

  Background:
    Given the model's context window is 100000 tokens
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """

  @§packet-plugin-transform
  Scenario: the default section order of both slots
    Given the operator sets PLURNK_REQUIREMENTS to "Answer in English."
    When the user starts a loop with the prompt "Say done"
    Then packet 1 has the system sections "definition, schemes, budget"
    And packet 1 has the user sections "prompt, log, requirements"
    And the prompt section of packet 1 reads:
      """
      Say done
      """
    And the requirements section of packet 1 reads:
      """
      Answer in English.
      """

  @§packet-plugin-transform
  Scenario: plugins rewrite the list in registration order, each seeing the previous one's output
    Given a packet plugin that adds a user section "house-rules" headed "## House Rules" reading "Be brief."
    And a packet plugin that moves the house-rules section to the front of its slot
    And a packet plugin that drops the schemes section
    When the user starts a loop with the prompt "Say done"
    Then packet 1 has the system sections "definition, budget"
    And packet 1 has the user sections "house-rules, prompt, log"
    And the house-rules section of packet 1 reads:
      """
      Be brief.
      """

  @§packet-plugin-transform @§tokenomics-render-weight-budget
  Scenario: plugins act before the packet is measured
    Given a packet plugin that adds a user section "ballast" headed "## Ballast" reading "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    When the user starts a loop with the prompt "Say done"
    Then the ballast section of packet 1 contains "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    And the user slot of packet 1 shows the header "## Ballast"
    And the budget usage of packet 1 is the token count of the whole rendered packet

  @§packet-inject
  Scenario: operator notes ride the system slot after the teaching, ahead of policy and budget
    Given the operator's file /etc/plurnk/notes.md reads:
      """
      Deploys freeze on Fridays.
      """
    And the operator's file ~/.plurnk/AGENTS.md reads:
      """
      Never push to main.
      """
    And the operator sets PLURNK_PACKET_INJECT to "/etc/plurnk/notes.md"
    When the user starts a loop with the prompt "Say done"
    Then packet 1 has the system sections "definition, schemes, operator-notes, system-policy, budget"
    And the operator-notes section of packet 1 reads:
      """
      Deploys freeze on Fridays.
      """
    And the system slot of packet 1 shows the header "## Plurnk Operator Notes"

  @§packet-inject
  Scenario: the notes are read again every turn
    Given the operator's file ~/notes.md reads:
      """
      First note.
      """
    And the operator sets PLURNK_PACKET_INJECT to "~/notes.md"
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Say done"
    And the operator's file ~/notes.md reads:
      """
      Second note.
      """
    And the user starts a loop with the prompt "Say done again"
    Then the operator-notes section of packet 1 reads:
      """
      First note.
      """
    And the operator-notes section of packet 2 reads:
      """
      Second note.
      """

  @§packet-inject
  Scenario: with PLURNK_PACKET_INJECT unset there is no operator notes section
    When the user starts a loop with the prompt "Say done"
    Then packet 1 has no operator-notes section
    And packet 1 has the system sections "definition, schemes, budget"

  @§packet-inject @decision
  Scenario: a set but unreadable PLURNK_PACKET_INJECT fails the loop before the model is called
    Given the operator sets PLURNK_PACKET_INJECT to "/etc/plurnk/missing.md"
    When the user starts a loop with the prompt "Say done"
    Then the loop ends with status 500
    And the model was called 0 times
    And the model run's log records error - with status 500 by plurnk per Decision (§packet-inject)

  @§policy-sections
  Scenario: system and project policy sit below the operator notes and above the budget
    Given the operator's file ~/.plurnk/AGENTS.md reads:
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
    When the user starts a loop with the prompt "Say done"
    Then packet 1 has the system sections "definition, schemes, operator-notes, system-policy, project-policy, budget"
    And the system slot of packet 1 shows the header "## Plurnk System Policy"
    And the system slot of packet 1 shows the header "## Project Policy"
    And the system-policy section of packet 1 reads:
      """
      Never push to main.
      """
    And the project-policy section of packet 1 reads:
      """
      Run the tests before you finish.
      """

  @§policy-sections
  Scenario: explicitly configured policy files replace the defaults
    Given the operator's file /srv/policy/system.md reads:
      """
      Be careful.
      """
    And the operator's file /work/docs/rules.md reads:
      """
      Use tabs.
      """
    And the operator sets PLURNK_POLICY to "/srv/policy/system.md"
    And the operator sets PLURNK_PROJECT to "docs/rules.md"
    When the user starts a loop with the prompt "Say done"
    Then the system-policy section of packet 1 reads:
      """
      Be careful.
      """
    And the project-policy section of packet 1 reads:
      """
      Use tabs.
      """

  @§policy-sections
  Scenario: a missing default policy file just leaves its section out
    When the user starts a loop with the prompt "Say done"
    Then packet 1 has no system-policy section
    And packet 1 has no project-policy section
    And the loop ends with status 200

  @§policy-sections
  Scenario: an explicitly configured policy file that cannot be read fails the turn
    Given the operator sets PLURNK_POLICY to "/srv/policy/missing.md"
    When the user starts a loop with the prompt "Say done"
    Then the loop ends with status 500
    And the model was called 0 times
