package plurnk

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
	"github.com/spf13/afero"
)

// runWorld is one scenario's session of several runs, driven through the
// runs service: each run has its own scripted model, EXEC runs on
// simulated commands over the scenario's simulated clock.
type runWorld struct {
	clock     *clock.Sim
	maxActive int
	yolo      bool
	scripts   map[string]exec.Script
	mocks     map[string]*llm.Mock
	svc       *runs.Service
	ss        *store.Session
	store     *store.Store
	simExecs  []*exec.SimExecutor
	// teardown and registering are the runs service's test seams (nil
	// unless a scenario forces an interleaving); during holds actions to
	// take while a run's model generates its n-th reply (1-based).
	teardown    func(session int64, run string)
	registering func(session int64, run, target string)
	during      map[string]map[int]func() error
	duringErr   error
	acting      map[string]*actingProvider
	tokenChars  int // every model's tokenizer: one token per tokenChars bytes (0: the mock's default)
	// drv is how the steps reach the runs, chosen once per scenario.
	drv runsDriver
}

type runKey struct{}

func getRuns(ctx context.Context) *runWorld { return ctx.Value(runKey{}).(*runWorld) }

// planMidTurn files act to run while run generates its reply n; a scenario
// plans such actions before the session starts.
func (rw *runWorld) planMidTurn(run string, n int, act func() error) error {
	if rw.svc != nil {
		return fmt.Errorf("plan mid-turn actions before the session starts")
	}
	if rw.during == nil {
		rw.during = map[string]map[int]func() error{}
	}
	if rw.during[run] == nil {
		rw.during[run] = map[int]func() error{}
	}
	rw.during[run][n] = act
	return nil
}

// cancelMidTurn cancels run as a client would and fails when nothing was
// running to cancel.
func (rw *runWorld) cancelMidTurn(run string) error {
	hit, err := rw.svc.Cancel(rw.ss.ID, run, "")
	if err != nil {
		return err
	}
	if !hit {
		return fmt.Errorf("the cancel of run %q found nothing running mid-turn", run)
	}
	return nil
}

// registerRunSteps registers the steps of the run features: sessions and
// runs, the run:// scheme, the run lifecycle and the EXEC wiring into loops.
func registerRunSteps(sc kit.Steps) {
	registerRunInterleaveSteps(sc)
	registerRunControlSteps(sc)
	registerSharpGreenSteps(sc)
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		rw := &runWorld{clock: clock.NewSim(time.Time{}), maxActive: runs.Off, scripts: map[string]exec.Script{}, mocks: map[string]*llm.Mock{}}
		rw.drv = embeddedRuns{rw}
		return context.WithValue(ctx, runKey{}, rw), nil
	})
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		if rw, ok := ctx.Value(runKey{}).(*runWorld); ok && rw.svc != nil {
			for _, r := range rw.mustRuns() {
				_, _ = rw.svc.Cancel(rw.ss.ID, r.Name, "scenario over")
			}
			rw.svc.Wait()
		}
		return ctx, err
	})

	sc.Step(`^the operator sets PLURNK_SESSION_RUNS_MAX_ACTIVE to (-?\d+)$`, func(ctx context.Context, n int) error {
		return getRuns(ctx).drv.maxActive(n)
	})
	sc.Step(`^host commands are accepted without asking$`, func(ctx context.Context) error {
		getRuns(ctx).yolo = true
		return nil
	})
	sc.Step(`^run "([^"]*)" will emit:$`, func(ctx context.Context, run string, doc *godog.DocString) error {
		return getRuns(ctx).drv.script(run, doc.Content+"\n")
	})
	sc.Step(`^the command "([^"]*)" prints "((?:[^"\\]|\\.)*)" on (stdout|stderr) after (\d+) ms$`, func(ctx context.Context, cmd, out, ch string, ms int) error {
		rw := getRuns(ctx)
		s := rw.scripts[cmd]
		s.Chunks = append(s.Chunks, exec.ScriptChunk{At: time.Duration(ms) * time.Millisecond, Channel: ch, Data: unescape(out)})
		if s.ExitAt == 0 {
			s.ExitAt = -1
		}
		return rw.drv.command(cmd, s)
	})
	sc.Step(`^the command "([^"]*)" exits after (\d+) ms$`, func(ctx context.Context, cmd string, ms int) error {
		rw := getRuns(ctx)
		s := rw.scripts[cmd]
		s.ExitAt = time.Duration(ms) * time.Millisecond
		return rw.drv.command(cmd, s)
	})
	sc.Step(`^the command "([^"]*)" never exits$`, func(ctx context.Context, cmd string) error {
		rw := getRuns(ctx)
		s := rw.scripts[cmd]
		s.ExitAt = -1
		return rw.drv.command(cmd, s)
	})

	sc.Step(`^the command "([^"]*)" ignores the polite signal$`, func(ctx context.Context, cmd string) error {
		rw := getRuns(ctx)
		s := rw.scripts[cmd]
		s.IgnoreTerm = true
		rw.scripts[cmd] = s
		return nil
	})

	sc.Step(`^the client starts run "([^"]*)" with the prompt "([^"]*)"$`, func(ctx context.Context, run, prompt string) error {
		return getRuns(ctx).drv.start(run, prompt)
	})
	sc.Step(`^the client injects "([^"]*)" into run "([^"]*)"$`, func(ctx context.Context, msg, run string) error {
		return getRuns(ctx).drv.inject(run, msg)
	})
	sc.Step(`^the client cancels run "([^"]*)"$`, func(ctx context.Context, run string) error {
		return getRuns(ctx).drv.cancel(run)
	})
	sc.Step(`^(\d+) ms pass and the client cancels run "([^"]*)" before the daemon applies what happened$`, func(ctx context.Context, ms int, run string) error {
		// The processes post what happened in those ms (an exit, say),
		// and the cancel lands before the service applies it.
		rw := getRuns(ctx)
		rw.clock.Advance(time.Duration(ms) * time.Millisecond)
		if _, err := rw.svc.Cancel(rw.ss.ID, run, ""); err != nil {
			return err
		}
		rw.settle()
		return nil
	})
	sc.Step(`^the client (accepts|rejects) the proposal of run "([^"]*)"'s row log:///(\S+)$`, func(ctx context.Context, how, run, coord string) error {
		rw := getRuns(ctx)
		row, err := rw.rowAt(run, coord)
		if err != nil {
			return err
		}
		return rw.drv.resolve(row.ID, how == "accepts")
	})
	sc.Step(`^(\d+) ms pass on the session clock$`, func(ctx context.Context, ms int) error {
		return getRuns(ctx).drv.pass(ms)
	})

	sc.Step(`^run "([^"]*)" has (\d+) loops?(?:, the last with status (\d+))?$`, thenRunLoops)
	sc.Step(`^run "([^"]*)" has no loop$`, func(ctx context.Context, run string) error { return thenRunLoops(ctx, run, 0, "") })
	sc.Step(`^the model of run "([^"]*)" was called (\d+) times?$`, func(ctx context.Context, run string, n int) error {
		if got := len(getRuns(ctx).drv.requests(run)); got != n {
			return fmt.Errorf("the model of run %q was called %d times, want %d", run, got, n)
		}
		return nil
	})
	sc.Step(`^run "([^"]*)"'s log holds (?:an? )?(open|folded) (\w+) (\S+) with status (\d+)(?: reading "((?:[^"\\]|\\.)*)")?$`, thenRunRow)
	sc.Step(`^run "([^"]*)"'s log has no (\w+) (\S+)$`, func(ctx context.Context, run, op, target string) error {
		rows, err := getRuns(ctx).log(run)
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
	sc.Step(`^run "([^"]*)"'s row log:///(\S+) (?:is (open|folded) )?(?:with status (\d+) )?reads:$`, func(ctx context.Context, run, coord, fold, status string, doc *godog.DocString) error {
		row, err := getRuns(ctx).rowAt(run, coord)
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
	})
	sc.Step(`^run "([^"]*)"'s row log:///(\S+) gives the reason "([^"]*)"$`, func(ctx context.Context, run, coord, want string) error {
		row, err := getRuns(ctx).rowAt(run, coord)
		if err != nil {
			return err
		}
		if row.Reason != want {
			return fmt.Errorf("log:///%s gives the reason %q, want %q", coord, row.Reason, want)
		}
		return nil
	})
	sc.Step(`^run "([^"]*)"'s row log:///(\S+) is (\w+) (\S+) with status (\d+)$`, func(ctx context.Context, run, coord, op, target string, status int) error {
		row, err := getRuns(ctx).rowAt(run, coord)
		if err != nil {
			return err
		}
		if row.Op != op || row.Target != target || row.Status != status {
			return fmt.Errorf("log:///%s of run %q is %s %s %d, want %s %s %d", coord, run, row.Op, row.Target, row.Status, op, target, status)
		}
		return nil
	})
	sc.Step(`^packet (\d+) of run "([^"]*)" (contains|does not contain) "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, n int, run, how, want string) error {
		reqs := getRuns(ctx).drv.requests(run)
		if n < 1 || n > len(reqs) {
			return fmt.Errorf("run %q received no packet %d", run, n)
		}
		var text strings.Builder
		for _, msg := range reqs[n-1].Messages {
			text.WriteString(msg.Content)
		}
		if strings.Contains(text.String(), unescape(want)) != (how == "contains") {
			return fmt.Errorf("packet %d of run %q: %s %q is false:\n%s", n, run, how, unescape(want), text.String())
		}
		return nil
	})
	sc.Step(`^the session was notified (loop/\w+) for loop (\d+) of run "([^"]*)" with status (\d+)$`, func(ctx context.Context, kind string, loop int, run string, status int) error {
		var seen []string
		for _, ev := range getRuns(ctx).drv.events() {
			if ev.Kind == kind && ev.Run == run && ev.LoopSeq == loop && ev.Status == status {
				return nil
			}
			seen = append(seen, fmt.Sprintf("%s %s/%d %d", ev.Kind, ev.Run, ev.LoopSeq, ev.Status))
		}
		return fmt.Errorf("no %s for loop %d of run %q with %d; events: %v", kind, loop, run, status, seen)
	})
	sc.Step(`^the session was notified (loop/\w+) (\d+) times? for run "([^"]*)"$`, func(ctx context.Context, kind string, n int, run string) error {
		got := 0
		for _, ev := range getRuns(ctx).drv.events() {
			if ev.Kind == kind && ev.Run == run {
				got++
			}
		}
		if got != n {
			return fmt.Errorf("%d %s notifications for run %q, want %d", got, kind, run, n)
		}
		return nil
	})
	sc.Step(`^the run stream (\S+) ended with (\d+)$`, func(ctx context.Context, target string, status int) error {
		rw := getRuns(ctx)
		st, err := rw.stream(target)
		if err != nil {
			return err
		}
		if st.Status != status {
			return fmt.Errorf("stream %s ended %d (0 is live), want %d", target, st.Status, status)
		}
		return nil
	})
	sc.Step(`^the run stream (\S+) ended with (\d+) by (SIG[A-Z0-9]+) at (\d+) ms$`, func(ctx context.Context, target string, status int, sig string, ms int) error {
		st, err := getRuns(ctx).stream(target)
		if err != nil {
			return err
		}
		return checkEnding("stream "+target, st, status, sig, ms)
	})
	sc.Step(`^the run stream (\S+) is still running$`, func(ctx context.Context, target string) error {
		st, err := getRuns(ctx).stream(target)
		if err != nil {
			return err
		}
		if !st.Live() {
			return fmt.Errorf("stream %s ended %d", target, st.Status)
		}
		return nil
	})
	sc.Step(`^the session's entry (\S+) reads "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, target, want string) error {
		e, err := getRuns(ctx).entry(target)
		if err != nil {
			return err
		}
		ch := e.Channels["body"]
		if ch.Content != unescape(want) {
			return fmt.Errorf("%s reads %q, want %q", target, ch.Content, unescape(want))
		}
		return nil
	})
	sc.Step(`^the session holds (\d+) runs?$`, func(ctx context.Context, n int) error {
		rs, err := getRuns(ctx).drv.runs()
		if err != nil {
			return err
		}
		if len(rs) != n {
			return fmt.Errorf("the session holds %d runs (%v), want %d", len(rs), rs, n)
		}
		return nil
	})
	sc.Step(`^the command "([^"]*)" was spawned (\d+) times?$`, func(ctx context.Context, cmd string, n int) error {
		got := 0
		for _, sp := range getRuns(ctx).drv.spawns() {
			if sp.Command == cmd {
				got++
			}
		}
		if got != n {
			return fmt.Errorf("%q spawned %d times, want %d", cmd, got, n)
		}
		return nil
	})
}

// boot builds the service once the givens are in.
func (rw *runWorld) boot() (*runWorld, error) {
	if rw.svc != nil {
		return rw, nil
	}
	fs := afero.NewMemMapFs()
	reg, err := scheme.Defaults(fs, workspace, "sh", "db")
	if err != nil {
		return nil, err
	}
	rw.store = store.New(rw.clock)
	cfg, err := config.Load(map[string]string{"HOME": operatorHome}, workspace)
	if err != nil {
		return nil, err
	}
	router := &runs.Router{Default: &llm.Mock{CharsPerToken: rw.tokenChars}, ByRun: map[string]provider.Provider{}}
	for name, m := range rw.mocks {
		m.CharsPerToken = rw.tokenChars
		router.ByRun[name] = m
		if acts, ok := rw.during[name]; ok {
			ap := &actingProvider{Provider: m, rw: rw, acts: acts}
			router.ByRun[name] = ap
			if rw.acting == nil {
				rw.acting = map[string]*actingProvider{}
			}
			rw.acting[name] = ap
		}
	}
	sh := &exec.SimExecutor{Name: "sh", Eff: exec.EffectHost, Avail: exec.Probe{Available: true, Detail: "simulated sh"}, Clock: rw.clock, Scripts: rw.scripts}
	db := &exec.SimExecutor{Name: "db", Eff: exec.EffectPure, Avail: exec.Probe{Available: true, Detail: "simulated db"}, Clock: rw.clock, Scripts: rw.scripts}
	xreg, err := exec.NewRegistry(sh, db)
	if err != nil {
		return nil, err
	}
	if cfg.Vary, err = worldVary(); err != nil { // ANCHORAGE_VARY
		return nil, err
	}
	o := &ops.Engine{Store: rw.store, Schemes: reg, Mimetypes: ops.NewMimetypes(), Vary: cfg.Vary}
	eng := engine.New(rw.store, o, router, cfg, fs)
	rw.svc, err = runs.New(runs.Config{Store: rw.store, Engine: eng, Clock: rw.clock, Executors: xreg, MaxActive: rw.maxActive, Yolo: rw.yolo,
		Teardown: rw.teardown, Registering: rw.registering})
	if err != nil {
		return nil, err
	}
	rw.ss, err = rw.svc.NewSession("main")
	if err != nil {
		return nil, err
	}
	rw.simExecs = []*exec.SimExecutor{sh, db}
	return rw, nil
}

// settle waits for the drains, applies what the processes posted, and
// waits again.
func (rw *runWorld) settle() {
	rw.svc.Wait()
	rw.svc.Pump()
	rw.svc.Wait()
}

func (rw *runWorld) sims() []*exec.SimExecutor { return rw.simExecs }

func (rw *runWorld) mustRuns() []runs.RunInfo {
	if rw.svc == nil {
		return nil
	}
	rs, _ := rw.svc.Runs(rw.ss.ID)
	var out []runs.RunInfo
	for _, r := range rs {
		if r.Name != store.PlurnkRun {
			out = append(out, r)
		}
	}
	return out
}

func (rw *runWorld) log(run string) ([]store.LogRow, error) { return rw.drv.log(run) }

func (rw *runWorld) rowAt(run, coord string) (store.LogRow, error) {
	rows, err := rw.log(run)
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

func (rw *runWorld) stream(target string) (exec.Stream, error) { return rw.drv.stream(target) }

// runEntryKey reads scheme:///path, or run://<owner>/path for scratch.
func runEntryKey(target string) (store.Key, error) {
	sch, rest, ok := strings.Cut(target, "://")
	if !ok {
		return store.Key{}, fmt.Errorf("%q is not scheme://path", target)
	}
	if sch == "run" {
		owner, p, _ := strings.Cut(rest, "/")
		return store.Key{Scope: store.ScopeRun, Owner: owner, Scheme: "run", Path: "/" + p}, nil
	}
	return store.Key{Scope: store.ScopeSession, Scheme: sch, Path: "/" + strings.TrimPrefix(rest, "/")}, nil
}

func thenRunLoops(ctx context.Context, run string, n int, status string) error {
	got, last, err := getRuns(ctx).drv.loops(run)
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
	rows, err := getRuns(ctx).log(run)
	if err != nil {
		return err
	}
	var have []string
	for _, r := range rows {
		if r.Op != op || r.Target != target {
			continue
		}
		if r.Status == status && r.Expanded == (fold == "open") && (content == "" || r.Content == unescape(content)) {
			return nil
		}
		have = append(have, fmt.Sprintf("log:///%s %d expanded=%v %q", r.Coord(), r.Status, r.Expanded, r.Content))
	}
	return fmt.Errorf("run %q's log has no %s %s %s with status %d %q; rows of that op and target: %v", run, fold, op, target, status, content, have)
}

// entry is the session's entry at target (run:// included), read under the
// service's lock.
func (rw *runWorld) entry(target string) (*store.Entry, error) {
	e, err := rw.drv.entry(target)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("no entry %s", target)
	}
	return e, nil
}
