@plurnk
Feature: Membership divergence
  A member changed on disk by something other than plurnk is a divergence:
  the next sync re-reads it and records an EDIT of the file, with source
  "file", for the plurnk run, born folded. A file the model wrote through
  plurnk is not a divergence. The sync is the engine's: every turn of a
  loop runs one pass before the turn's packet, and its records sit in the
  plurnk run's log at that loop and turn (the Background's sync is loop 1,
  so a scenario's first sync is loop 2).

  Background:
    Given a git repository holding:
      | path    | content           | tracked |
      | main.go | package main\n    | yes     |
      | util.go | package main\n    | yes     |
    And the members have been synced

  @§membership-emi-divergence-signal
  Scenario: a member edited outside plurnk yields one divergence record for the plurnk run
    When util.go is changed on disk outside plurnk to "package main\n\nfunc helper() {}\n"
    Then the next sync records a divergence of util.go holding "package main\n\nfunc helper() {}\n"
    And its record for the plurnk run is a folded EDIT of file:///util.go with source "file" at log:///2/1/1
    And the next sync records no divergence

  @§membership-emi-divergence-signal
  Scenario: the model's own write is not a divergence
    When the model writes "package main\n\nfunc main() {}\n" to main.go through plurnk
    Then the next sync records no divergence
    When main.go is changed on disk outside plurnk to "package main\n\nfunc main() { panic(1) }\n"
    Then the next sync records a divergence of main.go holding "package main\n\nfunc main() { panic(1) }\n"

  @§membership-emi-divergence-signal
  Scenario: the model's own deletion of a member is not a divergence
    When the model deletes main.go through plurnk
    Then the project file main.go is gone
    And the next sync records no divergence

  @§membership-emi-divergence-signal @decision
  Scenario: rewriting a member with the content it already had is not a divergence
    When main.go is changed on disk outside plurnk to "package main\n"
    Then the next sync records no divergence per Decision (§membership-emi-divergence-signal)

  @§membership-emi-divergence-signal @§membership-change-gated-sync @decision
  Scenario: a member that can no longer be read as a file fails the sync pass instead of being recorded changed
    When util.go is replaced on disk by a folder
    Then the next sync fails on util.go with an error row of status 500 per Decision (§membership-change-gated-sync)
