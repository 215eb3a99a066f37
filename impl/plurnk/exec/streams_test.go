package exec_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
	"anchorage/sim/plurnkexec"

	"github.com/google/go-cmp/cmp"
)

type recorder struct {
	mu  sync.Mutex
	evs []exec.StreamEvent
}

func (r *recorder) StreamEvent(ev exec.StreamEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, ev)
}

func (r *recorder) take() []exec.StreamEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.evs
	r.evs = nil
	return out
}

type simRig struct {
	clk     *clock.Sim
	st      *store.Store
	ss      *store.Session
	sim     *plurnkexec.Executor
	streams *exec.Streams
	rec     *recorder
}

func newSimRig(t *testing.T, scripts map[string]plurnkexec.Script) *simRig {
	t.Helper()
	clk := clock.NewSim(time.Time{})
	st := store.New(clk)
	ss, err := st.NewSession("model")
	if err != nil {
		t.Fatal(err)
	}
	sim := &plurnkexec.Executor{Name: "sh", Eff: exec.EffectHost, Avail: exec.Probe{Available: true, Detail: "simulated"}, Clock: clk, Scripts: scripts}
	reg, err := exec.NewRegistry(sim)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	return &simRig{clk: clk, st: st, ss: ss, sim: sim, rec: rec,
		streams: exec.NewStreams(exec.Config{Store: st, Registry: reg, Clock: clk, Grace: 500 * time.Millisecond, Notify: rec})}
}

func (r *simRig) channel(t *testing.T, k store.Key, ch string) store.Channel {
	t.Helper()
	e := r.ss.Entry(k)
	if e == nil {
		t.Fatalf("no entry %s", k)
	}
	return e.Channels[ch]
}

func TestRegistryResolve(t *testing.T) {
	up := &plurnkexec.Executor{Name: "sh", Eff: exec.EffectHost, Avail: exec.Probe{Available: true, Detail: "ok"}}
	down := &plurnkexec.Executor{Name: "node", Eff: exec.EffectHost, Avail: exec.Probe{Detail: "node: executable file not found in $PATH"}}
	reg, err := exec.NewRegistry(up, down)
	if err != nil {
		t.Fatal(err)
	}
	e, err := reg.Resolve("")
	if err != nil || e.Runtime() != "sh" {
		t.Fatalf("default runtime: %v, %v", e, err)
	}
	for _, tc := range []struct{ rt, mention string }{
		{"node", "node: executable file not found in $PATH"},
		{"python", `no executor for runtime "python"`},
	} {
		_, err := reg.Resolve(tc.rt)
		var se *scheme.StatusError
		if !errors.As(err, &se) || se.Status != 501 {
			t.Fatalf("%s: %v, want a 501", tc.rt, err)
		}
		if !strings.Contains(se.Reason, tc.mention) {
			t.Errorf("%s: reason %q does not carry %q", tc.rt, se.Reason, tc.mention)
		}
	}
	if _, err := exec.NewRegistry(up, up); err == nil {
		t.Error("a duplicate runtime registered")
	}
	if d := cmp.Diff([]string{"node", "sh"}, reg.Runtimes()); d != "" {
		t.Error(d)
	}
}

func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		sc      *dsl.Scope
		to, pol time.Duration
	}{
		{nil, 0, 0},
		{&dsl.Scope{Marks: []float64{30}}, 30 * time.Second, 0},
		{&dsl.Scope{Marks: []float64{0, 5}}, 0, 5 * time.Second},
		{&dsl.Scope{Marks: []float64{-1, 0.5}}, 0, 500 * time.Millisecond},
		{&dsl.Scope{Marks: []float64{1.5, -3}}, 1500 * time.Millisecond, 0},
	} {
		to, pol := exec.Limits(tc.sc)
		if to != tc.to || pol != tc.pol {
			t.Errorf("%v: got T=%s P=%s, want T=%s P=%s", tc.sc, to, pol, tc.to, tc.pol)
		}
	}
}

func TestChunksAccumulateAndCloseClean(t *testing.T) {
	r := newSimRig(t, map[string]plurnkexec.Script{"make": {
		Chunks: []plurnkexec.ScriptChunk{
			{At: 1 * time.Second, Channel: "stdout", Data: "compiling\n"},
			{At: 2 * time.Second, Channel: "stderr", Data: "warning: x\n"},
			{At: 3 * time.Second, Channel: "stdout", Data: "done\n"},
		},
		ExitAt: 4 * time.Second,
	}})
	s, err := r.streams.Spawn(r.ss, exec.Request{Run: "model", Loop: 1, Turn: 1, Seq: 2, Command: "make"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Key.String() != "sh:///1/1/2" {
		t.Fatalf("key %s, want sh:///1/1/2", s.Key)
	}
	r.clk.Advance(1500 * time.Millisecond)
	r.streams.Drain()
	if c := r.channel(t, s.Key, "stdout"); c.Content != "compiling\n" || c.State != store.StateActive {
		t.Fatalf("after 1.5 s: %+v, want the first chunk, still active", c)
	}
	r.clk.Advance(3 * time.Second)
	ended := r.streams.Drain()
	if len(ended) != 1 || ended[0].Status != exec.StatusClean || ended[0].ExitCode != 0 {
		t.Fatalf("ended %+v, want one clean exit", ended)
	}
	for ch, want := range map[string]string{"stdout": "compiling\ndone\n", "stderr": "warning: x\n"} {
		if c := r.channel(t, s.Key, ch); c.Content != want || c.State != store.StateClosed {
			t.Errorf("%s: %+v, want %q closed", ch, c, want)
		}
	}
	id := s.EntryID
	want := []exec.StreamEvent{
		{Session: r.ss.ID, EntryID: id, Channel: "stderr", State: store.StateActive},
		{Session: r.ss.ID, EntryID: id, Channel: "stdout", State: store.StateActive},
		{Session: r.ss.ID, EntryID: id, Channel: "stdout", State: store.StateActive, ContentLength: 10},
		{Session: r.ss.ID, EntryID: id, Channel: "stderr", State: store.StateActive, ContentLength: 11},
		{Session: r.ss.ID, EntryID: id, Channel: "stdout", State: store.StateActive, ContentLength: 15},
		{Session: r.ss.ID, EntryID: id, Channel: "stderr", State: store.StateClosed, ContentLength: 11},
		{Session: r.ss.ID, EntryID: id, Channel: "stdout", State: store.StateClosed, ContentLength: 15},
	}
	if d := cmp.Diff(want, r.rec.take()); d != "" {
		t.Errorf("stream events (-want +got):\n%s", d)
	}
	if got, _ := r.streams.Get(r.ss, s.Key); got.Live() || len(r.streams.Open(r.ss, "model")) != 0 {
		t.Errorf("the stream is still open: %+v", got)
	}
}

func TestTimeoutPoliteThenKill(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ignoreTerm bool
		signal     string
		endsAt     time.Duration
	}{
		{"stops on SIGTERM", false, "SIGTERM", 2 * time.Second},
		{"ignores SIGTERM", true, "SIGKILL", 2*time.Second + 500*time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newSimRig(t, map[string]plurnkexec.Script{"serve": {
				Chunks:     []plurnkexec.ScriptChunk{{At: time.Second, Channel: "stdout", Data: "listening\n"}},
				ExitAt:     -1,
				IgnoreTerm: tc.ignoreTerm,
			}})
			s, err := r.streams.Spawn(r.ss, exec.Request{Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "serve", Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			r.clk.Advance(tc.endsAt - time.Millisecond)
			if ended := r.streams.Drain(); len(ended) != 0 {
				t.Fatalf("ended before %s: %+v", tc.endsAt, ended)
			}
			r.clk.Advance(time.Millisecond)
			ended := r.streams.Drain()
			if len(ended) != 1 {
				t.Fatalf("not ended at %s", tc.endsAt)
			}
			got := ended[0]
			if got.Status != exec.StatusTimedOut || got.Signal != tc.signal || !got.Ended.Equal(clock.Epoch().Add(tc.endsAt)) {
				t.Errorf("got %+v, want 504 by %s at %s", got, tc.signal, tc.endsAt)
			}
			if c := r.channel(t, s.Key, "stdout"); c.State != store.StateErrored || c.Content != "listening\n" {
				t.Errorf("stdout %+v, want errored with the output kept", c)
			}
		})
	}
}

func TestNoTimeoutMeansNoLimit(t *testing.T) {
	r := newSimRig(t, map[string]plurnkexec.Script{"serve": {ExitAt: -1}})
	s, err := r.streams.Spawn(r.ss, exec.Request{Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "serve", Timeout: 0})
	if err != nil {
		t.Fatal(err)
	}
	r.clk.Advance(24 * time.Hour)
	if ended := r.streams.Drain(); len(ended) != 0 {
		t.Fatalf("a stream with no T ended: %+v", ended)
	}
	if got, _ := r.streams.Get(r.ss, s.Key); !got.Live() {
		t.Fatalf("not live: %+v", got)
	}
}

func TestCancel499(t *testing.T) {
	r := newSimRig(t, map[string]plurnkexec.Script{"serve": {ExitAt: -1}})
	s, err := r.streams.Spawn(r.ss, exec.Request{Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "serve", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.streams.Cancel(r.ss, s.Key); err != nil {
		t.Fatal(err)
	}
	ended := r.streams.Drain()
	if len(ended) != 1 || ended[0].Status != exec.StatusKilled {
		t.Fatalf("ended %+v, want 499", ended)
	}
	if c := r.channel(t, s.Key, "stdout"); c.State != store.StateErrored {
		t.Errorf("state %s, want errored", c.State)
	}
	// The T timer was disarmed: nothing more happens at T.
	r.clk.Advance(2 * time.Minute)
	if more := r.streams.Drain(); len(more) != 0 {
		t.Errorf("more endings: %+v", more)
	}
	err = r.streams.Cancel(r.ss, s.Key)
	var se *scheme.StatusError
	if !errors.As(err, &se) || se.Status != 404 {
		t.Errorf("second cancel: %v, want 404", err)
	}
}

func TestSpawnErrors(t *testing.T) {
	r := newSimRig(t, map[string]plurnkexec.Script{})
	_, err := r.streams.Spawn(r.ss, exec.Request{Runtime: "python", Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "x"})
	var se *scheme.StatusError
	if !errors.As(err, &se) || se.Status != 501 {
		t.Fatalf("unknown runtime: %v, want 501", err)
	}
	if len(r.ss.Entries()) != 0 {
		t.Errorf("a 501 opened an entry: %v", r.ss.Entries())
	}
	s, err := r.streams.Spawn(r.ss, exec.Request{Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "unscripted"})
	if !errors.As(err, &se) || se.Status != 500 || s.Status != exec.StatusFailed {
		t.Fatalf("failed start: %+v %v, want 500", s, err)
	}
	if c := r.channel(t, s.Key, "stdout"); c.State != store.StateErrored {
		t.Errorf("state %s, want errored", c.State)
	}
}

func TestPollCadence(t *testing.T) {
	r := newSimRig(t, map[string]plurnkexec.Script{"a": {ExitAt: 10 * time.Second}, "b": {ExitAt: -1}, "c": {ExitAt: -1}})
	if _, ok := r.streams.PollCadence(r.ss, "model"); ok {
		t.Fatal("a cadence with no stream")
	}
	for i, req := range []exec.Request{
		{Command: "a", Poll: 3 * time.Second},
		{Command: "b", Poll: 7 * time.Second},
		{Command: "c"},
	} {
		req.Run, req.Loop, req.Turn, req.Seq = "model", 1, 1, i+1
		if _, err := r.streams.Spawn(r.ss, req); err != nil {
			t.Fatal(err)
		}
	}
	if p, ok := r.streams.PollCadence(r.ss, "model"); !ok || p != 3*time.Second {
		t.Fatalf("cadence %s %v, want 3s", p, ok)
	}
	if _, ok := r.streams.PollCadence(r.ss, "other"); ok {
		t.Fatal("another run has a cadence")
	}
	r.clk.Advance(10 * time.Second)
	r.streams.Drain()
	if p, ok := r.streams.PollCadence(r.ss, "model"); !ok || p != 7*time.Second {
		t.Fatalf("after a ends: %s %v, want 7s", p, ok)
	}
}

func TestReadySignals(t *testing.T) {
	r := newSimRig(t, map[string]plurnkexec.Script{"a": {Chunks: []plurnkexec.ScriptChunk{{At: time.Second, Channel: "stdout", Data: "x\n"}}, ExitAt: -1}})
	if _, err := r.streams.Spawn(r.ss, exec.Request{Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "a"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.streams.Ready():
		t.Fatal("ready before any output")
	default:
	}
	r.clk.Advance(time.Second)
	select {
	case <-r.streams.Ready():
	default:
		t.Fatal("not ready after a chunk")
	}
}
