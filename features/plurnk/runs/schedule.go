package runs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"anchorage/features/kit"
	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
	"anchorage/sim/plurnkexec"

	"github.com/spf13/afero"
)

// The checks the seeded schedules make, as the Then steps name them.
const (
	checkUnclaimed = "unclaimed"
	checkTwice     = "two drains"
	checkRest      = "rest"
	checkWindow    = "teardown window"
)

// scheduleReport is what a batch of seeded schedules found: for each
// check, the first schedule that broke it; and how often each kind of
// event happened across the batch.
type scheduleReport struct {
	ran    int
	failed map[string]string
	cover  map[string]int
	replay string
}

type scheduleKey struct{}

// schedRig is one seeded schedule: a session of the runs service whose
// drains the rig runs itself, one at a time in a seeded order, between
// seeded client actions, so a schedule is replayed exactly by its seed.
type schedRig struct {
	seed    uint64
	rng     *rand.Rand
	clock   *clock.Sim
	svc     *runs.Service
	ss      *store.Session
	pending []func() // drains started and not yet run
	kids    int
	calls   map[string]int // model calls per run
	cover   map[string]int
	fails   map[string]string
	trace   []string
	// window is set while a drain that had a loop queued in its teardown
	// window has not returned yet.
	window *windowMark
}

type windowMark struct {
	run    string
	drains int
	calls  int
}

// schedModel answers every run with a seeded emission: it may spawn a
// child, message or fork or kill a sister, start a command, and then
// finishes, parks or gives up; and, while the run's lock is released for
// generation, it sometimes acts as a client on some run.
type schedModel struct{ rig *schedRig }

func (m schedModel) Generate(ctx context.Context, req provider.Request) (provider.Response, error) {
	g := m.rig
	run := req.Run
	g.calls[run]++
	if g.rng.IntN(8) == 0 {
		g.clientAction("mid-turn")
	}
	names := g.names()
	var ops []string
	switch g.rng.IntN(7) {
	case 0:
		g.kids++
		ops = append(ops, fmt.Sprintf("<<EDIT(run://c%d):work:EDIT", g.kids))
	case 1:
		ops = append(ops, fmt.Sprintf("<<SEND(run://%s):news:SEND", pickName(g.rng, names)))
	case 2:
		ops = append(ops, fmt.Sprintf("<<COPY(run://%s):branch:COPY", pickName(g.rng, names)))
	case 3:
		ops = append(ops, fmt.Sprintf("<<KILL(run://%s)::KILL", pickName(g.rng, names)))
	case 4, 5:
		ops = append(ops, "<<EXEC[db]:job:EXEC")
	}
	term := "<<SEND[200]:done:SEND"
	switch n := g.rng.IntN(10); {
	case n < 4:
		term = "<<SEND[202]:park:SEND"
	case n < 5:
		term = "<<SEND[499]:quit:SEND"
	}
	text := "<<PLAN:p:PLAN\n" + strings.Join(append(ops, term), "\n") + "\n"
	return provider.Response{Assistant: provider.Assistant{Content: text}}, nil
}

func (schedModel) CountTokens(s string) int     { return (len(s) + 3) / 4 }
func (schedModel) CostFor(provider.Usage) int64 { return 0 }
func (schedModel) ContextSize() (int, bool)     { return 0, false }

// pickName draws one of names.
func pickName(rng *rand.Rand, names []string) string { return names[rng.IntN(len(names))] }

func newSchedRig(seed uint64) (*schedRig, error) {
	g := &schedRig{seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), clock: clock.NewSim(time.Time{}),
		calls: map[string]int{}, cover: map[string]int{}, fails: map[string]string{}}
	fs := afero.NewMemMapFs()
	reg, err := scheme.Defaults(fs, driver.Workspace, "db")
	if err != nil {
		return nil, err
	}
	st := store.New(g.clock)
	cfg, err := config.Load(map[string]string{"HOME": driver.OperatorHome}, driver.Workspace)
	if err != nil {
		return nil, err
	}
	db := &plurnkexec.Executor{Name: "db", Eff: exec.EffectPure, Avail: exec.Probe{Available: true, Detail: "simulated db"}, Clock: g.clock,
		Scripts: map[string]plurnkexec.Script{"job": {Chunks: []plurnkexec.ScriptChunk{{At: 50 * time.Millisecond, Channel: "stdout", Data: "x\n"}}, ExitAt: 120 * time.Millisecond}}}
	xreg, err := exec.NewRegistry(db)
	if err != nil {
		return nil, err
	}
	if cfg.Vary, err = driver.Vary(); err != nil { // ANCHORAGE_VARY
		return nil, err
	}
	o := &ops.Engine{Store: st, Schemes: reg, Mimetypes: ops.NewMimetypes(), Vary: cfg.Vary}
	eng := engine.New(st, o, schedModel{g}, cfg, fs)
	g.svc, err = runs.New(runs.Config{Store: st, Engine: eng, Clock: g.clock, Executors: xreg, MaxActive: 6,
		Go:       func(fn func()) { g.pending = append(g.pending, fn) },
		Teardown: g.teardown})
	if err != nil {
		return nil, err
	}
	if g.ss, err = g.svc.NewSession("main"); err != nil {
		return nil, err
	}
	return g, nil
}

// names lists the session's runs but the reserved plurnk run.
func (g *schedRig) names() []string {
	rs, _ := g.svc.Runs(g.ss.ID)
	var out []string
	for _, r := range rs {
		if r.Name != store.PlurnkRun {
			out = append(out, r.Name)
		}
	}
	return out
}

func (g *schedRig) info(run string) runs.RunInfo {
	rs, _ := g.svc.Runs(g.ss.ID)
	for _, r := range rs {
		if r.Name == run {
			return r
		}
	}
	return runs.RunInfo{}
}

func (g *schedRig) fail(check, format string, args ...any) {
	if _, ok := g.fails[check]; !ok {
		g.fails[check] = fmt.Sprintf(format, args...)
	}
}

// clientAction is one seeded client call: loop.run, loop.inject or
// loop.cancel on a seeded run.
func (g *schedRig) clientAction(when string) {
	run := pickName(g.rng, g.names())
	switch g.rng.IntN(3) {
	case 0:
		_ = g.svc.Start(g.ss.ID, run, runs.LoopStart{Prompt: "go"})
		g.note(when, "loop.run "+run)
	case 1:
		_ = g.svc.Inject(g.ss.ID, run, "news")
		g.note(when, "loop.inject "+run)
	case 2:
		_, _ = g.svc.Cancel(g.ss.ID, run, "")
		g.note(when, "loop.cancel "+run)
		g.cover["cancel"]++
	}
}

func (g *schedRig) note(when, what string) { g.trace = append(g.trace, when+": "+what) }

// teardown is the runs service's Teardown seam: a drain found its queue
// empty and has released the lock. A third of the time the rig queues a
// loop for that run right then (a loop.run or an inject).
func (g *schedRig) teardown(session int64, run string) {
	if g.window != nil || g.rng.IntN(3) != 0 {
		return
	}
	in := g.info(run)
	if !in.Draining {
		g.fail(checkWindow, "the teardown seam of run %s ran after its slot was given up", run)
		return
	}
	g.window = &windowMark{run: run, drains: in.Drains, calls: g.calls[run]}
	if g.rng.IntN(2) == 0 {
		_ = g.svc.Start(session, run, runs.LoopStart{Prompt: "queued at teardown"})
		g.note("teardown", "loop.run "+run)
	} else {
		_ = g.svc.Inject(session, run, "injected at teardown")
		g.note("teardown", "loop.inject "+run)
	}
	g.cover["teardown queue"]++
}

// runDrain runs one pending drain, seeded, and checks a loop queued in its
// teardown window was claimed by it.
func (g *schedRig) runDrain() {
	i := g.rng.IntN(len(g.pending))
	fn := g.pending[i]
	g.pending = append(g.pending[:i], g.pending[i+1:]...)
	fn()
	if w := g.window; w != nil {
		g.window = nil
		in := g.info(w.run)
		switch {
		case in.Draining || in.Queued > 0:
			g.fail(checkWindow, "run %s: its drain returned with the slot taken=%v and %d queued", w.run, in.Draining, in.Queued)
		case in.Drains != w.drains:
			g.fail(checkWindow, "run %s: a second drain (%d, was %d) took the loop queued during teardown", w.run, in.Drains, w.drains)
		case g.calls[w.run] == w.calls:
			g.fail(checkWindow, "run %s: the loop queued during teardown never reached the model", w.run)
		}
	}
}

func (g *schedRig) openStreams() int {
	n := 0
	for _, name := range g.names() {
		n += len(g.svc.Streams().Open(g.ss, name))
	}
	return n
}

// play runs steps seeded client actions, clock steps and drains, then
// lets the session come to rest, and checks the drain discipline.
func (g *schedRig) play(steps int) {
	for i := 0; i < steps; i++ {
		switch n := g.rng.IntN(8); {
		case n < 2:
			g.clientAction("client")
		case n < 3:
			d := time.Duration(10+g.rng.IntN(190)) * time.Millisecond
			g.clock.Advance(d)
			g.svc.Pump()
			g.note("clock", d.String())
			g.cover["clock step"]++
		default:
			if len(g.pending) > 0 {
				g.runDrain()
			}
		}
		g.audit(false)
	}
	const limit = 5000
	for n := 0; len(g.pending) > 0 || g.openStreams() > 0; n++ {
		if n == limit {
			g.fail(checkRest, "the session did not come to rest after %d drains and clock steps (%d drains pending, %d streams open)", limit, len(g.pending), g.openStreams())
			return
		}
		if len(g.pending) > 0 {
			g.runDrain()
		} else {
			g.clock.Advance(50 * time.Millisecond)
			g.svc.Pump()
		}
		g.audit(false)
	}
	g.audit(true)
	g.count()
}

// audit checks the service's drain discipline; at rest, also that no run
// holds queued work or its slot.
func (g *schedRig) audit(rest bool) {
	breaches, err := g.svc.Audit(g.ss.ID)
	if err != nil {
		g.fail(checkUnclaimed, "%v", err)
		return
	}
	for _, v := range breaches {
		if strings.Contains(v, "two drains") {
			g.fail(checkTwice, "%s", v)
		} else if rest || len(g.pending) == 0 {
			g.fail(checkUnclaimed, "%s", v)
		}
	}
	if !rest {
		return
	}
	for _, r := range g.names() {
		if in := g.info(r); in.Draining || in.Queued > 0 {
			g.fail(checkUnclaimed, "run %s at rest with the slot taken=%v and %d queued loops", r, in.Draining, in.Queued)
		}
	}
}

// count tallies what the schedule did, from the logs and the streams.
func (g *schedRig) count() {
	for _, name := range g.names() {
		rows, _ := driver.RunLog(g.svc, g.ss, name)
		for _, r := range rows {
			isRun := strings.HasPrefix(r.Target, "run://") && r.Origin == string(scheme.WriterModel)
			switch {
			case isRun && r.Op == "EDIT" && r.Status == 201:
				g.cover["spawn"]++
			case isRun && r.Op == "SEND" && r.Status == 200:
				g.cover["irc"]++
			case isRun && r.Op == "COPY" && r.Status == 201:
				g.cover["fork"]++
			case isRun && r.Op == "KILL" && r.Status == 200:
				g.cover["kill"]++
			case r.Op == "SEND" && r.Status == 202 && r.Origin == string(scheme.WriterModel):
				g.cover["park"]++
			case r.Op == "EXEC" && r.Status == 102:
				k, err := driver.RunEntryKey(r.Target)
				if err != nil {
					continue
				}
				if st, ok := g.svc.Streams().Get(g.ss, k); ok && st.Status == 200 {
					g.cover["stream-conclude"]++
				}
			}
		}
	}
}

func getSchedule(ctx context.Context) (*scheduleReport, error) {
	r, ok := ctx.Value(scheduleKey{}).(*scheduleReport)
	if !ok || r == nil {
		return nil, fmt.Errorf("no seeded schedules have run")
	}
	return r, nil
}

func registerSchedules(sc world.Steps) {
	sc.Step(`^(\d+) seeded schedules of spawn, irc, fork, kill, park, stream-conclude, cancel and clock steps run, with loops queued during drain teardown$`, func(ctx context.Context, n int) (context.Context, error) {
		s, err := kit.From(ctx)
		if err != nil {
			return ctx, err
		}
		rep := &scheduleReport{failed: map[string]string{}, cover: map[string]int{}, replay: s.Replay}
		seeds := s.Seeds.Rand("run schedules")
		for i := 0; i < n; i++ {
			seed := seeds.Uint64()
			g, err := newSchedRig(seed)
			if err != nil {
				return ctx, fmt.Errorf("schedule %d: %w", i, err)
			}
			g.play(10 + g.rng.IntN(30))
			rep.ran++
			for k, v := range g.cover {
				rep.cover[k] += v
			}
			for check, msg := range g.fails {
				if _, ok := rep.failed[check]; !ok {
					tail := g.trace
					if len(tail) > 12 {
						tail = tail[len(tail)-12:]
					}
					rep.failed[check] = fmt.Sprintf("schedule %d (schedule seed %d): %s; last actions: %s", i, seed, msg, strings.Join(tail, ", "))
				}
			}
		}
		return context.WithValue(ctx, scheduleKey{}, rep), nil
	})
	then := func(check string) func(context.Context) error {
		return func(ctx context.Context) error {
			rep, err := getSchedule(ctx)
			if err != nil {
				return err
			}
			if msg, ok := rep.failed[check]; ok {
				return fmt.Errorf("%s\nreplay: %s", msg, rep.replay)
			}
			return nil
		}
	}
	sc.Step(`^no queued loop was left unclaimed in any schedule$`, then(checkUnclaimed))
	sc.Step(`^no run ever had two drains at once$`, then(checkTwice))
	sc.Step(`^every schedule came to rest$`, then(checkRest))
	sc.Step(`^every loop queued during a drain's teardown was claimed by that same drain$`, then(checkWindow))
	sc.Step(`^the schedules did each of (.+) at least (\d+) times$`, func(ctx context.Context, list string, n int) error {
		rep, err := getSchedule(ctx)
		if err != nil {
			return err
		}
		var short []string
		for _, k := range strings.Split(strings.ReplaceAll(list, " and ", ", "), ", ") {
			k = strings.TrimSpace(k)
			if rep.cover[k] < n {
				short = append(short, fmt.Sprintf("%s %d", k, rep.cover[k]))
			}
		}
		if len(short) > 0 {
			keys := make([]string, 0, len(rep.cover))
			for k, v := range rep.cover {
				keys = append(keys, fmt.Sprintf("%s=%d", k, v))
			}
			sort.Strings(keys)
			return fmt.Errorf("over %d schedules too few of: %s (all: %s)", rep.ran, strings.Join(short, ", "), strings.Join(keys, " "))
		}
		return nil
	})
}
