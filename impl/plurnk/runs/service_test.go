package runs

import (
	"strings"
	"testing"
	"time"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
	"anchorage/sim/llm"
	"anchorage/sim/plurnkexec"

	"github.com/spf13/afero"
)

type fixture struct {
	t      testing.TB
	clock  *clock.Sim
	svc    *Service
	ss     *store.Session
	mocks  map[string]*llm.Mock
	sim    *plurnkexec.Executor
	router *llm.Router
}

// replies queues emissions for run's model.
func (f *fixture) replies(run string, texts ...string) {
	m, ok := f.mocks[run]
	if !ok {
		m = &llm.Mock{}
		f.mocks[run] = m
		f.router.ByRun[run] = m
	}
	for _, t := range texts {
		m.Add(llm.Reply{Content: t + "\n"})
	}
}

func (f *fixture) start(run, prompt string) {
	f.t.Helper()
	if err := f.svc.Start(f.ss.ID, run, LoopStart{Prompt: prompt}); err != nil {
		f.t.Fatal(err)
	}
	f.svc.Wait()
}

// advance moves the clock, applies what the processes posted and waits for
// the drains.
func (f *fixture) advance(d time.Duration) {
	f.clock.Advance(d)
	f.svc.Pump()
	f.svc.Wait()
}

func (f *fixture) status(run string) int {
	f.t.Helper()
	ls := f.loopsOf(run)
	if len(ls) == 0 {
		return 0
	}
	return ls[len(ls)-1].Status
}

func (f *fixture) loops(run string) int {
	return len(f.loopsOf(run))
}

// loopsOf copies run's loops, read under the service's lock.
func (f *fixture) loopsOf(run string) []store.Loop {
	var out []store.Loop
	f.svc.View(func() {
		r, err := f.svc.run(f.ss.ID, run)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, l := range r.store.Loops {
			out = append(out, store.Loop{ID: l.ID, Seq: l.Seq, Status: l.Status})
		}
	})
	return out
}

// log copies run's log rows, read under the service's lock.
func (f *fixture) log(run string) []store.LogRow {
	var out []store.LogRow
	f.svc.View(func() {
		if r, err := f.svc.run(f.ss.ID, run); err == nil {
			for _, row := range r.store.Log {
				out = append(out, *row)
			}
		}
	})
	return out
}

// row finds the first row of run's log with op and a target containing
// target.
func (f *fixture) row(run, op, target string) (store.LogRow, bool) {
	rows := f.log(run)
	for _, r := range rows {
		if r.Op == op && strings.Contains(r.Target, target) {
			return r, true
		}
	}
	return store.LogRow{}, false
}

func plan(ops ...string) string {
	return "<<PLAN:step:PLAN\n" + strings.Join(ops, "\n")
}

func TestSpawnCollect(t *testing.T) {
	f := newFixture(t, Off)
	f.replies("main",
		plan("<<EDIT(run://scout):count the files:EDIT", "<<SEND[202]:waiting:SEND"),
		plan("<<SEND[200]:scout said 3:SEND"))
	f.replies("scout", plan("<<SEND[200]:3 files:SEND"))
	f.start("main", "go")
	if got := f.status("scout"); got != 200 {
		t.Fatalf("scout ended %d", got)
	}
	if got := f.status("main"); got != 200 {
		t.Fatalf("main ended %d, want 200 after the child woke it", got)
	}
	if f.loops("main") != 1 {
		t.Fatalf("main has %d loops, want 1 (resumed in place)", f.loops("main"))
	}
	row, ok := f.row("main", "SEND", "run://scout")
	if !ok || row.Content != "3 files" || row.Expanded || row.Status != 200 {
		t.Fatalf("collect row %+v %v", row, ok)
	}
}

func TestSpawnSelfAndIrcUnknown(t *testing.T) {
	f := newFixture(t, Off)
	f.replies("main", plan("<<EDIT(run://.):again:EDIT", "<<EDIT(run://main):again:EDIT", "<<SEND(run://ghost):hi:SEND", "<<KILL(run://ghost)::KILL", "<<SEND[200]:done:SEND"))
	f.start("main", "go")
	rows := f.log("main")
	var got []int
	for _, r := range rows {
		if strings.HasPrefix(r.Target, "run://") {
			got = append(got, r.Status)
		}
	}
	if len(got) != 4 || got[0] != 400 || got[1] != 400 || got[2] != 404 || got[3] != 404 {
		t.Fatalf("statuses %v", got)
	}
}

func newFixture(t testing.TB, maxActive int) *fixture {
	t.Helper()
	fs := afero.NewMemMapFs()
	reg, err := scheme.Defaults(fs, "/work", "sh", "db")
	if err != nil {
		t.Fatal(err)
	}
	c := clock.NewSim(time.Time{})
	st := store.New(c)
	cfg, err := config.Load(map[string]string{"HOME": "/home/op"}, "/work")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, clock: c, mocks: map[string]*llm.Mock{}}
	router := &llm.Router{Default: &llm.Mock{}, ByRun: map[string]provider.Provider{}}
	f.sim = &plurnkexec.Executor{Name: "sh", Eff: exec.EffectHost, Avail: exec.Probe{Available: true}, Clock: c, Scripts: map[string]plurnkexec.Script{}}
	db := &plurnkexec.Executor{Name: "db", Eff: exec.EffectPure, Avail: exec.Probe{Available: true}, Clock: c, Scripts: f.sim.Scripts}
	xreg, err := exec.NewRegistry(f.sim, db)
	if err != nil {
		t.Fatal(err)
	}
	o := &ops.Engine{Store: st, Schemes: reg, Mimetypes: ops.NewMimetypes()}
	eng := engine.New(st, o, router, cfg, fs)
	f.svc, err = New(Config{Store: st, Engine: eng, Clock: c, Executors: xreg, MaxActive: maxActive})
	if err != nil {
		t.Fatal(err)
	}
	f.ss, err = f.svc.NewSession("main")
	if err != nil {
		t.Fatal(err)
	}
	f.router = router
	return f
}
