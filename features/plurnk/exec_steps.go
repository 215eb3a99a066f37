package plurnk

import "github.com/cucumber/godog"

// registerExecSteps registers the steps of the EXEC, proposal and membership
// features. None is defined yet.
func registerExecSteps(sc *godog.ScenarioContext) {
	_ = sc
}
