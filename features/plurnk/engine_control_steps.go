package plurnk

import (
	"context"
	"fmt"

	"anchorage/features/kit"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
)

// registerEngineControlSteps registers the engine steps of the tier 3b
// provider contract.
func registerEngineControlSteps(sc kit.Steps) {
	sc.Step(`^the model will reply with the raw payload (.+):$`, func(ctx context.Context, raw string, doc *godog.DocString) error {
		getEngine(ctx).llm.Add(llm.Reply{Content: doc.Content + "\n", Raw: unescape(raw)})
		return nil
	})
	sc.Step(`^turn (\d+) of the loop kept the raw payload (.+?)$`, func(ctx context.Context, n int, raw string) error {
		ew := getEngine(ctx)
		if len(ew.results) == 0 {
			return fmt.Errorf("no loop ran")
		}
		res := ew.results[len(ew.results)-1]
		for _, t := range res.Turns {
			if t.Seq == n {
				if want := unescape(raw); t.AssistantRaw != want {
					return fmt.Errorf("turn %d kept %q, want %q", n, t.AssistantRaw, want)
				}
				return nil
			}
		}
		return fmt.Errorf("the loop has no turn %d", n)
	})
	sc.Step(`^the model was called once per turn, (\d+) times in all$`, func(ctx context.Context, n int) error {
		ew := getEngine(ctx)
		turns := 0
		for _, r := range ew.results {
			turns += len(r.Turns)
		}
		if len(ew.llm.Requests) != n || turns != n {
			return fmt.Errorf("the model was called %d times over %d turns, want %d of each", len(ew.llm.Requests), turns, n)
		}
		return nil
	})
}
