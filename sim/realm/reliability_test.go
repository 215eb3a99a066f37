package realm

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"anchorage/impl/chatlog"
	"anchorage/sim/clock"
	"anchorage/sim/seed"
	"anchorage/sim/vfs"

	"github.com/spf13/afero"
)

// switchHub forwards to the current server and counts deliveries of each
// request's code, so that a request dispatched twice (even across a
// restart) is caught.
type switchHub struct {
	mu        sync.Mutex
	srv       *chatlog.Server
	delivered map[string]int
	trace     []string
}

func (h *switchHub) cur() *chatlog.Server { h.mu.Lock(); defer h.mu.Unlock(); return h.srv }
func (h *switchHub) Poll(id, tok string) (*chatlog.Task, error) {
	t, _, err := h.cur().Poll(id, tok)
	if t != nil {
		h.mu.Lock()
		h.delivered[t.Instance+"|"+t.Code]++
		h.trace = append(h.trace, fmt.Sprintf("%p %s %s", h.srv, t.JobID, t.Code))
		h.mu.Unlock()
	}
	return t, err
}
func (h *switchHub) Received(t chatlog.Task) { h.cur().Received(&t) }
func (h *switchHub) Result(id, tok, j string, o chatlog.Outcome) error {
	return h.cur().Result(id, tok, j, o)
}
func (h *switchHub) Heartbeat(id, tok string) error { return h.cur().Heartbeat(id, tok) }
func (h *switchHub) Rejoin(id, n, u, l string) (chatlog.Registration, error) {
	return h.cur().Rejoin(id, n, u, l)
}

// One seeded run: two pages, two agents appending (whole, torn, at the same
// instants), probabilistic write faults, and a server restart in the middle.
func reliabilityRun(t *testing.T, seed uint64) {
	clk := clock.NewSim(time.Time{})
	faulty := vfs.NewFaulty(vfs.NewMem(clk), seed)
	var con bytes.Buffer
	newServer := func(s uint64) *chatlog.Server {
		srv := chatlog.New(chatlog.Config{Fs: faulty, Clock: clk, Console: &con, Seed: s, Timeout: 10 * time.Second})
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		return srv
	}
	hub := &switchHub{srv: newServer(seed), delivered: map[string]int{}}
	var pages []*Page
	for i, name := range []string{"Index - 7 Zen", "12 Dove"} {
		p, err := New(hub, clk, Config{Name: name, Seed: seed + uint64(i), Jitter: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	agents := []*Agent{{Name: "alice", Fs: faulty, Clock: clk}, {Name: "bob", Fs: faulty, Clock: clk}}
	snapshots := map[string]string{}
	checkAppendOnly := func(when string) {
		for _, p := range pages {
			path := p.Registration().Path
			b, err := afero.ReadFile(faulty, path)
			if err != nil {
				continue
			}
			if !strings.HasPrefix(string(b), snapshots[path]) {
				t.Fatalf("seed %d %s: %s lost or changed bytes", seed, when, path)
			}
			snapshots[path] = string(b)
		}
	}
	if err := faulty.Arm(vfs.Fault{Point: vfs.TornWrite, Pattern: "*.md", Prob: 0.05}); err != nil {
		t.Fatal(err)
	}
	if err := faulty.Arm(vfs.Fault{Point: vfs.RenameFail, Pattern: "debug.md*", Prob: 0.3}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for step := 0; step < 24; step++ {
		p := pages[(int(seed)+step)%2]
		reg := p.Registration()
		for _, a := range agents {
			n++
			code := fmt.Sprintf("%d+%d", n, step)
			if step%3 == 0 {
				_, _ = a.Torn(reg.Path, a.RequestText(reg.ID, "JS", code), 20, 30*time.Millisecond, nil)
			} else {
				_ = a.Request(reg.Path, reg.ID, code)
			}
		}
		clk.Advance(time.Duration(200+int(seed%7)*100) * time.Millisecond)
		checkAppendOnly(fmt.Sprintf("step %d", step))
		if step == 12 { // restart the server mid-job
			hub.cur().Stop()
			srv := newServer(seed + 1000)
			hub.mu.Lock()
			hub.srv = srv
			hub.mu.Unlock()
			// The pages rejoin on their own, under their old ids.
			ids := []string{pages[0].Registration().ID, pages[1].Registration().ID}
			clk.Advance(time.Second)
			for i, p := range pages {
				if got := p.Registration().ID; got != ids[i] {
					t.Fatalf("seed %d: page %d came back as %s, not %s\n%s", seed, i, got, ids[i], strings.Join(p.Log, "\n"))
				}
			}
		}
	}
	faulty.Disarm(vfs.TornWrite)
	faulty.Disarm(vfs.RenameFail)
	clk.Advance(30 * time.Second)
	checkAppendOnly("end")
	for k, c := range hub.delivered {
		if c > 1 {
			var jobs []string
			for _, j := range hub.cur().Jobs("") {
				jobs = append(jobs, fmt.Sprintf("%s %q %v", j.ID, j.Code, j.History))
			}
			b, _ := afero.ReadFile(faulty, pages[0].Registration().Path)
			t.Fatalf("seed %d: %s dispatched %d times\n%s\n%s\n%s\n%s", seed, k, c, con.String(), strings.Join(jobs, "\n"), b, strings.Join(hub.trace, "\n"))
		}
	}
	for _, j := range hub.cur().Jobs("") {
		for i := 1; i < len(j.History); i++ {
			if j.History[i-1].Final() {
				t.Fatalf("seed %d: job %s moved on from a final state: %v", seed, j.ID, j.History)
			}
		}
	}
	reg, err := afero.ReadFile(faulty, chatlog.RegistryFile)
	if err != nil || !bytes.HasPrefix(reg, []byte("# Connected pages:\n")) || bytes.Count(reg, []byte("\n")) >= 200 {
		t.Fatalf("seed %d: registry %v:\n%s", seed, err, reg)
	}
}

func TestReliabilityAcrossSeeds(t *testing.T) {
	seeds := 30
	if s := os.Getenv("CHATLOG_SEEDS"); s != "" {
		seeds, _ = strconv.Atoi(s)
	}
	if testing.Short() {
		seeds = 5
	}
	first, last := uint64(1), uint64(seeds)
	if v := os.Getenv(seed.EnvVar); v != "" { // replay one seed
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", seed.EnvVar, v, err)
		}
		first, last = n, n
	}
	for s := first; s <= last; s++ {
		t.Run(fmt.Sprintf("seed=%d", s), func(t *testing.T) {
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("replay: %s=%d go test ./sim/realm -run TestReliabilityAcrossSeeds", seed.EnvVar, s)
				}
			})
			reliabilityRun(t, s)
		})
	}
}
