// Package plurnk holds the godog step definitions for the plurnk features: a thin
// adapter from the Gherkin in features/plurnk/*.feature to impl/plurnk (the
// session store, the schemes and the entry ops) and sim/.
// It may import godog, features/kit, impl/ and sim/.
package plurnk

import (
	"context"
	"fmt"
	"strings"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
	"anchorage/sim/vfs"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// workspace is the root of the project files on the scenario's fs.
const workspace = "/work"

// world is one scenario's state.
type world struct {
	fs      afero.Fs
	faults  *vfs.Faulty // fs, failing where a scenario arms a fault
	store   *store.Store
	eng     *ops.Engine
	session *store.Session
	runs    map[string]*store.Run
	results []ops.Result
	calls   int // mimetype handler calls
	loop    int // the coordinate the runs' actions are recorded at
	turn    int
	// drv is how the data-plane steps reach plurnk, chosen once per
	// scenario: the engine above as a library, or a daemon process.
	drv driver
}

type worldKey struct{}

func get(ctx context.Context) *world { return ctx.Value(worldKey{}).(*world) }

func newWorld() (*world, error) {
	fs := vfs.NewFaulty(afero.NewMemMapFs(), 1)
	reg, err := scheme.Defaults(fs, workspace, "sh")
	if err != nil {
		return nil, err
	}
	st := store.New(clock.NewSim(time.Time{}))
	ss, err := st.NewSession("model")
	if err != nil {
		return nil, err
	}
	w := &world{fs: fs, faults: fs, store: st, session: ss, runs: map[string]*store.Run{}, loop: 1, turn: 1}
	varied, err := worldVary() // ANCHORAGE_VARY: the spec-permitted variations
	if err != nil {
		return nil, err
	}
	w.eng = &ops.Engine{Store: st, Schemes: reg, Mimetypes: ops.NewMimetypes(), Vary: varied}
	w.drv = embedded{w: w}
	for _, r := range ss.Runs {
		w.runs[r.Name] = r
	}
	return w, nil
}

// InitializeScenario registers the plurnk steps with a scenario context.
func InitializeScenario(sc kit.Steps) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		if _, err := kit.From(ctx); err != nil {
			return ctx, err
		}
		w, err := newWorld()
		if err != nil {
			return ctx, fmt.Errorf("plurnk world: %w", err)
		}
		return context.WithValue(ctx, worldKey{}, w), nil
	})

	// Givens.
	sc.Step(`^the entry (\S+) contains a line of (\d+) "(.)" characters, then "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, t string, n int, c, rest string) error {
		return givenEntry(ctx, t, strings.Repeat(c, n)+"\\n"+rest)
	})
	sc.Step(`^the entry (\S+) contains "((?:[^"\\]|\\.)*)"$`, givenEntry)
	sc.Step(`^the entry (\S+) contains:$`, func(ctx context.Context, t string, doc *godog.DocString) error {
		return givenEntry(ctx, t, doc.Content)
	})
	sc.Step(`^the entry (\S+) contains "((?:[^"\\]|\\.)*)" tagged "([^"]*)"$`, givenTaggedEntry)
	sc.Step(`^a second run "([^"]*)" in the session$`, givenRun)
	sc.Step(`^the workspace file (\S+) contains "((?:[^"\\]|\\.)*)"$`, givenFile)
	sc.Step(`^the workspace holds the binary file (\S+)$`, givenBinaryFile)
	sc.Step(`^the disk refuses once to list the folder (\S+)$`, func(ctx context.Context, dir string) error {
		return get(ctx).faults.Arm(vfs.Fault{Point: vfs.ListFail, Pattern: dir, Count: 1})
	})
	sc.Step(`^the exec output (\S+) has streamed "((?:[^"\\]|\\.)*)" on (\w+) and is still active$`, func(ctx context.Context, t, chunk, ch string) error {
		return get(ctx).drv.streamed(t, unescape(chunk), ch)
	})
	sc.Step(`^the exec output (\S+) has closed$`, func(ctx context.Context, t string) error {
		return get(ctx).drv.streamEnd(t, false)
	})
	sc.Step(`^the exec output (\S+) streams "((?:[^"\\]|\\.)*)" on (\w+)$`, func(ctx context.Context, t, chunk, ch string) error {
		return get(ctx).drv.streamMore(t, unescape(chunk), ch)
	})
	sc.Step(`^the exec output (\S+) (closes|fails)$`, func(ctx context.Context, t, how string) error {
		return get(ctx).drv.streamEnd(t, how == "fails")
	})
	sc.Step(`^a scheme "([^"]*)" whose handler throws$`, func(ctx context.Context, name string) error {
		return givenFlakyScheme(ctx, name, "always")
	})
	sc.Step(`^a scheme "([^"]*)" whose handler throws (while loading|while saving|while removing|while listing|after saving)$`, givenFlakyScheme)
	sc.Step(`^a scheme "([^"]*)" whose handler fails with a plain error while saving$`, func(ctx context.Context, name string) error {
		return givenFlakyScheme(ctx, name, "plain error")
	})
	sc.Step(`^a (\S+) mimetype handler that counts its calls$`, givenCountingHandler)

	// Whens.
	sc.Step(`^the model emits (<<.+)$`, func(ctx context.Context, src string) error { return emit(ctx, "model", src) })
	sc.Step(`^the model emits:$`, func(ctx context.Context, doc *godog.DocString) error { return emit(ctx, "model", doc.Content) })
	sc.Step(`^run "([^"]*)" emits (<<.+)$`, emit)
	sc.Step(`^the model emits an EDIT of (\S+) with a body of (\d+) characters$`, emitLarge)
	sc.Step(`^the model emits (\d+) EDITs of (\S+) in one turn$`, emitMany)
	sc.Step(`^the model's turn (\d+)/(\d+) begins$`, func(ctx context.Context, loop, turn int) error {
		w := get(ctx)
		w.loop, w.turn = loop, turn
		return nil
	})
	sc.Step(`^the packet is assembled$`, func(ctx context.Context) error { return get(ctx).drv.assemble(ctx) })

	// Thens.
	sc.Step(`^the action answers (\d+)$`, thenStatus)
	sc.Step(`^the action answers (\d+) on the same entry as before$`, thenSameEntry)
	sc.Step(`^the result content is:$`, thenContent)
	sc.Step(`^the result content is "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, want string) error {
		return compareContent(ctx, unescape(want))
	})
	sc.Step(`^the result content is empty$`, func(ctx context.Context) error { return compareContent(ctx, "") })
	sc.Step(`^the result mimetype is "([^"]*)"$`, thenMimetype)
	sc.Step(`^the result reason mentions "((?:[^"\\]|\\.)*)"$`, thenReason)
	sc.Step(`^the result reason does not mention "((?:[^"\\]|\\.)*)"$`, thenReasonLacks)
	sc.Step(`^the result lists (\d+) items?$`, thenItems)
	sc.Step(`^item (\d+) is (\S+) with content:$`, thenItem)
	sc.Step(`^the (\w+) channel of (\S+) holds "((?:[^"\\]|\\.)*)"$`, thenChannel)
	sc.Step(`^the (\w+) channel of (\S+) holds (\d+) characters$`, thenChannelLen)
	sc.Step(`^the (\w+) channel of (\S+) is (static|active|closed|errored)$`, thenState)
	sc.Step(`^the entry (\S+) has no (\w+) channel$`, thenNoChannel)
	sc.Step(`^the entry (\S+) has tags "([^"]*)"$`, thenTags)
	sc.Step(`^the entry (\S+) does not exist$`, thenAbsent)
	sc.Step(`^the workspace file (\S+) holds "((?:[^"\\]|\\.)*)"$`, thenFile)
	sc.Step(`^the workspace file (\S+) does not exist$`, thenNoFile)
	sc.Step(`^the address of (\S+) is (\S+)$`, thenAddress)
	sc.Step(`^the action's log row records status (\d+) at log:///(\S+)$`, thenRow)
	sc.Step(`^the errors of turn (\d+)/(\d+) point at "([^"]*)"$`, thenErrors)
	sc.Step(`^the mimetype handler has been called (\d+) times?$`, thenCalls)
	sc.Step(`^the (model|plurnk)'s log row log:///(\S+) is (open|folded)$`, thenRowState)
	sc.Step(`^run "([^"]*)"'s log row log:///(\S+) is (open|folded)$`, thenRowState)
	sc.Step(`^the model's log holds no row log:///(\S+)$`, thenNoRow)
	sc.Step(`^the model's log holds the rows:$`, thenRows)
	sc.Step(`^the action wrote no log row$`, thenNoRowWritten)
	sc.Step(`^the action's log rows are:$`, thenActionRows)
	sc.Step(`^every action answered (\d+) or (\d+)$`, thenAllStatuses)
	sc.Step(`^every action answered (\d+)$`, func(ctx context.Context, n int) error { return thenAllStatuses(ctx, n, n) })

	// The engine loop (issue "plurnk II") and the exec/membership pieces
	// (issue "plurnk III") register their steps from files of their own.
	registerEngineSteps(sc)
	registerExecSteps(sc)
	registerDataSteps(sc)
	registerSharpSteps(sc)
	registerStreamControlSteps(sc)
	registerSeedSteps(sc)
}

// --- givens ---------------------------------------------------------------

// client dispatches a statement as a client would (outside any model turn),
// failing when it does not succeed.
func client(w *world, st dsl.Statement) error {
	res, err := w.drv.client(st)
	if err != nil {
		return err
	}
	if res.Status >= 300 {
		return fmt.Errorf("setting up %s %s: %d %s", st.Op, st.Target, res.Status, res.Reason)
	}
	return nil
}

func parseTarget(s string) (dsl.Target, error) {
	st, err := dsl.ParseStatement("<<READ(" + s + ")::READ")
	if err != nil || st.Target == nil {
		return dsl.Target{}, fmt.Errorf("target %q: %v", s, err)
	}
	return *st.Target, nil
}

func givenEntry(ctx context.Context, t, content string) error {
	return givenTaggedEntry(ctx, t, content, "")
}

func givenTaggedEntry(ctx context.Context, t, content, tags string) error {
	tg, err := parseTarget(t)
	if err != nil {
		return err
	}
	body := unescape(content)
	st := dsl.Statement{Op: dsl.OpEdit, Target: &tg, Body: &body}
	if tags != "" {
		st.Signal = &dsl.Signal{Tags: splitList(tags)}
	}
	return client(get(ctx), st)
}

func givenRun(ctx context.Context, name string) error { return get(ctx).drv.addRun(name) }

func givenFile(ctx context.Context, p, content string) error {
	return afero.WriteFile(get(ctx).fs, workspace+"/"+strings.TrimPrefix(p, "/"), []byte(unescape(content)), 0o644)
}

func givenBinaryFile(ctx context.Context, p string) error {
	return afero.WriteFile(get(ctx).fs, workspace+"/"+strings.TrimPrefix(p, "/"), []byte{0x89, 'P', 'N', 'G', 0, 0, 1}, 0o644)
}

// streamKey resolves an exec output address to its entry key.
func streamKey(w *world, t string) (store.Key, scheme.Manifest, error) {
	tg, err := parseTarget(t)
	if err != nil {
		return store.Key{}, scheme.Manifest{}, err
	}
	r, err := w.eng.Schemes.Resolve(tg)
	if err != nil {
		return store.Key{}, scheme.Manifest{}, err
	}
	return r.Key, r.Handler.Manifest(), nil
}

func givenStreamClosed(ctx context.Context, t string) error {
	return setStreamState(ctx, t, store.StateClosed)
}

// setStreamState moves the stream's channels to state, as its scheme does
// when the process behind it ends.
func setStreamState(ctx context.Context, t string, state store.State) error {
	w := get(ctx)
	k, _, err := streamKey(w, t)
	if err != nil {
		return err
	}
	return w.store.Update(w.session, func(tx *store.Tx) error { return scheme.SetState(tx, k, state) })
}

// flaky is a scheme that stores its entries like known:// but fails as its
// step says: an exception (a panic) while loading, saving, removing or
// listing, always, after a save has reached the store, or a plain error
// (not a status) while saving.
type flaky struct {
	*scheme.Entries
	when string
}

func (h flaky) throw(what string) {
	if h.when == "always" || h.when == "while "+what {
		panic("handler exploded while " + what)
	}
}

func (h flaky) Load(c scheme.Call, k store.Key) (*store.Entry, error) {
	h.throw("loading")
	return h.Entries.Load(c, k)
}

func (h flaky) Save(c scheme.Call, e *store.Entry) error {
	h.throw("saving")
	if h.when == "plain error" {
		return fmt.Errorf("the disk behind %s is full", e.Key)
	}
	if err := h.Entries.Save(c, e); err != nil {
		return err
	}
	if h.when == "after saving" {
		panic("handler exploded after saving " + e.Key.String())
	}
	return nil
}

func (h flaky) Remove(c scheme.Call, k store.Key) (bool, error) {
	h.throw("removing")
	return h.Entries.Remove(c, k)
}

func (h flaky) List(c scheme.Call) ([]*store.Entry, error) {
	h.throw("listing")
	return h.Entries.List(c)
}

func givenFlakyScheme(ctx context.Context, name, when string) error {
	inner := scheme.Unknown()
	inner.M.Name = name
	return get(ctx).eng.Schemes.Register(flaky{Entries: inner, when: when})
}

func givenCountingHandler(ctx context.Context, mt string) error {
	w := get(ctx)
	w.eng.Mimetypes.Register(mt, func(content string) ops.Derived {
		w.calls++
		return ops.Derived{Lines: strings.Count(content, "\n") + 1}
	})
	return nil
}

// --- whens ----------------------------------------------------------------

func emit(ctx context.Context, run, src string) error {
	w := get(ctx)
	p := dsl.Parse(unescape(src))
	if p.HasErrors() || len(p.Statements) != 1 {
		return fmt.Errorf("emission %q: want one statement, got %d (errors %v)", src, len(p.Statements), p.Errors)
	}
	return w.dispatch(run, p.Statements[0])
}

// dispatch has run's model emit st at the world's coordinate, through the
// scenario's driver, and keeps the result.
func (w *world) dispatch(run string, st dsl.Statement) error {
	res, err := w.drv.do(run, st)
	if err != nil {
		return err
	}
	w.results = append(w.results, res)
	return nil
}

// emitMany dispatches n EDITs of one entry, each with a new body, as one
// turn of the model.
func emitMany(ctx context.Context, n int, t string) error {
	w := get(ctx)
	tg, err := parseTarget(t)
	if err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		body := fmt.Sprintf("revision %d", i)
		if err := w.dispatch("model", dsl.Statement{Op: dsl.OpEdit, Target: &tg, Body: &body}); err != nil {
			return err
		}
	}
	return nil
}

func emitLarge(ctx context.Context, t string, n int) error {
	w := get(ctx)
	tg, err := parseTarget(t)
	if err != nil {
		return err
	}
	body := strings.Repeat("x", n)
	return w.dispatch("model", dsl.Statement{Op: dsl.OpEdit, Target: &tg, Body: &body})
}

// --- thens ----------------------------------------------------------------

func last(w *world) (ops.Result, error) {
	if len(w.results) == 0 {
		return ops.Result{}, fmt.Errorf("no action has been dispatched")
	}
	return w.results[len(w.results)-1], nil
}

func thenStatus(ctx context.Context, want int) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	if r.Status != want {
		return fmt.Errorf("the action answered %d (%s), want %d", r.Status, r.Reason, want)
	}
	return nil
}

func thenSameEntry(ctx context.Context, want int) error {
	w := get(ctx)
	if err := thenStatus(ctx, want); err != nil {
		return err
	}
	if len(w.results) < 2 {
		return fmt.Errorf("there is no earlier action to compare with")
	}
	a, b := w.results[len(w.results)-2], w.results[len(w.results)-1]
	if a.EntryID == 0 || a.EntryID != b.EntryID {
		return fmt.Errorf("entry ids differ: before %d, now %d", a.EntryID, b.EntryID)
	}
	return nil
}

func compareContent(ctx context.Context, want string) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	if d := cmp.Diff(want, r.Content); d != "" {
		return fmt.Errorf("result content (-want +got):\n%s", d)
	}
	return nil
}

// thenContent compares the whole result content with the doc string; `\t`
// in the doc string is a tab, and each line of the doc string ends with a
// newline.
func thenContent(ctx context.Context, doc *godog.DocString) error {
	return compareContent(ctx, unescape(doc.Content)+"\n")
}

func thenMimetype(ctx context.Context, want string) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	if r.Mimetype != want {
		return fmt.Errorf("mimetype %q, want %q", r.Mimetype, want)
	}
	return nil
}

func thenReason(ctx context.Context, want string) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	if want = unescape(want); !strings.Contains(r.Reason, want) {
		return fmt.Errorf("reason %q does not mention %q", r.Reason, want)
	}
	return nil
}

func thenReasonLacks(ctx context.Context, unwanted string) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	if unwanted = unescape(unwanted); strings.Contains(r.Reason, unwanted) {
		return fmt.Errorf("reason %q mentions %q", r.Reason, unwanted)
	}
	return nil
}

func thenItems(ctx context.Context, n int) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	if len(r.Items) != n {
		return fmt.Errorf("%d items, want %d", len(r.Items), n)
	}
	return nil
}

func thenItem(ctx context.Context, i int, t string, doc *godog.DocString) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	if i < 1 || i > len(r.Items) {
		return fmt.Errorf("no item %d among %d", i, len(r.Items))
	}
	it := r.Items[i-1]
	want := ops.Result{Target: t, Content: unescape(doc.Content) + "\n"}
	if d := cmp.Diff(want, ops.Result{Target: it.Target, Content: it.Content}); d != "" {
		return fmt.Errorf("item %d (-want +got):\n%s", i, d)
	}
	return nil
}

// entry loads the entry a target names, through the scenario's driver.
func entry(w *world, t string) (*store.Entry, error) { return w.drv.entry(t) }

// load loads the entry a target names, straight from its scheme.
func (w *world) load(t string) (*store.Entry, error) {
	tg, err := parseTarget(t)
	if err != nil {
		return nil, err
	}
	r, err := w.eng.Schemes.Resolve(tg)
	if err != nil {
		return nil, err
	}
	var e *store.Entry
	err = w.store.Update(w.session, func(tx *store.Tx) error {
		var err error
		e, err = r.Handler.Load(scheme.Call{Tx: tx, Run: w.runs["model"], Writer: scheme.WriterClient}, r.Key)
		return err
	})
	return e, err
}

func channel(w *world, name, t string) (store.Channel, error) {
	e, err := entry(w, t)
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

func thenChannel(ctx context.Context, name, t, want string) error {
	ch, err := channel(get(ctx), name, t)
	if err != nil {
		return err
	}
	if d := cmp.Diff(unescape(want), ch.Content); d != "" {
		return fmt.Errorf("%s channel of %s (-want +got):\n%s", name, t, d)
	}
	return nil
}

func thenChannelLen(ctx context.Context, name, t string, n int) error {
	ch, err := channel(get(ctx), name, t)
	if err != nil {
		return err
	}
	if len(ch.Content) != n {
		return fmt.Errorf("%s channel of %s holds %d characters, want %d", name, t, len(ch.Content), n)
	}
	return nil
}

func thenState(ctx context.Context, name, t, want string) error {
	ch, err := channel(get(ctx), name, t)
	if err != nil {
		return err
	}
	if string(ch.State) != want {
		return fmt.Errorf("%s channel of %s is %s, want %s", name, t, ch.State, want)
	}
	return nil
}

func thenNoChannel(ctx context.Context, t, name string) error {
	e, err := entry(get(ctx), t)
	if err != nil {
		return err
	}
	if e == nil {
		return fmt.Errorf("%s does not exist", t)
	}
	if _, ok := e.Channels[name]; ok {
		return fmt.Errorf("%s has a %s channel", t, name)
	}
	return nil
}

func thenTags(ctx context.Context, t, want string) error {
	e, err := entry(get(ctx), t)
	if err != nil {
		return err
	}
	if e == nil {
		return fmt.Errorf("%s does not exist", t)
	}
	if d := cmp.Diff(splitList(want), e.Tags); d != "" {
		return fmt.Errorf("tags of %s (-want +got):\n%s", t, d)
	}
	return nil
}

func thenAbsent(ctx context.Context, t string) error {
	e, err := entry(get(ctx), t)
	if err != nil {
		return err
	}
	if e != nil {
		return fmt.Errorf("%s exists (entry %d)", t, e.ID)
	}
	return nil
}

func thenFile(ctx context.Context, p, want string) error {
	b, err := afero.ReadFile(get(ctx).fs, workspace+"/"+strings.TrimPrefix(p, "/"))
	if err != nil {
		return err
	}
	if d := cmp.Diff(unescape(want), string(b)); d != "" {
		return fmt.Errorf("workspace file %s (-want +got):\n%s", p, d)
	}
	return nil
}

func thenNoFile(ctx context.Context, p string) error {
	ok, err := afero.Exists(get(ctx).fs, workspace+"/"+strings.TrimPrefix(p, "/"))
	if err != nil {
		return err
	}
	if ok {
		return fmt.Errorf("workspace file %s exists", p)
	}
	return nil
}

func thenAddress(ctx context.Context, t, want string) error {
	tg, err := parseTarget(t)
	if err != nil {
		return err
	}
	a, err := get(ctx).eng.Schemes.Address(tg)
	if err != nil {
		return err
	}
	if a.String() != want {
		return fmt.Errorf("address of %s is %s, want %s", t, a, want)
	}
	return nil
}

func thenRow(ctx context.Context, want int, coord string) error {
	w := get(ctx)
	r, err := last(w)
	if err != nil {
		return err
	}
	log := w.runs["model"].Log
	if len(log) == 0 || log[len(log)-1].ID != r.Row.ID {
		return fmt.Errorf("the action's row is not the last row of the model run's log")
	}
	row := log[len(log)-1]
	if row.Status != want || row.Coord() != coord {
		return fmt.Errorf("row log:///%s records %d, want %d at log:///%s", row.Coord(), row.Status, want, coord)
	}
	return nil
}

func thenErrors(ctx context.Context, loop, turn int, want string) error {
	got := ops.ErrorPointers(get(ctx).runs["model"], loop, turn)
	if d := cmp.Diff(splitList(want), got); d != "" {
		return fmt.Errorf("error pointers (-want +got):\n%s", d)
	}
	return nil
}

func findRow(w *world, run, coord string) (*store.LogRow, error) {
	r, ok := w.runs[run]
	if !ok {
		return nil, fmt.Errorf("no run %q in the session", run)
	}
	row := scheme.FindRow(r, "/"+coord)
	if row == nil {
		return nil, fmt.Errorf("the %s run's log has no row log:///%s; it holds %s", run, coord, strings.Join(rowList(r), ", "))
	}
	return row, nil
}

// rowList renders a run's log as its handles, open rows marked +, folded -.
func rowList(r *store.Run) []string {
	var out []string
	for _, row := range r.Log {
		mark := "-"
		if row.Expanded {
			mark = "+"
		}
		out = append(out, mark+row.Handle())
	}
	return out
}

func thenRowState(ctx context.Context, run, coord, state string) error {
	row, err := findRow(get(ctx), run, coord)
	if err != nil {
		return err
	}
	if row.Expanded != (state == "open") {
		return fmt.Errorf("row log:///%s of the %s run is expanded=%v, want %s", row.Handle(), run, row.Expanded, state)
	}
	return nil
}

func thenNoRow(ctx context.Context, coord string) error {
	w := get(ctx)
	if row := scheme.FindRow(w.runs["model"], "/"+coord); row != nil {
		return fmt.Errorf("the model's log still holds log:///%s", row.Handle())
	}
	return nil
}

// thenRows compares the model's whole log with a table of rows (handles
// L/T/S/OP) and their states.
func thenRows(ctx context.Context, table *godog.Table) error {
	var want []string
	for _, r := range table.Rows[1:] {
		mark := "-"
		if r.Cells[1].Value == "open" {
			mark = "+"
		}
		want = append(want, mark+r.Cells[0].Value)
	}
	if d := cmp.Diff(want, rowList(get(ctx).runs["model"])); d != "" {
		return fmt.Errorf("the model's log, + open and - folded (-want +got):\n%s", d)
	}
	return nil
}

func thenNoRowWritten(ctx context.Context) error {
	w := get(ctx)
	r, err := last(w)
	if err != nil {
		return err
	}
	if r.Row.ID != 0 || len(r.Rows) != 0 {
		return fmt.Errorf("the action wrote the row log:///%s", r.Row.Handle())
	}
	return nil
}

// thenActionRows compares the rows the last action recorded with a table of
// row coordinates, targets and statuses.
func thenActionRows(ctx context.Context, table *godog.Table) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	var want, got [][3]string
	for _, row := range table.Rows[1:] {
		want = append(want, [3]string{row.Cells[0].Value, row.Cells[1].Value, row.Cells[2].Value})
	}
	for _, row := range r.Rows {
		got = append(got, [3]string{"log:///" + row.Coord(), row.Target, fmt.Sprint(row.Status)})
	}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("the action's rows (-want +got):\n%s", d)
	}
	return nil
}

func thenAllStatuses(ctx context.Context, a, b int) error {
	w := get(ctx)
	if len(w.results) == 0 {
		return fmt.Errorf("no action has been dispatched")
	}
	for i, r := range w.results {
		if r.Status != a && r.Status != b {
			return fmt.Errorf("action %d answered %d (%s)", i+1, r.Status, r.Reason)
		}
	}
	return nil
}

func thenCalls(ctx context.Context, n int) error {
	if got := get(ctx).calls; got != n {
		return fmt.Errorf("the mimetype handler was called %d times, want %d", got, n)
	}
	return nil
}

// --- helpers --------------------------------------------------------------

// unescape turns the `\n`, `\t` and `\"` written in a step into a newline,
// a tab and a quote.
func unescape(s string) string {
	return strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\"`, `"`).Replace(s)
}

// splitList splits "a, b" into its items; "" is no item.
func splitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}
