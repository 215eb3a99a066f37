package plurnk

import "github.com/cucumber/godog"

// registerEngineSteps registers the steps of the engine loop features: turns,
// packets, statuses and rails, budget and grinder, telemetry, providers and
// operator config. None is defined yet.
func registerEngineSteps(sc *godog.ScenarioContext) {
	_ = sc
}
