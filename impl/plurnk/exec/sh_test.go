package exec

import (
	"bytes"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
)

type realRig struct {
	st      *store.Store
	ss      *store.Session
	streams *Streams
}

func newRealRig(t *testing.T) *realRig {
	t.Helper()
	sh := &Shell{}
	if p := sh.Probe(); !p.Available {
		t.Fatalf("the real sh executor needs a shell: %s", p.Detail)
	}
	reg, err := NewRegistry(sh)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(clock.Real())
	ss, err := st.NewSession("model")
	if err != nil {
		t.Fatal(err)
	}
	return &realRig{st: st, ss: ss, streams: NewStreams(Config{Store: st, Registry: reg, Clock: clock.Real(), Grace: 300 * time.Millisecond})}
}

// wait drains until the stream at k concludes, within limit of wall time.
func (r *realRig) wait(t *testing.T, k store.Key, limit time.Duration) Stream {
	t.Helper()
	deadline := time.After(limit)
	for {
		for _, s := range r.streams.Drain() {
			if s.Key == k {
				return s
			}
		}
		select {
		case <-r.streams.Ready():
		case <-deadline:
			t.Fatalf("%s did not conclude within %s", k, limit)
		}
	}
}

func TestShellEcho(t *testing.T) {
	r := newRealRig(t)
	s, err := r.streams.Spawn(r.ss, Request{Run: "model", Loop: 1, Turn: 1, Seq: 2, Command: "echo hello; echo oops >&2; exit 3", Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	got := r.wait(t, s.Key, 5*time.Second)
	if got.Status != StatusClean || got.ExitCode != 3 {
		t.Errorf("got %+v, want a clean exit with code 3", got)
	}
	e := r.ss.Entry(s.Key)
	if e.Channels["stdout"].Content != "hello\n" || e.Channels["stderr"].Content != "oops\n" {
		t.Errorf("channels %+v", e.Channels)
	}
	if e.Channels["stdout"].State != store.StateClosed {
		t.Errorf("state %s, want closed", e.Channels["stdout"].State)
	}
}

func TestShellTimeout(t *testing.T) {
	r := newRealRig(t)
	start := time.Now()
	s, err := r.streams.Spawn(r.ss, Request{Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "echo started; sleep 5", Timeout: time.Second,
		Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	got := r.wait(t, s.Key, 4*time.Second)
	if took := time.Since(start); took < time.Second || took > 3*time.Second {
		t.Errorf("ended after %s, want about 1 s", took)
	}
	if got.Status != StatusTimedOut {
		t.Errorf("got %+v, want 504", got)
	}
	if c := r.ss.Entry(s.Key).Channels["stdout"]; c.State != store.StateErrored || c.Content != "started\n" {
		t.Errorf("stdout %+v, want errored holding the output so far", c)
	}
}

func TestShellTimeoutKillsIgnoringGroup(t *testing.T) {
	r := newRealRig(t)
	// The shell ignores SIGTERM, and so does the sleep it starts: only the
	// SIGKILL after the grace ends them.
	s, err := r.streams.Spawn(r.ss, Request{Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "trap '' TERM; sleep 5 & wait", Timeout: 500 * time.Millisecond,
		Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	got := r.wait(t, s.Key, 4*time.Second)
	if got.Status != StatusTimedOut || got.Signal != "SIGKILL" {
		t.Errorf("got %+v, want 504 by SIGKILL", got)
	}
}

func TestShellCancel(t *testing.T) {
	r := newRealRig(t)
	s, err := r.streams.Spawn(r.ss, Request{Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "sleep 5", Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.streams.Cancel(r.ss, s.Key); err != nil {
		t.Fatal(err)
	}
	if got := r.wait(t, s.Key, 3*time.Second); got.Status != StatusKilled {
		t.Errorf("got %+v, want 499", got)
	}
}

func TestShellEnvScoped(t *testing.T) {
	r := newRealRig(t)
	env := ScopeEnv([]string{"PATH=/usr/bin:/bin", "OPENAI_API_KEY=sk-secret", "PLURNK_MAX_TURNS=3"}, []string{"PROJECT=demo"})
	s, err := r.streams.Spawn(r.ss, Request{Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "env", Env: env})
	if err != nil {
		t.Fatal(err)
	}
	r.wait(t, s.Key, 5*time.Second)
	out := r.ss.Entry(s.Key).Channels["stdout"].Content
	if !strings.Contains(out, "PROJECT=demo") || strings.Contains(out, "sk-secret") || strings.Contains(out, "PLURNK_") {
		t.Errorf("env output:\n%s", out)
	}
}

func TestShellProbeUnavailable(t *testing.T) {
	p := (&Shell{Path: "/nonexistent/sh"}).Probe()
	if p.Available || !strings.Contains(p.Detail, "/nonexistent/sh") {
		t.Errorf("probe %+v, want unavailable naming the path", p)
	}
}

// TestShellSignal: a model's KILL[2] sends the real process group exactly
// SIGINT, and the stream ends 499 by that signal.
func TestShellSignal(t *testing.T) {
	// A test binary started in the background by a non-interactive shell
	// can inherit SIGINT ignored, and an ignored signal stays ignored in
	// every child, so `sleep` would never see it (a CI run started that way
	// timed out here once). Handling SIGINT while the test runs, as plurnkd
	// does, gives the children the default disposition.
	handled := make(chan os.Signal, 1)
	signal.Notify(handled, syscall.SIGINT)
	defer signal.Stop(handled)
	for _, sig := range []string{"SIGINT", "SIGHUP", "SIGUSR1"} {
		t.Run(sig, func(t *testing.T) {
			r := newRealRig(t)
			s, err := r.streams.Spawn(r.ss, Request{Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "exec sleep 5", Env: []string{"PATH=/usr/bin:/bin"}})
			if err != nil {
				t.Fatal(err)
			}
			waitForChild(t, "sleep", 5*time.Second)
			if err := r.streams.Signal(r.ss, s.Key, sig); err != nil {
				t.Fatal(err)
			}
			got := r.wait(t, s.Key, 5*time.Second)
			if got.Status != StatusKilled || got.Signal != sig {
				t.Errorf("ended %d by %q, want %d by %q", got.Status, got.Signal, StatusKilled, sig)
			}
		})
	}
}

// waitForChild waits until a child of this test process runs the program
// comm. dash run with -c catches SIGINT until it execs the command, and a
// SIGINT caught in that window is lost with the exec; on a loaded CI machine
// the test once signalled inside it. Signalling only once sleep runs tests
// what KILL promises, not how fast sh starts.
func waitForChild(t *testing.T, comm string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	me := strconv.Itoa(os.Getpid())
	for time.Now().Before(deadline) {
		stats, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, f := range stats {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			// pid (comm) state ppid ...
			lp, rp := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
			if lp < 0 || rp < lp {
				continue
			}
			rest := strings.Fields(string(b[rp+1:]))
			if string(b[lp+1:rp]) == comm && len(rest) > 1 && rest[1] == me {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no child running %s within %s", comm, limit)
}

func TestSignalNames(t *testing.T) {
	for code, want := range map[int]string{0: "SIGHUP", 1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 6: "SIGABRT", 9: "SIGKILL", 10: "SIGUSR1", 12: "SIGUSR2", 14: "SIGALRM", 15: "SIGTERM"} {
		got, ok := SignalName(code)
		if !ok || got != want {
			t.Errorf("SignalName(%d) = %q %v, want %q", code, got, ok, want)
		}
		n, ok := SignalNumber(want)
		if !ok || int(n) != code && code != 0 {
			t.Errorf("SignalNumber(%q) = %d %v, want %d", want, n, ok, code)
		}
	}
	if _, ok := SignalName(7); ok {
		t.Errorf("SignalName(7) is known, want unknown")
	}
}
