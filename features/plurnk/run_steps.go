package plurnk

import "github.com/cucumber/godog"

// registerRunSteps registers the steps of the run features: sessions and
// runs, the run:// scheme, the run lifecycle and the EXEC wiring into loops.
// None is defined yet.
func registerRunSteps(sc *godog.ScenarioContext) {
	_ = sc
}
