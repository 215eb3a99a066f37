package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
	"anchorage/sim/llm"

	"github.com/spf13/afero"
)

type fixture struct {
	fs  afero.Fs
	st  *store.Store
	ss  *store.Session
	run *store.Run
	llm *llm.Mock
	eng *Engine
}

func newFixture(t fataler, env map[string]string, replies ...string) *fixture {
	t.Helper()
	fs := afero.NewMemMapFs()
	reg, err := scheme.Defaults(fs, "/work", "sh")
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(clock.NewSim(time.Time{}))
	ss, err := st.NewSession("model")
	if err != nil {
		t.Fatal(err)
	}
	run, err := ss.Run("model")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(env, "/work")
	if err != nil {
		t.Fatal(err)
	}
	m := llm.New(replies...)
	o := &ops.Engine{Store: st, Schemes: reg, Mimetypes: ops.NewMimetypes()}
	return &fixture{fs: fs, st: st, ss: ss, run: run, llm: m, eng: New(st, o, m, cfg, fs)}
}

func (f *fixture) run1(t fataler, prompt string) Result {
	t.Helper()
	res, err := f.eng.Run(context.Background(), Request{Session: f.ss, Run: f.run, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestDoneLoop(t *testing.T) {
	f := newFixture(t, nil,
		"<<PLAN:note the capital:PLAN\n<<EDIT(known:///france.md):Paris:EDIT\n<<SEND[102]:noted:SEND\n",
		"<<PLAN:finish:PLAN\n<<SEND[200]:Paris is the capital.:SEND\n")
	res := f.run1(t, "What is the capital of France?")
	if res.Status != StatusDone {
		t.Fatalf("status %d (%s), want 200", res.Status, res.Reason)
	}
	if len(res.Packets()) != 2 {
		t.Fatalf("%d packets, want 2", len(res.Packets()))
	}
	p2 := res.Packets()[1].Text()
	if !strings.Contains(p2, "log:///1/1/1/EDIT 201 known:///france.md") {
		t.Fatalf("second packet lacks the EDIT row:\n%s", p2)
	}
	if string(res.Meta) != "{}" {
		t.Fatalf("meta %s, want {}", res.Meta)
	}
}

func TestIdleTurnsStrikeOut(t *testing.T) {
	idle := "<<PLAN:wait:PLAN\n<<SEND[102]:still thinking:SEND\n"
	f := newFixture(t, map[string]string{"PLURNK_MIN_CYCLES": "9"}, idle, idle, idle, idle)
	res := f.run1(t, "go")
	if res.Status != StatusFailed {
		t.Fatalf("status %d, want 500", res.Status)
	}
	p2 := res.Packets()[1].Text()
	if !strings.Contains(p2, SteerIdleTurn) {
		t.Fatalf("packet 2 lacks the steer:\n%s", p2)
	}
}

func TestCycleIsRunaway(t *testing.T) {
	same := "<<PLAN:again:PLAN\n<<READ(known:///x.md)::READ\n<<SEND[102]:looking:SEND\n"
	f := newFixture(t, nil, same, same, same, same, same, same)
	res := f.run1(t, "go")
	if res.Status != StatusRunaway {
		t.Fatalf("status %d (%s), want 508", res.Status, res.Reason)
	}
}

// fataler is what the fixture needs of a test: testing.TB or *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
}
