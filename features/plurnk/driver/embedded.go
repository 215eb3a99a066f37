package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/impl/plurnk/telemetry"
	"anchorage/sim/clock"
	"anchorage/sim/llm"
	"anchorage/sim/plurnkexec"
	"anchorage/sim/vfs"

	"github.com/cucumber/godog"
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
	varied, err := Vary() // ANCHORAGE_VARY: the spec-permitted variations
	if err != nil {
		return nil, err
	}
	en := &entries{FS: fs, Faults: fs, Store: st, Session: ss, Runs: map[string]*store.Run{}}
	en.Ops = &ops.Engine{Store: st, Schemes: reg, Mimetypes: ops.NewMimetypes(), Vary: varied}
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
	cfg.Vary = en.Ops.Vary // ANCHORAGE_VARY
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
	cfg.Vary = lp.en.Ops.Vary // ANCHORAGE_VARY
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
	var sh exec.Executor = &plurnkexec.Executor{Name: "sh", Eff: exec.EffectHost, Avail: exec.Probe{Available: true, Detail: "simulated sh"}, Clock: x.ExecClock, Scripts: x.setup.Commands}
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

// projectPrefix names the temporary project directory of a scenario.
const projectPrefix = "plurnk-members-"

// project is a scenario's project directory (a real temporary directory,
// since git needs one) and the entry engine's membership of it.
type project struct {
	en         *entries
	Dir        string
	Resolver   *membership.Resolver
	Membership *membership.Project
	Reads      *CountingFs // counts the files opened for reading
	Second     *store.Session
	Last       []store.LogRow // the divergences the last sync pass recorded
}

func (p *project) close() error {
	if p.Dir == "" {
		return nil
	}
	if err := kit.RemoveTemp(p.Dir, projectPrefix); err != nil {
		return fmt.Errorf("remove the scenario's project directory: %w", err)
	}
	return nil
}

// newDir makes the scenario's one project directory, a temporary
// directory that Close removes.
func (p *project) newDir() error {
	if p.Dir != "" {
		return fmt.Errorf("the scenario already has a project directory")
	}
	dir, err := os.MkdirTemp("", projectPrefix)
	if err != nil {
		return err
	}
	p.Dir = dir
	return nil
}

// Project lays out a directory of its own, the membership attached to the
// entry engine's schemes, tracking with the real git binary the rows
// marked yes when withGit.
func (p *project) Project(_ context.Context, tbl *godog.Table, withGit bool) error {
	if err := p.newDir(); err != nil {
		return err
	}
	tracked, err := layFiles(p.Dir, tbl)
	if err != nil {
		return err
	}
	if !withGit {
		return p.wire(nil)
	}
	g := membership.GitCLI{}
	if err := g.Available(); err != nil {
		return fmt.Errorf("membership scenarios run the real git binary, which is missing here: %w", err)
	}
	if err := p.wire(g); err != nil {
		return err
	}
	return gitInit(p.Dir, harnessGitEnv(), tracked)
}

func (p *project) Forest(_ context.Context, tbl *godog.Table) error {
	if err := p.newDir(); err != nil {
		return err
	}
	g := membership.GitCLI{}
	if err := g.Available(); err != nil {
		return fmt.Errorf("membership scenarios run the real git binary, which is missing here: %w", err)
	}
	if err := p.wire(g); err != nil {
		return err
	}
	return writeForest(p.Dir, harnessGitEnv(), tbl)
}

// wire has the entry engine keep a membership of the project directory,
// as the daemon does: the file scheme is rebuilt over that directory and
// consults the membership before every write. The disk counts the files
// opened on it.
func (p *project) wire(git membership.Git) error {
	p.Reads = &CountingFs{Fs: afero.NewOsFs()}
	m, err := membership.Attach(p.en.Ops.Schemes, p.Reads, p.Dir, git, membership.Flags{})
	if err != nil {
		return err
	}
	p.Membership, p.Resolver = m, m.Resolver
	return nil
}

// ProjectDir is the project directory, once laid out.
func (p *project) ProjectDir() (string, error) {
	if p.Dir == "" {
		return "", fmt.Errorf("the scenario has no project directory")
	}
	return p.Dir, nil
}

// Constrain files a constraint of the session, or one a run's client
// asks for, with the membership the engine's schemes consult.
func (p *project) Constrain(_ context.Context, run string, effect membership.Effect, pattern string) error {
	if _, err := p.ProjectDir(); err != nil {
		return err
	}
	c := membership.Constraint{Effect: effect, Pattern: pattern}
	if run == "" {
		return p.Membership.Constrain(p.en.Session.ID, c)
	}
	if _, ok := p.en.Runs[run]; !ok {
		return fmt.Errorf("no run %q in the session", run)
	}
	// A run's client asks in its run's session, as a daemon connection
	// attached to the run asks in the session it is attached to.
	return p.Membership.Constrain(p.en.Session.ID, c)
}

// Members resolves the members of the session (who ""), of its second
// session, or that a run of it sees.
func (p *project) Members(_ context.Context, who string) (membership.Set, error) {
	if _, err := p.ProjectDir(); err != nil {
		return membership.Set{}, err
	}
	switch who {
	case "":
		return p.Membership.Members(p.en.Session.ID)
	case SecondSession:
		if p.Second == nil {
			return membership.Set{}, fmt.Errorf("there is no second session")
		}
		return p.Membership.Members(p.Second.ID)
	}
	if _, ok := p.en.Runs[who]; !ok {
		return membership.Set{}, fmt.Errorf("no run %q in the session", who)
	}
	// What a run sees is what its session's members are (every run of
	// the scenario's engine is of its one session).
	return p.Membership.Members(p.en.Session.ID)
}

// OpenSecondSession opens a second session of the store over the same
// project.
func (p *project) OpenSecondSession(context.Context) error {
	if _, err := p.ProjectDir(); err != nil {
		return err
	}
	var err error
	p.Second, err = p.en.Store.NewSession("model")
	return err
}

// GitFlags gives the flags to the membership's resolver.
func (p *project) GitFlags(_ context.Context, allowed, auto string) error {
	if _, err := p.ProjectDir(); err != nil {
		return err
	}
	env := map[string]string{"PLURNK_GIT_ALLOWED": allowed, "PLURNK_GIT_AUTO": auto}
	p.Resolver.Flags = membership.FlagsFromEnv(func(k string) string { return env[k] })
	return nil
}

// GitEnviron has the membership's git run as from a service whose
// environment sets key to value.
func (p *project) GitEnviron(_ context.Context, key, value string) error {
	if _, err := p.ProjectDir(); err != nil {
		return err
	}
	g, ok := p.Resolver.Git.(membership.GitCLI)
	if !ok {
		return fmt.Errorf("the project has no git repository")
	}
	g.Env = append(os.Environ(), key+"="+value)
	p.Resolver.Git = g
	return nil
}

// GitMissing has the membership's git be what a service finds when no git
// binary is where it looks.
func (p *project) GitMissing(context.Context) error {
	if _, err := p.ProjectDir(); err != nil {
		return err
	}
	p.Resolver.Git = membership.GitCLI{Path: filepath.Join(p.Dir, "no-such-git")}.Found()
	return nil
}

// CountingFs counts the files opened on it: how a scenario sees which
// members a sync pass re-read.
type CountingFs struct {
	afero.Fs
	Opened []string
}

func (c *CountingFs) Open(name string) (afero.File, error) {
	c.Opened = append(c.Opened, name)
	return c.Fs.Open(name)
}

func (c *CountingFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		c.Opened = append(c.Opened, name)
	}
	return c.Fs.OpenFile(name, flag, perm)
}

// layFiles writes the files of a project table (| path | content | and
// optionally | tracked |) into dir and lists the rows marked yes: git
// tracks them.
func layFiles(dir string, tbl *godog.Table) (tracked []string, err error) {
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) < 2 {
			return nil, fmt.Errorf("row %d: want | path | content | …", i)
		}
		p := row.Cells[0].Value
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(p)), Unescape(row.Cells[1].Value)); err != nil {
			return nil, err
		}
		if len(row.Cells) > 2 && row.Cells[2].Value == "yes" {
			tracked = append(tracked, p)
		}
	}
	return tracked, nil
}

// writeFile writes content to the file full, making its directories.
func writeFile(full, content string) error {
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, []byte(content), 0o644)
}

// gitInit makes dir a git repository tracking the files listed, running
// git with env.
func gitInit(dir string, env []string, tracked []string) error {
	if err := runGit(dir, env, "init", "-q"); err != nil {
		return err
	}
	if len(tracked) == 0 {
		return nil
	}
	return runGit(dir, env, append([]string{"add", "--"}, tracked...)...)
}

// harnessGitEnv is the environment the harness runs git in to lay out a
// scenario's repositories: its own, without any GIT_* variable that would
// point git elsewhere.
func harnessGitEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	return out
}

func runGit(dir string, env []string, args ...string) error {
	cmd := osexec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// writeForest writes the forest of tbl (| repo | path | content | tracked
// |, repo "." the root itself) into dir: each repo's files, git tracking
// the rows marked yes, and a submodule entry at path for a row whose
// tracked cell is "gitlink".
func writeForest(dir string, env []string, tbl *godog.Table) error {
	tracked := map[string][]string{}
	var links [][2]string
	var repos []string
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) != 4 {
			return fmt.Errorf("row %d: want | repo | path | content | tracked |", i)
		}
		repo, p, content, tr := row.Cells[0].Value, row.Cells[1].Value, row.Cells[2].Value, row.Cells[3].Value
		if _, ok := tracked[repo]; !ok {
			tracked[repo] = nil
			repos = append(repos, repo)
		}
		if tr == "gitlink" {
			links = append(links, [2]string{repo, p})
			continue
		}
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(repo), filepath.FromSlash(p)), Unescape(content)); err != nil {
			return err
		}
		if tr == "yes" {
			tracked[repo] = append(tracked[repo], p)
		}
	}
	for _, repo := range repos {
		rd := filepath.Join(dir, filepath.FromSlash(repo))
		if err := os.MkdirAll(rd, 0o755); err != nil {
			return err
		}
		if err := gitInit(rd, env, tracked[repo]); err != nil {
			return err
		}
	}
	for _, l := range links {
		rd := filepath.Join(dir, filepath.FromSlash(l[0]))
		if err := runGit(rd, env, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,"+l[1]); err != nil {
			return err
		}
	}
	return nil
}

// Unescape turns the `\n`, `\t` and `\"` written in a step into a
// newline, a tab and a quote.
func Unescape(s string) string {
	return strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\"`, `"`).Replace(s)
}
