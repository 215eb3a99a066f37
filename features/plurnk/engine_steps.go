package plurnk

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/packet"
	"anchorage/impl/plurnk/store"
	"anchorage/impl/plurnk/telemetry"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// operatorHome is HOME in the scenario's operator environment.
const operatorHome = "/home/operator"

// engineWorld is one scenario's engine state, next to the entry-op world.
type engineWorld struct {
	llm     *llm.Mock
	env     map[string]string
	eng     *engine.Engine
	results []engine.Result
	sent    []telemetry.Notice // what the notification sink received
}

type engineKey struct{}

func getEngine(ctx context.Context) *engineWorld { return ctx.Value(engineKey{}).(*engineWorld) }

// registerEngineSteps registers the steps of the engine loop features: turns,
// packets, statuses and rails, budget and grinder, telemetry, providers and
// operator config.
func registerEngineSteps(sc kit.Steps) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		w := get(ctx)
		ew := &engineWorld{llm: &llm.Mock{}, env: map[string]string{"HOME": operatorHome}}
		cfg, err := config.Load(ew.env, workspace)
		if err != nil {
			return ctx, err
		}
		cfg.Vary = w.eng.Vary // ANCHORAGE_VARY
		ew.eng = engine.New(w.store, w.eng, ew.llm, cfg, w.fs)
		ew.eng.Sink = func(_, _ int64, n telemetry.Notice) { ew.sent = append(ew.sent, n) }
		w.drv = embedded{w: w, ew: ew}
		return context.WithValue(ctx, engineKey{}, ew), nil
	})

	registerEngineControlSteps(sc)

	// The model and its provider.
	sc.Step(`^the model will reply:$`, func(ctx context.Context, doc *godog.DocString) error {
		getEngine(ctx).llm.Add(llm.Reply{Content: doc.Content + "\n"})
		return nil
	})
	sc.Step(`^the model will reply with the meta (\{.*):$`, func(ctx context.Context, meta string, doc *godog.DocString) error {
		getEngine(ctx).llm.Add(llm.Reply{Content: doc.Content + "\n", Meta: json.RawMessage(meta)})
		return nil
	})
	sc.Step(`^the model will reply, the provider forwarding the notice (\{.*\}):$`, givenReplyNotice)
	sc.Step(`^the provider will fail the next call with "([^"]*)"$`, func(ctx context.Context, msg string) error {
		getEngine(ctx).llm.Add(llm.Reply{Err: fmt.Errorf("%s", msg)})
		return nil
	})
	sc.Step(`^the client will cancel the loop while the model is generating$`, func(ctx context.Context) error {
		getEngine(ctx).llm.Add(llm.Reply{Abort: true})
		return nil
	})
	sc.Step(`^the model's context window is (\d+) tokens$`, func(ctx context.Context, n int) error {
		if err := get(ctx).drv.configure("the model's context window"); err != nil {
			return err
		}
		getEngine(ctx).llm.Context = n
		return nil
	})
	sc.Step(`^the provider charges (\d+) pico-USD per prompt token and (\d+) per completion token$`, func(ctx context.Context, p, c int) error {
		ew := getEngine(ctx)
		ew.llm.PromptPico, ew.llm.CompletionPico = int64(p), int64(c)
		return nil
	})
	sc.Step(`^the provider's tokenizer counts one token per (\d+) characters$`, func(ctx context.Context, n int) error {
		if err := get(ctx).drv.configure("the provider's tokenizer"); err != nil {
			return err
		}
		getEngine(ctx).llm.CharsPerToken = n
		return nil
	})

	// The world around the loop.
	sc.Step(`^the operator sets (PLURNK_\w+) to "([^"]*)"$`, func(ctx context.Context, k, v string) error {
		if err := get(ctx).drv.configure(k); err != nil {
			return err
		}
		getEngine(ctx).env[k] = v
		return nil
	})
	sc.Step(`^the operator's file (\S+) reads:$`, func(ctx context.Context, p string, doc *godog.DocString) error {
		return afero.WriteFile(get(ctx).fs, strings.Replace(p, "~", operatorHome, 1), []byte(doc.Content+"\n"), 0o644)
	})
	sc.Step(`^the entry (\S+) holds (\d+) lines of text$`, givenLines)
	sc.Step(`^the handbook (\S+) grows to (\d+) lines$`, func(ctx context.Context, p string, n int) error {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "handbook line %d\n", i)
		}
		return afero.WriteFile(get(ctx).fs, strings.Replace(p, "~", operatorHome, 1), []byte(b.String()), 0o644)
	})
	sc.Step(`^a packet plugin that (.+)$`, givenPlugin)
	sc.Step(`^the model run has a child run "([^"]*)" whose loop is still running$`, givenChild)
	sc.Step(`^the child run "([^"]*)" ends its loop with status (\d+)$`, func(ctx context.Context, name string, status int) error {
		r, ok := get(ctx).runs[name]
		if !ok || len(r.Loops) == 0 {
			return fmt.Errorf("no child run %q with a loop", name)
		}
		r.Loops[len(r.Loops)-1].Status = status
		return nil
	})

	// Driving the loop.
	sc.Step(`^the user starts a loop with the prompt "([^"]*)"$`, func(ctx context.Context, p string) error {
		return startLoop(ctx, p, 0)
	})
	sc.Step(`^the user starts a loop with the prompt "([^"]*)" asking for at most (\d+) turns$`, startLoop)

	// Outcomes.
	sc.Step(`^the loop ends with status (\d+)$`, thenLoopStatus)
	sc.Step(`^the model was called (\d+) times?$`, func(ctx context.Context, n int) error {
		if got := len(getEngine(ctx).llm.Requests); got != n {
			return fmt.Errorf("the model was called %d times, want %d", got, n)
		}
		return nil
	})
	sc.Step(`^packet (\d+) has the (system|user) sections "([^"]*)"$`, thenSectionNames)
	sc.Step(`^the (\S+) section of packet (\d+) reads:$`, thenSectionReads)
	sc.Step(`^the (\S+) section of packet (\d+) contains "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, name string, n int, want string) error {
		return sectionContains(ctx, name, n, unescape(want), true)
	})
	sc.Step(`^the (\S+) section of packet (\d+) does not contain "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, name string, n int, want string) error {
		return sectionContains(ctx, name, n, unescape(want), false)
	})
	sc.Step(`^packet (\d+) has no (\S+) section$`, thenNoSection)
	sc.Step(`^the (system|user) slot of packet (\d+) shows the header "([^"]*)"$`, func(ctx context.Context, slot string, n int, h string) error {
		text, err := slotText(ctx, slot, n)
		if err != nil {
			return err
		}
		if !strings.Contains("\n"+text, "\n"+h+"\n") {
			return fmt.Errorf("the %s slot of packet %d has no line %q:\n%s", slot, n, h, text)
		}
		return nil
	})
	sc.Step(`^no packet mentions "([^"]*)"$`, thenNoPacketMentions)
	sc.Step(`^the budget headline of packet (\d+) gives usage as a percent of a (\d+)-token ceiling$`, thenHeadlinePercent)
	sc.Step(`^the budget usage of packet (\d+) is the token count of the whole rendered packet$`, thenUsageMeasured)
	sc.Step(`^the budget usage of packet (\d+) is not the sum of the tokens stored for the session's entries and the run's rows$`, thenUsageNotSum)
	sc.Step(`^the heaviest-entries table of packet (\d+) lists (\S+) first$`, thenHeaviestFirst)
	sc.Step(`^every delivered packet is within its ceiling$`, thenWithinCeiling)
	sc.Step(`^the loop's stored overflow record shows free 0 and a percent above 100$`, thenOverflowRecord)
	sc.Step(`^the (model|plurnk) run's row log:///(\S+) is (folded|expanded)$`, thenRowFold)
	sc.Step(`^the (model|plurnk) run's log records (\w+) (\S+) with status (\d+)(?: by (\w+))?$`, thenLogRecords)
	sc.Step(`^the (model|plurnk) run's log has no row for (\S+)$`, thenLogLacks)
	sc.Step(`^the (model|plurnk) run has no (\w+) of (\S+) in its log$`, func(ctx context.Context, run, op, target string) error {
		log, err := runLog(ctx, run)
		if err != nil {
			return err
		}
		for _, row := range log {
			if row.Op == op && row.Target == target {
				return fmt.Errorf("the %s run's log has %s %s at log:///%s", run, op, target, row.Coord())
			}
		}
		return nil
	})
	sc.Step(`^the loop's meta is (.+?)$`, thenMeta)
	sc.Step(`^turn (\d+) cost (\d+) pico-USD$`, thenTurnCost)
	sc.Step(`^the run and the session each rolled up (\d+) pico-USD$`, thenRollup)
	sc.Step(`^each turn's cost is its usage at the provider's prices$`, thenCostsPriced)
	sc.Step(`^the run and the session each rolled up the loop's cost$`, func(ctx context.Context) error {
		r, err := lastLoop(ctx)
		if err != nil {
			return err
		}
		if r.CostPico <= 0 {
			return fmt.Errorf("the loop cost %d pico-USD, want a positive cost", r.CostPico)
		}
		return thenRollup(ctx, r.CostPico)
	})
	sc.Step(`^the provider priced (\d+) completed turns?$`, func(ctx context.Context, n int) error {
		if got := len(getEngine(ctx).llm.CostCalls); got != n {
			return fmt.Errorf("costFor was called %d times, want %d", got, n)
		}
		return nil
	})
	sc.Step(`^every call to the model carried the run's abort signal$`, thenSignals)
	sc.Step(`^the (\w+) channel of (\S+) stored (\d+) tokens$`, thenStoredTokens)
	sc.Step(`^the row log:///(\S+) of the model run stored (\d+) tokens$`, thenRowTokens)
	sc.Step(`^the session was notified of the notices "([^"]*)"$`, thenSent)

	// Runs, the run:// scheme and the run lifecycle, and the JSON-RPC daemon
	// (issue "plurnk III") register their steps from files of their own.
	registerRunSteps(sc)
	registerDaemonSteps(sc)
}

// --- givens ---------------------------------------------------------------

func givenReplyNotice(ctx context.Context, notice string, doc *godog.DocString) error {
	var n telemetry.Notice
	if err := json.Unmarshal([]byte(notice), &n); err != nil {
		return fmt.Errorf("notice %s: %w", notice, err)
	}
	getEngine(ctx).llm.Add(llm.Reply{Content: doc.Content + "\n", Telemetry: []telemetry.Notice{n}})
	return nil
}

func givenLines(ctx context.Context, t string, n int) error {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of the text\n", i)
	}
	return givenEntry(ctx, t, b.String())
}

// plugin is a packet plugin made from a function.
type plugin func([]packet.Section) []packet.Section

func (p plugin) TransformSections(s []packet.Section) []packet.Section { return p(s) }

func givenPlugin(ctx context.Context, what string) error {
	reAddSection := regexp.MustCompile(`^adds a (system|user) section "([^"]+)" headed "([^"]+)" reading "([^"]*)"$`)
	reMoveFront := regexp.MustCompile(`^moves the (\S+) section to the front of its slot$`)
	reDropSection := regexp.MustCompile(`^drops the (\S+) section$`)
	ew := getEngine(ctx)
	var p plugin
	switch {
	case reAddSection.MatchString(what):
		m := reAddSection.FindStringSubmatch(what)
		sec := packet.Section{Name: m[2], Slot: packet.Slot(m[1]), Header: m[3], Content: m[4]}
		p = func(s []packet.Section) []packet.Section { return append(s, sec) }
	case reMoveFront.MatchString(what):
		name := reMoveFront.FindStringSubmatch(what)[1]
		p = func(s []packet.Section) []packet.Section {
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
	case reDropSection.MatchString(what):
		name := reDropSection.FindStringSubmatch(what)[1]
		p = func(s []packet.Section) []packet.Section {
			var out []packet.Section
			for _, x := range s {
				if x.Name != name {
					out = append(out, x)
				}
			}
			return out
		}
	default:
		return fmt.Errorf("no packet plugin that %s", what)
	}
	ew.eng.Plugins = append(ew.eng.Plugins, p)
	return nil
}

func givenChild(ctx context.Context, name string) error {
	if err := givenRun(ctx, name); err != nil {
		return err
	}
	w := get(ctx)
	child := w.runs[name]
	w.store.BeginLoop(child).Status = engine.StatusRunning
	getEngine(ctx).eng.AdoptChild(w.runs["model"], child)
	return nil
}

// --- whens ----------------------------------------------------------------

func startLoop(ctx context.Context, prompt string, maxTurns int) error {
	res, err := get(ctx).drv.loop(ctx, prompt, maxTurns)
	if err != nil {
		return err
	}
	ew := getEngine(ctx)
	ew.results = append(ew.results, res)
	return nil
}

// runLoop runs a loop of the model run on the engine as a library.
func runLoop(ctx context.Context, w *world, ew *engineWorld, prompt string, maxTurns int) (engine.Result, error) {
	cfg, err := config.Load(ew.env, workspace)
	if err != nil {
		return engine.Result{}, err
	}
	cfg.Vary = w.eng.Vary // ANCHORAGE_VARY
	ew.eng.Config = cfg
	run, cancel := context.WithCancel(ctx)
	defer cancel()
	ew.llm.OnAbort = cancel
	return ew.eng.Run(run, engine.Request{Session: w.session, Run: w.runs["model"], Prompt: prompt, MaxTurns: maxTurns})
}

// --- thens ----------------------------------------------------------------

func lastLoop(ctx context.Context) (engine.Result, error) {
	ew := getEngine(ctx)
	if len(ew.results) == 0 {
		return engine.Result{}, fmt.Errorf("no loop has run")
	}
	return ew.results[len(ew.results)-1], nil
}

// packets returns the packets delivered by every loop so far, in order.
func packets(ctx context.Context) []*engine.Delivered {
	var out []*engine.Delivered
	for _, r := range getEngine(ctx).results {
		out = append(out, r.Packets()...)
	}
	return out
}

// runLog is the log of the session's run (model or plurnk), through the
// scenario's driver.
func runLog(ctx context.Context, run string) ([]*store.LogRow, error) { return get(ctx).drv.log(run) }

func packetN(ctx context.Context, n int) (*engine.Delivered, error) {
	ps := packets(ctx)
	if n < 1 || n > len(ps) {
		return nil, fmt.Errorf("no packet %d: %d packets were delivered", n, len(ps))
	}
	return ps[n-1], nil
}

func thenLoopStatus(ctx context.Context, want int) error {
	r, err := lastLoop(ctx)
	if err != nil {
		return err
	}
	if r.Status != want {
		return fmt.Errorf("the loop ended with %d (%s), want %d", r.Status, r.Reason, want)
	}
	if r.Loop.Status != want {
		return fmt.Errorf("the stored loop has status %d, want %d", r.Loop.Status, want)
	}
	return nil
}

func thenSectionNames(ctx context.Context, n int, slot, want string) error {
	p, err := packetN(ctx, n)
	if err != nil {
		return err
	}
	got := packet.Names(p.Sections, packet.Slot(slot))
	if d := cmp.Diff(splitList(want), got); d != "" {
		return fmt.Errorf("%s sections of packet %d (-want +got):\n%s", slot, n, d)
	}
	return nil
}

func section(ctx context.Context, name string, n int) (packet.Section, bool, error) {
	p, err := packetN(ctx, n)
	if err != nil {
		return packet.Section{}, false, err
	}
	s, ok := packet.Find(p.Sections, name)
	return s, ok && s.Content != "", nil
}

func thenSectionReads(ctx context.Context, name string, n int, doc *godog.DocString) error {
	s, ok, err := section(ctx, name, n)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("packet %d has no %s section", n, name)
	}
	if d := cmp.Diff(unescape(doc.Content), strings.TrimRight(s.Content, "\n")); d != "" {
		return fmt.Errorf("%s section of packet %d (-want +got):\n%s", name, n, d)
	}
	return nil
}

func sectionContains(ctx context.Context, name string, n int, want string, should bool) error {
	s, ok, err := section(ctx, name, n)
	if err != nil {
		return err
	}
	if !ok && should {
		return fmt.Errorf("packet %d has no %s section", n, name)
	}
	if has := strings.Contains(s.Content, want); has != should {
		return fmt.Errorf("%s section of packet %d contains %q: %v, want %v; it reads:\n%s", name, n, want, has, should, s.Content)
	}
	return nil
}

func thenNoSection(ctx context.Context, n int, name string) error {
	s, ok, err := section(ctx, name, n)
	if err != nil {
		return err
	}
	if ok {
		return fmt.Errorf("packet %d has a %s section:\n%s", n, name, s.Content)
	}
	return nil
}

func thenNoPacketMentions(ctx context.Context, want string) error {
	ps := packets(ctx)
	if len(ps) == 0 {
		return fmt.Errorf("no packet was delivered")
	}
	for i, p := range ps {
		if strings.Contains(strings.ToLower(p.Text()), strings.ToLower(want)) {
			return fmt.Errorf("packet %d mentions %q:\n%s", i+1, want, p.Text())
		}
	}
	return nil
}

// headline reads the budget headline back from the packet's budget section.
func headline(ctx context.Context, n int) (c, y, p, f int, err error) {
	s, ok, err := section(ctx, packet.Budget, n)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	// The seed fixes `usage Y (P%)`; the ceiling and the free tokens are
	// read from beside it in either wording (`ceiling C, … free F` or
	// `… of C, F free`).
	mu := regexp.MustCompile(`usage (\d+) \((\d+)%\)`).FindStringSubmatch(s.Content)
	mc := regexp.MustCompile(`ceiling (\d+)|\) of (\d+)`).FindStringSubmatch(s.Content)
	mf := regexp.MustCompile(`free (\d+)|(\d+) free`).FindStringSubmatch(s.Content)
	if !ok || mu == nil || mc == nil || mf == nil {
		return 0, 0, 0, 0, fmt.Errorf("packet %d has no budget headline:\n%s", n, s.Content)
	}
	num := func(m []string) int {
		for _, g := range m[1:] {
			if g != "" {
				v, _ := strconv.Atoi(g)
				return v
			}
		}
		return 0
	}
	y, _ = strconv.Atoi(mu[1])
	p, _ = strconv.Atoi(mu[2])
	return num(mc), y, p, num(mf), nil
}

func thenHeadlinePercent(ctx context.Context, n, ceiling int) error {
	c, y, p, f, err := headline(ctx, n)
	if err != nil {
		return err
	}
	if c != ceiling || p != y*100/c || f != c-y {
		return fmt.Errorf("headline ceiling %d usage %d (%d%%) free %d: want ceiling %d, percent %d, free %d", c, y, p, f, ceiling, y*100/ceiling, ceiling-y)
	}
	return nil
}

func thenUsageMeasured(ctx context.Context, n int) error {
	_, y, _, _, err := headline(ctx, n)
	if err != nil {
		return err
	}
	p, _ := packetN(ctx, n)
	ew := getEngine(ctx)
	want := ew.llm.CountTokens(p.System) + ew.llm.CountTokens(p.User)
	measured := ew.llm.CountTokens(packet.RenderSlot(p.Sections, packet.System)) // sanity: sections render the slot
	if measured == 0 {
		return fmt.Errorf("packet %d has an empty system slot", n)
	}
	// The headline is measured with its placeholder in place, which is at
	// least as long as the figures that replace it.
	if y < want || y > want+len(packet.PlaceholderHeadline) {
		return fmt.Errorf("headline usage %d; the delivered packet counts %d tokens", y, want)
	}
	// The engine's own record of its measure, where the packet carries
	// it (one read back off the wire, from a daemon process, does not).
	if p.Measured != "" && y != p.Headline.Usage {
		return fmt.Errorf("headline usage %d, measured %d", y, p.Headline.Usage)
	}
	return nil
}

func thenUsageNotSum(ctx context.Context, n int) error {
	_, y, _, _, err := headline(ctx, n)
	if err != nil {
		return err
	}
	w, ew := get(ctx), getEngine(ctx)
	sum := 0
	for _, e := range w.session.Entries() {
		for _, ch := range e.Channels {
			sum += ch.Tokens
		}
	}
	for _, r := range w.runs["model"].Log {
		t, _ := ew.eng.RowTokens(r.ID)
		sum += t
	}
	if y == sum {
		return fmt.Errorf("headline usage %d equals the stored token sum", y)
	}
	return nil
}

func thenHeaviestFirst(ctx context.Context, n int, handle string) error {
	table, err := budgetTable(ctx, n, "| entry | tokens |", "heaviest-entries table")
	if err != nil {
		return err
	}
	lines := strings.Split(table, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[2], "| "+handle+" |") {
		return fmt.Errorf("the heaviest-entries table does not list %s first:\n%s", handle, table)
	}
	return nil
}

func thenWithinCeiling(ctx context.Context) error {
	ps := packets(ctx)
	if len(ps) == 0 {
		return fmt.Errorf("no packet was delivered")
	}
	for i := range ps {
		c, y, p, f, err := headline(ctx, i+1)
		if err != nil {
			return err
		}
		if y > c || p > 100 || f < 0 {
			return fmt.Errorf("packet %d is over budget: ceiling %d usage %d (%d%%) free %d", i+1, c, y, p, f)
		}
	}
	return nil
}

func thenOverflowRecord(ctx context.Context) error {
	r, err := lastLoop(ctx)
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
	for _, row := range get(ctx).runs["model"].Log {
		// The record's figures as the seed words them: usage Y (P%).
		if row.Op == "error" && row.Status == engine.StatusOverflow && strings.Contains(row.Content, fmt.Sprintf("usage %d (%d%%)", o.Usage, o.Percent)) {
			return nil
		}
	}
	return fmt.Errorf("no 413 error row stores the record %q", o.String())
}

func findLogRow(log []*store.LogRow, coord string) *store.LogRow {
	for _, row := range log {
		if row.Coord() == coord || row.Coord()+"/"+row.Op == coord {
			return row
		}
	}
	return nil
}

func thenRowFold(ctx context.Context, run, coord, state string) error {
	log, err := runLog(ctx, run)
	if err != nil {
		return err
	}
	row := findLogRow(log, coord)
	if row == nil {
		return fmt.Errorf("the %s run has no row log:///%s", run, coord)
	}
	if row.Expanded != (state == "expanded") {
		return fmt.Errorf("row log:///%s is expanded=%v, want %s", coord, row.Expanded, state)
	}
	return nil
}

// thenLogRecords finds a row by op, target ("-" for none), status and,
// optionally, origin.
func thenLogRecords(ctx context.Context, run, op, target string, status int, origin string) error {
	if target == "-" {
		target = ""
	}
	log, err := runLog(ctx, run)
	if err != nil {
		return err
	}
	var seen []string
	for _, row := range log {
		if row.Op == op && row.Target == target && row.Status == status && (origin == "" || row.Origin == origin) {
			return nil
		}
		seen = append(seen, fmt.Sprintf("%s %s %s %d by %s", row.Coord(), row.Op, row.Target, row.Status, row.Origin))
	}
	return fmt.Errorf("the %s run's log has no %s %s %d (by %q); it holds:\n%s", run, op, target, status, origin, strings.Join(seen, "\n"))
}

func thenLogLacks(ctx context.Context, run, target string) error {
	log, err := runLog(ctx, run)
	if err != nil {
		return err
	}
	for _, row := range log {
		if row.Target == target {
			return fmt.Errorf("the %s run's log has row %s %s for %s", run, row.Coord(), row.Op, target)
		}
	}
	return nil
}

func thenMeta(ctx context.Context, want string) error {
	r, err := lastLoop(ctx)
	if err != nil {
		return err
	}
	if string(r.Meta) != want {
		return fmt.Errorf("loop meta %s, want %s", r.Meta, want)
	}
	return nil
}

func thenTurnCost(ctx context.Context, turn int, pico int64) error {
	r, err := lastLoop(ctx)
	if err != nil {
		return err
	}
	for _, t := range r.Turns {
		if t.Seq == turn {
			if t.CostPico != pico {
				return fmt.Errorf("turn %d cost %d pico-USD, want %d (usage %+v)", turn, t.CostPico, pico, t.Usage)
			}
			return nil
		}
	}
	return fmt.Errorf("no turn %d", turn)
}

func thenCostsPriced(ctx context.Context) error {
	r, err := lastLoop(ctx)
	if err != nil {
		return err
	}
	ew := getEngine(ctx)
	var sum int64
	for _, t := range r.Turns {
		want := int64(t.Usage.PromptTokens)*ew.llm.PromptPico + int64(t.Usage.CompletionTokens)*ew.llm.CompletionPico
		if t.Usage.PromptTokens == 0 || t.CostPico != want {
			return fmt.Errorf("turn %d cost %d pico-USD for usage %+v, want %d", t.Seq, t.CostPico, t.Usage, want)
		}
		sum += t.CostPico
	}
	if sum != r.CostPico {
		return fmt.Errorf("the turns cost %d in all, the loop reports %d", sum, r.CostPico)
	}
	return nil
}

func thenRollup(ctx context.Context, pico int64) error {
	w, ew := get(ctx), getEngine(ctx)
	if got := ew.eng.RunCost(w.runs["model"]); got != pico {
		return fmt.Errorf("run cost %d, want %d", got, pico)
	}
	if got := ew.eng.SessionCost(w.session); got != pico {
		return fmt.Errorf("session cost %d, want %d", got, pico)
	}
	return nil
}

func thenSignals(ctx context.Context) error {
	ew := getEngine(ctx)
	if len(ew.llm.Signals) == 0 {
		return fmt.Errorf("the model was never called")
	}
	for i, s := range ew.llm.Signals {
		if s == nil || s.Done() == nil {
			return fmt.Errorf("call %d carried no abort signal", i+1)
		}
		// startLoop cancels the run's context once the loop returns: a
		// signal derived from it is done by now, one the engine made up on
		// its own (and never cancelled) is not.
		if s.Err() == nil {
			return fmt.Errorf("call %d carried a signal that the run's cancellation did not reach", i+1)
		}
	}
	return nil
}

func thenStoredTokens(ctx context.Context, ch, t string, n int) error {
	c, err := channel(get(ctx), ch, t)
	if err != nil {
		return err
	}
	if c.Tokens != n {
		return fmt.Errorf("%s channel of %s stored %d tokens, want %d", ch, t, c.Tokens, n)
	}
	return nil
}

func thenRowTokens(ctx context.Context, coord string, n int) error {
	got, ok, err := get(ctx).drv.rowTokens(ctx, coord)
	if err != nil {
		return err
	}
	if !ok || got != n {
		return fmt.Errorf("row log:///%s stored %d tokens (stored: %v), want %d", coord, got, ok, n)
	}
	return nil
}

// rowTokens is the token count the engine stored for the model run's row
// at coord when it was written.
func (e embedded) rowTokens(ctx context.Context, coord string) (int, bool, error) {
	row := findLogRow(e.w.runs["model"].Log, coord)
	if row == nil {
		return 0, false, fmt.Errorf("no row log:///%s", coord)
	}
	n, ok := getEngine(ctx).eng.RowTokens(row.ID)
	return n, ok, nil
}

func thenSent(ctx context.Context, kinds string) error {
	var got []string
	for _, n := range getEngine(ctx).sent {
		got = append(got, n.Kind())
	}
	if d := cmp.Diff(splitList(kinds), got); d != "" {
		return fmt.Errorf("notices sent (-want +got):\n%s", d)
	}
	return nil
}
