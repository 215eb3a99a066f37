package driver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

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
	"anchorage/sim/plurnkexec"

	"github.com/spf13/afero"
)

// session is a session of several runs on the runs service, built once the
// givens are in: each run has its own scripted model, EXEC runs on
// simulated commands over the session's simulated clock.
type session struct {
	script     *Script
	clock      *clock.Sim
	maxActive  int
	yolo       bool
	tokenChars int // every model's tokenizer: one token per tokenChars bytes (0: the mock's default)
	Svc        *runs.Service
	RunSession *store.Session
	simExecs   []*plurnkexec.Executor
	// Teardown and Registering are the runs service's test seams (nil
	// unless a scenario forces an interleaving); During holds actions to
	// take while a run's model generates its n-th reply (1-based), and
	// DuringErr the first of them that failed.
	Teardown    func(session int64, run string)
	Registering func(session int64, run, target string)
	During      map[string]map[int]func() error
	DuringErr   error
	Acting      map[string]*ActingProvider

	evMu   sync.Mutex
	events []runs.Event // every event the service emitted, oldest first
}

func newSession(script *Script) *session {
	return &session{script: script, clock: clock.NewSim(time.Time{}), maxActive: runs.Off}
}

// close cancels every run of the session and waits for their drains.
func (s *session) close() {
	if s.Svc == nil {
		return
	}
	for _, r := range s.RunInfos() {
		_, _ = s.Svc.Cancel(s.RunSession.ID, r.Name, "scenario over")
	}
	s.Svc.Wait()
}

// PlanMidTurn files act to run while run generates its reply n; a
// scenario plans such actions before the session starts.
func (s *session) PlanMidTurn(run string, n int, act func() error) error {
	if s.Svc != nil {
		return fmt.Errorf("plan mid-turn actions before the session starts")
	}
	if s.During == nil {
		s.During = map[string]map[int]func() error{}
	}
	if s.During[run] == nil {
		s.During[run] = map[int]func() error{}
	}
	s.During[run][n] = act
	return nil
}

// CancelMidTurn cancels run as a client would and fails when nothing was
// running to cancel.
func (s *session) CancelMidTurn(run string) error {
	hit, err := s.Svc.Cancel(s.RunSession.ID, run, "")
	if err != nil {
		return err
	}
	if !hit {
		return fmt.Errorf("the cancel of run %q found nothing running mid-turn", run)
	}
	return nil
}

// AdvanceMidTurn moves the session clock on by ms while a model reply is
// being generated: due timers fire, and nothing waits for the drains (the
// run generating holds one).
func (s *session) AdvanceMidTurn(ms int) {
	s.clock.Advance(time.Duration(ms) * time.Millisecond)
}

// boot builds the service once the givens are in.
func (s *session) boot() error {
	if s.Svc != nil {
		return nil
	}
	fs := afero.NewMemMapFs()
	reg, err := scheme.Defaults(fs, Workspace, "sh", "db")
	if err != nil {
		return err
	}
	st := store.New(s.clock)
	cfg, err := config.Load(map[string]string{"HOME": OperatorHome}, Workspace)
	if err != nil {
		return err
	}
	sh := &plurnkexec.Executor{Name: "sh", Eff: exec.EffectHost, Avail: exec.Probe{Available: true, Detail: "simulated sh"}, Clock: s.clock, Scripts: s.script.Commands}
	db := &plurnkexec.Executor{Name: "db", Eff: exec.EffectPure, Avail: exec.Probe{Available: true, Detail: "simulated db"}, Clock: s.clock, Scripts: s.script.Commands}
	xreg, err := exec.NewRegistry(sh, db)
	if err != nil {
		return err
	}
	if cfg.Vary, err = Vary(); err != nil { // ANCHORAGE_VARY
		return err
	}
	o := &ops.Engine{Store: st, Schemes: reg, Mimetypes: ops.NewMimetypes(), Vary: cfg.Vary}
	router := &llm.Router{Default: &llm.Mock{CharsPerToken: s.tokenChars}, ByRun: map[string]provider.Provider{}}
	for _, name := range s.script.Runs.Names() {
		m := s.script.Runs.Ensure(name)
		m.CharsPerToken = s.tokenChars
		router.ByRun[name] = m
		if acts, ok := s.During[name]; ok {
			ap := &ActingProvider{Provider: m, s: s, acts: acts}
			router.ByRun[name] = ap
			if s.Acting == nil {
				s.Acting = map[string]*ActingProvider{}
			}
			s.Acting[name] = ap
		}
	}
	eng := engine.New(st, o, router, cfg, fs)
	s.Svc, err = runs.New(runs.Config{Store: st, Engine: eng, Clock: s.clock, Executors: xreg, MaxActive: s.maxActive, Yolo: s.yolo,
		Teardown: s.Teardown, Registering: s.Registering})
	if err != nil {
		return err
	}
	s.Svc.Subscribe(s.record)
	s.RunSession, err = s.Svc.NewSession("main")
	if err != nil {
		return err
	}
	s.simExecs = []*plurnkexec.Executor{sh, db}
	return nil
}

// settle waits for the drains, applies what the processes posted, and
// waits again.
func (s *session) settle() {
	s.Svc.Wait()
	s.Svc.Pump()
	s.Svc.Wait()
}

// RunInfos are the session's runs but the reserved plurnk run.
func (s *session) RunInfos() []runs.RunInfo {
	if s.Svc == nil {
		return nil
	}
	rs, _ := s.Svc.Runs(s.RunSession.ID)
	var out []runs.RunInfo
	for _, r := range rs {
		if r.Name != store.PlurnkRun {
			out = append(out, r)
		}
	}
	return out
}

// RunInfo is the run named run.
func (s *session) RunInfo(run string) (runs.RunInfo, error) {
	rs, err := s.Svc.Runs(s.RunSession.ID)
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

// WaitRun waits, in wall time and with the service's lock free, until
// run's info satisfies ok: a scenario forcing an interleaving holds one
// side until the other has reached a state. It gives up after 10 s.
func (s *session) WaitRun(run, what string, ok func(runs.RunInfo) bool) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := s.RunInfo(run)
		if err == nil && ok(info) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("run %q never got %s (last: %+v, %v)", run, what, info, err)
		}
		time.Sleep(time.Millisecond)
	}
}

// CancelNow cancels run and settles: what the processes posted since the
// last settle (an exit, say) is applied only after the cancel landed.
func (s *session) CancelNow(run string, ms int) error {
	s.clock.Advance(time.Duration(ms) * time.Millisecond)
	if _, err := s.Svc.Cancel(s.RunSession.ID, run, ""); err != nil {
		return err
	}
	s.settle()
	return nil
}

// ActingProvider is a run's scripted model that, before giving its n-th
// reply, takes the client actions the scenario queued for that reply. The
// runs service calls Generate with its lock released, so the actions land
// while the loop is mid-turn.
type ActingProvider struct {
	provider.Provider
	s     *session
	acts  map[int]func() error
	Calls int
}

func (a *ActingProvider) Generate(ctx context.Context, req provider.Request) (provider.Response, error) {
	a.Calls++
	if act, ok := a.acts[a.Calls]; ok {
		if err := act(); err != nil && a.s.DuringErr == nil {
			a.s.DuringErr = err
		}
	}
	return a.Provider.Generate(ctx, req)
}

func (s *session) Script(run, reply string) error {
	if s.Svc != nil {
		return fmt.Errorf("script run %q before the session starts", run)
	}
	s.script.Runs.Add(run, llm.Reply{Content: reply})
	return nil
}

func (s *session) Command(name string, sc plurnkexec.Script) error {
	s.script.Commands[name] = sc
	return nil
}

func (s *session) AcceptHostCommands() { s.yolo = true }

func (s *session) Start(run, prompt string) error {
	if err := s.boot(); err != nil {
		return err
	}
	if err := s.Svc.Start(s.RunSession.ID, run, runs.LoopStart{Prompt: prompt}); err != nil {
		return err
	}
	s.settle()
	return nil
}

func (s *session) Inject(run, msg string) error {
	if err := s.Svc.Inject(s.RunSession.ID, run, msg); err != nil {
		return err
	}
	s.settle()
	return nil
}

func (s *session) Cancel(run string) error {
	if _, err := s.Svc.Cancel(s.RunSession.ID, run, ""); err != nil {
		return err
	}
	s.settle()
	return nil
}

func (s *session) PassSession(ms int) error {
	step := 50 * time.Millisecond
	for left := time.Duration(ms) * time.Millisecond; left > 0; left -= step {
		s.clock.Advance(min(step, left))
		s.settle()
	}
	return nil
}

func (s *session) Loops(run string) (int, int, error) {
	if s.Svc == nil {
		return 0, 0, fmt.Errorf("the session has not started")
	}
	ls, err := RunLoops(s.Svc, s.RunSession, run)
	if err != nil || len(ls) == 0 {
		return 0, 0, err
	}
	return len(ls), ls[len(ls)-1].Status, nil
}

func (s *session) RunLog(run string) ([]store.LogRow, error) {
	if s.Svc == nil {
		return nil, fmt.Errorf("the session has not started")
	}
	return RunLog(s.Svc, s.RunSession, run)
}

// RunLoops copies the loops of the session's run named run (their ids,
// seqs and statuses), read under the service's lock.
func RunLoops(svc *runs.Service, ss *store.Session, run string) ([]store.Loop, error) {
	var out []store.Loop
	err := viewRun(svc, ss, run, func(r *store.Run) {
		for _, l := range r.Loops {
			out = append(out, store.Loop{ID: l.ID, Seq: l.Seq, Status: l.Status})
		}
	})
	return out, err
}

// RunLog copies the log rows of the session's run named run, read under the
// service's lock from the store the daemon's log.read reads too.
func RunLog(svc *runs.Service, ss *store.Session, run string) ([]store.LogRow, error) {
	var out []store.LogRow
	err := viewRun(svc, ss, run, func(r *store.Run) {
		for _, row := range r.Log {
			out = append(out, *row)
		}
	})
	return out, err
}

// viewRun calls read with the session's run named run, under the service's
// lock.
func viewRun(svc *runs.Service, ss *store.Session, run string, read func(*store.Run)) error {
	var err error
	svc.View(func() {
		var r *store.Run
		if r, err = ss.Run(run); err == nil {
			read(r)
		}
	})
	if err != nil {
		return fmt.Errorf("session %d: %w", ss.ID, err)
	}
	return nil
}

func (s *session) Requests(run string) []provider.Request {
	if m, ok := s.script.Runs.Get(run); ok {
		return m.Requests
	}
	return nil
}

func (s *session) RunStream(target string) (exec.Stream, error) {
	k, err := RunEntryKey(target)
	if err != nil {
		return exec.Stream{}, err
	}
	st, ok := s.Svc.Streams().Get(s.RunSession, k)
	if !ok {
		return exec.Stream{}, fmt.Errorf("no stream %s", target)
	}
	return st, nil
}

func (s *session) SessionEntry(target string) (*store.Entry, error) {
	if s.Svc == nil {
		return nil, fmt.Errorf("the session has not started")
	}
	k, err := RunEntryKey(target)
	if err != nil {
		return nil, err
	}
	var ent *store.Entry
	s.Svc.View(func() { ent = s.RunSession.Entry(k) })
	return ent, nil
}

func (s *session) RunSpawns() []exec.Spec {
	var out []exec.Spec
	for _, sim := range s.simExecs {
		out = append(out, sim.Spawns()...)
	}
	return out
}

func (s *session) Events() []runs.Event {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	return append([]runs.Event(nil), s.events...)
}

// record keeps an event the service emitted; the service calls it with its
// own lock held, so it takes only the session's.
func (s *session) record(ev runs.Event) {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	s.events = append(s.events, ev)
}

func (s *session) RunNames() ([]string, error) {
	var out []string
	for _, r := range s.RunInfos() {
		out = append(out, r.Name)
	}
	return out, nil
}

func (s *session) CountEntries(scheme string) (int, error) {
	if s.Svc == nil {
		return 0, fmt.Errorf("the session has not started")
	}
	got := 0
	s.Svc.View(func() {
		for _, e := range s.RunSession.Entries() {
			if e.Key.Scope != store.ScopeRun && e.Key.Scheme == scheme {
				got++
			}
		}
	})
	return got, nil
}

func (s *session) ParentOf(run string) (string, string, error) {
	for _, r := range s.RunInfos() {
		if r.Name == run {
			return r.Parent, r.Origin, nil
		}
	}
	return "", "", fmt.Errorf("no run %q", run)
}

func (s *session) MaxActive(n int) error {
	s.maxActive = n
	return nil
}

func (s *session) Tokenizer(n int) error {
	if s.Svc != nil {
		return fmt.Errorf("set the tokenizer before the session starts")
	}
	s.tokenChars = n
	return nil
}

func (s *session) Resolve(row int64, accept bool) error {
	d := exec.Accept
	if !accept {
		d = exec.Reject
	}
	if _, err := s.Svc.Resolve(row, d, ""); err != nil {
		return err
	}
	s.settle()
	return nil
}

// RunEntryKey reads scheme:///path, or run://<owner>/path for scratch.
func RunEntryKey(target string) (store.Key, error) {
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
