package plurnk

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
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/provider"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
	"github.com/spf13/afero"
	"github.com/tidwall/gjson"
)

// EnvCmd is the environment variable that runs the daemon features against
// a plurnk daemon started as a process (the protocol of features/README.md,
// "PLURNK_CMD") instead of the embedded reference daemon: a command line
// with {port} and {root}.
const EnvCmd = "PLURNK_CMD"

// processPrefix names the temporary directory of one scenario's daemon.
const processPrefix = "plurnk-daemon-"

// daemonProcess is the driver of a scenario whose daemon is a process: one
// daemon per scenario, started by $PLURNK_CMD on a real temporary
// directory, its model the scenario's scripted model served over the
// OpenAI-compatible chat-completions protocol on loopback, its host
// commands real executables the harness writes from the scenario's
// scripts. The world's paths keep their embedded spelling: /work is the
// daemon's workspace, {root}; every other absolute path the scenario names
// (operator files, the state directory, HOME) lies under the same
// temporary directory.
type daemonProcess struct {
	cmdline string
	logf    func(string, ...any)
	tmp     string // the scenario's disk: MkdirTemp, removed by kit.RemoveTemp
	root    string // tmp + workspace: {root}
	bin     string // the scenario's commands, first on the daemon's PATH
	spawned string // where each command notes its spawns and exits
	port    int
	gitDone bool // the workspace is a git repository
	// shell is the service's shell environment the scenario gives
	// (NAME=VALUE), which the daemon starts with verbatim.
	shell []string
	// data: the scenario reaches no daemon itself; its data-plane steps
	// go through one (daemonData).
	data bool
	// probe: the scenario lets less than minWait pass on the daemon's
	// clock, a boundary a wall clock cannot resolve.
	probe bool
	now   int64 // the commands' clock, ms

	models *modelServers
	llmHS  *httptest.Server

	cmd    *osexec.Cmd
	out    *kit.SyncBuffer // what the daemon printed on stdout and stderr
	exited chan struct{}   // closed when the process has ended
	waited error           // its exit, once exited is closed
}

// processDriver picks the scenario's driver: nil (the embedded daemon)
// unless $PLURNK_CMD is set. A scenario with no step reaching a daemon
// tests the engine's library surface, which no daemon protocol exposes: it
// is skipped for the process target.
func processDriver(ctx context.Context, d *daemonWorld, sc *godog.Scenario) (*daemonProcess, error) {
	cmdline := strings.TrimSpace(os.Getenv(EnvCmd))
	if cmdline == "" {
		return nil, nil
	}
	logf := func(string, ...any) {}
	if t := godog.T(ctx); t != nil {
		logf = t.Logf
	}
	if s, err := kit.From(ctx); err == nil && s.Unselected {
		return nil, godog.ErrSkip
	}
	p := &daemonProcess{cmdline: cmdline, logf: logf}
	timers := daemonTimers(sc)
	for _, st := range sc.Steps {
		if m := clockStep.FindStringSubmatch(st.Text); m != nil {
			// A short wait for the running commands alone is exact: their
			// times are on the commands' clock, which the harness moves.
			// It probes a boundary when the daemon's own timers run too.
			if ms, _ := strconv.Atoi(m[1]); ms < minWait && (m[2] == "" || timers) {
				p.probe = true
			}
		}
	}
	if !reachesDaemon(sc) {
		// The reason alone on the SKIPPED line (so the counts group by
		// it), the step on the next.
		if step := libraryStep(sc); step != "" {
			err := fmt.Errorf("%w: %s", godog.ErrSkip, libraryReason(step))
			logf("SKIPPED (%v)", err)
			logf("  at the step %q", step)
			return nil, err
		}
		if why, step := boundStep(sc); why != "" {
			err := fmt.Errorf("%w: %s", godog.ErrSkip, why)
			logf("SKIPPED (%v)", err)
			logf("  at the step %q", step)
			return nil, err
		}
		p.data = true
	}
	if why, ok := harnessBound[sc.Name]; ok {
		err := fmt.Errorf("%w: %s", godog.ErrSkip, why)
		logf("SKIPPED (%v)", err)
		return nil, err
	}
	tmp, err := os.MkdirTemp("", processPrefix)
	if err != nil {
		return nil, fmt.Errorf("plurnk process: %w", err)
	}
	p.tmp, p.root = tmp, filepath.Join(tmp, workspace)
	p.bin, p.spawned = filepath.Join(tmp, "bin"), filepath.Join(tmp, "spawned")
	for _, dir := range []string{p.root, p.bin, p.spawned, filepath.Join(tmp, "home")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			_ = kit.RemoveTemp(tmp, processPrefix)
			return nil, fmt.Errorf("plurnk process: %w", err)
		}
	}
	if err := p.tick(0); err != nil {
		_ = kit.RemoveTemp(tmp, processPrefix)
		return nil, fmt.Errorf("plurnk process: the commands' clock: %w", err)
	}
	d.fs = parentsFs{afero.NewBasePathFs(afero.NewOsFs(), tmp)}
	return p, nil
}

// harnessBound names, by scenario, what a scenario pins of the embedded
// harness rather than of the daemon.
var harnessBound = map[string]string{
	"discover needs no session and lists the methods, notifications and capabilities": `it pins capabilities.providers = ["mock"], the embedded harness's provider package; a daemon process reaches the scripted model through its own package (plurnkd: "openai")`,
	"discover lists each provider package in use once, in alphabetical order":         `it declares an alias of "mock", the embedded harness's second provider package; plurnkd's are "openai" and "scripted"`,
}

// clockStep is a step letting time pass on the daemon's clock.
var clockStep = regexp.MustCompile(`^(\d+) ms pass (?:on the (?:daemon's|session) clock|(for the running commands))$`)

// timedExec is an EXEC with a positive time limit, which the daemon times
// on its own clock.
var timedExec = regexp.MustCompile(`<<EXEC(?:\[\w*\])?<0*[1-9]|<<EXEC(?:\[\w*\])?<0*\.\d*[1-9]`)

// daemonTimers reports whether the daemon's own timers take part in the
// scenario: an EXEC's time limit, the kill grace, a command that ignores
// the polite signal.
func daemonTimers(sc *godog.Scenario) bool {
	for _, st := range sc.Steps {
		texts := []string{st.Text}
		if st.Argument != nil && st.Argument.DocString != nil {
			texts = append(texts, st.Argument.DocString.Content)
		}
		for _, t := range texts {
			if timedExec.MatchString(t) || strings.Contains(t, "PLURNK_EXEC_KILL_GRACE_MS") || strings.Contains(t, "ignores the polite signal") {
				return true
			}
		}
	}
	return false
}

// minWait and maxWait bound the waits on the wall clock that stand for
// time passing on the daemon's clock: shorter ones probe a boundary the
// wall clock cannot resolve, longer ones cost too much.
const (
	minWait = 100 // ms
	maxWait = 6 * time.Second
)

var daemonEntry = regexp.MustCompile(`^(a connection "\w+" to the daemon|the daemon boots)$`)

// reachesDaemon reports whether a step of the scenario starts or reaches
// a daemon.
func reachesDaemon(sc *godog.Scenario) bool {
	for _, st := range sc.Steps {
		if daemonEntry.MatchString(st.Text) {
			return true
		}
	}
	return false
}

// skip is the error of a step the process driver cannot express, logged
// as the runner's report expects.
func (p *daemonProcess) skip(format string, args ...any) error {
	err := fmt.Errorf("%w: "+format, append([]any{godog.ErrSkip}, args...)...)
	p.logf("SKIPPED (%v)", err)
	return err
}

// internal refuses, for a daemon process, a step that needs the embedded
// daemon's insides; nil for the embedded one.
func (d *daemonWorld) internal(what string) error {
	if d.proc == nil {
		return nil
	}
	return d.proc.skip("%s needs the embedded daemon, which %s does not expose", what, EnvCmd)
}

// started reports whether the daemon is up.
func (d *daemonWorld) started() bool {
	return d.srv != nil || (d.proc != nil && d.proc.cmd != nil)
}

// stateBase is the file system a kept state directory lies on: memory for
// the embedded daemon (faults are injected over it), the scenario's disk
// for a process.
func (d *daemonWorld) stateBase() afero.Fs {
	if d.proc != nil {
		return d.fs
	}
	return afero.NewMemMapFs()
}

// setScript records what the command name does, and for a process writes
// it as an executable.
func (d *daemonWorld) setScript(name string, s exec.Script) error {
	d.scripts[name] = s
	if d.proc == nil {
		return nil
	}
	return d.proc.writeScript(name, s)
}

// spawns lists the host commands the daemon started, each with the
// directory it ran in (as the world spells it).
func (d *daemonWorld) spawns() []exec.Spec {
	if d.proc != nil {
		return d.proc.spawns()
	}
	if d.sh == nil {
		return nil
	}
	return d.sh.Spawns()
}

// passCommands lets ms of the running commands' time go by.
func (d *daemonWorld) passCommands(ms int) error {
	if d.proc != nil {
		return d.proc.pass(d, time.Duration(ms)*time.Millisecond)
	}
	step := 50 * time.Millisecond
	for left := time.Duration(ms) * time.Millisecond; left > 0; left -= step {
		d.clk.Advance(min(step, left))
		d.backend.Settle()
	}
	return nil
}

// loggedLines is what the daemon only logged: its log lines, or for a
// process the lines it printed.
func (d *daemonWorld) loggedLines() []string {
	if d.proc != nil {
		return strings.Split(d.proc.console(), "\n")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.logged...)
}

// passClock lets ms go by on the daemon's clock.
func (d *daemonWorld) passClock(ms int) error {
	if d.proc != nil {
		return d.proc.passClock(d, time.Duration(ms)*time.Millisecond)
	}
	d.clk.Advance(time.Duration(ms) * time.Millisecond)
	d.settle()
	return nil
}

// restart stops the daemon (on purpose: SIGTERM; else it dies: SIGKILL)
// and starts it again from its state directory.
func (d *daemonWorld) restartProcess(onPurpose bool) error {
	for _, c := range d.conns {
		c.c.Close()
	}
	d.proc.stop(onPurpose)
	d.proc.cmd = nil
	return d.proc.boot(d)
}

// boot starts the daemon process on the scenario's workspace.
func (p *daemonProcess) boot(d *daemonWorld) error {
	if p.llmHS == nil {
		d.llmSrv = llm.NewServer(d.model)
		d.llmSrv.HonourGrammar = d.model.HonourGrammar
		if d.company {
			d.llmSrv.Company = 200 * time.Millisecond
		}
		p.models = &modelServers{d: d, byID: map[string]*llm.Server{"scripted": d.llmSrv}}
		for id, m := range d.models {
			p.models.byID[id] = llm.NewServer(m)
		}
		p.llmHS = httptest.NewServer(p.models)
	}
	for name, s := range d.scripts {
		if err := p.writeScript(name, s); err != nil {
			return err
		}
	}
	if g, ok := d.git.(simGit); ok && !p.gitDone {
		if err := p.gitInit(g.tracked); err != nil {
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
	r := strings.NewReplacer("{port}", strconv.Itoa(p.port), "{root}", p.root)
	args := strings.Fields(r.Replace(p.cmdline))
	cmd := osexec.Command(args[0], args[1:]...)
	cmd.Dir = p.root
	cmd.Env = p.environ(d)
	if p.out == nil {
		p.out = &kit.SyncBuffer{} // one console across restarts
	}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		d.bootErr = fmt.Errorf("%s: %w", EnvCmd, err)
		return d.bootErr
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
			d.bootErr = fmt.Errorf("the daemon exited (%v): %s", p.waited, strings.TrimSpace(p.out.String()))
			p.cmd = nil
			return d.bootErr
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			d.bootErr = fmt.Errorf("the daemon did not listen on %s within 20s: %s", addr, p.out.String())
			return d.bootErr
		}
		time.Sleep(10 * time.Millisecond)
	}
	d.url = "ws://" + addr + "/"
	return nil
}

// environ is the daemon's environment: the operator's variables (absolute
// paths moved under the scenario's disk, the scripted models' "mock/ID"
// aliases served as "openai/ID"), the model's base URL, the scenario's
// commands first on PATH, and nothing else of the harness's environment.
func (p *daemonProcess) environ(d *daemonWorld) []string {
	env := map[string]string{
		"PATH": p.bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME": filepath.Join(p.tmp, "home"),
	}
	aliases := false
	for k, v := range d.env {
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
	if !aliases && !d.selector {
		env["PLURNK_MODEL_scripted"], env["PLURNK_MODEL"] = "openai/scripted", "scripted"
	}
	if d.stream {
		env["PLURNK_OPENAI_STREAM"] = "1"
	}
	if _, ok := env[provider.EnvOpenAIContext]; !ok && d.model.Context > 0 {
		env[provider.EnvOpenAIContext] = strconv.Itoa(d.model.Context)
	}
	if _, ok := env[provider.EnvOpenAICharsPerToken]; !ok && d.model.CharsPerToken > 0 {
		env[provider.EnvOpenAICharsPerToken] = strconv.Itoa(d.model.CharsPerToken)
	}
	if !d.ask {
		env["PLURNK_YOLO"] = "1"
	}
	if d.stateDir != "" {
		env["PLURNK_STATE_DIR"] = filepath.Join(p.tmp, d.stateDir)
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
func (p *daemonProcess) stop(onPurpose bool) {
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

// close stops the daemon, the commands it left running (a daemon that
// died leaves them) and the model server, and removes the scenario's disk.
func (p *daemonProcess) close() {
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
}

// console is what the daemon printed so far.
func (p *daemonProcess) console() string {
	if p.out == nil {
		return ""
	}
	return p.out.String()
}

// gitInit makes the workspace a git repository tracking the files listed,
// with the git binary on PATH, as the daemon's own git sees it.
func (p *daemonProcess) gitInit(tracked []string) error {
	if _, err := osexec.LookPath("git"); err != nil {
		return p.skip("a git workspace needs git on PATH: %v", err)
	}
	run := func(args ...string) error {
		cmd := osexec.Command("git", args...)
		cmd.Dir = p.root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+filepath.Join(p.tmp, "home"))
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := run("init", "-q"); err != nil {
		return err
	}
	if len(tracked) == 0 {
		return nil
	}
	return run(append([]string{"add", "--"}, tracked...)...)
}

var commandName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// writeScript writes the script of a command as an executable on the
// daemon's PATH: it notes its spawn (pid, the commands' clock, directory),
// prints its chunks at their times and exits with the script's code (a
// negative ExitAt never exits on its own), as exec.SimExecutor plays it.
// Its times are on the commands' clock, which moves only while the
// scenario lets time pass, as the simulated clock does.
func (p *daemonProcess) writeScript(name string, s exec.Script) error {
	if !commandName.MatchString(name) {
		return p.skip("the simulated command %q is not one word, so no executable on PATH can stand for it", name)
	}
	if s.IgnoreTerm {
		return p.skip("the simulated command %q ignores SIGTERM", name)
	}
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	// What the shell itself reports (a sleep that died of a signal the
	// script traps) goes nowhere; the script's stderr chunks go to fd 3.
	b.WriteString("exec 3>&2 2>/dev/null\n")
	// A signal it can catch it notes (pid, the signal, the commands'
	// clock), then dies of it; it notes its own exit too, so a process
	// gone with neither note was killed by the signal no process catches.
	// The traps are set before it notes its spawn.
	fmt.Fprintf(&b, "note() { echo \"$$ $1 $(cat '%s' 2>/dev/null)\" >> '%s'; }\n", p.clockFile(), filepath.Join(p.spawned, name+".end"))
	for _, sig := range caught {
		fmt.Fprintf(&b, "trap 'note SIG%[1]s; trap - %[1]s; kill -%[1]s $$' %[1]s\n", sig)
	}
	fmt.Fprintf(&b, "start=$(cat '%s')\n", p.clockFile())
	fmt.Fprintf(&b, "echo \"$$ $start $PWD\" >> '%s'\n", filepath.Join(p.spawned, name+".spawn"))
	// Without the clock (the scenario is over) the command ends.
	fmt.Fprintf(&b, "at() { while [ -f '%[1]s' ] && [ $(( $(cat '%[1]s') - start )) -lt $1 ]; do sleep 0.01; done; [ -f '%[1]s' ] || exit 1; }\n", p.clockFile())
	chunks := append([]exec.ScriptChunk(nil), s.Chunks...)
	sort.SliceStable(chunks, func(i, j int) bool { return chunks[i].At < chunks[j].At })
	for _, c := range chunks {
		if s.ExitAt >= 0 && c.At > s.ExitAt {
			break
		}
		redirect := ""
		if c.Channel == "stderr" {
			redirect = " >&3"
		}
		fmt.Fprintf(&b, "at %d\nprintf '%s'%s\n", c.At.Milliseconds(), octal(c.Data), redirect)
	}
	if s.ExitAt < 0 {
		fmt.Fprintf(&b, "while [ -f '%s' ]; do sleep 0.1; done\nnote exit\nexit 1\n", p.clockFile())
	} else {
		fmt.Fprintf(&b, "at %d\nnote exit\nexit %d\n", s.ExitAt.Milliseconds(), s.Code)
	}
	return os.WriteFile(filepath.Join(p.bin, name), []byte(b.String()), 0o755)
}

// caught are the signals a command notes before it dies of them: every
// signal a model's KILL names that a process can catch.
var caught = []string{"HUP", "INT", "QUIT", "ABRT", "USR1", "USR2", "ALRM", "TERM"}

// clockFile holds the commands' clock: the milliseconds the scenario has
// let pass.
func (p *daemonProcess) clockFile() string { return filepath.Join(p.spawned, "clock") }

// tick moves the commands' clock to ms.
func (p *daemonProcess) tick(ms int64) error {
	tmp := p.clockFile() + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(ms, 10)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p.clockFile())
}

// octal spells s for printf: every byte as an octal escape.
func octal(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "\\%03o", s[i])
	}
	return b.String()
}

// spawns lists the spawns the commands noted, each with its directory as
// the world spells it.
func (p *daemonProcess) spawns() []exec.Spec {
	var out []exec.Spec
	for _, sp := range p.noted() {
		out = append(out, sp.Spec)
	}
	return out
}

// spawn is a command's note of its spawn: its name, directory, pid and
// the commands' clock when it started.
type spawn struct {
	exec.Spec
	pid   int
	start int64
}

// noted reads the spawns the commands noted.
func (p *daemonProcess) noted() []spawn {
	files, _ := filepath.Glob(filepath.Join(p.spawned, "*.spawn"))
	var out []spawn
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".spawn")
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.SplitN(line, " ", 3)
			if len(f) != 3 {
				continue
			}
			pid, err1 := strconv.Atoi(f[0])
			start, err2 := strconv.ParseInt(f[1], 10, 64)
			dir := f[2]
			if err1 != nil || err2 != nil {
				continue
			}
			if rel, ok := strings.CutPrefix(dir, p.tmp); ok {
				dir = rel
			}
			out = append(out, spawn{Spec: exec.Spec{Command: name, Dir: dir}, pid: pid, start: start})
		}
	}
	return out
}

// ending is how the command of a spawn ended, as it noted it: the signal
// it died of ("" when it exited by itself) and the commands' clock then;
// done is false while it runs. A command gone without a note died of
// SIGKILL, the one signal it cannot catch.
func (p *daemonProcess) ending(sp spawn) (sig string, at int64, done bool) {
	b, _ := os.ReadFile(filepath.Join(p.spawned, sp.Command+".end"))
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != strconv.Itoa(sp.pid) {
			continue
		}
		at, _ := strconv.ParseInt(f[2], 10, 64)
		if f[1] == "exit" {
			return "", at, true
		}
		return f[1], at, true
	}
	if alive(sp) && !zombie(sp.pid) {
		return "", 0, false
	}
	return "SIGKILL", p.now, true
}

// zombie reports whether the process pid has ended and waits to be
// reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// awaitNotes waits (2 s at most) until every command of the scenario
// that is running has noted its spawn, so its traps are set: the model's
// next turn, which may signal it, is answered only then, as a model
// answers long after a process has started.
func (p *daemonProcess) awaitNotes(d *daemonWorld) {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) && p.unnoted(d) {
		time.Sleep(5 * time.Millisecond)
	}
}

// unnoted reports whether a process runs one of the scenario's commands
// and has not noted its spawn yet.
func (p *daemonProcess) unnoted(d *daemonWorld) bool {
	if len(d.scripts) == 0 || p.cmd == nil {
		return false
	}
	// The parents of the noted commands: the daemon's sh -c of each.
	parents := map[int]bool{}
	noted := map[int]bool{}
	for _, sp := range p.noted() {
		noted[sp.pid] = true
		if pp, ok := ppid(sp.pid); ok {
			parents[pp] = true
		}
	}
	daemon := p.cmd.Process.Pid
	dirs, _ := os.ReadDir("/proc")
	for _, de := range dirs {
		pid, err := strconv.Atoi(de.Name())
		if err != nil || noted[pid] || zombie(pid) {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		for name := range d.scripts {
			// The command itself, before it noted its start; or the
			// daemon's sh -c of it, before the command even ran.
			if strings.Contains(string(b), p.bin+"/"+name+"\x00") {
				return true
			}
			if len(args) != 3 || args[1] != "-c" || parents[pid] {
				continue
			}
			if f := strings.Fields(args[2]); len(f) > 0 && f[0] == name {
				if pp, ok := ppid(pid); ok && pp == daemon {
					return true
				}
			}
		}
	}
	return false
}

// ppid is the parent of the process pid.
func ppid(pid int) (int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// pid (comm) S ppid ...: the fields after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(f[1])
	return n, err == nil
}

// alive reports whether the process of a spawn is still there (running,
// or ended and not yet reaped by the daemon).
func alive(sp spawn) bool { return syscall.Kill(sp.pid, 0) == nil }

// pass lets dt of wall-clock time go by for the running commands (at most
// 2 s: longer needs simulated time), waits until each command its script
// ends by then has ended, and lets the daemon settle.
func (p *daemonProcess) pass(d *daemonWorld, dt time.Duration) error {
	if dt > maxWait {
		return p.skip("%s of the commands' time would be waited on the wall clock (%s at most; longer needs the simulated clock)", dt, maxWait)
	}
	return p.advance(d, dt)
}

// advance lets dt go by on the wall clock and the commands' clock, in
// steps of 50 ms, then waits until each command its script ends by now
// has been reaped by the daemon, and lets the daemon settle.
func (p *daemonProcess) advance(d *daemonWorld, dt time.Duration) error {
	const step = 50 * time.Millisecond
	for left := dt; left > 0; left -= step {
		time.Sleep(min(step, left))
		p.now += min(step, left).Milliseconds()
		if err := p.tick(p.now); err != nil {
			return fmt.Errorf("the commands' clock: %w", err)
		}
	}
	deadline := time.Now().Add(callTimeout)
	for _, sp := range p.noted() {
		s := d.scripts[sp.Command]
		for s.ExitAt >= 0 && sp.start+s.ExitAt.Milliseconds() <= p.now && alive(sp) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	p.settle(d)
	return nil
}

// passClock waits dt on the wall clock, which is the daemon's, and lets
// the daemon settle.
func (p *daemonProcess) passClock(d *daemonWorld, dt time.Duration) error {
	switch {
	case p.probe:
		return p.skip("the scenario lets less than %d ms pass on the daemon's clock: a boundary the wall clock cannot resolve", minWait)
	case dt > maxWait:
		return p.skip("%s on the daemon's clock would be waited on the wall clock (%s at most; longer needs the simulated clock)", dt, maxWait)
	}
	return p.advance(d, dt)
}

// settle waits until the daemon is quiet: no call to the model in
// flight, no run of a known session at 102, and nothing changed over
// several looks (the model's calls and every run's status and loops).
func (p *daemonProcess) settle(d *daemonWorld) {
	if p.cmd == nil || p.models == nil {
		return
	}
	deadline := time.Now().Add(callTimeout)
	last, same := "", 0
	for time.Now().Before(deadline) {
		key, inflight, running := p.look(d)
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
	p.logf("plurnk process: the daemon did not settle within %s", callTimeout)
}

// look is one look at the daemon: a fingerprint of what the harness can
// see of it (the model's calls, the notifications heard, every known
// session's runs), whether a call to the model is in flight and whether a
// run is at 102.
func (p *daemonProcess) look(d *daemonWorld) (key string, inflight, running bool) {
	n, calls := p.models.load()
	inflight = n > 0
	var b strings.Builder
	fmt.Fprintf(&b, "calls %d\n", calls)
	for _, who := range sortedConns(d) {
		fmt.Fprintf(&b, "%s heard %d\n", who, len(d.conns[who].c.Notes()))
	}
	seen := map[int64]bool{}
	for _, who := range sortedConns(d) {
		c := d.conns[who]
		id := c.session.Get("id").Int()
		if !c.session.Exists() && !c.loop.Exists() || seen[id] {
			continue
		}
		seen[id] = true
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		a, err := c.c.Call(ctx, "session.runs", nil)
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

func sortedConns(d *daemonWorld) []string {
	var out []string
	for who := range d.conns {
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
	d        *daemonWorld
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
		s = llm.NewServer(m.d.modelFor(id))
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
	if m.d.proc != nil {
		m.d.proc.awaitNotes(m.d)
	}
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
	mock, ok := m.d.router.mock(run)
	if !ok && m.d.mainRun != "" && run != m.d.mainRun {
		// A run of a session of runs that the scenario does not script
		// has nothing to say, as in the embedded service.
		mock, ok = m.d.router.ensure(run), true
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
	model := m.d.modelFor(id)
	if id == "scripted" {
		model = m.d.model
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
