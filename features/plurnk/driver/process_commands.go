package driver

import (
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"anchorage/impl/plurnk/exec"
	"anchorage/sim/plurnkexec"
)

// The commands of a daemon process: executables the harness writes from
// the scenario's script, which note their spawns and ends, on a clock of
// their own that moves only while the scenario lets time pass.

// gitInit makes the workspace a git repository tracking the files listed,
// with the git binary on PATH, as the daemon's own git sees it.
func (p *Process) gitInit(tracked []string) error {
	if _, err := osexec.LookPath("git"); err != nil {
		return p.skip("a git workspace needs git on PATH: %v", err)
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+filepath.Join(p.tmp, "home"))
	return gitInit(p.root, env, tracked)
}

var commandName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// writeScript writes the script of a command as an executable on the
// daemon's PATH: it notes its spawn (pid, the commands' clock, directory),
// prints its chunks at their times and exits with the script's code (a
// negative ExitAt never exits on its own), as plurnkexec.Executor plays it.
func (p *Process) writeScript(name string, s plurnkexec.Script) error {
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
	chunks := append([]plurnkexec.ScriptChunk(nil), s.Chunks...)
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
func (p *Process) clockFile() string { return filepath.Join(p.spawned, "clock") }

// tick moves the commands' clock to ms.
func (p *Process) tick(ms int64) error {
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

// Spawns lists the spawns the commands noted, each with its directory as
// the scenario spells it.
func (p *Process) Spawns() []exec.Spec {
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
func (p *Process) noted() []spawn {
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
func (p *Process) ending(sp spawn) (sig string, at int64, done bool) {
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
func (p *Process) awaitNotes() {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) && p.unnoted() {
		time.Sleep(5 * time.Millisecond)
	}
}

// unnoted reports whether a process runs one of the scenario's commands
// and has not noted its spawn yet: the command itself, before it noted
// its start; or the daemon's sh -c of it, before the command even ran.
func (p *Process) unnoted() bool {
	if len(p.script.Commands) == 0 || p.cmd == nil {
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
		for name := range p.script.Commands {
			if strings.Contains(string(b), p.bin+"/"+name+"\x00") {
				return true
			}
			if len(args) != 3 || args[1] != "-c" || parents[pid] {
				continue
			}
			if f := strings.Fields(args[2]); len(f) > 0 && f[0] == name {
				if pp, ok := ppid(pid); ok && pp == p.cmd.Process.Pid {
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
// maxWait: longer needs simulated time), waits until each command its
// script ends by then has ended, and lets the daemon settle.
func (p *Process) pass(dt time.Duration) error {
	if dt > maxWait {
		return p.skip("%s of the commands' time would be waited on the wall clock (%s at most; longer needs the simulated clock)", dt, maxWait)
	}
	return p.advance(dt)
}

// advance lets dt go by on the wall clock and the commands' clock, in
// steps of 50 ms, then waits until each command its script ends by now
// has been reaped by the daemon, and lets the daemon settle.
func (p *Process) advance(dt time.Duration) error {
	const step = 50 * time.Millisecond
	for left := dt; left > 0; left -= step {
		time.Sleep(min(step, left))
		p.now += min(step, left).Milliseconds()
		if err := p.tick(p.now); err != nil {
			return fmt.Errorf("the commands' clock: %w", err)
		}
	}
	deadline := time.Now().Add(CallTimeout)
	for _, sp := range p.noted() {
		s := p.script.Commands[sp.Command]
		for s.ExitAt >= 0 && sp.start+s.ExitAt.Milliseconds() <= p.now && alive(sp) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	p.Settle()
	return nil
}

// passClock waits dt on the wall clock, which is the daemon's, and lets
// the daemon settle.
func (p *Process) passClock(dt time.Duration) error {
	switch {
	case p.probe:
		return p.skip("the scenario lets less than %d ms pass on the daemon's clock: a boundary the wall clock cannot resolve", minWait)
	case dt > maxWait:
		return p.skip("%s on the daemon's clock would be waited on the wall clock (%s at most; longer needs the simulated clock)", dt, maxWait)
	}
	return p.advance(dt)
}
