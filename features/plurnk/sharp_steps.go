package plurnk

import (
	"context"

	"anchorage/sim/llm"

	"github.com/cucumber/godog"
)

// registerSharpSteps registers the steps of the sharp_* features: edges
// the other features leave unprobed (a model server that sends no finish
// reason).
func registerSharpSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the daemon's model will reply without a finish reason:$`, func(ctx context.Context, doc *godog.DocString) error {
		getDaemon(ctx).model.Add(llm.Reply{Content: doc.Content, Unfinished: true})
		return nil
	})
}
