// Package plurnk holds the godog step definitions for the plurnk features: a thin
// adapter from the Gherkin in features/plurnk/*.feature to impl/ and sim/.
// It may import godog, features/kit, impl/ and sim/.
package plurnk

import "github.com/cucumber/godog"

// InitializeScenario registers the plurnk steps with a scenario context. No step
// is defined yet, so any plurnk scenario is undefined and fails in strict mode
// until its steps are written.
func InitializeScenario(sc *godog.ScenarioContext) {
	_ = sc
}
