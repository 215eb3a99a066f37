package exec

import (
	"context"
	"errors"
	"fmt"
	osexec "os/exec"
	"sync"
	"syscall"
	"time"
)

// Shell is the real sh executor: each spawn runs `<Path> -c <command>` in a
// process group of its own, so a stop reaches every process the command
// started.
type Shell struct {
	// Path is the shell to run; empty means "sh" looked up on PATH.
	Path string
}

// Runtime returns "sh".
func (s *Shell) Runtime() string { return "sh" }

// Effect returns host: a shell command may change anything.
func (s *Shell) Effect() Effect { return EffectHost }

func (s *Shell) path() string {
	if s.Path == "" {
		return "sh"
	}
	return s.Path
}

// Probe looks the shell up.
func (s *Shell) Probe() Probe {
	p, err := osexec.LookPath(s.path())
	if err != nil {
		return Probe{Detail: fmt.Sprintf("shell not found: %v", err)}
	}
	return Probe{Available: true, Detail: "sh at " + p}
}

// Start spawns the command. Output reaches out in the chunks the pipes
// deliver; the exit arrives after the last chunk.
func (s *Shell) Start(ctx context.Context, sp Spec, out Sink) (Process, error) {
	cmd := osexec.CommandContext(ctx, s.path(), "-c", sp.Command)
	cmd.Dir = sp.Dir
	cmd.Env = append([]string{}, sp.Env...) // never nil: nothing is inherited
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = chunkWriter{out: out, channel: "stdout"}
	cmd.Stderr = chunkWriter{out: out, channel: "stderr"}
	p := &shellProc{}
	cmd.Cancel = func() error { return p.signal(syscall.SIGKILL) }
	// A grandchild that keeps a pipe open after the group is gone must not
	// hold the exit back for ever.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s -c: %w", s.path(), err)
	}
	// The context's Cancel may already be calling p.signal: it reads pid
	// under p.mu.
	p.mu.Lock()
	p.pid = cmd.Process.Pid
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.done = true
		p.mu.Unlock()
		out.Exit(exitOf(cmd, err))
	}()
	return p, nil
}

func exitOf(cmd *osexec.Cmd, err error) Exit {
	st := cmd.ProcessState
	if st == nil {
		return Exit{Code: -1, Err: err}
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: -1, Signal: signalName(ws.Signal())}
	}
	var ee *osexec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return Exit{Code: st.ExitCode(), Err: err}
	}
	return Exit{Code: st.ExitCode()}
}

func signalName(s syscall.Signal) string {
	for code := 1; code <= 15; code++ {
		if name, ok := SignalName(code); ok {
			if n, _ := SignalNumber(name); n == s {
				return name
			}
		}
	}
	return s.String()
}

type chunkWriter struct {
	out     Sink
	channel string
}

func (w chunkWriter) Write(p []byte) (int, error) {
	w.out.Chunk(w.channel, string(p))
	return len(p), nil
}

type shellProc struct {
	mu   sync.Mutex
	pid  int
	done bool
}

func (p *shellProc) signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || p.pid == 0 {
		return nil
	}
	if err := syscall.Kill(-p.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal process group %d: %w", p.pid, err)
	}
	return nil
}

// Stop sends SIGTERM (or SIGKILL when force) to the process group.
func (p *shellProc) Stop(force bool) error {
	if force {
		return p.signal(syscall.SIGKILL)
	}
	return p.signal(syscall.SIGTERM)
}

// Signal sends the named signal to the process group. An unknown name is
// an error.
func (p *shellProc) Signal(name string) error {
	sig, ok := SignalNumber(name)
	if !ok {
		return fmt.Errorf("unknown signal %q", name)
	}
	return p.signal(sig)
}

// SignalNumber returns the signal named name (one SignalName returns).
func SignalNumber(name string) (syscall.Signal, bool) {
	switch name {
	case "SIGHUP":
		return syscall.SIGHUP, true
	case "SIGINT":
		return syscall.SIGINT, true
	case "SIGQUIT":
		return syscall.SIGQUIT, true
	case "SIGABRT":
		return syscall.SIGABRT, true
	case "SIGKILL":
		return syscall.SIGKILL, true
	case "SIGUSR1":
		return syscall.SIGUSR1, true
	case "SIGUSR2":
		return syscall.SIGUSR2, true
	case "SIGALRM":
		return syscall.SIGALRM, true
	case "SIGTERM":
		return syscall.SIGTERM, true
	}
	return 0, false
}
