// Package chatlog holds the godog step definitions for the chatlog features: a thin
// adapter from the Gherkin in features/chatlog/*.feature to impl/ and sim/.
// It may import godog, features/kit, impl/ and sim/.
package chatlog

import "github.com/cucumber/godog"

// InitializeScenario registers the chatlog steps with a scenario context. No step
// is defined yet, so any chatlog scenario is undefined and fails in strict mode
// until its steps are written.
func InitializeScenario(sc *godog.ScenarioContext) {
	_ = sc
}
