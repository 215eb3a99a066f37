// Package dataplane holds the steps of the data plane (the digest's
// tier 3a: entries, channels, the ops on them, their rows): a thin
// adapter from the Gherkin to the plurnk under test.
//
// It may import godog, features/kit, the world and the driver,
// impl/plurnk/... and sim/.
package dataplane

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/vfs"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// Register registers the data plane's steps.
func Register(sc world.Steps) {
	registerGivens(sc)
	registerLibraryGivens(sc)
	registerResultThens(sc)
	registerEntryThens(sc)
	registerRowThens(sc)
	registerSeedThens(sc)
}

func registerGivens(sc world.Steps) {
	sc.Public(`^the entry (\S+) contains a line of (\d+) "(.)" characters, then "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, t string, n int, c, rest string) error {
		return world.Get(ctx).GivenEntry(t, strings.Repeat(c, n)+"\\n"+rest, "")
	})
	sc.Public(`^the entry (\S+) contains "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, t, content string) error {
		return world.Get(ctx).GivenEntry(t, content, "")
	})
	sc.Public(`^the entry (\S+) contains:$`, func(ctx context.Context, t string, doc *godog.DocString) error {
		return world.Get(ctx).GivenEntry(t, doc.Content, "")
	})
	sc.Public(`^the entry (\S+) contains "((?:[^"\\]|\\.)*)" tagged "([^"]*)"$`, func(ctx context.Context, t, content, tags string) error {
		return world.Get(ctx).GivenEntry(t, content, tags)
	})
	sc.Public(`^a second run "([^"]*)" in the session$`, func(ctx context.Context, name string) error {
		return world.Get(ctx).Drv.AddRun(name)
	})
	sc.Public(`^a second session holds the entry (\S+) containing "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, t, content string) error {
		return world.Get(ctx).Drv.OtherSession(t, driver.Unescape(content))
	})
	sc.Public(`^the workspace file (\S+) contains "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, p, content string) error {
		return afero.WriteFile(world.Get(ctx).FS, workspacePath(p), []byte(driver.Unescape(content)), 0o644)
	})
	sc.Public(`^the workspace holds the binary file (\S+)$`, func(ctx context.Context, p string) error {
		return afero.WriteFile(world.Get(ctx).FS, workspacePath(p), []byte{0x89, 'P', 'N', 'G', 0, 0, 1}, 0o644)
	})
	sc.Step(`^the exec output (\S+) has streamed "((?:[^"\\]|\\.)*)" on (\w+) and is still active$`, func(ctx context.Context, t, chunk, ch string) error {
		return world.Get(ctx).Drv.Streamed(t, driver.Unescape(chunk), ch)
	})
	sc.Public(`^the exec output (\S+) has closed$`, func(ctx context.Context, t string) error {
		return world.Get(ctx).Drv.StreamEnd(t, false)
	})
	sc.Step(`^the exec output (\S+) streams "((?:[^"\\]|\\.)*)" on (\w+)$`, func(ctx context.Context, t, chunk, ch string) error {
		return world.Get(ctx).Drv.StreamMore(t, driver.Unescape(chunk), ch)
	})
	sc.Step(`^the exec output (\S+) (closes|fails)$`, func(ctx context.Context, t, how string) error {
		return world.Get(ctx).Drv.StreamEnd(t, how == "fails")
	})
	sc.Public(`^the model emits (<<.+)$`, func(ctx context.Context, src string) error { return world.Get(ctx).Emit("model", src) })
	sc.Public(`^the model emits:$`, func(ctx context.Context, doc *godog.DocString) error {
		return world.Get(ctx).Emit("model", doc.Content)
	})
	sc.Public(`^run "([^"]*)" emits (<<.+)$`, func(ctx context.Context, run, src string) error { return world.Get(ctx).Emit(run, src) })
	sc.Public(`^the model emits an EDIT of (\S+) with a body of (\d+) characters$`, func(ctx context.Context, t string, n int) error {
		return emitEdits(ctx, t, 1, func(int) string { return strings.Repeat("x", n) })
	})
	sc.Step(`^the model emits (\d+) EDITs of (\S+) in one turn$`, func(ctx context.Context, n int, t string) error {
		return emitEdits(ctx, t, n, func(i int) string { return fmt.Sprintf("revision %d", i) })
	})
	sc.Step(`^the model's turn (\d+)/(\d+) begins$`, func(ctx context.Context, loop, turn int) error {
		w := world.Get(ctx)
		w.Loop, w.Turn = loop, turn
		return nil
	})
	sc.Public(`^the packet is assembled$`, func(ctx context.Context) error { return world.Get(ctx).Drv.Assemble(ctx) })
}

// workspacePath is the path of the workspace file p.
func workspacePath(p string) string { return driver.Workspace + "/" + strings.TrimPrefix(p, "/") }

// emitEdits dispatches n EDITs of one entry as one turn of the model, the
// i-th with the body body(i).
func emitEdits(ctx context.Context, t string, n int, body func(int) string) error {
	w := world.Get(ctx)
	tg, err := driver.ParseTarget(t)
	if err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		b := body(i)
		if err := w.Dispatch("model", dsl.Statement{Op: dsl.OpEdit, Target: &tg, Body: &b}); err != nil {
			return err
		}
	}
	return nil
}

func registerResultThens(sc world.Steps) {
	sc.Public(`^the action answers (\d+)$`, thenStatus)
	sc.Public(`^the action answers (\d+) on the same entry as before$`, thenSameEntry)
	sc.Public(`^the action answers (\d+) or (\d+)$`, func(ctx context.Context, a, b int) error {
		return lastIs(ctx, func(r ops.Result) error {
			if r.Status != a && r.Status != b {
				return fmt.Errorf("the action answered %d (%s), want %d or %d", r.Status, r.Reason, a, b)
			}
			return nil
		})
	})
	sc.Public(`^the result content is:$`, func(ctx context.Context, doc *godog.DocString) error {
		// `\t` in the doc string is a tab; each of its lines ends with a
		// newline.
		return compareContent(ctx, driver.Unescape(doc.Content)+"\n")
	})
	sc.Public(`^the result content is "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, want string) error {
		return compareContent(ctx, driver.Unescape(want))
	})
	sc.Public(`^the result content is empty$`, func(ctx context.Context) error { return compareContent(ctx, "") })
	sc.Public(`^the result content holds the line "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, want string) error {
		return holdsLine(ctx, driver.Unescape(want))
	})
	sc.Public(`^every line of the result content mentions "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, want string) error {
		return everyLineMentions(ctx, driver.Unescape(want))
	})
	sc.Public(`^the result mimetype is "([^"]*)"$`, func(ctx context.Context, want string) error {
		return lastIs(ctx, func(r ops.Result) error {
			if r.Mimetype != want {
				return fmt.Errorf("mimetype %q, want %q", r.Mimetype, want)
			}
			return nil
		})
	})
	sc.Public(`^the result reason mentions "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, want string) error {
		return reasonMentions(ctx, driver.Unescape(want), true)
	})
	sc.Step(`^the result reason does not mention "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, want string) error {
		return reasonMentions(ctx, driver.Unescape(want), false)
	})
	sc.Public(`^the result lists (\d+) items?$`, func(ctx context.Context, n int) error {
		return lastIs(ctx, func(r ops.Result) error {
			if len(r.Items) != n {
				return fmt.Errorf("%d items, want %d", len(r.Items), n)
			}
			return nil
		})
	})
	sc.Public(`^item (\d+) is (\S+) with content:$`, thenItem)
	sc.Public(`^every action answered (\d+) or (\d+)$`, thenAllStatuses)
	sc.Public(`^every action answered (\d+)$`, func(ctx context.Context, n int) error { return thenAllStatuses(ctx, n, n) })
	sc.Public(`^the result is the JSON:$`, thenResultJSON)
	sc.Public(`^the found paths are "([^"]*)"$`, thenFoundPaths)
}

// lastIs checks the last action's result with check.
func lastIs(ctx context.Context, check func(ops.Result) error) error {
	r, err := world.Get(ctx).Last()
	if err != nil {
		return err
	}
	return check(r)
}

func thenStatus(ctx context.Context, want int) error {
	return lastIs(ctx, func(r ops.Result) error {
		if r.Status != want {
			return fmt.Errorf("the action answered %d (%s), want %d", r.Status, r.Reason, want)
		}
		return nil
	})
}

func thenSameEntry(ctx context.Context, want int) error {
	w := world.Get(ctx)
	if err := thenStatus(ctx, want); err != nil {
		return err
	}
	if len(w.Results) < 2 {
		return fmt.Errorf("there is no earlier action to compare with")
	}
	a, b := w.Results[len(w.Results)-2], w.Results[len(w.Results)-1]
	if a.EntryID == 0 || a.EntryID != b.EntryID {
		return fmt.Errorf("entry ids differ: before %d, now %d", a.EntryID, b.EntryID)
	}
	return nil
}

func compareContent(ctx context.Context, want string) error {
	return lastIs(ctx, func(r ops.Result) error {
		if d := cmp.Diff(want, r.Content); d != "" {
			return fmt.Errorf("result content (-want +got):\n%s", d)
		}
		return nil
	})
}

// everyLineMentions checks that each line the last result selects holds
// want: what the seed requires of a @graph match (a line of the symbol
// index's definitions or references of the symbol) whatever the handler
// counts as a symbol. No line at all (204) passes.
func everyLineMentions(ctx context.Context, want string) error {
	return lastIs(ctx, func(r ops.Result) error {
		for _, line := range strings.Split(strings.TrimSuffix(r.Content, "\n"), "\n") {
			if line != "" && !strings.Contains(line, want) {
				return fmt.Errorf("the result's line %q does not mention %q; it reads:\n%s", line, want, r.Content)
			}
		}
		return nil
	})
}

// holdsLine checks that one of the last result's lines is want: what the
// seed requires of a match (its source line, numbered) when the exact set
// of lines around it is a decision.
func holdsLine(ctx context.Context, want string) error {
	return lastIs(ctx, func(r ops.Result) error {
		lines := strings.Split(strings.TrimSuffix(r.Content, "\n"), "\n")
		if !slices.Contains(lines, want) {
			return fmt.Errorf("no line %q among the result's lines:\n%s", want, r.Content)
		}
		return nil
	})
}

// reasonMentions checks whether the last result's reason mentions text.
func reasonMentions(ctx context.Context, text string, should bool) error {
	return lastIs(ctx, func(r ops.Result) error {
		switch has := strings.Contains(r.Reason, text); {
		case should && !has:
			return fmt.Errorf("reason %q does not mention %q", r.Reason, text)
		case !should && has:
			return fmt.Errorf("reason %q mentions %q", r.Reason, text)
		}
		return nil
	})
}

func thenItem(ctx context.Context, i int, t string, doc *godog.DocString) error {
	return lastIs(ctx, func(r ops.Result) error {
		if i < 1 || i > len(r.Items) {
			return fmt.Errorf("no item %d among %d", i, len(r.Items))
		}
		it := r.Items[i-1]
		want := ops.Result{Target: t, Content: driver.Unescape(doc.Content) + "\n"}
		if d := cmp.Diff(want, ops.Result{Target: it.Target, Content: it.Content}); d != "" {
			return fmt.Errorf("item %d (-want +got):\n%s", i, d)
		}
		return nil
	})
}

func thenAllStatuses(ctx context.Context, a, b int) error {
	w := world.Get(ctx)
	if len(w.Results) == 0 {
		return fmt.Errorf("no action has been dispatched")
	}
	for i, r := range w.Results {
		if r.Status != a && r.Status != b {
			return fmt.Errorf("action %d answered %d (%s)", i+1, r.Status, r.Reason)
		}
	}
	return nil
}

// thenResultJSON compares the last result with the doc string as JSON
// values, so key order and spacing do not matter but every field does.
func thenResultJSON(ctx context.Context, doc *godog.DocString) error {
	return lastIs(ctx, func(r ops.Result) error {
		var want, got any
		if err := json.Unmarshal([]byte(doc.Content), &want); err != nil {
			return fmt.Errorf("the expected JSON does not parse: %w", err)
		}
		if err := json.Unmarshal([]byte(r.Content), &got); err != nil {
			return fmt.Errorf("the result %q (status %d) is not JSON: %w", r.Content, r.Status, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			return fmt.Errorf("result JSON (-want +got):\n%s", d)
		}
		return nil
	})
}

// thenFoundPaths checks the paths of the last FIND's catalog rows, in
// order; an empty list expects 204 with no row.
func thenFoundPaths(ctx context.Context, want string) error {
	return lastIs(ctx, func(r ops.Result) error {
		var rows []struct {
			Path string `json:"path"`
		}
		if r.Content != "" {
			if err := json.Unmarshal([]byte(r.Content), &rows); err != nil {
				return fmt.Errorf("the FIND result %q (status %d) is not a JSON array: %w", r.Content, r.Status, err)
			}
		}
		got := []string{}
		for _, row := range rows {
			got = append(got, row.Path)
		}
		wantList := world.SplitList(want)
		if wantList == nil {
			wantList = []string{}
		}
		if d := cmp.Diff(wantList, got); d != "" {
			return fmt.Errorf("found paths (-want +got), status %d:\n%s", r.Status, d)
		}
		if len(wantList) == 0 && r.Status != 204 {
			return fmt.Errorf("an empty FIND answered %d, want 204", r.Status)
		}
		return nil
	})
}

func registerEntryThens(sc world.Steps) {
	sc.Public(`^the (\w+) channel of (\S+) holds "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, name, t, want string) error {
		return channelIs(ctx, name, t, func(ch store.Channel) error {
			if d := cmp.Diff(driver.Unescape(want), ch.Content); d != "" {
				return fmt.Errorf("%s channel of %s (-want +got):\n%s", name, t, d)
			}
			return nil
		})
	})
	sc.Public(`^the (\w+) channel of (\S+) holds (\d+) characters$`, func(ctx context.Context, name, t string, n int) error {
		return channelIs(ctx, name, t, func(ch store.Channel) error {
			if len(ch.Content) != n {
				return fmt.Errorf("%s channel of %s holds %d characters, want %d", name, t, len(ch.Content), n)
			}
			return nil
		})
	})
	sc.Public(`^the (\w+) channel of (\S+) is (static|active|closed|errored)$`, func(ctx context.Context, name, t, want string) error {
		return channelIs(ctx, name, t, func(ch store.Channel) error {
			if string(ch.State) != want {
				return fmt.Errorf("%s channel of %s is %s, want %s", name, t, ch.State, want)
			}
			return nil
		})
	})
	sc.Public(`^the entry (\S+) has no (\w+) channel$`, func(ctx context.Context, t, name string) error {
		return entryIs(ctx, t, func(e *store.Entry) error {
			if _, ok := e.Channels[name]; ok {
				return fmt.Errorf("%s has a %s channel", t, name)
			}
			return nil
		})
	})
	sc.Public(`^the entry (\S+) has tags "([^"]*)"$`, func(ctx context.Context, t, want string) error {
		return entryIs(ctx, t, func(e *store.Entry) error {
			if d := cmp.Diff(world.SplitList(want), e.Tags); d != "" {
				return fmt.Errorf("tags of %s (-want +got):\n%s", t, d)
			}
			return nil
		})
	})
	sc.Public(`^the entry (\S+) still carries the tags "([^"]*)"$`, func(ctx context.Context, t, want string) error {
		return entryIs(ctx, t, func(e *store.Entry) error {
			for _, tag := range world.SplitList(want) {
				if !slices.Contains(e.Tags, tag) {
					return fmt.Errorf("%s lost its tag %q: it carries %q", t, tag, e.Tags)
				}
			}
			return nil
		})
	})
	sc.Public(`^the entry (\S+) does not exist$`, func(ctx context.Context, t string) error {
		e, err := world.Get(ctx).Drv.Entry(t)
		if err != nil {
			return err
		}
		if e != nil {
			return fmt.Errorf("%s exists (entry %d)", t, e.ID)
		}
		return nil
	})
	sc.Public(`^the workspace file (\S+) holds "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, p, want string) error {
		b, err := afero.ReadFile(world.Get(ctx).FS, workspacePath(p))
		if err != nil {
			return err
		}
		if d := cmp.Diff(driver.Unescape(want), string(b)); d != "" {
			return fmt.Errorf("workspace file %s (-want +got):\n%s", p, d)
		}
		return nil
	})
	sc.Public(`^the workspace file (\S+) does not exist$`, func(ctx context.Context, p string) error {
		ok, err := afero.Exists(world.Get(ctx).FS, workspacePath(p))
		if err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("workspace file %s exists", p)
		}
		return nil
	})
}

// entryIs checks the entry t, which must exist, with check.
func entryIs(ctx context.Context, t string, check func(*store.Entry) error) error {
	e, err := world.Get(ctx).Drv.Entry(t)
	if err != nil {
		return err
	}
	if e == nil {
		return fmt.Errorf("%s does not exist", t)
	}
	return check(e)
}

// channelIs checks the channel name of the entry t with check.
func channelIs(ctx context.Context, name, t string, check func(store.Channel) error) error {
	ch, err := world.Get(ctx).Channel(name, t)
	if err != nil {
		return err
	}
	return check(ch)
}

// The steps that reach inside the entry engine as a library: schemes and
// handlers of the scenario's own, faults of the disk, the session's clock.

func registerLibraryGivens(sc world.Steps) {
	sc.Step(`^the disk refuses once to list the folder (\S+)$`, func(ctx context.Context, dir string) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			return e.Faults.Arm(vfs.Fault{Point: vfs.ListFail, Pattern: dir, Count: 1})
		})
	})
	sc.Step(`^a scheme "([^"]*)" whose handler throws$`, func(ctx context.Context, name string) error {
		return givenScheme(ctx, name, func(inner *scheme.Entries) scheme.Handler { return flaky{Entries: inner, when: "always"} })
	})
	sc.Step(`^a scheme "([^"]*)" whose handler throws (while loading|while saving|while removing|while listing|after saving)$`, func(ctx context.Context, name, when string) error {
		return givenScheme(ctx, name, func(inner *scheme.Entries) scheme.Handler { return flaky{Entries: inner, when: when} })
	})
	sc.Step(`^the scheme "([^"]*)" now throws after saving$`, func(ctx context.Context, name string) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			inner := scheme.Unknown()
			inner.M.Name = name
			return e.Ops.Schemes.Replace(flaky{Entries: inner, when: "after saving"})
		})
	})
	sc.Step(`^a scheme "([^"]*)" whose handler fails with a plain error while saving$`, func(ctx context.Context, name string) error {
		return givenScheme(ctx, name, func(inner *scheme.Entries) scheme.Handler { return flaky{Entries: inner, when: "plain error"} })
	})
	sc.Step(`^a scheme "([^"]*)" whose removal fails with a plain error$`, func(ctx context.Context, name string) error {
		return givenScheme(ctx, name, func(inner *scheme.Entries) scheme.Handler { return brittle{Entries: inner} })
	})
	sc.Step(`^a scheme "([^"]*)" writable only by plurnk whose handler throws$`, func(ctx context.Context, name string) error {
		// An action that reaches it answers 500.
		return givenScheme(ctx, name, func(inner *scheme.Entries) scheme.Handler {
			inner.M.WritableBy = []scheme.Writer{scheme.WriterPlurnk}
			return flaky{Entries: inner, when: "always"}
		})
	})
	sc.Step(`^a (\S+) mimetype handler that counts its calls$`, func(ctx context.Context, mt string) error {
		return watchHandler(ctx, mt, func(content string) ops.Derived {
			return ops.Derived{Lines: strings.Count(content, "\n") + 1}
		})
	})
	sc.Step(`^the built-in (\S+) mimetype handler is watched for its calls$`, func(ctx context.Context, mt string) error {
		// The wrapped handler still derives everything.
		e, err := world.Get(ctx).Embedded()
		if err != nil {
			return err
		}
		h, ok := e.Ops.Mimetypes.Handler(mt)
		if !ok {
			return fmt.Errorf("the engine has no %s handler", mt)
		}
		return watchHandler(ctx, mt, h)
	})
	sc.Step(`^(\d+) seconds pass on the session clock$`, func(ctx context.Context, n int) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			c, ok := e.Store.Clock().(interface{ Advance(time.Duration) })
			if !ok {
				return fmt.Errorf("the store's clock cannot be advanced")
			}
			c.Advance(time.Duration(n) * time.Second)
			return nil
		})
	})
}

// givenScheme registers the scheme name, made by wrap from one that stores
// its entries like known://.
func givenScheme(ctx context.Context, name string, wrap func(*scheme.Entries) scheme.Handler) error {
	return world.Get(ctx).Library(func(e *driver.Embedded) error {
		inner := scheme.Unknown()
		inner.M.Name = name
		return e.Ops.Schemes.Register(wrap(inner))
	})
}

// watchHandler registers h as the handler of mimetype mt, counting its
// calls for "the mimetype handler has been called N times".
func watchHandler(ctx context.Context, mt string, h func(string) ops.Derived) error {
	w := world.Get(ctx)
	return world.Get(ctx).Library(func(e *driver.Embedded) error {
		e.Ops.Mimetypes.Register(mt, func(content string) ops.Derived {
			w.HandlerCalls++
			return h(content)
		})
		return nil
	})
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

// brittle is a scheme that stores its entries like known:// but whose
// removal fails with a plain error (not a status).
type brittle struct{ *scheme.Entries }

func (b brittle) Remove(_ scheme.Call, k store.Key) (bool, error) {
	return false, fmt.Errorf("the disk behind %s is read-only", k)
}

// The log rows the actions wrote, and what the entry engine as a library
// shows of the runs' logs.

func registerRowThens(sc world.Steps) {
	sc.Public(`^the action wrote no log row$`, func(ctx context.Context) error {
		return lastIs(ctx, func(r ops.Result) error {
			if r.Row.ID != 0 || len(r.Rows) != 0 {
				return fmt.Errorf("the action wrote the row log:///%s", r.Row.Handle())
			}
			return nil
		})
	})
	sc.Step(`^the action's log rows are:$`, thenActionRows)
	sc.Public(`^the action's log row records status (\d+) for (\S+)$`, func(ctx context.Context, status int, t string) error {
		return lastIs(ctx, func(r ops.Result) error {
			if r.Row.ID == 0 {
				return fmt.Errorf("the action wrote no log row")
			}
			type row struct {
				Status int
				Target string
			}
			if d := cmp.Diff(row{status, t}, row{r.Row.Status, r.Row.Target}); d != "" {
				return fmt.Errorf("log row (-want +got):\n%s", d)
			}
			return nil
		})
	})
	sc.Step(`^the action's log row records status (\d+) at log:///(\S+)$`, thenRow)
	sc.Step(`^the errors of turn (\d+)/(\d+) point at "([^"]*)"$`, func(ctx context.Context, loop, turn int, want string) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			got := errorPointers(e.Runs["model"], loop, turn)
			if d := cmp.Diff(world.SplitList(want), got); d != "" {
				return fmt.Errorf("error pointers (-want +got):\n%s", d)
			}
			return nil
		})
	})
	sc.Step(`^the mimetype handler has been called (\d+) times?$`, func(ctx context.Context, n int) error {
		if got := world.Get(ctx).HandlerCalls; got != n {
			return fmt.Errorf("the mimetype handler was called %d times, want %d", got, n)
		}
		return nil
	})
	sc.Step(`^the (model|plurnk)'s log row log:///(\S+) is (open|folded)$`, thenRowState)
	sc.Step(`^run "([^"]*)"'s log row log:///(\S+) is (open|folded)$`, thenRowState)
	sc.Step(`^the model's log holds no row log:///(\S+)$`, func(ctx context.Context, coord string) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			if row := scheme.FindRow(e.Runs["model"], "/"+coord); row != nil {
				return fmt.Errorf("the model's log still holds log:///%s", row.Handle())
			}
			return nil
		})
	})
	sc.Step(`^the model's log holds the rows:$`, thenRows)
	sc.Step(`^the address of (\S+) is (\S+)$`, thenAddress)
}

// thenActionRows compares the rows the last action recorded with a table
// of row coordinates, targets and statuses.
func thenActionRows(ctx context.Context, table *godog.Table) error {
	return lastIs(ctx, func(r ops.Result) error {
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
	})
}

// thenRow checks that the last action's row is the last row of the model
// run's log, with status want at coord.
func thenRow(ctx context.Context, want int, coord string) error {
	r, err := world.Get(ctx).Last()
	if err != nil {
		return err
	}
	return world.Get(ctx).Library(func(e *driver.Embedded) error {
		log := e.Runs["model"].Log
		if len(log) == 0 || log[len(log)-1].ID != r.Row.ID {
			return fmt.Errorf("the action's row is not the last row of the model run's log")
		}
		row := log[len(log)-1]
		if row.Status != want || row.Coord() != coord {
			return fmt.Errorf("row log:///%s records %d, want %d at log:///%s", row.Coord(), row.Status, want, coord)
		}
		return nil
	})
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
	return world.Get(ctx).Library(func(e *driver.Embedded) error {
		r, ok := e.Runs[run]
		if !ok {
			return fmt.Errorf("no run %q in the session", run)
		}
		row := scheme.FindRow(r, "/"+coord)
		if row == nil {
			return fmt.Errorf("the %s run's log has no row log:///%s; it holds %s", run, coord, strings.Join(rowList(r), ", "))
		}
		if row.Expanded != (state == "open") {
			return fmt.Errorf("row log:///%s of the %s run is expanded=%v, want %s", row.Handle(), run, row.Expanded, state)
		}
		return nil
	})
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
	return world.Get(ctx).Library(func(e *driver.Embedded) error {
		if d := cmp.Diff(want, rowList(e.Runs["model"])); d != "" {
			return fmt.Errorf("the model's log, + open and - folded (-want +got):\n%s", d)
		}
		return nil
	})
}

func thenAddress(ctx context.Context, t, want string) error {
	tg, err := driver.ParseTarget(t)
	if err != nil {
		return err
	}
	return world.Get(ctx).Library(func(e *driver.Embedded) error {
		a, err := e.Ops.Schemes.Address(tg)
		if err != nil {
			return err
		}
		if a.String() != want {
			return fmt.Errorf("address of %s is %s, want %s", t, a, want)
		}
		return nil
	})
}

// errorPointers lists the failed actions of a run's turn as status and
// address, `<status> log:///<loop>/<turn>/<seq>`, one per row whose status
// is 400 or above, in log order: what the errors section points at.
func errorPointers(r *store.Run, loop, turn int) []string {
	var out []string
	for _, p := range ops.Pointers(r, loop, turn) {
		out = append(out, fmt.Sprintf("%d log:///%s", p.Status, p.Coordinate))
	}
	return out
}
