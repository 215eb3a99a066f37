package plurnk

import (
	"fmt"
	"time"

	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/llm"
)

// runsDriver is how the steps of a session of runs reach the plurnk under
// test, chosen once per scenario: embeddedRuns, the runs service driven
// as a library, or, with $PLURNK_CMD set, a daemon process (daemonData).
type runsDriver interface {
	// script adds reply to the model script of run.
	script(run, reply string) error
	// command sets what the host command name does.
	command(name string, s exec.Script) error
	// start is the client starting a loop of run with prompt (loop.run),
	// inject its message to run (loop.inject), cancel its loop.cancel;
	// each returns once plurnk is quiet.
	start(run, prompt string) error
	inject(run, msg string) error
	cancel(run string) error
	// pass lets ms go by on the session's clock.
	pass(ms int) error
	// loops counts run's loops and gives the status of its latest.
	loops(run string) (n, last int, err error)
	// log is run's log.
	log(run string) ([]store.LogRow, error)
	// requests are the calls run made to its model.
	requests(run string) []provider.Request
	// stream is the stream at target: Status 0 while it runs, then its
	// close status.
	stream(target string) (exec.Stream, error)
	// entry is the session's entry at target; nil when there is none.
	entry(target string) (*store.Entry, error)
	// spawns are the host commands started so far.
	spawns() []exec.Spec
	// events are the session's notifications so far (loop/terminated,
	// loop/quiesced, stream/concluded), oldest first.
	events() []runs.Event
	// runs names the session's runs, the reserved plurnk run left out.
	runs() ([]string, error)
	// countEntries counts the session's entries of scheme (its runs'
	// scratch left out).
	countEntries(scheme string) (int, error)
	// parentOf names the run that spawned or forked run ("" for none)
	// and gives run's origin.
	parentOf(run string) (parent, origin string, err error)
	// maxActive caps the session's active runs (the operator's
	// PLURNK_SESSION_RUNS_MAX_ACTIVE), before the session starts.
	maxActive(n int) error
	// tokenizer has every model of the session count one token per n
	// characters, before the session starts.
	tokenizer(n int) error
	// resolve settles the proposal of the log row id, accepting it or
	// rejecting it, and returns once plurnk is quiet.
	resolve(row int64, accept bool) error
}

// embeddedRuns drives the runs service of the scenario's runWorld.
type embeddedRuns struct{ rw *runWorld }

func (e embeddedRuns) script(run, reply string) error {
	rw := e.rw
	if rw.svc != nil {
		return fmt.Errorf("script run %q before the session starts", run)
	}
	m, ok := rw.mocks[run]
	if !ok {
		m = &llm.Mock{}
		rw.mocks[run] = m
	}
	m.Add(llm.Reply{Content: reply})
	return nil
}

func (e embeddedRuns) command(name string, s exec.Script) error {
	e.rw.scripts[name] = s
	return nil
}

func (e embeddedRuns) start(run, prompt string) error {
	rw, err := e.rw.boot()
	if err != nil {
		return err
	}
	if err := rw.svc.LoopRun(rw.ss.ID, run, prompt); err != nil {
		return err
	}
	rw.settle()
	return nil
}

func (e embeddedRuns) inject(run, msg string) error {
	rw := e.rw
	if err := rw.svc.Inject(rw.ss.ID, run, msg); err != nil {
		return err
	}
	rw.settle()
	return nil
}

func (e embeddedRuns) cancel(run string) error {
	rw := e.rw
	if _, err := rw.svc.Cancel(rw.ss.ID, run, ""); err != nil {
		return err
	}
	rw.settle()
	return nil
}

func (e embeddedRuns) pass(ms int) error {
	rw := e.rw
	step := 50 * time.Millisecond
	for left := time.Duration(ms) * time.Millisecond; left > 0; left -= step {
		rw.clock.Advance(min(step, left))
		rw.settle()
	}
	return nil
}

func (e embeddedRuns) loops(run string) (int, int, error) {
	rw := e.rw
	if rw.svc == nil {
		return 0, 0, fmt.Errorf("the session has not started")
	}
	ls, err := rw.svc.Loops(rw.ss.ID, run)
	if err != nil || len(ls) == 0 {
		return 0, 0, err
	}
	return len(ls), ls[len(ls)-1].Status, nil
}

func (e embeddedRuns) log(run string) ([]store.LogRow, error) {
	rw := e.rw
	if rw.svc == nil {
		return nil, fmt.Errorf("the session has not started")
	}
	return rw.svc.Log(rw.ss.ID, run)
}

func (e embeddedRuns) requests(run string) []provider.Request {
	if m := e.rw.mocks[run]; m != nil {
		return m.Requests
	}
	return nil
}

func (e embeddedRuns) stream(target string) (exec.Stream, error) {
	rw := e.rw
	k, err := runEntryKey(target)
	if err != nil {
		return exec.Stream{}, err
	}
	st, ok := rw.svc.Streams().Get(rw.ss, k)
	if !ok {
		return exec.Stream{}, fmt.Errorf("no stream %s", target)
	}
	return st, nil
}

func (e embeddedRuns) entry(target string) (*store.Entry, error) {
	if e.rw.svc == nil {
		return nil, fmt.Errorf("the session has not started")
	}
	k, err := runEntryKey(target)
	if err != nil {
		return nil, err
	}
	var ent *store.Entry
	e.rw.svc.View(func() { ent = e.rw.ss.Entry(k) })
	return ent, nil
}

func (e embeddedRuns) spawns() []exec.Spec {
	var out []exec.Spec
	for _, sim := range e.rw.sims() {
		out = append(out, sim.Spawns()...)
	}
	return out
}

func (e embeddedRuns) events() []runs.Event { return e.rw.svc.Events() }

func (e embeddedRuns) runs() ([]string, error) {
	var out []string
	for _, r := range e.rw.mustRuns() {
		out = append(out, r.Name)
	}
	return out, nil
}

func (e embeddedRuns) countEntries(scheme string) (int, error) {
	rw := e.rw
	if rw.svc == nil {
		return 0, fmt.Errorf("the session has not started")
	}
	got := 0
	rw.svc.View(func() {
		for _, e := range rw.ss.Entries() {
			if e.Key.Scope != store.ScopeRun && e.Key.Scheme == scheme {
				got++
			}
		}
	})
	return got, nil
}

func (e embeddedRuns) parentOf(run string) (string, string, error) {
	for _, r := range e.rw.mustRuns() {
		if r.Name == run {
			return r.Parent, r.Origin, nil
		}
	}
	return "", "", fmt.Errorf("no run %q", run)
}

func (e embeddedRuns) maxActive(n int) error {
	e.rw.maxActive = n
	return nil
}

func (e embeddedRuns) tokenizer(n int) error {
	if e.rw.svc != nil {
		return fmt.Errorf("set the tokenizer before the session starts")
	}
	e.rw.tokenChars = n
	return nil
}

func (e embeddedRuns) resolve(row int64, accept bool) error {
	d := exec.Accept
	if !accept {
		d = exec.Reject
	}
	if _, err := e.rw.svc.Resolve(row, d, ""); err != nil {
		return err
	}
	e.rw.settle()
	return nil
}
