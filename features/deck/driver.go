package deck

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cucumber/godog"

	"anchorage/features/kit"
)

// EnvCmd names the environment variable that runs the deck features
// against a deck process (the line protocol of features/README.md) instead
// of the embedded simulator.
const EnvCmd = "DECK_CMD"

// The screen as the spec draws it: 25 rows of 80 columns.
const (
	screenRows   = 25
	screenCols   = 80
	rowStatus    = 0
	rowScrollTop = 2
	rowScrollEnd = 21
	rowRule      = 22
	rowPrompt    = 23
	rowAction    = 24
)

// frame is what the deck shows after one input line.
type frame struct {
	rows   [screenRows]string
	cycles uint64              // the cycle counter
	clock  time.Duration       // simulated time since power on
	err    string              // the deck refused a token of the line
	state  map[string]string   // the answer to STATE: key → value
	lines  map[string][]string // other answers (-- image, -- flash): kind → values
	unsup  string              // the deck does not implement what the line asks
}

// procDeck drives a deck process over its line protocol. The driver is
// chosen once per scenario (registerDriver); a step the protocol cannot
// express is skipped with its reason, never passed.
type procDeck struct {
	cmd   []string
	dir   string   // the deck's flash, kept across power cycles
	power []string // the board's options, given at every power on (-part, -cpi, -seed)
	logf  func(string, ...any)

	p     *exec.Cmd
	in    io.WriteCloser
	lines chan string
	now   frame
	prev  frame // the frame before the last EVAL of "the player evaluates"

	skipLogged bool   // the scenario's skip is logged (logSkip)
	refusal    string // the message of the last refusal a step expected
}

// registerDriver picks the scenario's driver: with DECK_CMD set, the world
// gets a process driver (started by the power-on steps, stopped after the
// scenario); otherwise the steps use the embedded simulator.
func registerDriver(sc kit.Steps) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		cmd := strings.Fields(os.Getenv(EnvCmd))
		if len(cmd) == 0 {
			return ctx, nil
		}
		dir, err := os.MkdirTemp("", "deck-flash-")
		if err != nil {
			return ctx, fmt.Errorf("deck flash directory: %w", err)
		}
		w := get(ctx)
		w.proc = &procDeck{cmd: cmd, dir: dir, logf: func(string, ...any) {}}
		if t := godog.T(ctx); t != nil {
			w.proc.logf = t.Logf
		}
		return ctx, nil
	})
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		if w := get(ctx); w != nil && w.proc != nil {
			w.proc.stop()
			if rerr := kit.RemoveTemp(w.proc.dir, "deck-flash-"); rerr != nil && err == nil {
				err = rerr
			}
		}
		return ctx, err
	})
}

// viaDriver returns the step as the scenario's driver runs it: f itself on
// the embedded simulator; on a deck process its protocol version, or a skip
// naming what only the simulator can show.
func viaDriver(expr string, f func(w *world, args ...string) error) func(w *world, args ...string) error {
	var p func(p *procDeck, a ...string) error
	ok := false
	for _, table := range []map[string]func(p *procDeck, a ...string) error{processSteps(), stateSteps(), faultProcSteps(), memoryProcSteps()} {
		if g, found := table[expr]; found {
			p, ok = g, true
		}
	}
	return func(w *world, args ...string) error {
		switch {
		case w.proc == nil:
			return f(w, args...)
		case ok:
			return w.proc.logSkip(p(w.proc, args...))
		}
		return w.proc.logSkip(simulatorOnly(w, fmt.Sprintf("what the step %q reads", expr)))
	}
}

// logSkip logs the first skip of the scenario as `SKIPPED (reason)`, the
// line .ci/targets counts (once per scenario, whichever step skipped), and
// returns err unchanged. Every step on a deck process returns through it.
func (p *procDeck) logSkip(err error) error {
	if errors.Is(err, godog.ErrSkip) && !p.skipLogged {
		p.skipLogged = true
		p.logf("SKIPPED (%v)", err)
	}
	return err
}

// simulatorOnly returns nil on the embedded simulator and a skip on a deck
// process, so a step never reaches for a nil *deck.Deck. A step registered
// outside viaDriver (one taking a table, say) returns it through logSkip:
//
//	if err := w.proc.logSkip(simulatorOnly(w, "…")); err != nil { return err }
func simulatorOnly(w *world, what string) error {
	if w.proc == nil {
		return nil
	}
	return fmt.Errorf("%w: %s is the simulator's internal state, which the line protocol of %s does not show", godog.ErrSkip, what, EnvCmd)
}

// processSteps are the deck steps the line protocol expresses, keyed by the
// expressions steps.go registers them under.
func processSteps() map[string]func(p *procDeck, a ...string) error {
	graduated := func(p *procDeck, handle, credits, rep string) error {
		return p.start("-handle", handle, "-credits", credits, "-reputation", rep, "-graduated")
	}
	return map[string]func(p *procDeck, a ...string) error{
		`^a new deck$`:       func(p *procDeck, _ ...string) error { return p.start() },
		`^a graduated deck$`: func(p *procDeck, _ ...string) error { return graduated(p, "OPERATOR", "100", "0") },
		`^a graduated deck of "([^"]*)" with (\d+) credits and reputation (\d+)$`: func(p *procDeck, a ...string) error { return graduated(p, a[0], a[1], a[2]) },
		`^the deck is powered off and on again$`:                                  func(p *procDeck, _ ...string) error { p.stop(); return p.start() },
		`^the player presses "([^"]*)"$`:                                          func(p *procDeck, a ...string) error { return p.send(a[0]) },
		`^the player composes "(.*)"$`:                                            func(p *procDeck, a ...string) error { return p.send("COMPOSE " + expand(a[0])) },
		`^the player evaluates "(.*)"$`:                                           func(p *procDeck, a ...string) error { return p.evaluate(expand(a[0])) },
		`^the player evaluates "([^"]*)" (\d+) times$`: func(p *procDeck, a ...string) error {
			n, _ := strconv.Atoi(a[1])
			for i := 0; i < n; i++ {
				if err := p.send("COMPOSE " + expand(a[0])); err != nil {
					return err
				}
				if err := p.send("EVAL"); err != nil {
					return err
				}
			}
			return nil
		},
		`^a cartridge "([^"]*)" with a (\d+) KB arena is inserted$`: func(p *procDeck, a ...string) error {
			return p.send("INSERT:" + a[0] + ":" + a[1])
		},
		`^(\d+) ms of simulated time pass$`: func(p *procDeck, a ...string) error { return p.send("WAIT:" + a[0]) },
		`^the result is "(.*)"$`: func(p *procDeck, a ...string) error {
			i, err := p.newest()
			if err != nil {
				return err
			}
			if !rowShows(p.now.rows[i], a[0]) {
				return fmt.Errorf("the result row is %q, want => %s", p.now.rows[i], a[0])
			}
			full, err := p.fullResult()
			if err != nil || full == nil {
				return err
			}
			return want("result", *full, a[0])
		},
		`^the result starts with "(.*)"$`: func(p *procDeck, a ...string) error {
			i, err := p.newest()
			if err != nil {
				return err
			}
			row := p.now.rows[i]
			_, got := scrollEntry(row)
			if !strings.HasPrefix(got, a[0]) && shown(strings.TrimSuffix(row, got)+a[0]) != row {
				return fmt.Errorf("result row %q does not start with %q", row, a[0])
			}
			full, err := p.fullResult()
			if err != nil || full == nil {
				return err
			}
			if !strings.HasPrefix(*full, a[0]) {
				return fmt.Errorf("result %q does not start with %q", *full, a[0])
			}
			return nil
		},
		`^the result contains "(.*)"$`: func(p *procDeck, a ...string) error {
			got, _, err := p.result()
			if err != nil {
				return err
			}
			if strings.Contains(got, a[0]) {
				return nil
			}
			full, err := p.fullResult()
			if err != nil {
				return err
			}
			if full != nil {
				if !strings.Contains(*full, a[0]) {
					return fmt.Errorf("result %q does not contain %q", *full, a[0])
				}
				return nil
			}
			if i, _ := p.newest(); utf8.RuneCountInString(p.now.rows[i]) >= screenCols {
				return fmt.Errorf("%w: the result row %q is cut at the screen's edge, so %q may lie beyond it", godog.ErrSkip, got, a[0])
			}
			return fmt.Errorf("result row %q does not contain %q", got, a[0])
		},
		`^row (\d+) reads "([^"]*)"$`: func(p *procDeck, a ...string) error { return want("row "+a[0], p.row(a[0]), a[1]) },
		`^row (\d+) contains "([^"]*)"$`: func(p *procDeck, a ...string) error {
			if got := p.row(a[0]); !strings.Contains(got, a[1]) {
				return fmt.Errorf("row %s is %q, which does not contain %q", a[0], got, a[1])
			}
			return nil
		},
		`^row (\d+) does not contain "([^"]*)"$`: func(p *procDeck, a ...string) error {
			if got := p.row(a[0]); strings.Contains(got, a[1]) {
				return fmt.Errorf("row %s is %q, which contains %q", a[0], got, a[1])
			}
			return nil
		},
		`^row (\d+) is blank$`: func(p *procDeck, a ...string) error { return want("row "+a[0], p.row(a[0]), "") },
		`^row 22 is a box-drawing rule apart from its readout$`: func(p *procDeck, _ ...string) error {
			return boxRule(p.now.rows[rowRule])
		},
		`^the prompt line shows no parentheses$`: func(p *procDeck, _ ...string) error {
			if got := p.now.rows[rowPrompt]; strings.ContainsAny(got, "()") {
				return fmt.Errorf("row 23 is %q", got)
			}
			return nil
		},
		`^the deck shows the (\w+) mode$`: func(p *procDeck, a ...string) error {
			f := strings.Fields(p.now.rows[rowStatus])
			if len(f) == 0 {
				return fmt.Errorf("row 0 is blank")
			}
			return want("mode indicator on row 0", f[len(f)-1], a[0])
		},
		`^the evaluation reports its cycles and the clock advanced by cycles / 150 MHz$`: func(p *procDeck, _ ...string) error {
			n, err := p.readout()
			if err != nil {
				return err
			}
			spent := p.now.cycles - p.prev.cycles
			if spent < n {
				return fmt.Errorf("counter moved %d, the readout says %d", spent, n)
			}
			got := p.now.clock - p.prev.clock
			const hz = 150e6 // the part's clock as the spec states it
			wantD := time.Duration(float64(spent) / hz * float64(time.Second))
			if d := got - wantD; d > time.Microsecond || d < -time.Microsecond {
				return fmt.Errorf("clock advanced %v for %d cycles, want %v", got, spent, wantD)
			}
			prefix := fmt.Sprintf("── %d CYCLES ", n)
			return want("row 22 cycles readout", p.now.rows[rowRule], prefix+strings.Repeat("─", screenCols-utf8.RuneCountInString(prefix)))
		},
		`^the evaluation took at least (\d+) cycles$`: func(p *procDeck, a ...string) error {
			n, err := p.readout()
			if err != nil {
				return err
			}
			if least, _ := strconv.ParseUint(a[0], 10, 64); n < least {
				return fmt.Errorf("took %d cycles", n)
			}
			return nil
		},
	}
}

// stateOf asks the deck for its state (the optional STATE line) and
// returns the value of key; a deck that does not answer skips the step.
func (p *procDeck) stateOf(key string) (string, error) {
	if err := p.send("STATE"); err != nil {
		return "", err
	}
	v, ok := p.now.state[key]
	if !ok {
		return "", fmt.Errorf("%w: the deck answered STATE without %q", godog.ErrSkip, key)
	}
	return v, nil
}

// stateSteps are the steps that read deck state through STATE.
func stateSteps() map[string]func(p *procDeck, a ...string) error {
	return map[string]func(p *procDeck, a ...string) error{
		`^the tutorial cursor is at (\w+)$`: func(p *procDeck, a ...string) error {
			v, err := p.stateOf("tutorial")
			if err != nil {
				return err
			}
			return want("tutorial cursor", v, a[0])
		},
		`^the history holds (\d+) entries, the newest "([^"]*)"$`: func(p *procDeck, a ...string) error {
			v, err := p.stateOf("history")
			if err != nil {
				return err
			}
			n, newest, _ := strings.Cut(v, " ")
			if err := want("history length", n, a[0]); err != nil {
				return err
			}
			return want("newest entry", newest, a[1])
		},
		`^the persisted history fits 512 bytes$`: func(p *procDeck, _ ...string) error {
			v, err := p.stateOf("persisted-history")
			if err != nil {
				return err
			}
			var size int
			if _, err := fmt.Sscan(v, &size); err != nil {
				return fmt.Errorf("persisted-history %q: %w", v, err)
			}
			if size > 512 { // the spec's budget
				return fmt.Errorf("history region is %d bytes", size)
			}
			return nil
		},
		`^the newest history entry is "([^"]*)"$`: func(p *procDeck, a ...string) error {
			v, err := p.stateOf("history")
			if err != nil {
				return err
			}
			_, newest, _ := strings.Cut(v, " ")
			return want("newest entry", newest, a[0])
		},
		`^the persisted history fits 512 bytes and holds (\d+) entries$`: func(p *procDeck, a ...string) error {
			v, err := p.stateOf("persisted-history")
			if err != nil {
				return err
			}
			var size, n int
			if _, err := fmt.Sscanf(v, "%d %d", &size, &n); err != nil {
				return fmt.Errorf("persisted-history %q: %w", v, err)
			}
			if size > 512 { // the spec's budget
				return fmt.Errorf("history region is %d bytes", size)
			}
			return want("persisted entries", strconv.Itoa(n), a[0])
		},
		`^the editor holds "([^"]*)"$`: func(p *procDeck, a ...string) error {
			v, err := p.stateOf("editor")
			if err != nil {
				return err
			}
			return want("editor buffer", v, a[0])
		},
		`^SRAM holds the (\w+) arena with (\d+) KB$`: func(p *procDeck, a ...string) error {
			live, err := p.sram()
			if err != nil {
				return err
			}
			size, ok := live[a[0]]
			if !ok {
				return fmt.Errorf("SRAM holds %v, not %s", live, a[0])
			}
			kb, _ := strconv.Atoi(a[1])
			if err := want("size of "+a[0], size, strconv.Itoa(kb*1024)); err != nil {
				return err
			}
			return p.regionsHold()
		},
		`^SRAM holds no (\w+) arena$`: func(p *procDeck, a ...string) error {
			live, err := p.sram()
			if err != nil {
				return err
			}
			if _, ok := live[a[0]]; ok {
				return fmt.Errorf("SRAM holds %v", live)
			}
			return p.regionsHold()
		},
		`^the clipboard holds "([^"]*)"$`: func(p *procDeck, a ...string) error {
			v, err := p.stateOf("clipboard")
			if err != nil {
				return err
			}
			return want("clipboard", v, a[0])
		},
		`^the cartridge "([^"]*)" is loaded$`: func(p *procDeck, a ...string) error {
			v, _ := p.stateOf("cartridge")
			return want("cartridge slot", v, "loaded "+a[0])
		},
		`^the cartridge "([^"]*)" is waiting$`: func(p *procDeck, a ...string) error {
			v, _ := p.stateOf("cartridge")
			return want("cartridge slot", v, "waiting "+a[0])
		},
		`^the REPL focus is on the (prompt|scrollback)$`: func(p *procDeck, a ...string) error {
			v, err := p.stateOf("focus")
			if err != nil {
				return err
			}
			return want("focus", v, a[0])
		},
	}
}

// sram is the deck's SRAM allocations (consumer → bytes) as STATE tells.
func (p *procDeck) sram() (map[string]string, error) {
	v, err := p.stateOf("sram")
	if err != nil {
		return nil, err
	}
	live := map[string]string{}
	for _, kv := range strings.Fields(v) {
		k, size, _ := strings.Cut(kv, "=")
		live[k] = size
	}
	return live, nil
}

// boxRule checks row 22 against the Unicode box-drawing block: every column
// outside the readout (which starts at column 2) is a rule glyph.
func boxRule(row string) error {
	text := []rune(row)
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
	if len(text) != screenCols || (first >= 0 && (first < 2 || lastCol > len(text)-2)) {
		return fmt.Errorf("row 22 is %q: want 80 box-drawing columns around a readout", row)
	}
	return nil
}

// shown is text as an 80-column row shows it: cut at the edge, trailing
// blanks dropped.
func shown(text string) string {
	r := []rune(text)
	if len(r) > screenCols {
		r = r[:screenCols]
	}
	return strings.TrimRight(string(r), " ")
}

// start powers the deck on: a process on the scenario's flash directory,
// with the given state written at power on.
func (p *procDeck) start(state ...string) error {
	args := append(append([]string{}, p.cmd[1:]...), "-dir", p.dir)
	args = append(append(args, p.power...), state...)
	c := exec.Command(p.cmd[0], args...)
	in, err := c.StdinPipe()
	if err != nil {
		return fmt.Errorf("deck process stdin: %w", err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return fmt.Errorf("deck process stdout: %w", err)
	}
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", p.cmd[0], err)
	}
	p.p, p.in, p.lines = c, in, make(chan string, 64)
	go func(lines chan<- string) {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}(p.lines)
	f, err := p.read()
	switch {
	case f.unsup != "":
		p.stop()
		return p.unsupported(f.unsup)
	case f.err != "" && err != nil:
		// The deck refused to power on: its reason, then the end.
		p.stop()
		return powerRefused{f.err}
	case err != nil:
		return fmt.Errorf("power on: %w", err)
	}
	p.now = f
	return nil
}

// powerRefused is a deck that would not power on, with its reason.
type powerRefused struct{ msg string }

func (e powerRefused) Error() string { return "the deck refused to power on: " + e.msg }

// unsupported is the skip of a step whose line the deck answered with
// `-- unsupported:`: the deck under test does not claim that part.
func (p *procDeck) unsupported(what string) error {
	return fmt.Errorf("%w: the deck under test does not support it: %s", godog.ErrSkip, what)
}

// stop powers the deck off: end of input, then the process must exit.
func (p *procDeck) stop() {
	if p.p == nil {
		return
	}
	_ = p.in.Close()
	done := make(chan struct{})
	go func() { _ = p.p.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.p.Process.Kill()
		<-done
	}
	p.p = nil
}

// send types one line and reads the frame it produces.
func (p *procDeck) send(line string) error {
	if err := p.exchange(line); err != nil {
		return err
	}
	if p.now.err != "" {
		return fmt.Errorf("the deck refused %q: %s", line, p.now.err)
	}
	return nil
}

// exchange types one line and reads its frame into p.now, whether or not
// the deck refused the line; a line the deck does not support skips.
func (p *procDeck) exchange(line string) error {
	if p.p == nil {
		return fmt.Errorf("the deck is not powered on")
	}
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		return fmt.Errorf("typing %q: %w", line, err)
	}
	f, err := p.read()
	if err != nil {
		return fmt.Errorf("after %q: %w", line, err)
	}
	p.now = f
	if f.unsup != "" {
		return p.unsupported(f.unsup)
	}
	return nil
}

// refused types a line the deck must refuse, and keeps the refusal's
// message for "the refusal names".
func (p *procDeck) refused(line string) error {
	if err := p.exchange(line); err != nil {
		return err
	}
	if p.now.err == "" {
		return fmt.Errorf("the deck took %q without an error (row 0 %q)", line, p.now.rows[rowStatus])
	}
	p.refusal = p.now.err
	return nil
}

// read reads one frame: optional `-- error:` lines, 25 rows, the cycles line.
func (p *procDeck) read() (frame, error) {
	var f frame
	next := func() (string, error) {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return "", fmt.Errorf("the deck process ended mid-frame")
			}
			return l, nil
		case <-time.After(30 * time.Second):
			return "", fmt.Errorf("no frame from the deck process within 30s")
		}
	}
	for i := 0; i < screenRows; i++ {
		l, err := next()
		if err != nil {
			return f, err
		}
		if msg, ok := strings.CutPrefix(l, "-- error: "); ok && i == 0 {
			f.err = strings.TrimSpace(f.err + " " + msg)
			i--
			continue
		}
		if kv, ok := strings.CutPrefix(l, "-- state "); ok && i == 0 {
			k, v, _ := strings.Cut(kv, " ")
			if f.state == nil {
				f.state = map[string]string{}
			}
			f.state[k] = v
			i--
			continue
		}
		if msg, ok := strings.CutPrefix(l, "-- unsupported: "); ok && i == 0 {
			f.unsup = strings.TrimSpace(f.unsup + " " + msg)
			i--
			continue
		}
		if kv, ok := strings.CutPrefix(l, "-- "); ok && i == 0 && !strings.HasPrefix(kv, "cycles ") {
			k, v, _ := strings.Cut(kv, " ")
			if f.lines == nil {
				f.lines = map[string][]string{}
			}
			f.lines[k] = append(f.lines[k], v)
			i--
			continue
		}
		f.rows[i] = l
	}
	l, err := next()
	if err != nil {
		return f, err
	}
	var clock string
	if _, err := fmt.Sscanf(l, "-- cycles %d  clock +%s", &f.cycles, &clock); err != nil {
		return f, fmt.Errorf("cycles line %q: %w", l, err)
	}
	if f.clock, err = time.ParseDuration(clock); err != nil {
		return f, fmt.Errorf("cycles line %q: %w", l, err)
	}
	return f, nil
}

// evaluate composes src, presses EVAL and checks that the newest prompt
// line of the scrollback is src.
func (p *procDeck) evaluate(src string) error {
	if err := p.send("COMPOSE " + src); err != nil {
		return err
	}
	p.prev = p.now
	if err := p.send("EVAL"); err != nil {
		return err
	}
	if f := strings.Fields(p.now.rows[rowStatus]); len(f) == 0 || f[len(f)-1] != "REPL" {
		return nil // the evaluation left the REPL: the steps after it say where the deck went
	}
	i, err := p.newest()
	if err != nil {
		return err
	}
	if kind, _ := scrollEntry(p.now.rows[i-1]); kind != "prompt" || !rowShows(p.now.rows[i-1], src) {
		return fmt.Errorf("the newest prompt line is %q, want > %s", p.now.rows[i-1], src)
	}
	return nil
}

// rowShows reports whether a scrollback row shows text after its prefix,
// as far as the screen's 80 columns show it.
func rowShows(row, text string) bool {
	_, got := scrollEntry(row)
	prefix := strings.TrimSuffix(row, got)
	return row == shown(prefix+text)
}

// newest finds the row of the newest result line in the scrollback (rows
// 2 to 21, oldest leaving at the top): a => line under a > line.
func (p *procDeck) newest() (int, error) {
	for i := 21; i >= 3; i-- {
		if k, _ := scrollEntry(p.now.rows[i]); k != "result" {
			continue
		}
		if k, _ := scrollEntry(p.now.rows[i-1]); k == "prompt" {
			return i, nil
		}
	}
	return 0, errors.New("the scrollback (rows 2 to 21) shows no evaluation")
}

// result is the newest result as its scrollback row shows it, after its
// => prefix, and whether the row is cut at the screen's edge.
func (p *procDeck) result() (string, bool, error) {
	i, err := p.newest()
	if err != nil {
		return "", false, err
	}
	_, text := scrollEntry(p.now.rows[i])
	return text, utf8.RuneCountInString(p.now.rows[i]) >= screenCols, nil
}

// fullResult is the last evaluation's whole result from STATE, or nil
// when the deck does not answer it (the screen row is all there is).
func (p *procDeck) fullResult() (*string, error) {
	if err := p.send("STATE"); err != nil {
		return nil, err
	}
	v, ok := p.now.state["result"]
	if !ok {
		return nil, nil
	}
	r, err := strconv.Unquote(v)
	if err != nil {
		return nil, fmt.Errorf("STATE result %s: %w", v, err)
	}
	return &r, nil
}

// readout is the cycle count row 22 shows for the last evaluation: the
// number its readout holds, whatever its words.
func (p *procDeck) readout() (uint64, error) {
	m := regexp.MustCompile(`\d+`).FindString(ruleReadout(p.now.rows[rowRule]))
	if m == "" {
		return 0, fmt.Errorf("row 22 %q shows no cycle count", p.now.rows[rowRule])
	}
	return strconv.ParseUint(m, 10, 64)
}

func (p *procDeck) row(n string) string {
	i, err := strconv.Atoi(n)
	if err != nil || i < 0 || i >= screenRows {
		return fmt.Sprintf("(no row %s)", n)
	}
	return p.now.rows[i]
}
