// Package jace holds the godog step definitions for the jace features: a thin
// adapter from the Gherkin in features/jace/*.feature to impl/ and sim/.
// It may import godog, features/kit, impl/ and sim/.
package jace

import "github.com/cucumber/godog"

// InitializeScenario registers the jace steps with a scenario context. No step
// is defined yet, so any jace scenario is undefined and fails in strict mode
// until its steps are written.
func InitializeScenario(sc *godog.ScenarioContext) {
	_ = sc
}
