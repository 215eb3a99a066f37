package plurnk

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/runs"

	"github.com/cucumber/godog"
)

// actingProvider is a run's scripted model that, before giving its n-th
// reply, takes the client actions the scenario queued for that reply. The
// runs service calls Generate with its lock released, so the actions land
// while the loop is mid-turn.
type actingProvider struct {
	provider.Provider
	rw    *runWorld
	acts  map[int]func() error
	calls int
}

func (a *actingProvider) Generate(ctx context.Context, req provider.Request) (provider.Response, error) {
	a.calls++
	if act, ok := a.acts[a.calls]; ok {
		if err := act(); err != nil && a.rw.duringErr == nil {
			a.rw.duringErr = err
		}
	}
	return a.Provider.Generate(ctx, req)
}

// teardownMark records the loop a scenario queued inside a drain's
// teardown window.
type teardownMark struct {
	fired    bool
	draining bool // the drain still held the run's slot when the loop was queued
	drains   int  // the run's drains at that moment
}

// registerMark records the abort a scenario landed while a stream was
// registering.
type registerMark struct {
	fired     bool
	cancelled bool // the cancel reported a loop running
	existed   bool // the stream already existed when the cancel landed
	target    string
}

// registerRunInterleaveSteps registers the steps that force one
// interleaving through the runs service's test seams (Teardown,
// Registering) or through a model acting mid-turn.
func registerRunInterleaveSteps(sc kit.Steps) {
	var tm teardownMark
	var rm registerMark
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		tm, rm = teardownMark{}, registerMark{}
		return ctx, nil
	})

	armTeardown := func(rw *runWorld, run string, queue func(session int64) error) {
		rw.teardown = func(session int64, name string) {
			if name != run || tm.fired {
				return
			}
			tm.fired = true
			info, err := rw.runInfo(run)
			if err != nil {
				rw.duringErr = err
				return
			}
			tm.draining, tm.drains = info.Draining, info.Drains
			if err := queue(session); err != nil {
				rw.duringErr = err
			}
		}
	}
	sc.Step(`^the client will start run "([^"]*)" with the prompt "([^"]*)" when its drain finds its queue empty$`, func(ctx context.Context, run, prompt string) error {
		rw := getRuns(ctx)
		armTeardown(rw, run, func(session int64) error { return rw.svc.LoopRun(session, run, prompt) })
		return nil
	})
	sc.Step(`^the client will inject "([^"]*)" into run "([^"]*)" when its drain finds its queue empty$`, func(ctx context.Context, msg, run string) error {
		rw := getRuns(ctx)
		armTeardown(rw, run, func(session int64) error { return rw.svc.Inject(session, run, msg) })
		return nil
	})
	// The cancel waits for the other run to be parked and idle, and the
	// drain's teardown goes on only once it is parked and idle again.
	sc.Step(`^the client will cancel run "([^"]*)" when its drain finds its queue empty, while run "([^"]*)" is parked and idle$`, func(ctx context.Context, run, other string) error {
		rw := getRuns(ctx)
		idle := func() error {
			return rw.waitRun(other, "parked at 202 with its drain gone", func(r runs.RunInfo) bool {
				return r.Status == 202 && !r.Draining && r.Queued == 0
			})
		}
		armTeardown(rw, run, func(session int64) error {
			if err := idle(); err != nil {
				return err
			}
			if _, err := rw.svc.Cancel(session, run, ""); err != nil {
				return err
			}
			return idle()
		})
		return nil
	})
	sc.Step(`^while run "([^"]*)" generates reply (\d+), run "([^"]*)" concludes with status (\d+)$`, func(ctx context.Context, run string, n int, other string, status int) error {
		rw := getRuns(ctx)
		return rw.planMidTurn(run, n, func() error {
			return rw.waitRun(other, fmt.Sprintf("concluded with %d, its drain gone", status), func(r runs.RunInfo) bool {
				return r.Status == status && !r.Draining && r.Queued == 0
			})
		})
	})
	sc.Step(`^the loop queued during teardown was claimed by the drain that was giving up its slot$`, func(ctx context.Context) error {
		rw := getRuns(ctx)
		if rw.duringErr != nil {
			return rw.duringErr
		}
		if !tm.fired {
			return fmt.Errorf("no drain reached its teardown window")
		}
		if !tm.draining {
			return fmt.Errorf("the loop was queued after the drain had already given up its slot")
		}
		info, err := rw.runInfo("main")
		if err != nil {
			return err
		}
		if info.Drains != tm.drains {
			return fmt.Errorf("run main had %d drains when the loop was queued and %d after: a second drain claimed it", tm.drains, info.Drains)
		}
		return nil
	})
	sc.Step(`^no drain of the session left a loop unclaimed$`, func(ctx context.Context) error {
		rw := getRuns(ctx)
		if bad := rw.svc.Audit(rw.ss.ID); len(bad) > 0 {
			return fmt.Errorf("drain discipline broken: %s", strings.Join(bad, "; "))
		}
		for _, r := range rw.mustRuns() {
			if r.Draining || r.Queued > 0 {
				return fmt.Errorf("run %s still draining=%v with %d queued", r.Name, r.Draining, r.Queued)
			}
		}
		return nil
	})

	sc.Step(`^the client will cancel run "([^"]*)" while its next command registers$`, func(ctx context.Context, run string) error {
		rw := getRuns(ctx)
		rw.registering = func(session int64, name, target string) {
			if name != run || rm.fired {
				return
			}
			rm.fired, rm.target = true, target
			if _, err := rw.stream(target); err == nil {
				rm.existed = true
			}
			hit, err := rw.svc.Cancel(session, run, "")
			if err != nil {
				rw.duringErr = err
			}
			rm.cancelled = hit
		}
		return nil
	})
	sc.Step(`^the cancel landed while the stream of (\S+) was registering, before it existed$`, func(ctx context.Context, target string) error {
		if err := getRuns(ctx).duringErr; err != nil {
			return err
		}
		switch {
		case !rm.fired:
			return fmt.Errorf("no command registered")
		case rm.target != target:
			return fmt.Errorf("the cancel landed while %s registered, not %s", rm.target, target)
		case rm.existed:
			return fmt.Errorf("the stream %s already existed when the cancel landed", target)
		case !rm.cancelled:
			return fmt.Errorf("the cancel found no loop running")
		}
		return nil
	})

	sc.Step(`^while run "([^"]*)" generates reply (\d+), the client injects "([^"]*)" into it and then cancels it$`, func(ctx context.Context, run string, n int, msg string) error {
		rw := getRuns(ctx)
		return rw.planMidTurn(run, n, func() error {
			if err := rw.svc.Inject(rw.ss.ID, run, msg); err != nil {
				return err
			}
			return rw.cancelMidTurn(run)
		})
	})
	sc.Step(`^the mid-turn actions went through$`, func(ctx context.Context) error {
		rw := getRuns(ctx)
		if rw.duringErr != nil {
			return rw.duringErr
		}
		for run, acts := range rw.during {
			p, ok := rw.providerOf(run)
			if !ok {
				return fmt.Errorf("run %q has no acting model", run)
			}
			for n := range acts {
				if p.calls < n {
					return fmt.Errorf("run %q's model gave %d replies; the action planned for reply %d never ran", run, p.calls, n)
				}
			}
		}
		return nil
	})

	registerScheduleSteps(sc)
}

func (rw *runWorld) providerOf(run string) (*actingProvider, bool) {
	if rw.acting == nil {
		return nil, false
	}
	p, ok := rw.acting[run]
	return p, ok
}

func (rw *runWorld) runInfo(run string) (runs.RunInfo, error) {
	rs, err := rw.svc.Runs(rw.ss.ID)
	if err != nil {
		return runs.RunInfo{}, err
	}
	for _, r := range rs {
		if r.Name == run {
			return r, nil
		}
	}
	return runs.RunInfo{}, fmt.Errorf("no run %q", run)
}

// waitRun waits, in wall time and with the service's lock free, until
// run's info satisfies ok: a scenario forcing an interleaving holds one
// side until the other has reached a state. It gives up after 10 s.
func (rw *runWorld) waitRun(run, what string, ok func(runs.RunInfo) bool) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := rw.runInfo(run)
		if err == nil && ok(info) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("run %q never got %s (last: %+v, %v)", run, what, info, err)
		}
		time.Sleep(time.Millisecond)
	}
}

// pickName draws one of names.
func pickName(rng *rand.Rand, names []string) string { return names[rng.IntN(len(names))] }
