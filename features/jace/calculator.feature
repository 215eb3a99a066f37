@jace
Feature: Calculator example and the jace command
  Started without a module the runtime serves its calculator demo; given a
  module file it serves that instead; by default it listens on
  127.0.0.1:3323. These scenarios start the reference itself (embedded, or
  its jace command built from this tree), so against another runtime they
  are pending: that runtime's own start-up is not something the HTTP API
  can show.

  @§jace-calc-demo @decision
  Scenario: the demo divides 7 by 2
    Given the runtime is the embedded reference
    When the client posts to /press {"action":"calc.input","params":{"digit":7}}
    And the client posts to /press {"action":"calc.op","params":{"op":"divide"}}
    And the client posts to /press {"action":"calc.input","params":{"digit":2}}
    And the client posts to /press {"action":"calc.equals"}
    Then the response status is 200 and $.state.display is "3.5"
    And $.result is {"value":3.5} per Decision (§jace-calc-demo)
    And $.audit_preview is "EQUALS 7 / 2 -> 3.5" per Decision (§jace-calc-demo)

  @§jace-calc-demo @e2e @slow
  Scenario: the built command serves the demo when given no module
    Given the scenario runs the reference's own jace command
    And the jace command is built
    When the jace command is started with -addr 127.0.0.1:0
    And the agent presses "calc.input" with params {"digit":7}
    And the agent presses "calc.op" with params {"op":"divide"}
    And the agent presses "calc.input" with params {"digit":2}
    And the agent presses "calc.equals"
    Then $.state.display is "3.5"

  @§jace-external-module @e2e @slow
  Scenario: the command serves the module file named on its command line
    Given the scenario runs the reference's own jace command
    And a module file "tally.js" containing:
      """
      globalThis.jace = {
        manifest: { name: "tally", version: "3.1.4" },
        init() { return { n: 0 }; },
        view(state) { return { type: "tally", n: state.n }; },
        actions: { bump(state) { return { state: { n: state.n + 1 }, audit_preview: "bump" }; } },
      };
      """
    And the jace command is built
    When the jace command is started with -addr 127.0.0.1:0 <file:tally.js>
    And the agent posts to /actions {"action":"bump"}
    Then the response status is 200 and $.state.n is 1
    And $.audit_preview is "bump"

  @§jace-external-module @e2e @slow @decision
  Scenario: the command refuses a module file it cannot load, before it listens
    Given the scenario runs the reference's own jace command
    And a module file "broken.js" containing:
      """
      globalThis.jace = { manifest: { name: "broken", version: "1.0.0" } };
      """
    And the jace command is built
    Then the jace command started with -addr 127.0.0.1:0 <file:broken.js> exits with status 2, saying "broken.js refused" per Decision (§jace-external-module)

  @§jace-default-port @e2e @slow
  Scenario: without -addr the command listens on 127.0.0.1:3323
    Given the scenario runs the reference's own jace command
    And the port 3323 on 127.0.0.1 is free
    And the jace command is built
    When the jace command is started with no arguments
    Then the command listens on 127.0.0.1:3323
    When the client sends GET /healthz
    Then the response status is 200 and $ is {"ok":true}
