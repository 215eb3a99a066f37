package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/impl/plurnk/telemetry"
	"anchorage/sim/clock"
	"anchorage/sim/llm"
	"anchorage/sim/vfs"

	"github.com/spf13/afero"
)

// Embedded is the reference plurnk run in process, each section on the
// piece of impl/plurnk that holds it: the entry engine as a library (the
// data plane), the loop engine over it, the runs service (a session of
// runs), the exec stream table, the membership of a project directory,
// and the JSON-RPC daemon on a loopback socket. Each keeps its own
// simulated clock. Its fields are there for the steps that only the
// engine as a library takes.
type Embedded struct {
	*entries
	*loop
	*session
	*execTable
	*project
	*daemon
}

// NewEmbedded builds the embedded reference over the scenario's script.
func NewEmbedded(script *Script, conns Conns) (*Embedded, error) {
	en, err := newEntries()
	if err != nil {
		return nil, fmt.Errorf("plurnk world: %w", err)
	}
	lp, err := newLoop(en, script.Model)
	if err != nil {
		return nil, err
	}
	return &Embedded{entries: en, loop: lp, session: newSession(script), execTable: newExecTable(en, script),
		project: &project{en: en}, daemon: newDaemon(script, conns)}, nil
}

// Close ends the session's runs, the daemon and the project directory.
func (e *Embedded) Close(bool) error {
	e.session.close()
	e.daemon.close()
	return e.project.close()
}

// entries is the entry engine as a library: a store with one session, its
// schemes over a workspace in memory, and the session's runs by name.
type entries struct {
	FS      afero.Fs
	Faults  *vfs.Faulty // FS, failing where a scenario arms a fault
	Store   *store.Store
	Ops     *ops.Engine
	Session *store.Session
	Runs    map[string]*store.Run
}

func newEntries() (*entries, error) {
	fs := vfs.NewFaulty(afero.NewMemMapFs(), 1)
	reg, err := scheme.Defaults(fs, Workspace, "sh")
	if err != nil {
		return nil, err
	}
	st := store.New(clock.NewSim(time.Time{}))
	ss, err := st.NewSession("model")
	if err != nil {
		return nil, err
	}
	en := &entries{FS: fs, Faults: fs, Store: st, Session: ss, Runs: map[string]*store.Run{}}
	en.Ops = &ops.Engine{Store: st, Schemes: reg, Mimetypes: ops.NewMimetypes()}
	for _, r := range ss.Runs {
		en.Runs[r.Name] = r
	}
	return en, nil
}

func (en *entries) Workspace() afero.Fs { return en.FS }

func (en *entries) Client(st dsl.Statement) (ops.Result, error) {
	return en.Ops.Do(ops.Actor{Session: en.Session, Run: en.Runs[store.PlurnkRun], Writer: scheme.WriterClient}, st), nil
}

func (en *entries) Do(run string, loop, turn int, st dsl.Statement) (ops.Result, error) {
	r, ok := en.Runs[run]
	if !ok {
		return ops.Result{}, fmt.Errorf("no run %q in the session", run)
	}
	return en.Ops.Do(ops.Actor{Session: en.Session, Run: r, Loop: loop, Turn: turn, Writer: scheme.WriterModel}, st), nil
}

// Entry loads the entry a target names, straight from its scheme.
func (en *entries) Entry(t string) (*store.Entry, error) {
	tg, err := ParseTarget(t)
	if err != nil {
		return nil, err
	}
	r, err := en.Ops.Schemes.Resolve(tg)
	if err != nil {
		return nil, err
	}
	var e *store.Entry
	err = en.Store.Update(en.Session, func(tx *store.Tx) error {
		var err error
		e, err = r.Handler.Load(scheme.Call{Tx: tx, Run: en.Runs["model"], Writer: scheme.WriterClient}, r.Key)
		return err
	})
	return e, err
}

func (en *entries) Assemble(context.Context) error {
	if len(en.Ops.Derive(en.Session)) == 0 {
		return errors.New("the derivation pass saw no channel")
	}
	return nil
}

func (en *entries) AddRun(name string) error {
	r, err := en.Store.AddRun(en.Session, name)
	if err != nil {
		return err
	}
	en.Runs[name] = r
	return nil
}

// OtherSession writes the entry t in a second session of the same store.
func (en *entries) OtherSession(t, body string) error {
	ss, err := en.Store.NewSession("other")
	if err != nil {
		return err
	}
	tg, err := ParseTarget(t)
	if err != nil {
		return err
	}
	res := en.Ops.Do(ops.Actor{Session: ss, Run: ss.Runs[0], Writer: scheme.WriterClient}, dsl.Statement{Op: dsl.OpEdit, Target: &tg, Body: &body})
	if res.Status >= 300 {
		return fmt.Errorf("writing %s in the second session: %d %s", t, res.Status, res.Reason)
	}
	return nil
}

func (en *entries) Streamed(target, chunk, ch string) error {
	k, m, err := en.streamKey(target)
	if err != nil {
		return err
	}
	return en.Store.Update(en.Session, func(tx *store.Tx) error {
		if tx.Get(k) == nil {
			if err := scheme.OpenStream(tx, m, k); err != nil {
				return err
			}
		}
		return scheme.AppendChunk(tx, k, ch, chunk)
	})
}

func (en *entries) StreamMore(target, chunk, ch string) error { return en.Streamed(target, chunk, ch) }

func (en *entries) StreamEnd(target string, failed bool) error {
	state := store.StateClosed
	if failed {
		state = store.StateErrored
	}
	k, _, err := en.streamKey(target)
	if err != nil {
		return err
	}
	return en.Store.Update(en.Session, func(tx *store.Tx) error { return scheme.SetState(tx, k, state) })
}

// streamKey resolves an exec output address to its entry key.
func (en *entries) streamKey(t string) (store.Key, scheme.Manifest, error) {
	tg, err := ParseTarget(t)
	if err != nil {
		return store.Key{}, scheme.Manifest{}, err
	}
	r, err := en.Ops.Schemes.Resolve(tg)
	if err != nil {
		return store.Key{}, scheme.Manifest{}, err
	}
	return r.Key, r.Handler.Manifest(), nil
}

// ParseTarget reads a target as a statement writes it.
func ParseTarget(s string) (dsl.Target, error) {
	st, err := dsl.ParseStatement("<<READ(" + s + ")::READ")
	if err != nil || st.Target == nil {
		return dsl.Target{}, fmt.Errorf("target %q: %v", s, err)
	}
	return *st.Target, nil
}

// loop is the loop engine over the entry engine, its model the scenario's
// script and its configuration the operator's variables, read at each
// loop.
type loop struct {
	en     *entries
	model  *llm.Mock
	Engine *engine.Engine
	Env    map[string]string  // the operator's variables
	Sent   []telemetry.Notice // what the notification sink received
}

func newLoop(en *entries, model *llm.Mock) (*loop, error) {
	lp := &loop{en: en, model: model, Env: map[string]string{"HOME": OperatorHome}}
	cfg, err := config.Load(lp.Env, Workspace)
	if err != nil {
		return nil, err
	}
	lp.Engine = engine.New(en.Store, en.Ops, model, cfg, en.FS)
	lp.Engine.Sink = func(_, _ int64, n telemetry.Notice) { lp.Sent = append(lp.Sent, n) }
	return lp, nil
}

// Loop runs a loop of the model run on the engine as a library.
func (lp *loop) Loop(ctx context.Context, prompt string, maxTurns int) (engine.Result, error) {
	cfg, err := config.Load(lp.Env, Workspace)
	if err != nil {
		return engine.Result{}, err
	}
	lp.Engine.Config = cfg
	run, cancel := context.WithCancel(ctx)
	defer cancel()
	lp.model.OnAbort = cancel
	return lp.Engine.Run(run, engine.Request{Session: lp.en.Session, Run: lp.en.Runs["model"], Prompt: prompt, MaxTurns: maxTurns})
}

func (lp *loop) Log(run string) ([]*store.LogRow, error) {
	r, ok := lp.en.Runs[run]
	if !ok {
		return nil, fmt.Errorf("no run %q in the session", run)
	}
	return r.Log, nil
}

// RowTokens is the token count the engine stored for the model run's row
// at coord when it was written.
func (lp *loop) RowTokens(_ context.Context, coord string) (int, bool, error) {
	row := FindLogRow(lp.en.Runs["model"].Log, coord)
	if row == nil {
		return 0, false, fmt.Errorf("no row log:///%s", coord)
	}
	n, ok := lp.Engine.RowTokens(row.ID)
	return n, ok, nil
}

// Configure: the engine reads its configuration at each loop.
func (lp *loop) Configure(string) error { return nil }

func (lp *loop) SetEnv(k, v string) error {
	lp.Env[k] = v
	return nil
}

func (lp *loop) Offers(_ context.Context, runtimes []string) error {
	lp.Engine.Executors = runtimes
	return nil
}

// FindLogRow finds the row at coord (L/T/S, or L/T/S/OP) of a log.
func FindLogRow(log []*store.LogRow, coord string) *store.LogRow {
	for _, row := range log {
		if row.Coord() == coord || row.Coord()+"/"+row.Op == coord {
			return row
		}
	}
	return nil
}

// execTable is the exec scheme over the entry engine: the executor
// registry and the stream table, built on first use, the way the service
// does at start; its streams write the entry engine's entries.
type execTable struct {
	en        *entries
	setup     *ExecSetup
	ExecClock *clock.Sim
	Extra     []exec.Executor // executors registered besides sh
	streams   *exec.Streams
	props     *exec.Proposals
	events    *eventLog
}

func newExecTable(en *entries, script *Script) *execTable {
	return &execTable{en: en, setup: &script.Exec, ExecClock: clock.NewSim(time.Time{}), events: &eventLog{}}
}

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

// boot builds the executor registry (probing every executor) and the
// stream table on first use.
func (x *execTable) boot() error {
	if x.streams != nil {
		return nil
	}
	var c clock.Clock = x.ExecClock
	var sh exec.Executor = &exec.SimExecutor{Name: "sh", Eff: exec.EffectHost, Avail: exec.Probe{Available: true, Detail: "simulated sh"}, Clock: x.ExecClock, Scripts: x.setup.Commands}
	if x.setup.Real {
		c, sh = clock.Real(), &exec.Shell{}
	}
	reg, err := exec.NewRegistry(append([]exec.Executor{sh}, x.Extra...)...)
	if err != nil {
		return err
	}
	x.streams = exec.NewStreams(exec.Config{Store: x.en.Store, Registry: reg, Clock: c, Grace: x.setup.Grace, Notify: x.events})
	// As the service does at start: the exec schemes' streams are held by
	// the stream table, so the model's SEND[499] and KILL reach it.
	x.en.Ops.SubscribeStreams(reg.Runtimes(), x.streams)
	x.props = exec.NewProposals(c, 0, nil)
	return nil
}

// ExecAccepted dispatches the model's EXEC at loop/turn/seq as the engine
// would once its proposal is accepted (the yolo path).
func (x *execTable) ExecAccepted(_ context.Context, loop, turn, seq int, st dsl.Statement) (ops.Result, error) {
	if err := x.boot(); err != nil {
		return ops.Result{}, err
	}
	req, err := exec.RequestOf(st)
	if err != nil {
		return ops.Result{}, err
	}
	req.Run, req.Loop, req.Turn, req.Seq = "model", loop, turn, seq
	req.Env = exec.ScopeEnv(x.setup.Shell, x.setup.DotEnv)
	if x.setup.Real {
		req.Dir = os.TempDir()
	}
	row := int64(loop*10000 + turn*100 + seq)
	status, err := exec.Dispatch(x.streams, x.props, x.en.Session, req, row, true)
	res := ops.Result{Status: status, Target: fmt.Sprintf("%s:///%d/%d/%d", req.Runtime, loop, turn, seq)}
	if err != nil {
		res.Reason = err.Error()
	}
	return res, nil
}

func (x *execTable) PassCommands(_ context.Context, ms int) error {
	if x.streams == nil || x.setup.Real {
		return fmt.Errorf("no simulated command has been started")
	}
	x.ExecClock.Advance(time.Duration(ms) * time.Millisecond)
	x.streams.Drain()
	return nil
}

// Complete drains the real executor's output until every stream of the
// model run has ended, within ten seconds of wall time.
func (x *execTable) Complete(context.Context) error {
	if x.streams == nil {
		return fmt.Errorf("no command has been started")
	}
	deadline := time.After(10 * time.Second)
	for {
		x.streams.Drain()
		if len(x.streams.Open(x.en.Session, "model")) == 0 {
			return nil
		}
		select {
		case <-x.streams.Ready():
		case <-deadline:
			return fmt.Errorf("commands still running after 10 s: %+v", x.streams.Open(x.en.Session, "model"))
		}
	}
}

func (x *execTable) Drain(context.Context) error {
	if x.streams == nil {
		return fmt.Errorf("no command has been started")
	}
	x.streams.Drain()
	return nil
}

func (x *execTable) ExecStream(_ context.Context, t string) (exec.Stream, error) {
	k, _, err := x.en.streamKey(t)
	if err != nil {
		return exec.Stream{}, err
	}
	if x.streams == nil {
		return exec.Stream{}, fmt.Errorf("no command has been started")
	}
	s, ok := x.streams.Get(x.en.Session, k)
	if !ok {
		return exec.Stream{}, fmt.Errorf("no stream at %s", t)
	}
	return s, nil
}

func (x *execTable) StreamEvents(context.Context) ([]exec.StreamEvent, error) {
	evs := x.events.take()
	for i := range evs {
		evs[i].Session = 0
	}
	return evs, nil
}

// CommandDir: the real commands are given the system's temporary
// directory (ExecAccepted).
func (x *execTable) CommandDir(context.Context) (string, error) { return os.TempDir(), nil }
