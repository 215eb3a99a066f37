package plurnk

import (
	"context"
	"fmt"
	"strconv"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/dsl"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
)

// registerSharpSteps registers the steps of the sharp_* features: edges
// the other features leave unprobed (a model server that sends no finish
// reason).
func registerSharpSteps(sc kit.Steps) {
	sc.Step(`^the model will reply, its text ending on the last character shown:$`, func(ctx context.Context, doc *godog.DocString) error {
		getEngine(ctx).llm.Add(llm.Reply{Content: doc.Content})
		return nil
	})
	sc.Step(`^"(\w+)" got a "loop/terminated" notification whose usage.promptTokens is the sum the daemon's model reported over its (\d+) calls$`, func(ctx context.Context, who string, n int) error {
		d := getDaemon(ctx)
		if _, err := d.settled(ctx, who); err != nil {
			return err
		}
		calls := d.model.CostCalls
		if len(calls) != n {
			return fmt.Errorf("the daemon's model reported usage for %d calls, want %d", len(calls), n)
		}
		sum := 0
		for _, u := range calls {
			if u.PromptTokens <= 0 {
				return fmt.Errorf("a call reported %d prompt tokens", u.PromptTokens)
			}
			sum += u.PromptTokens
		}
		return daemonNoteWith(ctx, who, "loop/terminated", "usage.promptTokens", strconv.Itoa(sum))
	})
	sc.Step(`^the daemon's model will reply without a finish reason:$`, func(ctx context.Context, doc *godog.DocString) error {
		getDaemon(ctx).model.Add(llm.Reply{Content: doc.Content, Unfinished: true})
		return nil
	})
	sc.Step(`^while run "([^"]*)" generates reply (\d+), the client starts it with the prompt "([^"]*)" and then cancels it$`, func(ctx context.Context, run string, n int, prompt string) error {
		rw := getRuns(ctx)
		return rw.planMidTurn(run, n, func() error {
			if err := rw.svc.LoopRun(rw.ss.ID, run, prompt); err != nil {
				return err
			}
			return rw.cancelMidTurn(run)
		})
	})
	sc.Step(`^while run "([^"]*)" generates reply (\d+), the client starts it with the prompt "([^"]*)" and its client run "([^"]*)" emits (<<.+)$`, func(ctx context.Context, run string, n int, prompt, client, src string) error {
		rw := getRuns(ctx)
		return rw.planMidTurn(run, n, func() error {
			if err := rw.svc.LoopRun(rw.ss.ID, run, prompt); err != nil {
				return err
			}
			if _, err := rw.svc.AddClientRun(rw.ss.ID, client); err != nil {
				return err
			}
			parsed := dsl.Parse(src)
			if len(parsed.Errors) > 0 || len(parsed.Statements) != 1 {
				return fmt.Errorf("the client's statement %q does not parse as one statement", src)
			}
			rows, err := rw.svc.ClientOp(rw.ss.ID, client, parsed.Statements[0])
			if err != nil {
				return err
			}
			if len(rows) == 0 || rows[len(rows)-1].Status != 200 {
				return fmt.Errorf("the client's %s wrote %d rows, not one answering 200: %+v", src, len(rows), rows)
			}
			return nil
		})
	})
}
