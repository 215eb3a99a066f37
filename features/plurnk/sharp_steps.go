package plurnk

import (
	"context"
	"fmt"

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
	sc.Step(`^while run "([^"]*)" generates reply (\d+), the client starts it with the prompt "([^"]*)" and then cancels it$`, func(ctx context.Context, run string, n int, prompt string) error {
		rw := getRuns(ctx)
		if rw.svc != nil {
			return fmt.Errorf("plan mid-turn actions before the session starts")
		}
		if rw.during == nil {
			rw.during = map[string]map[int]func() error{}
		}
		if rw.during[run] == nil {
			rw.during[run] = map[int]func() error{}
		}
		rw.during[run][n] = func() error {
			if err := rw.svc.LoopRun(rw.ss.ID, run, prompt); err != nil {
				return err
			}
			hit, err := rw.svc.Cancel(rw.ss.ID, run, "")
			if err != nil {
				return err
			}
			if !hit {
				return fmt.Errorf("the cancel of run %q found nothing running mid-turn", run)
			}
			return nil
		}
		return nil
	})
}
