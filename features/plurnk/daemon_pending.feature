@plurnk
Feature: control-plane promises not built yet
  The tier 3b promises below have no implementation in this build; their
  scenarios describe what a build that keeps them must show, and stay
  pending until then.

  @§dual-yolo-stale-clobber-reject @wip
  Scenario: server yolo rejects an EDIT proposal whose target changed on disk since the model's last turn
    Given a connection "A" to the daemon
    And "A" creates a session named "files"
    When "A" runs a loop with {"prompt": "edit it", "flags": {"yolo": true}}
    Then "A" got a "loop/proposal" notification with attrs.staleClobberRisk = true
    And the loop "A" started ended with status 200
