// Package engine holds the steps of the loop engine (the digest's
// provider surface, packet assembly, tokenomics, grinder, telemetry and
// operator config): the scripted model and its provider, the operator's
// world around the loop, the loop and the packets it delivered.
//
// It may import godog, features/kit, the world and the driver,
// impl/plurnk/... and sim/.
package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/packet"
	"anchorage/impl/plurnk/store"
	"anchorage/impl/plurnk/telemetry"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// Register registers the loop engine's steps.
func Register(sc world.Steps) {
	registerModel(sc)
	registerLibrary(sc)
	registerLoop(sc)
	registerPackets(sc)
	registerBudget(sc)
	registerRows(sc)
}

func registerModel(sc world.Steps) {
	sc.Public(`^the model will reply:$`, func(ctx context.Context, doc *godog.DocString) error {
		return world.Get(ctx).Reply(llm.Reply{Content: doc.Content + "\n"})
	})
	sc.Public(`^the model will reply, its text ending on the last character shown:$`, func(ctx context.Context, doc *godog.DocString) error {
		return world.Get(ctx).Reply(llm.Reply{Content: doc.Content})
	})
	sc.Step(`^the model will reply with the meta (\{.*):$`, func(ctx context.Context, meta string, doc *godog.DocString) error {
		return world.Get(ctx).Reply(llm.Reply{Content: doc.Content + "\n", Meta: json.RawMessage(meta)})
	})
	sc.Step(`^the model will reply with the raw payload (.+):$`, func(ctx context.Context, raw string, doc *godog.DocString) error {
		return world.Get(ctx).Reply(llm.Reply{Content: doc.Content + "\n", Raw: driver.Unescape(raw)})
	})
	sc.Step(`^the model will reply, the provider forwarding the notice (\{.*\}):$`, func(ctx context.Context, notice string, doc *godog.DocString) error {
		var n telemetry.Notice
		if err := json.Unmarshal([]byte(notice), &n); err != nil {
			return fmt.Errorf("notice %s: %w", notice, err)
		}
		return world.Get(ctx).Reply(llm.Reply{Content: doc.Content + "\n", Telemetry: []telemetry.Notice{n}})
	})
	sc.Step(`^the provider will fail the next call with "([^"]*)"$`, func(ctx context.Context, msg string) error {
		return world.Get(ctx).Reply(llm.Reply{Err: fmt.Errorf("%s", msg)})
	})
	sc.Step(`^the client will cancel the loop while the model is generating$`, func(ctx context.Context) error {
		return world.Get(ctx).Reply(llm.Reply{Abort: true})
	})
	sc.Public(`^the model's context window is (\d+) tokens$`, func(ctx context.Context, n int) error {
		return configureModel(ctx, "the model's context window", func(m *llm.Mock) { m.Context = n })
	})
	sc.Public(`^the provider's tokenizer counts one token per (\d+) characters$`, func(ctx context.Context, n int) error {
		return configureModel(ctx, "the provider's tokenizer", func(m *llm.Mock) { m.CharsPerToken = n })
	})
	sc.Step(`^the provider charges (\d+) pico-USD per prompt token and (\d+) per completion token$`, func(ctx context.Context, p, c int) error {
		m := world.Get(ctx).Script.Model
		m.PromptPico, m.CompletionPico = int64(p), int64(c)
		return nil
	})
	sc.Public(`^the operator sets (PLURNK_\w+) to "([^"]*)"$`, func(ctx context.Context, k, v string) error {
		return world.Get(ctx).Drv.SetEnv(k, v)
	})
	sc.Public(`^the operator's file (\S+) reads:$`, func(ctx context.Context, p string, doc *godog.DocString) error {
		return operatorFile(ctx, p, doc.Content+"\n")
	})
	sc.Public(`^the entry (\S+) holds (\d+) lines of text$`, func(ctx context.Context, t string, n int) error {
		return world.Get(ctx).GivenEntry(t, lines("line %d of the text\n", n), "")
	})
	sc.Public(`^the handbook (\S+) grows to (\d+) lines$`, func(ctx context.Context, p string, n int) error {
		return operatorFile(ctx, p, lines("handbook line %d\n", n))
	})
	sc.Public(`^the engine offers the EXEC runtimes "([^"]*)"$`, func(ctx context.Context, list string) error {
		return world.Get(ctx).Drv.Offers(ctx, world.SplitList(list))
	})
}

// configureModel sets what the plurnk under test reads of its model when
// it starts.
func configureModel(ctx context.Context, what string, set func(*llm.Mock)) error {
	w := world.Get(ctx)
	if err := w.Drv.Configure(what); err != nil {
		return err
	}
	set(w.Script.Model)
	return nil
}

// lines is n lines of format, each numbered.
func lines(format string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// operatorFile writes the operator's file p (~ is the operator's HOME).
func operatorFile(ctx context.Context, p, content string) error {
	return afero.WriteFile(world.Get(ctx).FS, strings.Replace(p, "~", driver.OperatorHome, 1), []byte(content), 0o644)
}

func registerLoop(sc world.Steps) {
	sc.Public(`^the user starts a loop with the prompt "([^"]*)"$`, func(ctx context.Context, p string) error {
		return world.Get(ctx).StartLoop(ctx, p, 0)
	})
	sc.Public(`^the user starts a loop with the prompt "([^"]*)" asking for at most (\d+) turns$`, func(ctx context.Context, p string, n int) error {
		return world.Get(ctx).StartLoop(ctx, p, n)
	})
	sc.Public(`^the loop ends with status (\d+)$`, func(ctx context.Context, want int) error {
		return lastLoopIs(ctx, func(r engine.Result) error {
			if r.Status != want {
				return fmt.Errorf("the loop ended with %d (%s), want %d", r.Status, r.Reason, want)
			}
			if r.Loop.Status != want {
				return fmt.Errorf("the stored loop has status %d, want %d", r.Loop.Status, want)
			}
			return nil
		})
	})
	sc.Public(`^the model was called (\d+) times?$`, func(ctx context.Context, n int) error {
		if got := len(world.Get(ctx).Script.Model.Requests); got != n {
			return fmt.Errorf("the model was called %d times, want %d", got, n)
		}
		return nil
	})
	sc.Public(`^the model was called once per turn, (\d+) times in all$`, func(ctx context.Context, n int) error {
		w := world.Get(ctx)
		turns := 0
		for _, r := range w.Loops {
			turns += len(r.Turns)
		}
		if calls := len(w.Script.Model.Requests); calls != n || turns != n {
			return fmt.Errorf("the model was called %d times over %d turns, want %d of each", calls, turns, n)
		}
		return nil
	})
	sc.Public(`^the loop's meta is (.+?)$`, func(ctx context.Context, want string) error {
		return lastLoopIs(ctx, func(r engine.Result) error {
			if string(r.Meta) != want {
				return fmt.Errorf("loop meta %s, want %s", r.Meta, want)
			}
			return nil
		})
	})
	sc.Step(`^turn (\d+) of the loop kept the raw payload (.+?)$`, func(ctx context.Context, n int, raw string) error {
		return turnIs(ctx, n, func(t engine.TurnRecord) error {
			if want := driver.Unescape(raw); t.AssistantRaw != want {
				return fmt.Errorf("turn %d kept %q, want %q", n, t.AssistantRaw, want)
			}
			return nil
		})
	})
	sc.Step(`^every call to the model carried the run's abort signal$`, thenSignals)
}

// lastLoopIs checks what the last loop did with check.
func lastLoopIs(ctx context.Context, check func(engine.Result) error) error {
	r, err := world.Get(ctx).LastLoop()
	if err != nil {
		return err
	}
	return check(r)
}

// turnIs checks turn n of the last loop with check.
func turnIs(ctx context.Context, n int, check func(engine.TurnRecord) error) error {
	return lastLoopIs(ctx, func(r engine.Result) error {
		for _, t := range r.Turns {
			if t.Seq == n {
				return check(t)
			}
		}
		return fmt.Errorf("the loop has no turn %d", n)
	})
}

func thenSignals(ctx context.Context) error {
	m := world.Get(ctx).Script.Model
	if len(m.Signals) == 0 {
		return fmt.Errorf("the model was never called")
	}
	for i, s := range m.Signals {
		if s == nil || s.Done() == nil {
			return fmt.Errorf("call %d carried no abort signal", i+1)
		}
		// The driver cancels the run's context once the loop returns: a
		// signal derived from it is done by now, one the engine made up on
		// its own (and never cancelled) is not.
		if s.Err() == nil {
			return fmt.Errorf("call %d carried a signal that the run's cancellation did not reach", i+1)
		}
	}
	return nil
}

func registerRows(sc world.Steps) {
	sc.Public(`^the (model|plurnk) run's row log:///(\S+) is (folded|expanded)$`, func(ctx context.Context, run, coord, state string) error {
		log, err := world.Get(ctx).Drv.Log(run)
		if err != nil {
			return err
		}
		row := driver.FindLogRow(log, coord)
		if row == nil {
			return fmt.Errorf("the %s run has no row log:///%s", run, coord)
		}
		if row.Expanded != (state == "expanded") {
			return fmt.Errorf("row log:///%s is expanded=%v, want %s", coord, row.Expanded, state)
		}
		return nil
	})
	sc.Public(`^the (model|plurnk) run's log records (\w+) (\S+) with status (\d+)(?: by (\w+))?$`, thenLogRecords)
	sc.Public(`^the (model|plurnk) run's log records (\d+) (\w+) rows?$`, func(ctx context.Context, run string, n int, op string) error {
		log, err := world.Get(ctx).Drv.Log(run)
		if err != nil {
			return err
		}
		var seen []string
		for _, row := range log {
			if row.Op == op {
				seen = append(seen, fmt.Sprintf("%s %s %s %d", row.Coord(), row.Op, row.Target, row.Status))
			}
		}
		if len(seen) != n {
			return fmt.Errorf("the %s run's log has %d %s rows, want %d:\n%s", run, len(seen), op, n, strings.Join(seen, "\n"))
		}
		return nil
	})
	sc.Public(`^the (model|plurnk) run's log has no row for (\S+)$`, func(ctx context.Context, run, target string) error {
		return noRow(ctx, run, func(row *store.LogRow) bool { return row.Target == target },
			func(row *store.LogRow) string { return fmt.Sprintf("row %s %s for %s", row.Coord(), row.Op, target) })
	})
	sc.Public(`^the (model|plurnk) run has no (\w+) of (\S+) in its log$`, func(ctx context.Context, run, op, target string) error {
		if target == "-" {
			target = ""
		}
		return noRow(ctx, run, func(row *store.LogRow) bool { return row.Op == op && (target == "*" || row.Target == target) },
			func(row *store.LogRow) string { return fmt.Sprintf("%s %s at log:///%s", op, target, row.Coord()) })
	})
	sc.Public(`^the (\w+) channel of (\S+) stored (\d+) tokens$`, func(ctx context.Context, ch, t string, n int) error {
		c, err := world.Get(ctx).Channel(ch, t)
		if err != nil {
			return err
		}
		if c.Tokens != n {
			return fmt.Errorf("%s channel of %s stored %d tokens, want %d", ch, t, c.Tokens, n)
		}
		return nil
	})
	sc.Public(`^the row log:///(\S+) of the model run stored (\d+) tokens$`, func(ctx context.Context, coord string, n int) error {
		got, ok, err := world.Get(ctx).Drv.RowTokens(ctx, coord)
		if err != nil {
			return err
		}
		if !ok || got != n {
			return fmt.Errorf("row log:///%s stored %d tokens (stored: %v), want %d", coord, got, ok, n)
		}
		return nil
	})
	sc.Step(`^turn (\d+) cost (\d+) pico-USD$`, func(ctx context.Context, turn int, pico int64) error {
		return turnIs(ctx, turn, func(t engine.TurnRecord) error {
			if t.CostPico != pico {
				return fmt.Errorf("turn %d cost %d pico-USD, want %d (usage %+v)", turn, t.CostPico, pico, t.Usage)
			}
			return nil
		})
	})
	sc.Step(`^the run and the session each rolled up (\d+) pico-USD$`, thenRollup)
	sc.Step(`^the run and the session each rolled up the loop's cost$`, func(ctx context.Context) error {
		r, err := world.Get(ctx).LastLoop()
		if err != nil {
			return err
		}
		if r.CostPico <= 0 {
			return fmt.Errorf("the loop cost %d pico-USD, want a positive cost", r.CostPico)
		}
		return thenRollup(ctx, r.CostPico)
	})
	sc.Step(`^each turn's cost is its usage at the provider's prices$`, thenCostsPriced)
	sc.Step(`^the provider priced (\d+) completed turns?$`, func(ctx context.Context, n int) error {
		if got := len(world.Get(ctx).Script.Model.CostCalls); got != n {
			return fmt.Errorf("costFor was called %d times, want %d", got, n)
		}
		return nil
	})
}

// noRow fails, saying what found, when run's log has a row match takes.
func noRow(ctx context.Context, run string, match func(*store.LogRow) bool, found func(*store.LogRow) string) error {
	log, err := world.Get(ctx).Drv.Log(run)
	if err != nil {
		return err
	}
	for _, row := range log {
		if match(row) {
			return fmt.Errorf("the %s run's log has %s", run, found(row))
		}
	}
	return nil
}

// thenLogRecords finds a row by op, target ("-" for none, "*" for any), status and,
// optionally, origin.
func thenLogRecords(ctx context.Context, run, op, target string, status int, origin string) error {
	if target == "-" {
		target = ""
	}
	log, err := world.Get(ctx).Drv.Log(run)
	if err != nil {
		return err
	}
	var seen []string
	for _, row := range log {
		if row.Op == op && (target == "*" || row.Target == target) && row.Status == status && (origin == "" || row.Origin == origin) {
			return nil
		}
		seen = append(seen, fmt.Sprintf("%s %s %s %d by %s", row.Coord(), row.Op, row.Target, row.Status, row.Origin))
	}
	return fmt.Errorf("the %s run's log has no %s %s %d (by %q); it holds:\n%s", run, op, target, status, origin, strings.Join(seen, "\n"))
}

// The steps that reach inside the loop engine as a library: packet
// plugins, a child run, what the engine stored and rolled up, the notices
// its sink received.

func registerLibrary(sc world.Steps) {
	sc.Step(`^a packet plugin that (.+)$`, func(ctx context.Context, what string) error {
		p, err := pluginThat(what)
		if err != nil {
			return err
		}
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			e.Engine.Plugins = append(e.Engine.Plugins, p)
			return nil
		})
	})
	sc.Step(`^the model run has a child run "([^"]*)" whose loop is still running$`, func(ctx context.Context, name string) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			if err := e.AddRun(name); err != nil {
				return err
			}
			child := e.Runs[name]
			e.Store.BeginLoop(child).Status = engine.StatusRunning
			e.Engine.AdoptChild(e.Runs["model"], child)
			return nil
		})
	})
	sc.Step(`^the child run "([^"]*)" ends its loop with status (\d+)$`, func(ctx context.Context, name string, status int) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			r, ok := e.Runs[name]
			if !ok || len(r.Loops) == 0 {
				return fmt.Errorf("no child run %q with a loop", name)
			}
			r.Loops[len(r.Loops)-1].Status = status
			return nil
		})
	})
	sc.Step(`^the budget usage of packet (\d+) is not the sum of the tokens stored for the session's entries and the run's rows$`, thenUsageNotSum)
	sc.Step(`^the loop's stored overflow record shows free 0 and a percent above 100$`, thenOverflowRecord)
	sc.Step(`^the session was notified of the notices "([^"]*)"$`, func(ctx context.Context, kinds string) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			var got []string
			for _, n := range e.Sent {
				got = append(got, n.Kind())
			}
			if d := cmp.Diff(world.SplitList(kinds), got); d != "" {
				return fmt.Errorf("notices sent (-want +got):\n%s", d)
			}
			return nil
		})
	})
}

// plugin is a packet plugin made from a function.
type plugin func([]packet.Section) []packet.Section

func (p plugin) TransformSections(s []packet.Section) []packet.Section { return p(s) }

var (
	reAddSection  = regexp.MustCompile(`^adds a (system|user) section "([^"]+)" headed "([^"]+)" reading "([^"]*)"$`)
	reMoveFront   = regexp.MustCompile(`^moves the (\S+) section to the front of its slot$`)
	reDropSection = regexp.MustCompile(`^drops the (\S+) section$`)
)

// pluginThat is the packet plugin that does what.
func pluginThat(what string) (plugin, error) {
	switch {
	case reAddSection.MatchString(what):
		m := reAddSection.FindStringSubmatch(what)
		sec := packet.Section{Name: m[2], Slot: packet.Slot(m[1]), Header: m[3], Content: m[4]}
		return func(s []packet.Section) []packet.Section { return append(s, sec) }, nil
	case reMoveFront.MatchString(what):
		name := reMoveFront.FindStringSubmatch(what)[1]
		return func(s []packet.Section) []packet.Section { return moveFront(s, name) }, nil
	case reDropSection.MatchString(what):
		name := reDropSection.FindStringSubmatch(what)[1]
		return func(s []packet.Section) []packet.Section {
			var out []packet.Section
			for _, x := range s {
				if x.Name != name {
					out = append(out, x)
				}
			}
			return out
		}, nil
	}
	return nil, fmt.Errorf("no packet plugin that %s", what)
}

// moveFront moves the first section named name to the front of its slot.
func moveFront(s []packet.Section, name string) []packet.Section {
	var moved *packet.Section
	var rest []packet.Section
	for i := range s {
		if s[i].Name == name && moved == nil {
			moved = &s[i]
			continue
		}
		rest = append(rest, s[i])
	}
	if moved == nil {
		return s
	}
	for i := range rest {
		if rest[i].Slot == moved.Slot {
			return append(rest[:i:i], append([]packet.Section{*moved}, rest[i:]...)...)
		}
	}
	return append(rest, *moved)
}

func thenUsageNotSum(ctx context.Context, n int) error {
	_, y, _, _, err := headline(ctx, n)
	if err != nil {
		return err
	}
	return world.Get(ctx).Library(func(e *driver.Embedded) error {
		sum := 0
		for _, en := range e.Session.Entries() {
			for _, ch := range en.Channels {
				sum += ch.Tokens
			}
		}
		for _, r := range e.Runs["model"].Log {
			t, _ := e.Engine.RowTokens(r.ID)
			sum += t
		}
		if y == sum {
			return fmt.Errorf("headline usage %d equals the stored token sum", y)
		}
		return nil
	})
}

func thenOverflowRecord(ctx context.Context) error {
	r, err := world.Get(ctx).LastLoop()
	if err != nil {
		return err
	}
	o := r.Overflow
	if o == nil {
		return fmt.Errorf("the loop stored no overflow record (status %d)", r.Status)
	}
	if o.Free != 0 || o.Percent <= 100 || o.Usage <= o.Ceiling {
		return fmt.Errorf("overflow record %s: want free 0 and percent above 100", o)
	}
	return world.Get(ctx).Library(func(e *driver.Embedded) error {
		for _, row := range e.Runs["model"].Log {
			// The record's figures as the seed words them: usage Y (P%).
			if row.Op == "error" && row.Status == engine.StatusOverflow && strings.Contains(row.Content, fmt.Sprintf("usage %d (%d%%)", o.Usage, o.Percent)) {
				return nil
			}
		}
		return fmt.Errorf("no 413 error row stores the record %q", o.String())
	})
}

func thenCostsPriced(ctx context.Context) error {
	m := world.Get(ctx).Script.Model
	return lastLoopIs(ctx, func(r engine.Result) error {
		var sum int64
		for _, t := range r.Turns {
			want := int64(t.Usage.PromptTokens)*m.PromptPico + int64(t.Usage.CompletionTokens)*m.CompletionPico
			if t.Usage.PromptTokens == 0 || t.CostPico != want {
				return fmt.Errorf("turn %d cost %d pico-USD for usage %+v, want %d", t.Seq, t.CostPico, t.Usage, want)
			}
			sum += t.CostPico
		}
		if sum != r.CostPico {
			return fmt.Errorf("the turns cost %d in all, the loop reports %d", sum, r.CostPico)
		}
		return nil
	})
}

func thenRollup(ctx context.Context, pico int64) error {
	return world.Get(ctx).Library(func(e *driver.Embedded) error {
		if got := e.Engine.RunCost(e.Runs["model"]); got != pico {
			return fmt.Errorf("run cost %d, want %d", got, pico)
		}
		if got := e.Engine.SessionCost(e.Session); got != pico {
			return fmt.Errorf("session cost %d, want %d", got, pico)
		}
		return nil
	})
}
