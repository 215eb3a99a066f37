// Package runs holds the steps of a session of runs (the digest's actor
// boundary, machine processes, run:// scheme and run lifecycle): each run
// with its own scripted model, its host commands, the client's loop.run,
// loop.inject and loop.cancel, and what the runs' logs, streams and
// notifications show.
//
// It may import godog, features/kit, the world and the driver,
// impl/plurnk/... and sim/.
package runs

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/plurnkexec"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
)

// Register registers the steps of a session of runs.
func Register(sc world.Steps) {
	registerGivens(sc)
	registerClient(sc)
	registerLogThens(sc)
	registerSessionThens(sc)
	registerInterleave(sc)
	registerSchedules(sc)
}

func registerGivens(sc world.Steps) {
	sc.Public(`^the operator sets PLURNK_SESSION_RUNS_MAX_ACTIVE to (-?\d+)$`, func(ctx context.Context, n int) error {
		return world.Get(ctx).Drv.MaxActive(n)
	})
	sc.Public(`^host commands are accepted without asking$`, func(ctx context.Context) error {
		world.Get(ctx).Drv.AcceptHostCommands()
		return nil
	})
	sc.Public(`^run "([^"]*)" will emit:$`, func(ctx context.Context, run string, doc *godog.DocString) error {
		return world.Get(ctx).Drv.Script(run, doc.Content+"\n")
	})
	sc.Public(`^every model of the session counts one token per (\d+) characters$`, func(ctx context.Context, n int) error {
		return world.Get(ctx).Drv.Tokenizer(n)
	})
	sc.Public(`^the command "([^"]*)" prints "((?:[^"\\]|\\.)*)" on (stdout|stderr) after (\d+) ms$`, func(ctx context.Context, cmd, out, ch string, ms int) error {
		return world.Get(ctx).Command(cmd, func(s *plurnkexec.Script) {
			s.Chunks = append(s.Chunks, plurnkexec.ScriptChunk{At: time.Duration(ms) * time.Millisecond, Channel: ch, Data: driver.Unescape(out)})
			if s.ExitAt == 0 {
				s.ExitAt = -1
			}
		})
	})
	sc.Public(`^the command "([^"]*)" exits after (\d+) ms$`, func(ctx context.Context, cmd string, ms int) error {
		return world.Get(ctx).Command(cmd, func(s *plurnkexec.Script) { s.ExitAt = time.Duration(ms) * time.Millisecond })
	})
	sc.Public(`^the command "([^"]*)" never exits$`, func(ctx context.Context, cmd string) error {
		return world.Get(ctx).Command(cmd, func(s *plurnkexec.Script) { s.ExitAt = -1 })
	})
	sc.Step(`^the command "([^"]*)" ignores the polite signal$`, func(ctx context.Context, cmd string) error {
		w := world.Get(ctx)
		s := w.Script.Commands[cmd]
		s.IgnoreTerm = true
		w.Script.Commands[cmd] = s
		return nil
	})
	sc.Public(`^the command "([^"]*)" was spawned (\d+) times?$`, func(ctx context.Context, cmd string, n int) error {
		return world.Spawned(cmd, n, world.Get(ctx).Drv.RunSpawns())
	})
}

func registerClient(sc world.Steps) {
	sc.Public(`^the client starts run "([^"]*)" with the prompt "([^"]*)"$`, func(ctx context.Context, run, prompt string) error {
		return world.Get(ctx).Drv.Start(run, prompt)
	})
	sc.Public(`^the client injects "([^"]*)" into run "([^"]*)"$`, func(ctx context.Context, msg, run string) error {
		return world.Get(ctx).Drv.Inject(run, msg)
	})
	sc.Public(`^the client cancels run "([^"]*)"$`, func(ctx context.Context, run string) error {
		return world.Get(ctx).Drv.Cancel(run)
	})
	sc.Step(`^(\d+) ms pass and the client cancels run "([^"]*)" before the daemon applies what happened$`, func(ctx context.Context, ms int, run string) error {
		// The processes post what happened in those ms (an exit, say),
		// and the cancel lands before the service applies it.
		return world.Get(ctx).Library(func(e *driver.Embedded) error { return e.CancelNow(run, ms) })
	})
	sc.Public(`^the client (accepts|rejects) the proposal of run "([^"]*)"'s row log:///(\S+)$`, func(ctx context.Context, how, run, coord string) error {
		row, err := rowAt(ctx, run, coord)
		if err != nil {
			return err
		}
		return world.Get(ctx).Drv.Resolve(row.ID, how == "accepts")
	})
	sc.Public(`^(\d+) ms pass on the session clock$`, func(ctx context.Context, ms int) error {
		return world.Get(ctx).Drv.PassSession(ms)
	})
	sc.Public(`^the run stream (\S+) ended with (\d+)$`, func(ctx context.Context, target string, status int) error {
		return streamIs(ctx, target, func(st exec.Stream) error {
			if st.Status != status {
				return fmt.Errorf("stream %s ended %d (0 is live), want %d", target, st.Status, status)
			}
			return nil
		})
	})
	sc.Public(`^the run stream (\S+) ended with (\d+) by (SIG[A-Z0-9]+) at (\d+) ms$`, func(ctx context.Context, target string, status int, sig string, ms int) error {
		return streamIs(ctx, target, func(st exec.Stream) error { return world.CheckEnding("stream "+target, st, status, sig, ms) })
	})
	sc.Public(`^the run stream (\S+) is still running$`, func(ctx context.Context, target string) error {
		return streamIs(ctx, target, func(st exec.Stream) error {
			if !st.Live() {
				return fmt.Errorf("stream %s ended %d", target, st.Status)
			}
			return nil
		})
	})
}

// rowAt is the row of run's log at coord.
func rowAt(ctx context.Context, run, coord string) (store.LogRow, error) {
	rows, err := world.Get(ctx).Drv.RunLog(run)
	if err != nil {
		return store.LogRow{}, err
	}
	for _, r := range rows {
		if r.Coord() == coord {
			return r, nil
		}
	}
	var have []string
	for _, r := range rows {
		have = append(have, r.Handle()+" "+r.Target)
	}
	return store.LogRow{}, fmt.Errorf("run %q has no row log:///%s; it has %v", run, coord, have)
}

// sessionEntry is the session's entry at target, which must exist.
func sessionEntry(ctx context.Context, target string) (*store.Entry, error) {
	e, err := world.Get(ctx).Drv.SessionEntry(target)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("no entry %s", target)
	}
	return e, nil
}

func registerLogThens(sc world.Steps) {
	sc.Public(`^run "([^"]*)" has (\d+) loops?(?:, the last with status (\d+))?$`, thenRunLoops)
	sc.Public(`^run "([^"]*)" has no loop$`, func(ctx context.Context, run string) error { return thenRunLoops(ctx, run, 0, "") })
	sc.Public(`^the model of run "([^"]*)" was called (\d+) times?$`, func(ctx context.Context, run string, n int) error {
		if got := len(world.Get(ctx).Drv.Requests(run)); got != n {
			return fmt.Errorf("the model of run %q was called %d times, want %d", run, got, n)
		}
		return nil
	})
	sc.Public(`^run "([^"]*)"'s log holds (?:an? )?(open|folded) (\w+) (\S+) with status (\d+)(?: reading "((?:[^"\\]|\\.)*)")?$`, thenRunRow)
	sc.Public(`^run "([^"]*)"'s log has no (\w+) (\S+)$`, func(ctx context.Context, run, op, target string) error {
		rows, err := world.Get(ctx).Drv.RunLog(run)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if r.Op == op && r.Target == target {
				return fmt.Errorf("run %q's log has %s %s at log:///%s", run, op, target, r.Coord())
			}
		}
		return nil
	})
	sc.Public(`^run "([^"]*)"'s row log:///(\S+) (?:is (open|folded) )?(?:with status (\d+) )?reads:$`, thenRowReads)
	sc.Public(`^run "([^"]*)"'s row log:///(\S+) gives the reason "([^"]*)"$`, func(ctx context.Context, run, coord, want string) error {
		row, err := rowAt(ctx, run, coord)
		if err != nil {
			return err
		}
		if row.Reason != want {
			return fmt.Errorf("log:///%s gives the reason %q, want %q", coord, row.Reason, want)
		}
		return nil
	})
	sc.Public(`^run "([^"]*)"'s row log:///(\S+) is (\w+) (\S+) with status (\d+)$`, func(ctx context.Context, run, coord, op, target string, status int) error {
		row, err := rowAt(ctx, run, coord)
		if err != nil {
			return err
		}
		if row.Op != op || row.Target != target || row.Status != status {
			return fmt.Errorf("log:///%s of run %q is %s %s %d, want %s %s %d", coord, run, row.Op, row.Target, row.Status, op, target, status)
		}
		return nil
	})
	sc.Step(`^run "([^"]*)"'s log holds exactly these rows:$`, thenRunRowsExactly)
	sc.Public(`^packet (\d+) of run "([^"]*)" (contains|does not contain) "((?:[^"\\]|\\.)*)"$`, thenRunPacket)
}

func thenRunLoops(ctx context.Context, run string, n int, status string) error {
	got, last, err := world.Get(ctx).Drv.Loops(run)
	if err != nil {
		return err
	}
	if got != n {
		return fmt.Errorf("run %q has %d loops, want %d", run, got, n)
	}
	if status != "" && strconv.Itoa(last) != status {
		return fmt.Errorf("the last loop of run %q has status %d, want %s", run, last, status)
	}
	return nil
}

func thenRunRow(ctx context.Context, run, fold, op, target string, status int, content string) error {
	rows, err := world.Get(ctx).Drv.RunLog(run)
	if err != nil {
		return err
	}
	var have []string
	for _, r := range rows {
		if r.Op != op || r.Target != target {
			continue
		}
		if r.Status == status && r.Expanded == (fold == "open") && (content == "" || r.Content == driver.Unescape(content)) {
			return nil
		}
		have = append(have, fmt.Sprintf("log:///%s %d expanded=%v %q", r.Coord(), r.Status, r.Expanded, r.Content))
	}
	return fmt.Errorf("run %q's log has no %s %s %s with status %d %q; rows of that op and target: %v", run, fold, op, target, status, content, have)
}

func thenRowReads(ctx context.Context, run, coord, fold, status string, doc *godog.DocString) error {
	row, err := rowAt(ctx, run, coord)
	if err != nil {
		return err
	}
	if fold != "" && row.Expanded != (fold == "open") {
		return fmt.Errorf("log:///%s of run %q: expanded=%v, want %s", coord, run, row.Expanded, fold)
	}
	if status != "" && strconv.Itoa(row.Status) != status {
		return fmt.Errorf("log:///%s of run %q: status %d, want %s", coord, run, row.Status, status)
	}
	if row.Content != doc.Content+"\n" {
		return fmt.Errorf("log:///%s of run %q reads %q, want %q", coord, run, row.Content, doc.Content+"\n")
	}
	return nil
}

// thenRunRowsExactly compares every row of run's log, in order, with the
// table | row | op | target | status |: a row per chunk would show up here.
func thenRunRowsExactly(ctx context.Context, run string, tbl *godog.Table) error {
	rows, err := world.Get(ctx).Drv.RunLog(run)
	if err != nil {
		return err
	}
	var want, got []string
	for i, r := range tbl.Rows {
		if i == 0 {
			continue // | row | op | target | status |
		}
		if len(r.Cells) != 4 {
			return fmt.Errorf("row %d: want | row | op | target | status |", i)
		}
		want = append(want, fmt.Sprintf("%s %s %s %s", r.Cells[0].Value, r.Cells[1].Value, r.Cells[2].Value, r.Cells[3].Value))
	}
	for _, r := range rows {
		t := r.Target
		if t == "" {
			t = "-"
		}
		got = append(got, fmt.Sprintf("%s %s %s %d", r.Coord(), r.Op, t, r.Status))
	}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("run %q's log (-want +got):\n%s", run, d)
	}
	return nil
}

func thenRunPacket(ctx context.Context, n int, run, how, want string) error {
	reqs := world.Get(ctx).Drv.Requests(run)
	if n < 1 || n > len(reqs) {
		return fmt.Errorf("run %q received no packet %d", run, n)
	}
	var text strings.Builder
	for _, msg := range reqs[n-1].Messages {
		text.WriteString(msg.Content)
	}
	if strings.Contains(text.String(), driver.Unescape(want)) != (how == "contains") {
		return fmt.Errorf("packet %d of run %q: %s %q is false:\n%s", n, run, how, driver.Unescape(want), text.String())
	}
	return nil
}

func registerSessionThens(sc world.Steps) {
	sc.Public(`^the session was notified (loop/\w+) for loop (\d+) of run "([^"]*)" with status (\d+)$`, func(ctx context.Context, kind string, loop int, run string, status int) error {
		var seen []string
		for _, ev := range world.Get(ctx).Drv.Events() {
			if ev.Kind == kind && ev.Run == run && ev.LoopSeq == loop && ev.Status == status {
				return nil
			}
			seen = append(seen, fmt.Sprintf("%s %s/%d %d", ev.Kind, ev.Run, ev.LoopSeq, ev.Status))
		}
		return fmt.Errorf("no %s for loop %d of run %q with %d; events: %v", kind, loop, run, status, seen)
	})
	sc.Public(`^the session was notified (loop/\w+) (\d+) times? for run "([^"]*)"$`, func(ctx context.Context, kind string, n int, run string) error {
		got := 0
		for _, ev := range world.Get(ctx).Drv.Events() {
			if ev.Kind == kind && ev.Run == run {
				got++
			}
		}
		if got != n {
			return fmt.Errorf("%d %s notifications for run %q, want %d", got, kind, run, n)
		}
		return nil
	})
	sc.Public(`^the session was notified stream/concluded for (\S+) with close status (\d+) and wake action "([^"]*)"$`, thenConcluded)
	sc.Public(`^the session holds (\d+) runs?$`, func(ctx context.Context, n int) error {
		rs, err := world.Get(ctx).Drv.RunNames()
		if err != nil {
			return err
		}
		if len(rs) != n {
			return fmt.Errorf("the session holds %d runs (%v), want %d", len(rs), rs, n)
		}
		return nil
	})
	sc.Public(`^the session holds (\d+) entries of the (\w+) scheme$`, func(ctx context.Context, n int, scheme string) error {
		got, err := world.Get(ctx).Drv.CountEntries(scheme)
		if err != nil {
			return err
		}
		if got != n {
			return fmt.Errorf("the session holds %d entries, want %d", got, n)
		}
		return nil
	})
	sc.Public(`^run "([^"]*)"'s parent is run "([^"]*)" with origin "([^"]*)"$`, func(ctx context.Context, run, parent, origin string) error {
		gotParent, gotOrigin, err := world.Get(ctx).Drv.ParentOf(run)
		if err != nil {
			return err
		}
		if gotParent != parent || gotOrigin != origin {
			return fmt.Errorf("run %q has parent %q and origin %q, want %q and %q", run, gotParent, gotOrigin, parent, origin)
		}
		return nil
	})
	registerEntryThens(sc)
}

// concluded are the session's stream/concluded notifications for target.
func concluded(ctx context.Context, target string) []runs.Event {
	var out []runs.Event
	for _, ev := range world.Get(ctx).Drv.Events() {
		if ev.Kind == runs.KindConcluded && ev.Target == target {
			out = append(out, ev)
		}
	}
	return out
}

// thenConcluded finds exactly one stream/concluded for target among the
// session's notifications and checks its close status and wake action.
func thenConcluded(ctx context.Context, target string, status int, wake string) error {
	var seen []string
	for _, ev := range concluded(ctx, target) {
		seen = append(seen, strconv.Itoa(ev.Status)+" "+ev.WakeAction)
	}
	want := []string{strconv.Itoa(status) + " " + wake}
	if d := cmp.Diff(want, seen); d != "" {
		return fmt.Errorf("stream/concluded for %s (-want +got):\n%s", target, d)
	}
	return nil
}

func registerEntryThens(sc world.Steps) {
	sc.Public(`^the session's entry (\S+) reads "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, target, want string) error {
		e, err := sessionEntry(ctx, target)
		if err != nil {
			return err
		}
		if ch := e.Channels["body"]; ch.Content != driver.Unescape(want) {
			return fmt.Errorf("%s reads %q, want %q", target, ch.Content, driver.Unescape(want))
		}
		return nil
	})
	sc.Public(`^the session's entry (\S+) stored (\d+) tokens$`, func(ctx context.Context, target string, n int) error {
		e, err := sessionEntry(ctx, target)
		if err != nil {
			return err
		}
		if got := e.Channels["body"].Tokens; got != n {
			return fmt.Errorf("the body channel of %s stored %d tokens, want %d", target, got, n)
		}
		return nil
	})
	sc.Public(`^the (\w+) channel of the run stream (\S+) holds "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, ch, target, want string) error {
		e, err := world.Get(ctx).Drv.SessionEntry(target)
		if err != nil {
			return err
		}
		var got *string
		if e != nil {
			if c, ok := e.Channels[ch]; ok {
				got = &c.Content
			}
		}
		if got == nil {
			return fmt.Errorf("no %s channel at %s", ch, target)
		}
		if *got != driver.Unescape(want) {
			return fmt.Errorf("the %s channel of %s holds %q, want %q", ch, target, *got, driver.Unescape(want))
		}
		return nil
	})
}

// streamIs checks the run stream at target with check.
func streamIs(ctx context.Context, target string, check func(exec.Stream) error) error {
	st, err := world.Get(ctx).Drv.RunStream(target)
	if err != nil {
		return err
	}
	return check(st)
}

// The steps that force one interleaving through the runs service's test
// seams (Teardown, Registering) or through a model acting mid-turn: the
// embedded reference's alone.

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

// registerInterleave registers the interleaving steps; tm and rm are the
// scenario's marks (the steps are registered anew for each scenario).
func registerInterleave(sc world.Steps) {
	var tm teardownMark
	var rm registerMark
	registerTeardown(sc, &tm)
	registerRegistering(sc, &rm)
	registerMidTurn(sc)
}

// armTeardown has the drain of run, the first time it finds its queue
// empty, mark tm and queue a loop with queue.
func armTeardown(e *driver.Embedded, tm *teardownMark, run string, queue func(session int64) error) {
	e.Teardown = func(session int64, name string) {
		if name != run || tm.fired {
			return
		}
		tm.fired = true
		info, err := e.RunInfo(run)
		if err != nil {
			e.DuringErr = err
			return
		}
		tm.draining, tm.drains = info.Draining, info.Drains
		if err := queue(session); err != nil {
			e.DuringErr = err
		}
	}
}

func registerTeardown(sc world.Steps, tm *teardownMark) {
	sc.Step(`^the client will start run "([^"]*)" with the prompt "([^"]*)" when its drain finds its queue empty$`, func(ctx context.Context, run, prompt string) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			armTeardown(e, tm, run, func(session int64) error { return e.Svc.Start(session, run, runs.LoopStart{Prompt: prompt}) })
			return nil
		})
	})
	sc.Step(`^the client will inject "([^"]*)" into run "([^"]*)" when its drain finds its queue empty$`, func(ctx context.Context, msg, run string) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			armTeardown(e, tm, run, func(session int64) error { return e.Svc.Inject(session, run, msg) })
			return nil
		})
	})
	// The cancel waits for the other run to be parked and idle, and the
	// drain's teardown goes on only once it is parked and idle again.
	sc.Step(`^the client will cancel run "([^"]*)" when its drain finds its queue empty, while run "([^"]*)" is parked and idle$`, func(ctx context.Context, run, other string) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			idle := func() error {
				return e.WaitRun(other, "parked at 202 with its drain gone", func(r runs.RunInfo) bool {
					return r.Status == 202 && !r.Draining && r.Queued == 0
				})
			}
			armTeardown(e, tm, run, func(session int64) error {
				if err := idle(); err != nil {
					return err
				}
				if _, err := e.Svc.Cancel(session, run, ""); err != nil {
					return err
				}
				return idle()
			})
			return nil
		})
	})
	sc.Step(`^the loop queued during teardown was claimed by the drain that was giving up its slot$`, func(ctx context.Context) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error { return claimed(e, tm) })
	})
	sc.Step(`^no drain of the session left a loop unclaimed$`, func(ctx context.Context) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			bad, err := e.Svc.Audit(e.RunSession.ID)
			if err != nil {
				return err
			}
			if len(bad) > 0 {
				return fmt.Errorf("drain discipline broken: %s", strings.Join(bad, "; "))
			}
			for _, r := range e.RunInfos() {
				if r.Draining || r.Queued > 0 {
					return fmt.Errorf("run %s still draining=%v with %d queued", r.Name, r.Draining, r.Queued)
				}
			}
			return nil
		})
	})
}

// claimed checks that the loop queued in the teardown window of run main
// was claimed by the drain that was giving up its slot.
func claimed(e *driver.Embedded, tm *teardownMark) error {
	if e.DuringErr != nil {
		return e.DuringErr
	}
	if !tm.fired {
		return fmt.Errorf("no drain reached its teardown window")
	}
	if !tm.draining {
		return fmt.Errorf("the loop was queued after the drain had already given up its slot")
	}
	info, err := e.RunInfo("main")
	if err != nil {
		return err
	}
	if info.Drains != tm.drains {
		return fmt.Errorf("run main had %d drains when the loop was queued and %d after: a second drain claimed it", tm.drains, info.Drains)
	}
	return nil
}

func registerRegistering(sc world.Steps, rm *registerMark) {
	sc.Step(`^the client will cancel run "([^"]*)" while its next command registers$`, func(ctx context.Context, run string) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			e.Registering = func(session int64, name, target string) {
				if name != run || rm.fired {
					return
				}
				rm.fired, rm.target = true, target
				if _, err := e.RunStream(target); err == nil {
					rm.existed = true
				}
				hit, err := e.Svc.Cancel(session, run, "")
				if err != nil {
					e.DuringErr = err
				}
				rm.cancelled = hit
			}
			return nil
		})
	})
	sc.Step(`^the cancel landed while the stream of (\S+) was registering, before it existed$`, func(ctx context.Context, target string) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			if e.DuringErr != nil {
				return e.DuringErr
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
	})
}

// midTurn plans act while run generates its reply n.
func midTurn(ctx context.Context, run string, n int, act func(*driver.Embedded) error) error {
	return world.Get(ctx).Library(func(e *driver.Embedded) error {
		return e.PlanMidTurn(run, n, func() error { return act(e) })
	})
}

func registerMidTurn(sc world.Steps) {
	sc.Step(`^while run "([^"]*)" generates reply (\d+), run "([^"]*)" concludes with status (\d+)$`, func(ctx context.Context, run string, n int, other string, status int) error {
		return midTurn(ctx, run, n, func(e *driver.Embedded) error {
			return e.WaitRun(other, fmt.Sprintf("concluded with %d, its drain gone", status), func(r runs.RunInfo) bool {
				return r.Status == status && !r.Draining && r.Queued == 0
			})
		})
	})
	sc.Step(`^while run "([^"]*)" generates reply (\d+), the client injects "([^"]*)" into it and then cancels it$`, func(ctx context.Context, run string, n int, msg string) error {
		return midTurn(ctx, run, n, func(e *driver.Embedded) error {
			if err := e.Svc.Inject(e.RunSession.ID, run, msg); err != nil {
				return err
			}
			return e.CancelMidTurn(run)
		})
	})
	sc.Step(`^while run "([^"]*)" generates reply (\d+), (\d+) ms pass on the session clock$`, func(ctx context.Context, run string, n, ms int) error {
		return midTurn(ctx, run, n, func(e *driver.Embedded) error {
			e.AdvanceMidTurn(ms)
			return nil
		})
	})
	sc.Step(`^while run "([^"]*)" generates reply (\d+), the client injects "([^"]*)" into it$`, func(ctx context.Context, run string, n int, msg string) error {
		return midTurn(ctx, run, n, func(e *driver.Embedded) error {
			return e.Svc.Inject(e.RunSession.ID, run, msg)
		})
	})
	sc.Step(`^while run "([^"]*)" generates reply (\d+), the client starts it with the prompt "([^"]*)" and then cancels it$`, func(ctx context.Context, run string, n int, prompt string) error {
		return midTurn(ctx, run, n, func(e *driver.Embedded) error {
			if err := e.Svc.Start(e.RunSession.ID, run, runs.LoopStart{Prompt: prompt}); err != nil {
				return err
			}
			return e.CancelMidTurn(run)
		})
	})
	sc.Step(`^while run "([^"]*)" generates reply (\d+), the client starts it with the prompt "([^"]*)" and its client run "([^"]*)" emits (<<.+)$`, func(ctx context.Context, run string, n int, prompt, client, src string) error {
		return midTurn(ctx, run, n, func(e *driver.Embedded) error {
			if err := e.Svc.Start(e.RunSession.ID, run, runs.LoopStart{Prompt: prompt}); err != nil {
				return err
			}
			return clientEmits(e, client, src)
		})
	})
	sc.Step(`^the mid-turn actions went through$`, func(ctx context.Context) error {
		return world.Get(ctx).Library(midTurnsWent)
	})
}

// clientEmits adds the client run client and has it emit src, which must
// answer 200.
func clientEmits(e *driver.Embedded, client, src string) error {
	if _, err := e.Svc.AddClientRun(e.RunSession.ID, client); err != nil {
		return err
	}
	parsed := dsl.Parse(src)
	if len(parsed.Errors) > 0 || len(parsed.Statements) != 1 {
		return fmt.Errorf("the client's statement %q does not parse as one statement", src)
	}
	rows, err := e.Svc.ClientOp(e.RunSession.ID, client, parsed.Statements[0])
	if err != nil {
		return err
	}
	if len(rows) == 0 || rows[len(rows)-1].Status != 200 {
		return fmt.Errorf("the client's %s wrote %d rows, not one answering 200: %+v", src, len(rows), rows)
	}
	return nil
}

// midTurnsWent checks that every action planned mid-turn ran, and none
// failed.
func midTurnsWent(e *driver.Embedded) error {
	if e.DuringErr != nil {
		return e.DuringErr
	}
	for run, acts := range e.During {
		p, ok := e.Acting[run]
		if !ok {
			return fmt.Errorf("run %q has no acting model", run)
		}
		for n := range acts {
			if p.Calls < n {
				return fmt.Errorf("run %q's model gave %d replies; the action planned for reply %d never ran", run, p.Calls, n)
			}
		}
	}
	return nil
}
