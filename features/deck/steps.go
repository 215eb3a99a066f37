// Package deck holds the godog step definitions for the deck features: a thin
// adapter from the Gherkin in features/deck/*.feature to impl/deck.
// It may import godog, features/kit, impl/ and sim/.
package deck

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cucumber/godog"
	"github.com/spf13/afero"

	"anchorage/features/kit"
	"anchorage/impl/deck"
	"anchorage/impl/vary"
	"anchorage/sim/clock"
	"anchorage/sim/vfs"
)

type world struct {
	fs    afero.Fs
	d     *deck.Deck
	seed  uint64
	err   error
	clock time.Duration // the deck's uptime before the last evaluation a step made
	cyc   uint64
	part  deck.Part
	cpi   float64     // the deck's CPI; 0 is the default
	flash *vfs.Faulty // the deck's flash (fs), where faults are injected
	proc  *procDeck   // DECK_CMD's process, else nil: the simulator above (driver.go)
	vary  vary.Set    // the spec-permitted variations the simulator runs with (ANCHORAGE_VARY)

	refusal string    // the message of the last refusal a step expected
	rates   []float64 // the clock's nanoseconds per cycle over each evaluation a step judged
	noted   uint64    // an evaluation's cycles a step noted, to compare another with
}

// EnvVary names the environment variable that runs the embedded deck with
// spec-permitted variations of the reference's decisions: "all" or names of
// deck.Variations, comma-separated.
const EnvVary = "ANCHORAGE_VARY"

type key struct{}

func get(ctx context.Context) *world { w, _ := ctx.Value(key{}).(*world); return w }

// InitializeScenario registers the deck steps with a scenario context.
func InitializeScenario(sc kit.Steps) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		s, err := kit.From(ctx)
		if err != nil {
			return ctx, err
		}
		seed := s.Seeds.Rand("deck").Uint64()
		flash := vfs.NewFaulty(afero.NewMemMapFs(), seed)
		set, err := vary.Parse(os.Getenv(EnvVary), deck.Variations())
		if err != nil {
			return ctx, fmt.Errorf("%s: %w", EnvVary, err)
		}
		return context.WithValue(ctx, key{}, &world{fs: flash, flash: flash, seed: seed, vary: set}), nil
	})
	registerDriver(sc)
	seedSteps(sc)
	step := func(expr string, f func(w *world, args ...string) error) {
		f = viaDriver(expr, f)
		switch n := regexp.MustCompile(expr).NumSubexp(); n {
		case 0:
			sc.Step(expr, func(ctx context.Context) error { return f(get(ctx)) })
		case 1:
			sc.Step(expr, func(ctx context.Context, a string) error { return f(get(ctx), unescape(a)) })
		case 2:
			sc.Step(expr, func(ctx context.Context, a, b string) error { return f(get(ctx), unescape(a), unescape(b)) })
		default:
			sc.Step(expr, func(ctx context.Context, a, b, c string) error {
				return f(get(ctx), unescape(a), unescape(b), unescape(c))
			})
		}
	}
	step(`^a new deck$`, func(w *world, _ ...string) error { return w.power() })
	step(`^a graduated deck$`, func(w *world, _ ...string) error { return w.graduated("OPERATOR", 100, 0) })
	step(`^a graduated deck of "([^"]*)" with (\d+) credits and reputation (\d+)$`, func(w *world, a ...string) error {
		var cr, rep int
		fmt.Sscan(a[1], &cr)
		fmt.Sscan(a[2], &rep)
		return w.graduated(a[0], cr, rep)
	})
	step(`^a graduated deck whose Mission Board seed is (\d+)$`, func(w *world, a ...string) error {
		w.seed = uint64(atoi(a[0]))
		return w.graduated("OPERATOR", 100, 0)
	})
	step(`^a graduated deck whose Cipher seed is (\d+)$`, func(w *world, a ...string) error {
		if err := w.graduated("OPERATOR", 100, 0); err != nil {
			return err
		}
		st := w.d.State()
		st.CipherSeed = uint32(atoi(a[0]))
		return w.d.SetState(st)
	})
	step(`^the deck is powered off and on again$`, func(w *world, _ ...string) error { return w.power() })
	step(`^one byte of the deck-state image in flash is flipped$`, func(w *world, _ ...string) error { return w.editFlash(flipByte) })
	step(`^the deck state is that of a new deck$`, func(w *world, _ ...string) error {
		// The oracle is a second deck, powered on with nothing configured
		// but the board: its own empty flash, its own clock.
		fresh, err := deck.New(deck.Config{Seed: w.seed, Part: w.part, Vary: w.vary})
		if err != nil {
			return fmt.Errorf("power on a new deck: %w", err)
		}
		return want("deck state", fmt.Sprintf("%+v", w.d.State()), fmt.Sprintf("%+v", fresh.State()))
	})
	step(`^the player presses "([^"]*)"$`, func(w *world, a ...string) error { return deck.RunScript(w.d, a[0]) })
	step(`^the player composes "(.*)"$`, func(w *world, a ...string) error { return w.d.Compose(expand(a[0])) })
	step(`^the player evaluates "(.*)"$`, func(w *world, a ...string) error {
		src := expand(a[0])
		if err := w.d.Compose(src); err != nil {
			return fmt.Errorf("compose %s: %w", a[0], err)
		}
		w.clock, w.cyc = w.d.Uptime(), w.d.Cycles()
		if err := w.d.Press(deck.KeyEval); err != nil {
			return err
		}
		if got := w.d.Last().Expr; got != src {
			return fmt.Errorf("evaluated %q, want %q", got, src)
		}
		return nil
	})
	step(`^the player evaluates "([^"]*)" (\d+) times$`, func(w *world, a ...string) error {
		for i := 0; i < atoi(a[1]); i++ {
			if err := w.d.Compose(a[0]); err != nil {
				return err
			}
			if err := w.d.Press(deck.KeyEval); err != nil {
				return err
			}
		}
		return nil
	})
	step(`^a cartridge "([^"]*)" with a (\d+) KB arena is inserted$`, func(w *world, a ...string) error {
		var kb int
		fmt.Sscan(a[1], &kb)
		return w.d.Insert(deck.Cart{Name: a[0], Arena: kb * deck.KB})
	})
	step(`^the result is "(.*)"$`, func(w *world, a ...string) error {
		return want("result", w.d.Last().Result, a[0])
	})
	step(`^the result starts with "(.*)"$`, func(w *world, a ...string) error {
		if !strings.HasPrefix(w.d.Last().Result, a[0]) {
			return fmt.Errorf("result %q does not start with %q", w.d.Last().Result, a[0])
		}
		return nil
	})
	step(`^the result contains "(.*)"$`, func(w *world, a ...string) error {
		if !strings.Contains(w.d.Last().Result, a[0]) {
			return fmt.Errorf("result %q does not contain %q", w.d.Last().Result, a[0])
		}
		return nil
	})
	step(`^row (\d+) reads "([^"]*)"$`, func(w *world, a ...string) error {
		return want("row "+a[0], w.row(atoi(a[0])), a[1])
	})
	step(`^row (\d+) contains "([^"]*)"$`, func(w *world, a ...string) error {
		if got := w.row(atoi(a[0])); !strings.Contains(got, a[1]) {
			return fmt.Errorf("row %s is %q, which does not contain %q", a[0], got, a[1])
		}
		return nil
	})
	step(`^row (\d+) does not contain "([^"]*)"$`, func(w *world, a ...string) error {
		if got := w.row(atoi(a[0])); strings.Contains(got, a[1]) {
			return fmt.Errorf("row %s is %q, which contains %q", a[0], got, a[1])
		}
		return nil
	})
	step(`^row (\d+) is blank$`, func(w *world, a ...string) error {
		return want("row "+a[0], w.row(atoi(a[0])), "")
	})
	step(`^row 22 is a box-drawing rule apart from its readout$`, func(w *world, _ ...string) error {
		// Judged on the decoded text against the Unicode box-drawing block,
		// not against the implementation's own glyph constant: every column
		// outside the readout (which starts at column 2) is a rule glyph.
		text := []rune(w.row(22))
		box := func(r rune) bool { return r >= 0x2500 && r <= 0x257F }
		first, lastCol := -1, -1
		for i, r := range text {
			if !box(r) {
				if first < 0 {
					first = i
				}
				lastCol = i
			}
		}
		if len(text) != 80 || (first >= 0 && (first < 2 || lastCol > len(text)-2)) {
			return fmt.Errorf("row 22 is %q: want 80 box-drawing columns around a readout", string(text))
		}
		return nil
	})
	step(`^the prompt line shows no parentheses$`, func(w *world, _ ...string) error {
		if got := w.row(deck.RowPrompt); strings.ContainsAny(got, "()") {
			return fmt.Errorf("row 23 is %q", got)
		}
		return nil
	})
	step(`^the deck shows the (\w+) mode$`, func(w *world, a ...string) error { return want("mode", w.mode(), a[0]) })
	step(`^the tutorial cursor is at (\w+)$`, func(w *world, a ...string) error {
		bits, got := w.d.State().Tutorial, "none"
		for i, n := range deck.TutorialNames() {
			if bits&(1<<i) != 0 {
				got = n
			}
		}
		return want("tutorial cursor", got, a[0])
	})
	step(`^the REPL focus is on the (prompt|scrollback)$`, func(w *world, a ...string) error {
		s := w.d.Session()
		if s == nil {
			return fmt.Errorf("the REPL is not open")
		}
		got := "prompt"
		if s.Focus() == deck.FocusScroll {
			got = "scrollback"
		}
		return want("focus", got, a[0])
	})
	step(`^SRAM holds the (\w+) arena with (\d+) KB$`, func(w *world, a ...string) error {
		c := deck.Consumer(a[0])
		if !w.d.SRAM().Has(c) {
			return fmt.Errorf("SRAM holds %v, not %s", w.d.SRAM().Live(), c)
		}
		if err := want("size of "+a[0], fmt.Sprint(w.d.SRAM().Size(c)), fmt.Sprint(atoi(a[1])*deck.KB)); err != nil {
			return err
		}
		return w.sramHolds()
	})
	step(`^SRAM holds no (\w+) arena$`, func(w *world, a ...string) error {
		if w.d.SRAM().Has(deck.Consumer(a[0])) {
			return fmt.Errorf("SRAM holds %v", w.d.SRAM().Live())
		}
		return w.sramHolds()
	})
	step(`^allocating the (\w+) arena with (\d+) KB is refused$`, func(w *world, a ...string) error {
		_, err := w.d.SRAM().Alloc(deck.Consumer(a[0]), atoi(a[1])*deck.KB)
		if err := w.refused(err, fmt.Sprintf("allocation accepted; SRAM holds %v", w.d.SRAM().Live())); err != nil {
			return err
		}
		return w.sramHolds()
	})
	step(`^the history holds (\d+) entries, the newest "([^"]*)"$`, func(w *world, a ...string) error {
		h := w.d.Session().History()
		if err := want("history length", fmt.Sprint(len(h)), a[0]); err != nil {
			return err
		}
		return want("newest entry", h[0].Expr, a[1])
	})
	step(`^the persisted history fits 512 bytes and holds (\d+) entries$`, func(w *world, a ...string) error {
		st := w.d.State()
		if len(st.History) > 512 { // the spec's budget, not the implementation's constant
			return fmt.Errorf("history region is %d bytes", len(st.History))
		}
		h, err := deck.DecodeHistory(st.History)
		if err != nil {
			return err
		}
		return want("persisted entries", fmt.Sprint(len(h)), a[0])
	})
	step(`^the persisted history fits 512 bytes$`, func(w *world, _ ...string) error {
		if n := len(w.d.State().History); n > 512 { // the spec's budget, not the implementation's constant
			return fmt.Errorf("history region is %d bytes", n)
		}
		return nil
	})
	step(`^the newest history entry is "([^"]*)"$`, func(w *world, a ...string) error {
		h := w.d.Session().History()
		if len(h) == 0 {
			return fmt.Errorf("the history is empty")
		}
		return want("newest entry", h[0].Expr, a[0])
	})
	step(`^the evaluation reports its cycles and the clock advanced by cycles / 150 MHz$`, func(w *world, _ ...string) error {
		ev := w.d.Last()
		if ev.Cycles == 0 {
			return fmt.Errorf("no cycles reported")
		}
		spent := w.d.Cycles() - w.cyc
		if spent < ev.Cycles {
			return fmt.Errorf("counter moved %d, evaluation reported %d", spent, ev.Cycles)
		}
		got := w.d.Uptime() - w.clock
		const hz = 150e6 // the part's clock as the spec states it (not deck.ClockHz)
		wantD := time.Duration(float64(spent) / hz * float64(time.Second))
		if d := got - wantD; d > time.Microsecond || d < -time.Microsecond {
			return fmt.Errorf("clock advanced %v for %d cycles, want %v", got, spent, wantD)
		}
		prefix := fmt.Sprintf("── %d CYCLES ", ev.Cycles)
		return want("row 22 cycles readout", w.row(22), prefix+strings.Repeat("─", 80-utf8.RuneCountInString(prefix)))
	})
	step(`^the evaluation took at least (\d+) cycles$`, func(w *world, a ...string) error {
		if got := w.d.Last().Cycles; got < uint64(atoi(a[0])) {
			return fmt.Errorf("took %d cycles", got)
		}
		return nil
	})
	step(`^the editor holds "([^"]*)"$`, func(w *world, a ...string) error {
		e := w.d.Editor()
		if e == nil || e.Buffer() == nil {
			return fmt.Errorf("no editor buffer (mode %s)", w.mode())
		}
		return want("editor buffer", e.Buffer().String(), a[0])
	})
	step(`^the clipboard holds "([^"]*)"$`, func(w *world, a ...string) error { return want("clipboard", w.d.Clipboard(), a[0]) })
	step(`^the cartridge "([^"]*)" is loaded$`, func(w *world, a ...string) error {
		if c := w.d.Cart(); c == nil || c.Name != a[0] {
			return fmt.Errorf("loaded cartridge %v, mode %s", c, w.mode())
		}
		return nil
	})
	step(`^the cartridge "([^"]*)" is waiting$`, func(w *world, a ...string) error {
		if c := w.d.PendingCart(); c == nil || c.Name != a[0] || w.d.Cart() != nil {
			return fmt.Errorf("pending %v loaded %v", c, w.d.Cart())
		}
		return nil
	})
	step(`^(\d+) ms of simulated time pass$`, func(w *world, a ...string) error {
		w.d.Wait(time.Duration(atoi(a[0])) * time.Millisecond)
		return nil
	})
	sc.Step(`^the evaluation's events and cycles are$`, func(ctx context.Context, t *godog.Table) error {
		w := get(ctx)
		if w.proc != nil {
			ev, err := w.proc.events()
			if err != nil {
				return w.proc.logSkip(err)
			}
			return checkCycles(ev, t)
		}
		return checkCycles(w.d.Last(), t)
	})
	memorySteps(step)
	faultSteps(step)
	sharpMoreSteps(step)
}

func (w *world) power() error {
	d, err := deck.New(deck.Config{Fs: w.fs, Clock: clock.NewSim(clock.Epoch()), Seed: w.seed, Part: w.part, CPI: w.cpi, Vary: w.vary})
	w.d = d
	return err
}

func (w *world) graduated(handle string, credits, rep int) error {
	if err := w.power(); err != nil {
		return err
	}
	st := w.d.State()
	st.Handle, st.Credits, st.Reputation = handle, uint32(credits), int32(rep)
	st.Tutorial = deck.TutFirstBoot | deck.TutCarCdr | deck.TutQuoteEval | deck.TutLambda | deck.TutGraduated
	return w.d.SetState(st)
}

func want(what, got, wantS string) error {
	if got != wantS {
		return fmt.Errorf("%s is %q, want %q", what, got, wantS)
	}
	return nil
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// unescape turns \" in a step argument into ".
func unescape(s string) string { return strings.ReplaceAll(s, `\"`, `"`) }
