package plurnk

import (
	"context"
	"fmt"

	"anchorage/features/kit"
)

// registerRunControlSteps registers the run steps of the tier 3b machine
// processes: what the session holds, and who a run's parent is.
func registerRunControlSteps(sc kit.Steps) {
	sc.Step(`^the session holds (\d+) entries of the (\w+) scheme$`, func(ctx context.Context, n int, scheme string) error {
		got, err := getRuns(ctx).drv.countEntries(scheme)
		if err != nil {
			return err
		}
		if got != n {
			return fmt.Errorf("the session holds %d entries, want %d", got, n)
		}
		return nil
	})
	sc.Step(`^run "([^"]*)"'s parent is run "([^"]*)" with origin "([^"]*)"$`, func(ctx context.Context, run, parent, origin string) error {
		gotParent, gotOrigin, err := getRuns(ctx).drv.parentOf(run)
		if err != nil {
			return err
		}
		if gotParent != parent || gotOrigin != origin {
			return fmt.Errorf("run %q has parent %q and origin %q, want %q and %q", run, gotParent, gotOrigin, parent, origin)
		}
		return nil
	})
}
