package runs

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/plurnkexec"

	"pgregory.net/rapid"
)

// randomModel answers every run with an emission drawn from a seeded
// stream: finish, park, give up, spawn a child, start a command, kill a
// sister. It is safe for the concurrent Generate calls of several runs.
type randomModel struct {
	mu   sync.Mutex
	rng  *rand.Rand
	kids int
}

func (m *randomModel) Generate(ctx context.Context, req provider.Request) (provider.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ops []string
	switch m.rng.Intn(6) {
	case 0:
		m.kids++
		ops = append(ops, fmt.Sprintf("<<EDIT(run://c%d):work:EDIT", m.kids))
	case 1:
		ops = append(ops, "<<EXEC:job:EXEC")
	case 2:
		ops = append(ops, fmt.Sprintf("<<KILL(run://c%d)::KILL", 1+m.rng.Intn(m.kids+1)))
	}
	term := []string{"<<SEND[200]:done:SEND", "<<SEND[202]:park:SEND", "<<SEND[499]:quit:SEND"}[m.rng.Intn(3)]
	text := "<<PLAN:p:PLAN\n" + strings.Join(append(ops, term), "\n") + "\n"
	return provider.Response{Assistant: provider.Assistant{Content: text}}, nil
}

func (m *randomModel) CountTokens(s string) int     { return (len(s) + 3) / 4 }
func (m *randomModel) CostFor(provider.Usage) int64 { return 0 }
func (m *randomModel) ContextSize() (int, bool)     { return 0, false }

// TestRunMachine drives a session with random loop starts, injects,
// cancels and clock steps under random schedules, and checks after every
// step: no queued work is left unclaimed, no run ever had two drains, a
// cancelled run does not come back by itself, and every loop that ended
// reached its parent as a collect delta.
func TestRunMachine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		f := newFixture(t, Off)
		seed := rapid.Int64().Draw(rt, "seed")
		f.router.Default = &randomModel{rng: rand.New(rand.NewSource(seed))}
		f.sim.Scripts["job"] = plurnkexec.Script{Chunks: []plurnkexec.ScriptChunk{{At: 50 * time.Millisecond, Channel: "stdout", Data: "x\n"}}, ExitAt: 120 * time.Millisecond}
		f.svc.cfg.Yolo = true
		f.svc.cfg.MaxActive = 6
		down := map[string]int{} // cancelled run → its loop count then
		names := func() []string {
			var out []string
			for _, r := range f.svc.sessions[f.ss.ID].order {
				if r.store.Name != "plurnk" {
					out = append(out, r.store.Name)
				}
			}
			return out
		}
		steps := rapid.IntRange(1, 25).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			ns := names()
			name := rapid.SampledFrom(ns).Draw(rt, "run")
			switch rapid.IntRange(0, 3).Draw(rt, "action") {
			case 0:
				_ = f.svc.Start(f.ss.ID, name, LoopStart{Prompt: "go"})
				delete(down, name)
			case 1:
				_ = f.svc.Inject(f.ss.ID, name, "news")
				delete(down, name)
			case 2:
				_, _ = f.svc.Cancel(f.ss.ID, name, "")
				f.svc.Wait()
				down[name] = f.loops(name)
			case 3:
				f.advance(time.Duration(rapid.IntRange(10, 200).Draw(rt, "ms")) * time.Millisecond)
			}
			f.svc.Wait()
			f.svc.Pump()
			f.svc.Wait()
			f.check(rt, down)
		}
		for _, n := range names() {
			_, _ = f.svc.Cancel(f.ss.ID, n, "")
		}
		f.svc.Wait()
	})
}

func (f *fixture) check(t *rapid.T, down map[string]int) {
	s := f.svc
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drains != 0 {
		t.Fatalf("%d drains still counted after Wait", s.drains)
	}
	for _, r := range s.sessions[f.ss.ID].order {
		name := r.store.Name
		if r.twice {
			t.Fatalf("run %s had two drains at once", name)
		}
		if r.draining || len(r.queue) > 0 {
			t.Fatalf("run %s left with draining=%v and %d queued items after Wait", name, r.draining, len(r.queue))
		}
		if n, ok := down[name]; ok && len(r.store.Loops) != n {
			t.Fatalf("cancelled run %s went from %d to %d loops on its own", name, n, len(r.store.Loops))
		}
		if r.parent == nil {
			continue
		}
		for _, l := range r.store.Loops {
			if !engine.Terminal(l.Status) {
				continue
			}
			want := fmt.Sprintf("loop %d of run://%s ended %d", l.Seq, name, l.Status)
			found := false
			for _, row := range append(append([]*store.LogRow(nil), r.parent.store.Log...), r.parent.inbox...) {
				if row.Reason == want {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("parent %s never collected %q", r.parent.store.Name, want)
			}
		}
	}
}
