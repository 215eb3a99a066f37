package plurnk

import "github.com/cucumber/godog"

// registerDaemonSteps registers the steps of the daemon features: JSON-RPC
// methods and notifications over a loopback WebSocket. None is defined yet.
func registerDaemonSteps(sc *godog.ScenarioContext) {
	_ = sc
}
