// Package deck holds the godog step definitions for the deck features: a thin
// adapter from the Gherkin in features/deck/*.feature to impl/ and sim/.
// It may import godog, features/kit, impl/ and sim/.
package deck

import "github.com/cucumber/godog"

// InitializeScenario registers the deck steps with a scenario context. No step
// is defined yet, so any deck scenario is undefined and fails in strict mode
// until its steps are written.
func InitializeScenario(sc *godog.ScenarioContext) {
	_ = sc
}
