package driver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	osexec "os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/rpc"
	"anchorage/sim/llm"
	"anchorage/sim/plurnkexec"
	"anchorage/sim/vfs"

	"github.com/cucumber/godog"
	"github.com/spf13/afero"
	"github.com/tidwall/gjson"
)

// processPrefix names the temporary directory of one scenario's daemon.
const processPrefix = "plurnk-daemon-"

// Process is a plurnk daemon started by $PLURNK_CMD for one scenario on a
// real temporary directory, its model the scenario's script served over
// the OpenAI-compatible chat-completions protocol on loopback, its host
// commands real executables the harness writes from the scenario's
// script. The scenario's paths keep their embedded spelling: /work is the
// daemon's workspace, {root}; every other absolute path the scenario
// names (operator files, the state directory, HOME) lies under the same
// temporary directory.
//
// A scenario that reaches no daemon itself (data) goes through one too:
// what it gives is written as a client through the op.* mirror (or on
// disk, for workspace files), each emitted statement is one op.* call or
// one turn of the scripted model, and what it reads comes back from
// entry.read, log.read, session.runs and the notifications.
type Process struct {
	script  *Script
	setup   *DaemonSetup
	conns   Conns
	cmdline string
	logf    func(string, ...any)
	tmp     string // the scenario's disk: MkdirTemp, removed by kit.RemoveTemp
	root    string // tmp + Workspace: {root}
	bin     string // the scenario's commands, first on the daemon's PATH
	spawned string // where each command notes its spawns and exits
	port    int
	gitDone bool     // the workspace is a git repository
	shell   []string // the service's shell environment the daemon starts with verbatim
	// probe: the scenario lets less than minWait pass on the daemon's
	// clock, a boundary a wall clock cannot resolve.
	probe   bool
	now     int64 // the commands' clock, ms
	fs      afero.Fs
	stateFS *vfs.Faulty
	models  *modelServers
	llmSrv  *llm.Server
	llmHS   *httptest.Server
	cmd     *osexec.Cmd
	out     *kit.SyncBuffer // what the daemon printed on stdout and stderr
	exited  chan struct{}   // closed when the process has ended
	waited  error           // its exit, once exited is closed
	url     string
	bootErr error
	data    dataPlane
}

// dataPlane is what the steps of a scenario that reaches no daemon itself
// hold of the daemon they go through.
type dataPlane struct {
	c *rpc.Client
	// given are the entries the scenario gives before the daemon starts,
	// written when it does: what the operator sets is read at the start.
	given []func() error
	// laidOut: the scenario lays out a project whose membership it pins,
	// so the session picks nothing but what the scenario says.
	laidOut bool
	run     string // the one run of a session of runs: the model run
	opened  int    // the sessions the data plane has opened
	output  string // the exec output given, its target
	relayed int    // what its command was given to print
	// execTarget is the stream of the model's first EXEC (ExecAccepted),
	// execPlan the scenario's EXEC steps, stepText the text of its steps,
	// execCalls the EXEC steps taken and execResults the results of those
	// the model's turn gave, by their place in execPlan.
	execTarget  string
	execPlan    []plannedExec
	stepText    []string
	execCalls   int
	execResults map[int]ops.Result
	eventsSeen  int    // the stream/event notifications StreamEvents gave
	projectDir  string // the project laid out, the daemon's root
}

// newProcess is the process driver of a scenario, or a godog.ErrSkip
// error for a scenario it cannot express: one whose steps take the engine
// as a library, which no daemon protocol exposes.
func newProcess(ctx context.Context, sc *godog.Scenario, cmdline string, script *Script, conns Conns, public []string) (*Process, error) {
	logf := func(string, ...any) {}
	if t := godog.T(ctx); t != nil {
		logf = t.Logf
	}
	if s, err := kit.From(ctx); err == nil && s.Unselected {
		return nil, godog.ErrSkip
	}
	p := &Process{script: script, setup: &script.Daemon, conns: conns, cmdline: cmdline, logf: logf, probe: probes(sc)}
	data := !reachesDaemon(sc)
	if data {
		why, step := "", libraryStep(sc, public)
		if step != "" {
			why = libraryReason(step)
		} else {
			why, step = boundStep(sc)
		}
		if why != "" {
			// The reason alone on the SKIPPED line (so the counts group by
			// it), the step on the next.
			err := fmt.Errorf("%w: %s", godog.ErrSkip, why)
			logf("SKIPPED (%v)", err)
			logf("  at the step %q", step)
			return nil, err
		}
	}
	if why, ok := harnessBound[sc.Name]; ok {
		err := fmt.Errorf("%w: %s", godog.ErrSkip, why)
		logf("SKIPPED (%v)", err)
		return nil, err
	}
	if err := p.makeDisk(); err != nil {
		return nil, err
	}
	if data {
		p.data.execPlan = planExecs(sc)
		for _, st := range sc.Steps {
			p.data.stepText = append(p.data.stepText, st.Text)
		}
		// The engine's operator environment, which its steps set: the
		// daemon's.
		p.setup.Env["HOME"] = OperatorHome
		p.data.run, _ = oneRun(sc)
		p.setup.Ask = asks(sc)
	}
	return p, nil
}

// makeDisk makes the scenario's temporary directory: the workspace, the
// commands' directory, their notes and the commands' clock, HOME.
func (p *Process) makeDisk() error {
	tmp, err := os.MkdirTemp("", processPrefix)
	if err != nil {
		return fmt.Errorf("plurnk process: %w", err)
	}
	p.tmp, p.root = tmp, filepath.Join(tmp, Workspace)
	p.bin, p.spawned = filepath.Join(tmp, "bin"), filepath.Join(tmp, "spawned")
	for _, dir := range []string{p.root, p.bin, p.spawned, filepath.Join(tmp, "home")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			_ = kit.RemoveTemp(tmp, processPrefix)
			return fmt.Errorf("plurnk process: %w", err)
		}
	}
	if err := p.tick(0); err != nil {
		_ = kit.RemoveTemp(tmp, processPrefix)
		return fmt.Errorf("plurnk process: the commands' clock: %w", err)
	}
	p.fs = parentsFs{afero.NewBasePathFs(afero.NewOsFs(), tmp)}
	return nil
}

// skip is the error of a step the process driver cannot express, logged
// as the runner's report expects.
func (p *Process) skip(format string, args ...any) error {
	err := fmt.Errorf("%w: "+format, append([]any{godog.ErrSkip}, args...)...)
	p.logf("SKIPPED (%v)", err)
	return err
}

// Close stops the daemon, the commands it left running (a daemon that
// died leaves them) and the model server, and removes the scenario's
// disk; failed logs what the daemon printed.
func (p *Process) Close(failed bool) error {
	if failed {
		p.logf("the daemon's console:\n%s", p.console())
	}
	p.conns.closeAll()
	p.stop(true)
	for _, sp := range p.noted() {
		// Only a process still running one of the scenario's commands
		// (its pid not reused since).
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", sp.pid)); err == nil && strings.Contains(string(b), p.bin) {
			_ = syscall.Kill(sp.pid, syscall.SIGKILL)
		}
	}
	if p.llmHS != nil {
		p.llmHS.Close()
	}
	if err := kit.RemoveTemp(p.tmp, processPrefix); err != nil {
		p.logf("plurnk process: %v", err)
	}
	return nil
}

// Boot starts the daemon process on the scenario's workspace, on first
// use.
func (p *Process) Boot() error {
	if p.Started() {
		return nil
	}
	if err := p.prepare(); err != nil {
		return err
	}
	r := strings.NewReplacer("{port}", strconv.Itoa(p.port), "{root}", p.root)
	args := strings.Fields(r.Replace(p.cmdline))
	cmd := osexec.Command(args[0], args[1:]...)
	cmd.Dir = p.root
	cmd.Env = p.environ()
	if p.out == nil {
		p.out = &kit.SyncBuffer{} // one console across restarts
	}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		p.bootErr = fmt.Errorf("%s: %w", EnvCmd, err)
		return p.bootErr
	}
	p.cmd, p.exited = cmd, make(chan struct{})
	go func() {
		p.waited = cmd.Wait()
		close(p.exited)
	}()
	addr := "127.0.0.1:" + strconv.Itoa(p.port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-p.exited:
			p.bootErr = fmt.Errorf("the daemon exited (%v): %s", p.waited, strings.TrimSpace(p.out.String()))
			p.cmd = nil
			return p.bootErr
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			p.bootErr = fmt.Errorf("the daemon did not listen on %s within 20s: %s", addr, p.out.String())
			return p.bootErr
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.url = "ws://" + addr + "/"
	return nil
}

// prepare starts the model server, writes the commands, makes the
// workspace a repository when the scenario's git tracks it and picks the
// port, before the daemon starts.
func (p *Process) prepare() error {
	if p.llmHS == nil {
		p.llmSrv = newModelServer(p.script.Model, p.setup.Company)
		p.models = &modelServers{p: p, byID: map[string]*llm.Server{"scripted": p.llmSrv}}
		for id, m := range p.script.Models {
			p.models.byID[id] = llm.NewServer(m)
		}
		p.llmHS = httptest.NewServer(p.models)
	}
	for name, s := range p.script.Commands {
		if err := p.writeScript(name, s); err != nil {
			return err
		}
	}
	if g, ok := p.setup.Git.(SimGit); ok && !p.gitDone {
		if err := p.gitInit(g.Tracked); err != nil {
			return err
		}
		p.gitDone = true
	}
	if p.port == 0 {
		port, err := kit.FreePort()
		if err != nil {
			return err
		}
		p.port = port
	}
	return nil
}

// environ is the daemon's environment: the operator's variables (absolute
// paths moved under the scenario's disk, the scripted models' "mock/ID"
// aliases served as "openai/ID"), the model's base URL, the scenario's
// commands first on PATH, and nothing else of the harness's environment.
func (p *Process) environ() []string {
	env := map[string]string{
		"PATH": p.bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME": filepath.Join(p.tmp, "home"),
	}
	aliases := false
	for k, v := range p.setup.Env {
		switch {
		case strings.HasPrefix(k, "PLURNK_MODEL_"):
			aliases = true
			if id, ok := strings.CutPrefix(v, "mock/"); ok && id != "" {
				v = "openai/" + id
			}
		case strings.HasPrefix(v, "/"):
			v = filepath.Join(p.tmp, v)
		}
		env[k] = v
	}
	for _, kv := range p.shell {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	if _, ok := env["PLURNK_OPENAI_BASE_URL"]; !ok {
		env["PLURNK_OPENAI_BASE_URL"] = p.llmHS.URL + "/v1"
	}
	if !aliases && !p.setup.Selector {
		env["PLURNK_MODEL_scripted"], env["PLURNK_MODEL"] = "openai/scripted", "scripted"
	}
	if p.setup.Stream {
		env["PLURNK_OPENAI_STREAM"] = "1"
	}
	if _, ok := env[provider.EnvOpenAIContext]; !ok && p.script.Model.Context > 0 {
		env[provider.EnvOpenAIContext] = strconv.Itoa(p.script.Model.Context)
	}
	if _, ok := env[provider.EnvOpenAICharsPerToken]; !ok && p.script.Model.CharsPerToken > 0 {
		env[provider.EnvOpenAICharsPerToken] = strconv.Itoa(p.script.Model.CharsPerToken)
	}
	if !p.setup.Ask {
		env["PLURNK_YOLO"] = "1"
	}
	if p.setup.StateDir != "" {
		env["PLURNK_STATE_DIR"] = filepath.Join(p.tmp, p.setup.StateDir)
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// stop ends the daemon: SIGTERM, then SIGKILL 5 s later; SIGKILL at once
// when it is not stopped on purpose.
func (p *Process) stop(onPurpose bool) {
	if p.cmd == nil {
		return
	}
	if onPurpose {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
			return
		case <-time.After(5 * time.Second):
		}
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// console is what the daemon printed so far.
func (p *Process) console() string {
	if p.out == nil {
		return ""
	}
	return p.out.String()
}

// Restart stops the daemon (on purpose: SIGTERM; else it dies: SIGKILL)
// and starts it again from its state directory.
func (p *Process) Restart(onPurpose bool) error {
	p.conns.closeAll()
	p.stop(onPurpose)
	p.cmd = nil
	return p.Boot()
}

// RestartAltered stops the daemon on purpose, runs alter, and starts it
// again (a refusal is BootErr's).
func (p *Process) RestartAltered(alter func() error) error {
	p.conns.closeAll()
	p.stop(true)
	p.cmd = nil
	if err := alter(); err != nil {
		return err
	}
	_ = p.Boot()
	return nil
}

func (p *Process) Started() bool  { return p.cmd != nil }
func (p *Process) BootErr() error { return p.bootErr }
func (p *Process) URL() string    { return p.url }

func (p *Process) Internal(what string) error {
	return p.skip("%s needs the embedded daemon, which %s does not expose", what, EnvCmd)
}

func (p *Process) DaemonFS() afero.Fs { return p.fs }

// Command records what the command name does and writes it as an
// executable.
func (p *Process) Command(name string, s plurnkexec.Script) error {
	p.script.Commands[name] = s
	return p.writeScript(name, s)
}

func (p *Process) PassDaemonCommands(ms int) error {
	return p.pass(time.Duration(ms) * time.Millisecond)
}

func (p *Process) PassClock(ms int) error { return p.passClock(time.Duration(ms) * time.Millisecond) }

// Logged is what the daemon printed, line by line.
func (p *Process) Logged() []string         { return strings.Split(p.console(), "\n") }
func (p *Process) ModelServer() *llm.Server { return p.llmSrv }

// KeepState keeps the daemon's state in dir under the scenario's disk.
func (p *Process) KeepState(dir string) {
	p.stateFS, p.setup.StateDir = vfs.NewFaulty(p.fs, 1), dir
}

// KeepDefaultState starts the daemon without PLURNK_STATE_DIR: it keeps
// its state where it does by default, plurnkd under its HOME, which is
// the scenario's and survives its restarts.
func (p *Process) KeepDefaultState() { p.KeepState("") }

func (p *Process) StateFS() *vfs.Faulty { return p.stateFS }

// Settle waits until the daemon is quiet: no call to the model in flight,
// no run of a known session at 102, and nothing changed over several
// looks (the model's calls and every run's status and loops).
func (p *Process) Settle() {
	if p.cmd == nil || p.models == nil {
		return
	}
	deadline := time.Now().Add(CallTimeout)
	last, same := "", 0
	for time.Now().Before(deadline) {
		key, inflight, running := p.look()
		switch {
		case inflight || key != last:
			same = 0
		case !running && same >= 4, same >= 25:
			// A run at 102 with nothing moving for 250 ms is paused at
			// a proposal or waits on a command, as the embedded
			// daemon's Settle leaves it.
			return
		default:
			same++
		}
		last = key
		time.Sleep(10 * time.Millisecond)
	}
	p.logf("plurnk process: the daemon did not settle within %s", CallTimeout)
}

// look is one look at the daemon: a fingerprint of what the harness can
// see of it (the model's calls, the notifications heard, every known
// session's runs), whether a call to the model is in flight and whether a
// run is at 102.
func (p *Process) look() (key string, inflight, running bool) {
	n, calls := p.models.load()
	inflight = n > 0
	var b strings.Builder
	fmt.Fprintf(&b, "calls %d\n", calls)
	names := p.conns.names()
	for _, who := range names {
		fmt.Fprintf(&b, "%s heard %d\n", who, len(p.conns[who].C.Notes()))
	}
	seen := map[int64]bool{}
	for _, who := range names {
		c := p.conns[who]
		id := c.Session.Get("id").Int()
		if !c.Session.Exists() && !c.Loop.Exists() || seen[id] {
			continue
		}
		seen[id] = true
		ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
		a, err := c.C.Call(ctx, "session.runs", nil)
		cancel()
		if err != nil || a.Error != nil {
			continue
		}
		for _, r := range gjson.GetBytes(a.Result, "runs").Array() {
			if r.Get("status").Int() == 102 {
				running = true
			}
		}
		b.Write(a.Result)
		b.WriteByte('\n')
	}
	return b.String(), inflight, running
}

// names are the connections' names, in order.
func (cs Conns) names() []string {
	var out []string
	for who := range cs {
		out = append(out, who)
	}
	sort.Strings(out)
	return out
}

// modelServers serves the scenario's scripted models over the
// chat-completions protocol: a request for the model "scripted" is
// answered from the scenario's model, one for another id from the model
// the scenario gave that id.
type modelServers struct {
	mu       sync.Mutex
	p        *Process
	byID     map[string]*llm.Server
	byRun    map[string]*llm.Server // the runs scripted on their own, by name
	inflight int
	calls    int
}

func (m *modelServers) load() (int, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inflight, m.calls
}

func (m *modelServers) server(id string) *llm.Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byID[id]
	if !ok {
		s = llm.NewServer(m.p.script.ModelFor(id))
		m.byID[id] = s
	}
	return s
}

func (m *modelServers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	id := gjson.GetBytes(body, "model").String()
	if id == "" {
		id = "scripted"
	}
	m.p.awaitNotes()
	m.mu.Lock()
	m.inflight++
	m.calls++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.inflight--
		m.mu.Unlock()
	}()
	srv := m.server(id)
	if run := m.runServer(id, r.Header.Get("X-Plurnk-Run")); run != nil {
		srv = run
	}
	tee := &teeWriter{ResponseWriter: w}
	srv.ServeHTTP(tee, r)
	m.reported(id, tee.body.Bytes())
}

// runServer is the server of the script of the run a request of the
// scripted model names (its X-Plurnk-Run header), when the scenario
// scripts that run on its own; nil otherwise.
func (m *modelServers) runServer(id, run string) *llm.Server {
	if id != "scripted" || run == "" {
		return nil
	}
	runs := m.p.script.Runs
	mock, ok := runs.Get(run)
	if main := m.p.data.run; !ok && main != "" && run != main {
		// A run of a session of runs that the scenario does not script
		// has nothing to say, as in the embedded service.
		mock, ok = runs.Ensure(run), true
	}
	if !ok {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byRun == nil {
		m.byRun = map[string]*llm.Server{}
	}
	s, ok := m.byRun[run]
	if !ok {
		s = llm.NewServer(mock)
		m.byRun[run] = s
	}
	return s
}

// reported records the usage the model server reported on a completion
// (the whole answer's, or the usage chunk of a stream) as the scripted
// model's reported usage, which the embedded daemon learns by asking the
// model itself.
func (m *modelServers) reported(id string, body []byte) {
	usage := gjson.GetBytes(body, "usage")
	for _, line := range strings.Split(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok && gjson.Get(data, "usage").Exists() {
			usage = gjson.Get(data, "usage")
		}
	}
	if !usage.Exists() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	model := m.p.script.ModelFor(id)
	if id == "scripted" {
		model = m.p.script.Model
	}
	model.CostCalls = append(model.CostCalls, provider.Usage{PromptTokens: int(usage.Get("prompt_tokens").Int()), CompletionTokens: int(usage.Get("completion_tokens").Int())})
}

// teeWriter keeps a copy of what a handler writes.
type teeWriter struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (t *teeWriter) Write(p []byte) (int, error) {
	t.body.Write(p)
	return t.ResponseWriter.Write(p)
}

func (t *teeWriter) Flush() {
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// parentsFs makes the directories above a file it creates, as the
// embedded daemon's memory file system has them.
type parentsFs struct{ afero.Fs }

func (f parentsFs) Create(name string) (afero.File, error) {
	if err := f.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return nil, err
	}
	return f.Fs.Create(name)
}

func (f parentsFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if flag&os.O_CREATE != 0 {
		if err := f.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return nil, err
		}
	}
	return f.Fs.OpenFile(name, flag, perm)
}
