package plurnk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
)

// execWorld is one scenario's EXEC, proposal and membership state. Its
// streams write the entries of the scenario's world (steps.go), so the
// channel steps there read them.
type execWorld struct {
	clk     *clock.Sim
	real    bool
	scripts map[string]exec.Script
	extra   []exec.Executor // executors registered besides sh
	grace   time.Duration
	streams *exec.Streams
	props   *exec.Proposals
	events  *eventLog
	inherit []string
	dotenv  []string
	// dotenvText is the project's .env file as the scenario gives it.
	dotenvText string

	mem *memWorld
}

type execKey struct{}

func getExec(ctx context.Context) *execWorld { return ctx.Value(execKey{}).(*execWorld) }

// eventLog records stream/event notifications.
type eventLog struct {
	mu  sync.Mutex
	evs []exec.StreamEvent
}

func (l *eventLog) StreamEvent(ev exec.StreamEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, ev)
}

func (l *eventLog) take() []exec.StreamEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.evs
	l.evs = nil
	return out
}

// registerExecSteps registers the steps of the EXEC, stream and membership
// features.
func registerExecSteps(sc kit.Steps) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		x := &execWorld{clk: clock.NewSim(time.Time{}), scripts: map[string]exec.Script{}, events: &eventLog{}}
		return context.WithValue(ctx, execKey{}, x), nil
	})
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		if x, ok := ctx.Value(execKey{}).(*execWorld); ok && x.mem != nil && x.mem.dir != "" && !x.mem.daemon {
			if rmErr := kit.RemoveTemp(x.mem.dir, "plurnk-members-"); rmErr != nil && err == nil {
				return ctx, fmt.Errorf("remove the scenario's project directory: %w", rmErr)
			}
		}
		return ctx, err
	})

	// Executors and commands.
	sc.Step(`^the simulated command "([^"]*)" prints:$`, givenPrints)
	sc.Step(`^the simulated command "([^"]*)" exits with code (\d+) after (\d+) ms$`, givenExits)
	sc.Step(`^the simulated command "([^"]*)" never exits on its own$`, givenNeverExits)
	sc.Step(`^the simulated command "([^"]*)" ignores the polite signal$`, givenIgnoresTerm)
	sc.Step(`^an executor "([^"]*)" whose boot probe reports "([^"]*)"$`, givenUnavailable)
	sc.Step(`^PLURNK_EXEC_KILL_GRACE_MS is (\d+)$`, givenGrace)
	sc.Step(`^the real sh executor runs the commands$`, func(ctx context.Context) error { getExec(ctx).real = true; return nil })
	sc.Step(`^the shell environment of the service is:$`, givenInherited)
	sc.Step(`^the project's \.env file reads:$`, givenDotEnv)

	// Running them.
	sc.Step(`^the model's EXEC (\d+)/(\d+)/(\d+) is accepted: (<<.+)$`, whenExec)
	sc.Step(`^(\d+) ms pass for the running commands$`, whenPass)
	sc.Step(`^the commands run to completion$`, whenComplete)
	sc.Step(`^the model cancels (\S+) with SEND\[499\]$`, whenCancel)

	// What came of it.
	sc.Step(`^the stream (\S+) ended with (\d+)$`, thenEnded)
	sc.Step(`^the stream (\S+) ended with (\d+) by (SIG[A-Z0-9]+) at (\d+) ms$`, thenEndedBy)
	sc.Step(`^the stream (\S+) ended with (\d+) by (SIG[A-Z0-9]+)$`, func(ctx context.Context, t string, status int, sig string) error {
		// A real process: when it ended is the machine's business.
		s, err := execStream(ctx, t)
		if err != nil {
			return err
		}
		if s.Status != status || s.Signal != sig {
			return fmt.Errorf("%s ended with %d by %q, want %d by %s", t, s.Status, s.Signal, status, sig)
		}
		return nil
	})
	sc.Step(`^the stream (\S+) ended with (\d+) and exit code (\d+)$`, thenEndedCode)
	sc.Step(`^the stream (\S+) is still running$`, thenRunning)
	sc.Step(`^the stream events so far are:$`, thenEvents)
	sc.Step(`^the stdout of (\S+) has the line "((?:[^"\\]|\\.)*)"$`, thenHasLine)
	sc.Step(`^the stdout of (\S+) has the line naming the directory the command was given$`, func(ctx context.Context, t string) error {
		// pwd prints the directory without symlinks.
		given, err := get(ctx).drv.commandDir(ctx)
		if err != nil {
			return err
		}
		dir, err := filepath.EvalSymlinks(given)
		if err != nil {
			return err
		}
		return thenHasLine(ctx, t, dir)
	})
	sc.Step(`^the stdout of (\S+) has no line starting "([^"]*)"$`, thenNoLine)

	registerMembershipSteps(sc)
}

// boot builds the executor registry (probing every executor) and the
// stream table on first use, the way the service does at start.
func (x *execWorld) boot(w *world) error {
	if x.streams != nil {
		return nil
	}
	var c clock.Clock = x.clk
	var sh exec.Executor = &exec.SimExecutor{Name: "sh", Eff: exec.EffectHost, Avail: exec.Probe{Available: true, Detail: "simulated sh"}, Clock: x.clk, Scripts: x.scripts}
	if x.real {
		c, sh = clock.Real(), &exec.Shell{}
	}
	reg, err := exec.NewRegistry(append([]exec.Executor{sh}, x.extra...)...)
	if err != nil {
		return err
	}
	x.streams = exec.NewStreams(exec.Config{Store: w.store, Registry: reg, Clock: c, Grace: x.grace, Notify: x.events})
	// As the service does at start: the exec schemes' streams are held by
	// the stream table, so the model's SEND[499] and KILL reach it.
	w.eng.SubscribeStreams(reg.Runtimes(), x.streams)
	x.props = exec.NewProposals(c, 0, nil)
	return nil
}

func (x *execWorld) script(name string) exec.Script {
	s, ok := x.scripts[name]
	if !ok {
		s.ExitAt = -1
	}
	return s
}

func givenPrints(ctx context.Context, name string, tbl *godog.Table) error {
	x := getExec(ctx)
	s := x.script(name)
	for i, row := range tbl.Rows {
		if i == 0 {
			continue // | after ms | channel | output |
		}
		if len(row.Cells) != 3 {
			return fmt.Errorf("row %d: want | after ms | channel | output |", i)
		}
		ms, err := strconv.Atoi(row.Cells[0].Value)
		if err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
		s.Chunks = append(s.Chunks, exec.ScriptChunk{At: time.Duration(ms) * time.Millisecond, Channel: row.Cells[1].Value, Data: unescape(row.Cells[2].Value)})
	}
	x.scripts[name] = s
	return nil
}

func givenExits(ctx context.Context, name string, code, ms int) error {
	x := getExec(ctx)
	s := x.script(name)
	s.Code, s.ExitAt = code, time.Duration(ms)*time.Millisecond
	x.scripts[name] = s
	return nil
}

func givenNeverExits(ctx context.Context, name string) error {
	x := getExec(ctx)
	s := x.script(name)
	s.ExitAt = -1
	x.scripts[name] = s
	return nil
}

func givenIgnoresTerm(ctx context.Context, name string) error {
	x := getExec(ctx)
	s := x.script(name)
	s.IgnoreTerm = true
	x.scripts[name] = s
	return nil
}

func givenUnavailable(ctx context.Context, name, detail string) error {
	x := getExec(ctx)
	x.extra = append(x.extra, &exec.SimExecutor{Name: name, Eff: exec.EffectHost, Avail: exec.Probe{Detail: detail}, Clock: x.clk})
	return nil
}

func givenGrace(ctx context.Context, ms int) error {
	getExec(ctx).grace = time.Duration(ms) * time.Millisecond
	return nil
}

func givenInherited(ctx context.Context, tbl *godog.Table) error {
	x := getExec(ctx)
	for i, row := range tbl.Rows {
		if i == 0 {
			continue // | name | value |
		}
		if len(row.Cells) != 2 {
			return fmt.Errorf("row %d: want | name | value |", i)
		}
		x.inherit = append(x.inherit, row.Cells[0].Value+"="+row.Cells[1].Value)
	}
	return nil
}

func givenDotEnv(ctx context.Context, doc *godog.DocString) error {
	vars, err := exec.ParseDotEnv(doc.Content)
	if err != nil {
		return err
	}
	x := getExec(ctx)
	x.dotenv, x.dotenvText = vars, doc.Content
	return nil
}

// whenExec has the model's EXEC at loop/turn/seq accepted, through the
// scenario's driver, and records its answer as the action's result.
func whenExec(ctx context.Context, loop, turn, seq int, src string) error {
	w := get(ctx)
	p := dsl.Parse(unescape(src))
	if p.HasErrors() || len(p.Statements) != 1 {
		return fmt.Errorf("emission %q: want one EXEC, got %d statements (errors %v)", src, len(p.Statements), p.Errors)
	}
	res, err := w.drv.execAccepted(ctx, loop, turn, seq, p.Statements[0])
	if err != nil {
		return err
	}
	w.results = append(w.results, res)
	return nil
}

// execAccepted dispatches the model's EXEC at loop/turn/seq as the engine
// would once its proposal is accepted (the yolo path).
func (e embedded) execAccepted(ctx context.Context, loop, turn, seq int, st dsl.Statement) (ops.Result, error) {
	w, x := e.w, getExec(ctx)
	if err := x.boot(w); err != nil {
		return ops.Result{}, err
	}
	req, err := exec.RequestOf(st)
	if err != nil {
		return ops.Result{}, err
	}
	req.Run, req.Loop, req.Turn, req.Seq = "model", loop, turn, seq
	req.Env = exec.ScopeEnv(x.inherit, x.dotenv)
	if x.real {
		req.Dir = os.TempDir()
	}
	row := int64(loop*10000 + turn*100 + seq)
	status, err := exec.Dispatch(x.streams, x.props, w.session, req, row, true)
	res := ops.Result{Status: status, Target: fmt.Sprintf("%s:///%d/%d/%d", req.Runtime, loop, turn, seq)}
	if err != nil {
		res.Reason = err.Error()
	}
	return res, nil
}

func whenPass(ctx context.Context, ms int) error { return get(ctx).drv.passCommands(ctx, ms) }

func (e embedded) passCommands(ctx context.Context, ms int) error {
	x := getExec(ctx)
	if x.streams == nil || x.real {
		return fmt.Errorf("no simulated command has been started")
	}
	x.clk.Advance(time.Duration(ms) * time.Millisecond)
	x.streams.Drain()
	return nil
}

func whenComplete(ctx context.Context) error { return get(ctx).drv.complete(ctx) }

// complete drains the real executor's output until every stream of the
// model run has ended, within ten seconds of wall time.
func (e embedded) complete(ctx context.Context) error {
	w, x := e.w, getExec(ctx)
	if x.streams == nil {
		return fmt.Errorf("no command has been started")
	}
	deadline := time.After(10 * time.Second)
	for {
		x.streams.Drain()
		if len(x.streams.Open(w.session, "model")) == 0 {
			return nil
		}
		select {
		case <-x.streams.Ready():
		case <-deadline:
			return fmt.Errorf("commands still running after 10 s: %+v", x.streams.Open(w.session, "model"))
		}
	}
}

// whenCancel is the model's own SEND[499] on the stream's address, which
// the engine routes to the stream table through the subscription registry.
func whenCancel(ctx context.Context, t string) error {
	w := get(ctx)
	if err := emit(ctx, "model", "<<SEND[499]("+t+")::SEND"); err != nil {
		return err
	}
	if r, _ := last(w); r.Status != 200 {
		return fmt.Errorf("the model's SEND[499](%s) answered %d (%s), want 200", t, r.Status, r.Reason)
	}
	return w.drv.drain(ctx)
}

func (e embedded) drain(ctx context.Context) error {
	x := getExec(ctx)
	if x.streams == nil {
		return fmt.Errorf("no command has been started")
	}
	x.streams.Drain()
	return nil
}

func (e embedded) execStream(ctx context.Context, t string) (exec.Stream, error) {
	return getExec(ctx).stream(e.w, t)
}

func (e embedded) streamEvents(ctx context.Context) ([]exec.StreamEvent, error) {
	evs := getExec(ctx).events.take()
	for i := range evs {
		evs[i].Session = 0
	}
	return evs, nil
}

// commandDir: the real commands are given the system's temporary
// directory (execAccepted).
func (e embedded) commandDir(context.Context) (string, error) { return os.TempDir(), nil }

// execStream is the stream at t, through the scenario's driver.
func execStream(ctx context.Context, t string) (exec.Stream, error) {
	return get(ctx).drv.execStream(ctx, t)
}

func (x *execWorld) stream(w *world, t string) (exec.Stream, error) {
	k, _, err := streamKey(w, t)
	if err != nil {
		return exec.Stream{}, err
	}
	if x.streams == nil {
		return exec.Stream{}, fmt.Errorf("no command has been started")
	}
	s, ok := x.streams.Get(w.session, k)
	if !ok {
		return exec.Stream{}, fmt.Errorf("no stream at %s", t)
	}
	return s, nil
}

func thenEnded(ctx context.Context, t string, status int) error {
	s, err := execStream(ctx, t)
	if err != nil {
		return err
	}
	if s.Status != status {
		return fmt.Errorf("%s: status %d (%s), want %d", t, s.Status, s.Reason, status)
	}
	return nil
}

func thenEndedBy(ctx context.Context, t string, status int, sig string, ms int) error {
	s, err := execStream(ctx, t)
	if err != nil {
		return err
	}
	return checkEnding(t, s, status, sig, ms)
}

// checkEnding compares how a stream ended — its status, the signal that
// ended it and when, from its start (0 while it still runs) — with what a
// scenario expects.
func checkEnding(name string, s exec.Stream, status int, sig string, ms int) error {
	type ending struct {
		Status int
		Signal string
		At     time.Duration
	}
	got := ending{s.Status, s.Signal, s.Ended.Sub(s.Started)}
	if s.Status == 0 {
		got.At = 0
	}
	want := ending{status, sig, time.Duration(ms) * time.Millisecond}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("%s ended (-want +got):\n%s", name, d)
	}
	return nil
}

func thenEndedCode(ctx context.Context, t string, status, code int) error {
	s, err := execStream(ctx, t)
	if err != nil {
		return err
	}
	if s.Status != status || s.ExitCode != code {
		return fmt.Errorf("%s: status %d exit code %d, want %d and %d", t, s.Status, s.ExitCode, status, code)
	}
	return nil
}

func thenRunning(ctx context.Context, t string) error {
	s, err := execStream(ctx, t)
	if err != nil {
		return err
	}
	if !s.Live() {
		return fmt.Errorf("%s ended with %d (%s)", t, s.Status, s.Reason)
	}
	return nil
}

// thenEvents compares the stream/event notifications sent since the last
// check with the table | entry | channel | state | contentLength |.
func thenEvents(ctx context.Context, tbl *godog.Table) error {
	w := get(ctx)
	var want []exec.StreamEvent
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) != 4 {
			return fmt.Errorf("row %d: want | entry | channel | state | contentLength |", i)
		}
		e, err := entry(w, row.Cells[0].Value)
		if err != nil || e == nil {
			return fmt.Errorf("row %d: entry %s: %v", i, row.Cells[0].Value, err)
		}
		n, err := strconv.Atoi(row.Cells[3].Value)
		if err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
		want = append(want, exec.StreamEvent{EntryID: e.ID, Channel: row.Cells[1].Value, State: store.State(row.Cells[2].Value), ContentLength: n})
	}
	got, err := w.drv.streamEvents(ctx)
	if err != nil {
		return err
	}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("stream events (-want +got):\n%s", d)
	}
	return nil
}

func stdoutLines(w *world, t string) ([]string, error) {
	e, err := entry(w, t)
	if err != nil || e == nil {
		return nil, fmt.Errorf("entry %s: %v", t, err)
	}
	return strings.Split(e.Channels["stdout"].Content, "\n"), nil
}

func thenHasLine(ctx context.Context, t, want string) error {
	lines, err := stdoutLines(get(ctx), t)
	if err != nil {
		return err
	}
	want = unescape(want)
	for _, l := range lines {
		if l == want {
			return nil
		}
	}
	return fmt.Errorf("stdout of %s has no line %q:\n%s", t, want, strings.Join(lines, "\n"))
}

func thenNoLine(ctx context.Context, t, prefix string) error {
	lines, err := stdoutLines(get(ctx), t)
	if err != nil {
		return err
	}
	if len(lines) < 2 {
		return fmt.Errorf("stdout of %s is empty: nothing to check", t)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return fmt.Errorf("stdout of %s has the line %q", t, l)
		}
	}
	return nil
}
