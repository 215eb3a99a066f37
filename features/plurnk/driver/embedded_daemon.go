package driver

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/rpc"
	"anchorage/sim/clock"
	"anchorage/sim/llm"
	"anchorage/sim/plurnkexec"
	"anchorage/sim/vfs"

	"github.com/spf13/afero"
)

// daemon is the reference daemon: the runs-service backend on a simulated
// clock with the scenario's scripted models (one script per run when the
// scenario gives one, else the shared one) and simulated executors, served
// on a real loopback WebSocket.
type daemon struct {
	script      *Script
	setup       *DaemonSetup
	conns       Conns
	DaemonClock *clock.Sim
	fs          afero.Fs // the workspace and the operator's files
	Backend     *rpc.Orchestrator
	serving     func() // stops the backend's Serve loop and waits for it
	srv         *httptest.Server
	rpcSrv      *rpc.Server // what srv serves
	url         string
	llmSrv      *llm.Server      // the loopback model server, when the model is served over HTTP
	llmHS       *httptest.Server // its listener
	bootErr     error            // why the daemon refused to start
	sh          *plurnkexec.Executor
	stateFS     *vfs.Faulty // the state directory's file system, with failpoints
	mu          sync.Mutex  // guards hold, held and logged
	hold        chan struct{}
	held        chan struct{} // signalled when a dispatch is being held
	logged      []string      // what the server only logged
}

func newDaemon(script *Script, conns Conns) *daemon {
	return &daemon{script: script, setup: &script.Daemon, conns: conns, DaemonClock: clock.NewSim(time.Time{}), fs: afero.NewMemMapFs()}
}

func (d *daemon) close() {
	d.stopServing()
	d.conns.closeAll()
	if d.srv != nil {
		d.srv.Close()
	}
	if d.llmHS != nil {
		d.llmHS.Close()
	}
}

// Boot starts the backend and the loopback server on first use.
func (d *daemon) Boot() error {
	if d.Started() {
		return nil
	}
	sh := &plurnkexec.Executor{Name: "sh", Eff: exec.EffectHost, Avail: exec.Probe{Available: true, Detail: "simulated sh"}, Clock: d.DaemonClock, Scripts: d.script.Commands}
	prov, aliases, providers, err := d.provider()
	if err != nil {
		d.bootErr = err
		return err
	}
	executors := []exec.Executor{sh}
	if d.setup.NoExec {
		executors = nil
	}
	for _, name := range d.setup.Extra {
		executors = append(executors, &plurnkexec.Executor{Name: name, Eff: exec.EffectPure, Avail: exec.Probe{Available: true, Detail: "simulated " + name}, Clock: d.DaemonClock, Scripts: d.script.Commands})
	}
	varied, err := Vary() // ANCHORAGE_VARY
	if err != nil {
		d.bootErr = err
		return err
	}
	var stateFS afero.Fs
	if d.stateFS != nil {
		stateFS = d.stateFS
	}
	b, err := rpc.NewOrchestrator(rpc.OrchestratorConfig{Vary: varied, Clock: d.DaemonClock, FS: d.fs, Root: Workspace, Provider: prov,
		Executors: executors, Yolo: !d.setup.Ask, Env: d.setup.Env, Aliases: aliases, Providers: providers,
		Registering: d.registering, Members: d.setup.Members, Git: d.setup.Git, StateFS: stateFS, StateDir: d.setup.StateDir})
	if err != nil {
		d.bootErr = err
		return err
	}
	d.Backend, d.sh = b, sh
	// The backend's own loop applies what its processes post, on the
	// simulated clock: Settle only waits for it.
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); b.Serve(ctx) }()
	d.serving = func() { cancel(); <-served }
	timeout := time.Duration(0)
	if v := d.setup.Env["PLURNK_RPC_TIMEOUT"]; v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("PLURNK_RPC_TIMEOUT=%q: %w", v, err)
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
	d.rpcSrv = rpc.NewServerWith(b, rpc.ServerConfig{Vary: varied, Clock: d.DaemonClock, Timeout: timeout, Logf: d.logf})
	d.srv = httptest.NewServer(d.rpcSrv)
	d.url = "ws" + strings.TrimPrefix(d.srv.URL, "http")
	return nil
}

// provider is the daemon's model: the router over the scenario's scripts,
// or the OpenAI-compatible client of a loopback model server; behind the
// operator's aliases when the scenario declares any.
func (d *daemon) provider() (provider.Provider, func(string) bool, []string, error) {
	var prov provider.Provider = router{d.script}
	factories := map[string]provider.Factory{"mock": func(id string) (provider.Provider, error) {
		return d.script.ModelFor(id), nil
	}}
	if d.setup.HTTP {
		d.llmSrv = newModelServer(d.script.Model, d.setup.Company)
		d.llmHS = d.llmSrv.Start()
		prov = &provider.OpenAI{BaseURL: d.llmHS.URL + "/v1", Model: "scripted", Stream: d.setup.Stream}
		if d.setup.Env[provider.EnvOpenAIBaseURL] == "" {
			d.setup.Env[provider.EnvOpenAIBaseURL] = d.llmHS.URL + "/v1"
		}
		factories["openai"] = provider.OpenAIFactory(d.setup.Env)
	}
	if as, perr := provider.ParseAliases(d.setup.Env); perr != nil || len(as) > 0 || d.setup.Selector {
		sel, err := provider.NewSelector(d.setup.Env, factories)
		if err != nil {
			return nil, nil, nil, err
		}
		return sel, sel.Has, sel.Packages(), nil
	}
	return prov, nil, []string{"mock"}, nil
}

// newModelServer serves model over the chat-completions protocol.
func newModelServer(model *llm.Mock, company bool) *llm.Server {
	s := llm.NewServer(model)
	s.HonourGrammar = model.HonourGrammar
	if company {
		s.Company = 200 * time.Millisecond
	}
	return s
}

// router is the daemon's model: each run named in a "the daemon's run …
// will reply" step answers from its own script, every other run from the
// shared one.
type router struct{ s *Script }

func (r router) Generate(ctx context.Context, req provider.Request) (provider.Response, error) {
	return r.s.Runs.generate(ctx, req.Run, r.s.Model, req)
}

func (r router) CountTokens(text string) int    { return r.s.Model.CountTokens(text) }
func (r router) CostFor(u provider.Usage) int64 { return r.s.Model.CostFor(u) }
func (r router) ContextSize() (int, bool)       { return r.s.Model.ContextSize() }

// stopServing stops the backend's Serve loop, before the backend shuts
// down: nothing is applied while it does.
func (d *daemon) stopServing() {
	if d.serving != nil {
		d.serving()
		d.serving = nil
	}
}

func (d *daemon) Started() bool         { return d.srv != nil }
func (d *daemon) BootErr() error        { return d.bootErr }
func (d *daemon) URL() string           { return d.url }
func (d *daemon) Internal(string) error { return nil }
func (d *daemon) DaemonFS() afero.Fs    { return d.fs }

func (d *daemon) Spawns() []exec.Spec {
	if d.sh == nil {
		return nil
	}
	return d.sh.Spawns()
}

func (d *daemon) PassDaemonCommands(ms int) error {
	step := 50 * time.Millisecond
	for left := time.Duration(ms) * time.Millisecond; left > 0; left -= step {
		d.DaemonClock.Advance(min(step, left))
		d.Settle()
	}
	return nil
}

func (d *daemon) PassClock(ms int) error {
	d.DaemonClock.Advance(time.Duration(ms) * time.Millisecond)
	d.Settle()
	return nil
}

// Settle waits until the backend, while it serves, is quiescent.
func (d *daemon) Settle() {
	if d.serving != nil {
		d.Backend.Settle()
	}
}

func (d *daemon) Logged() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.logged...)
}

func (d *daemon) logf(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.logged = append(d.logged, fmt.Sprintf(format, args...))
}

func (d *daemon) ModelServer() *llm.Server { return d.llmSrv }

// KeepState keeps the daemon's state in dir of a memory file system, with
// failpoints.
func (d *daemon) KeepState(dir string) {
	d.stateFS, d.setup.StateDir = vfs.NewFaulty(afero.NewMemMapFs(), 1), dir
}

// KeepDefaultState configures the daemon as plurnkd configures itself
// when given no state directory: its state under the operator's home.
func (d *daemon) KeepDefaultState() {
	d.KeepState(rpc.DefaultStateDir(OperatorHome, Workspace))
}

func (d *daemon) StateFS() *vfs.Faulty { return d.stateFS }

// Stop stops the daemon as plurnkd does on SIGINT or SIGTERM: its
// connections and server close, the requests in flight finish, then the
// backend shuts down. A request that never finishes keeps plurnkd from
// exiting: Stop says so after StopTimeout of the wall clock.
func (d *daemon) Stop() error {
	d.stopServing()
	d.conns.closeAll()
	d.srv.Close()
	err := waitServed(d.rpcSrv)
	d.srv = nil
	d.Backend.Shutdown()
	return err
}

// StopTimeout bounds how long Stop waits for the requests in flight.
const StopTimeout = 30 * time.Second

// waitServed waits for srv's requests in flight, at most StopTimeout.
func waitServed(srv *rpc.Server) error {
	done := make(chan struct{})
	go func() { srv.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(StopTimeout):
		return fmt.Errorf("the daemon did not stop: a request it was answering had not finished after %s", StopTimeout)
	}
}

// Restart stops the daemon and starts it again from its state directory.
// A daemon that dies ends what it still had running in its own memory;
// none of it is saved.
func (d *daemon) Restart(onPurpose bool) error {
	if onPurpose {
		if err := d.Stop(); err != nil {
			return err
		}
		return d.Boot()
	}
	d.stopServing()
	d.Backend.Shutdown()
	d.conns.closeAll()
	d.srv.Close()
	d.srv = nil
	for _, p := range vfs.Failpoints() {
		d.stateFS.Disarm(p)
	}
	return d.Boot()
}

// RestartAltered stops the daemon on purpose, runs alter, and boots it
// again (a refusal is BootErr's).
func (d *daemon) RestartAltered(alter func() error) error {
	if err := d.Stop(); err != nil {
		return err
	}
	if err := alter(); err != nil {
		return err
	}
	_ = d.Boot()
	return nil
}

// HoldRegistration holds the next EXEC dispatch while its stream
// registers, until ReleaseRegistration; held is signalled when one is
// held.
func (d *daemon) HoldRegistration() (held <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.hold, d.held = make(chan struct{}), make(chan struct{}, 1)
	return d.held
}

func (d *daemon) ReleaseRegistration() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.hold != nil {
		close(d.hold)
		d.hold = nil
	}
}

// registering is the Registering seam: when the scenario holds dispatches,
// it signals held and waits for hold to close.
func (d *daemon) registering(int64, string, string) {
	d.mu.Lock()
	hold, held := d.hold, d.held
	d.mu.Unlock()
	if hold == nil {
		return
	}
	held <- struct{}{}
	<-hold
}

// SimGit stands in for the git binary over the daemon's in-memory
// workspace: the workspace root is one repository tracking the listed
// files, and no other folder is a repository.
type SimGit struct {
	Root    string
	Tracked []string
	Fail    string // when set, every listing fails with this message
}

func (g SimGit) LsFiles(dir string) ([]string, error) {
	if g.Fail != "" {
		return nil, errors.New(g.Fail)
	}
	if path.Clean(dir) != path.Clean(g.Root) {
		return nil, fmt.Errorf("%s: %w", dir, membership.ErrNoRepo)
	}
	return append([]string(nil), g.Tracked...), nil
}
