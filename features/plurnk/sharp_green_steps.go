package plurnk

import (
	"context"
	"fmt"

	"anchorage/impl/plurnk/store"

	"github.com/cucumber/godog"
)

// registerSharpGreenSteps registers the steps of sharp_green.feature: the
// model's tokenizer in a session of runs, and the token count a session's
// entry (scratch included) stored when it was written.
func registerSharpGreenSteps(sc *godog.ScenarioContext) {
	sc.Step(`^every model of the session counts one token per (\d+) characters$`, func(ctx context.Context, n int) error {
		rw := getRuns(ctx)
		if rw.svc != nil {
			return fmt.Errorf("set the tokenizer before the session starts")
		}
		rw.tokenChars = n
		return nil
	})
	sc.Step(`^the session's entry (\S+) stored (\d+) tokens$`, func(ctx context.Context, target string, n int) error {
		rw := getRuns(ctx)
		if rw.svc == nil {
			return fmt.Errorf("the session has not started")
		}
		k, err := runEntryKey(target)
		if err != nil {
			return err
		}
		var e *store.Entry
		rw.svc.View(func() { e = rw.ss.Entry(k) })
		if e == nil {
			return fmt.Errorf("no entry %s", target)
		}
		if got := e.Channels["body"].Tokens; got != n {
			return fmt.Errorf("the body channel of %s stored %d tokens, want %d", target, got, n)
		}
		return nil
	})
}
