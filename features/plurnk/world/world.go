// Package world is one plurnk scenario's world: the driver of the plurnk
// under test, the script the scenario gives it, the workspace, and what
// the scenario heard back. The step packages reach the scenario through
// it; the helpers here are the ones more than one of them uses.
//
// It may import godog, features/kit, the driver, impl/plurnk/... and sim/.
package world

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"anchorage/features/kit"
	"anchorage/features/plurnk/driver"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/llm"
	"anchorage/sim/plurnkexec"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// World is one scenario's world.
type World struct {
	Drv    driver.Plurnk
	Script *driver.Script
	FS     afero.Fs // the workspace (/work) and the operator's files
	Conns  driver.Conns
	// Loop and Turn are the coordinate the model's actions are emitted
	// at.
	Loop, Turn int
	// What the scenario heard: the actions' results and the loops',
	// oldest first; the answer values it noted, by "who path"; the calls
	// of a mimetype handler it counts.
	Results      []ops.Result
	Loops        []engine.Result
	Noted        map[string]string
	HandlerCalls int
}

// Steps is what a section registers its steps with: Step registers a step
// only the embedded reference takes (it reaches inside it, or pins what
// only it shows), Public one the public surface of a daemon expresses too.
// A scenario that reaches no daemon itself and takes a step of the first
// kind is pending for a daemon process (driver.New).
type Steps struct {
	kit.Steps
	public *[]string
}

// NewSteps wraps sc.
func NewSteps(sc kit.Steps) Steps { return Steps{Steps: sc, public: new([]string)} }

// Public registers a step a daemon process takes too.
func (s Steps) Public(expr string, fn any) {
	s.Steps.Step(expr, fn)
	*s.public = append(*s.public, expr)
}

type key struct{}

// New makes the scenario's world, its driver chosen once (driver.New)
// knowing the public steps of sc.
func New(ctx context.Context, sc *godog.Scenario, steps Steps) (*World, error) {
	w := &World{Script: driver.NewScript(), Conns: driver.Conns{}, Noted: map[string]string{}, Loop: 1, Turn: 1}
	drv, err := driver.New(ctx, sc, w.Script, w.Conns, *steps.public)
	if drv != nil {
		w.Drv, w.FS = drv, drv.Workspace()
	}
	return w, err
}

// With returns ctx carrying w.
func With(ctx context.Context, w *World) context.Context { return context.WithValue(ctx, key{}, w) }

// Get is the scenario's world.
func Get(ctx context.Context) *World { return ctx.Value(key{}).(*World) }

// Close ends what the scenario left running.
func Close(ctx context.Context, failed bool) error {
	w, ok := ctx.Value(key{}).(*World)
	if !ok || w.Drv == nil {
		return nil
	}
	return w.Drv.Close(failed)
}

// Embedded is the embedded reference, for the steps only the engine as a
// library takes (a daemon process skips their scenarios when its driver
// is chosen).
func (w *World) Embedded() (*driver.Embedded, error) {
	e, ok := w.Drv.(*driver.Embedded)
	if !ok {
		return nil, fmt.Errorf("%w: the step needs the embedded reference", godog.ErrSkip)
	}
	return e, nil
}

// Library runs f on the embedded reference.
func (w *World) Library(f func(*driver.Embedded) error) error {
	e, err := w.Embedded()
	if err != nil {
		return err
	}
	return f(e)
}

// Reply adds r to the script of the scenario's model.
func (w *World) Reply(r llm.Reply) error {
	w.Script.Model.Add(r)
	return nil
}

// Command changes the script of the host command name (Script.Commands)
// with change, through the driver.
func (w *World) Command(name string, change func(*plurnkexec.Script)) error {
	s := w.Script.Commands[name]
	change(&s)
	return w.Drv.Command(name, s)
}

// Spawned checks that the command cmd is among spawns n times.
func Spawned(cmd string, n int, spawns []exec.Spec) error {
	got := 0
	for _, sp := range spawns {
		if sp.Command == cmd {
			got++
		}
	}
	if got != n {
		return fmt.Errorf("%q spawned %d times, want %d", cmd, got, n)
	}
	return nil
}

// Chunks reads a table | after ms | channel | output | into a command's
// chunks.
func Chunks(tbl *godog.Table) ([]plurnkexec.ScriptChunk, error) {
	var out []plurnkexec.ScriptChunk
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) != 3 {
			return nil, fmt.Errorf("row %d: want | after ms | channel | output |", i)
		}
		ms, err := strconv.Atoi(row.Cells[0].Value)
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		out = append(out, plurnkexec.ScriptChunk{At: time.Duration(ms) * time.Millisecond, Channel: row.Cells[1].Value, Data: driver.Unescape(row.Cells[2].Value)})
	}
	return out, nil
}

// SplitList splits "a, b" into its items; "" is no item.
func SplitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}

// Emit has run's model emit the one statement src at the world's
// coordinate.
func (w *World) Emit(run, src string) error {
	st, err := dsl.ParseStatement(driver.Unescape(src))
	if err != nil {
		return fmt.Errorf("emission %q: want one statement: %w", src, err)
	}
	return w.Dispatch(run, st)
}

// Dispatch has run's model emit st at the world's coordinate, through the
// driver, and keeps the result.
func (w *World) Dispatch(run string, st dsl.Statement) error {
	res, err := w.Drv.Do(run, w.Loop, w.Turn, st)
	if err != nil {
		return err
	}
	w.Results = append(w.Results, res)
	return nil
}

// Client dispatches a statement as a client would (outside any model
// turn), failing when it does not succeed.
func (w *World) Client(st dsl.Statement) error {
	res, err := w.Drv.Client(st)
	if err != nil {
		return err
	}
	if res.Status >= 300 {
		return fmt.Errorf("setting up %s %s: %d %s", st.Op, st.Target, res.Status, res.Reason)
	}
	return nil
}

// GivenEntry writes the entry t holding content (tagged with the list
// tags, when given) as a client would.
func (w *World) GivenEntry(t, content, tags string) error {
	tg, err := driver.ParseTarget(t)
	if err != nil {
		return err
	}
	body := driver.Unescape(content)
	st := dsl.Statement{Op: dsl.OpEdit, Target: &tg, Body: &body}
	if tags != "" {
		st.Signal = &dsl.Signal{Tags: SplitList(tags)}
	}
	return w.Client(st)
}

// Channel is the channel name of the entry t, which must exist.
func (w *World) Channel(name, t string) (store.Channel, error) {
	e, err := w.Drv.Entry(t)
	if err != nil {
		return store.Channel{}, err
	}
	if e == nil {
		return store.Channel{}, fmt.Errorf("%s does not exist", t)
	}
	ch, ok := e.Channels[name]
	if !ok {
		return store.Channel{}, fmt.Errorf("%s has no %s channel", t, name)
	}
	return ch, nil
}

// Last is the last action's result.
func (w *World) Last() (ops.Result, error) {
	if len(w.Results) == 0 {
		return ops.Result{}, fmt.Errorf("no action has been dispatched")
	}
	return w.Results[len(w.Results)-1], nil
}

// StartLoop runs a loop of the model run through the driver and keeps
// what it did.
func (w *World) StartLoop(ctx context.Context, prompt string, maxTurns int) error {
	res, err := w.Drv.Loop(ctx, prompt, maxTurns)
	if err != nil {
		return err
	}
	w.Loops = append(w.Loops, res)
	return nil
}

// LastLoop is what the last loop did.
func (w *World) LastLoop() (engine.Result, error) {
	if len(w.Loops) == 0 {
		return engine.Result{}, fmt.Errorf("no loop has run")
	}
	return w.Loops[len(w.Loops)-1], nil
}

// CheckEnding compares how a stream ended — its status, the signal that
// ended it and when, from its start (0 while it still runs) — with what a
// scenario expects.
func CheckEnding(name string, s exec.Stream, status int, sig string, ms int) error {
	type ending struct {
		Status int
		Signal string
		At     time.Duration
	}
	got := ending{s.Status, s.Signal, s.Ended.Sub(s.Started)}
	if s.Status == 0 {
		got.At = 0
	}
	want := ending{status, sig, time.Duration(ms) * time.Millisecond}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("%s ended (-want +got):\n%s", name, d)
	}
	return nil
}
