package deck

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"anchorage/features/kit"
	"anchorage/impl/deck"
)

// The steps of this file assert what seed 004 states at its own level of
// detail: a zone of the screen and what the seed says it shows, a value it
// gives, a Lisp error where it asks for one. They read the screen the same
// way on the simulator and on a deck process, so they are written once;
// every exact wording, layout or glyph beyond them is asserted by the
// decided steps (" per Decision (§id)").

// row is row i of the screen on the scenario's target, trailing blanks
// removed: on the simulator, as its dump (the frame a deck process prints)
// shows it.
func (w *world) row(i int) string {
	if w.proc != nil {
		return w.proc.now.rows[i]
	}
	rows := strings.Split(w.d.Dump(), "\n")
	if i < 0 || i >= len(rows) {
		return ""
	}
	return rows[i]
}

// width is the screen's width in columns on the scenario's target: its
// widest row.
func (w *world) width() int {
	n := 0
	for i := range screenRows {
		n = max(n, utf8.RuneCountInString(w.row(i)))
	}
	return n
}

// mode is the word in row 0's mode slot (its last word) on the scenario's
// target.
func (w *world) mode() string {
	f := strings.Fields(w.row(rowStatus))
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// lastResult is the last evaluation's result: whole from the simulator or
// a deck's STATE port, else as the scrollback shows it, cut reporting that
// the row is cut at the screen's edge.
func (w *world) lastResult() (text string, cut bool, err error) {
	if w.proc == nil {
		return w.d.Last().Result, false, nil
	}
	full, err := w.proc.fullResult()
	if err != nil {
		return "", false, err
	}
	if full != nil {
		return *full, false, nil
	}
	i, err := w.proc.newest()
	if err != nil {
		return "", false, err
	}
	_, text = scrollEntry(w.proc.now.rows[i])
	return text, len([]rune(w.proc.now.rows[i])) >= screenCols, nil
}

// seedSteps registers the steps of this file on both targets.
func seedSteps(sc kit.Steps) {
	on := func(expr string, f func(w *world, a ...string) error) {
		run := func(ctx context.Context, a ...string) error {
			w := get(ctx)
			for i := range a {
				a[i] = unescape(a[i])
			}
			if w.proc != nil {
				return w.proc.logSkip(f(w, a...))
			}
			return f(w, a...)
		}
		switch regexp.MustCompile(expr).NumSubexp() {
		case 0:
			sc.Step(expr, func(ctx context.Context) error { return run(ctx) })
		case 1:
			sc.Step(expr, func(ctx context.Context, a string) error { return run(ctx, a) })
		case 2:
			sc.Step(expr, func(ctx context.Context, a, b string) error { return run(ctx, a, b) })
		default:
			sc.Step(expr, func(ctx context.Context, a, b, c string) error { return run(ctx, a, b, c) })
		}
	}
	on(`^the deck is wiped$`, func(w *world, _ ...string) error {
		// Through the menus, as a player wipes a deck: DECK STATE on the
		// home screen, then WIPE DECK in the browser.
		if err := w.choose("DECK STATE"); err != nil {
			return err
		}
		return w.choose("WIPE DECK")
	})
	on(`^the player presses "([^"]*)", refused or not$`, func(w *world, a ...string) error {
		return w.pressAnyway(a[0])
	})
	on(`^a cartridge "([^"]*)" with a (\d+) KB arena is inserted, refused or not$`, func(w *world, a ...string) error {
		return w.pressAnyway("INSERT:" + a[0] + ":" + a[1])
	})
	on(`^the player leaves the REPL$`, func(w *world, _ ...string) error { return w.leaveREPL() })
	on(`^the player deletes the prompt line with NIL$`, func(w *world, _ ...string) error {
		// NIL deletes the form under the cursor, wherever the deck put it:
		// pressed until the prompt line shows no atom.
		for i := 0; i < 10 && len(rowAtoms(w.row(rowPrompt))) > 0; i++ {
			if err := w.press("NIL"); err != nil {
				return err
			}
		}
		if atoms := rowAtoms(w.row(rowPrompt)); len(atoms) > 0 {
			return fmt.Errorf("ten NILs left %q on the prompt line", atoms)
		}
		return nil
	})
	on(`^the result is a Lisp error$`, func(w *world, _ ...string) error { return lispError(w, "") })
	on(`^the result is a Lisp error naming "(.*)"$`, func(w *world, a ...string) error { return lispError(w, a[0]) })
	on(`^the status bar shows "([^"]*)", (\d+) credits and reputation (-?\d+)$`, func(w *world, a ...string) error {
		return statusShows(w.row(rowStatus), a[0], a[1], a[2])
	})
	on(`^the banner shows the Dev REPL and the Fe VM's version$`, func(w *world, _ ...string) error {
		_, err := bannerRest(w.row(1))
		return err
	})
	on(`^the banner shows tutorial stage (\d)$`, func(w *world, a ...string) error {
		rest, err := bannerRest(w.row(1))
		if err != nil {
			return err
		}
		if !regexp.MustCompile(`(^|\D)` + a[0] + `(\D|$)`).MatchString(rest) {
			return fmt.Errorf("row 1 is %q: no tutorial stage %s beside the banner", w.row(1), a[0])
		}
		return nil
	})
	on(`^the banner shows no tutorial stage$`, func(w *world, _ ...string) error {
		rest, err := bannerRest(w.row(1))
		if err != nil {
			return err
		}
		if strings.TrimSpace(rest) != "" {
			return fmt.Errorf("row 1 is %q: %q beside the banner", w.row(1), rest)
		}
		return nil
	})
	on(`^the screen shows "([^"]*)"$`, func(w *world, a ...string) error {
		if _, ok := screenFind(w, a[0]); !ok {
			return fmt.Errorf("no row of the screen shows %q", a[0])
		}
		return nil
	})
	on(`^the screen does not show "([^"]*)"$`, func(w *world, a ...string) error {
		if i, ok := screenFind(w, a[0]); ok {
			return fmt.Errorf("row %d shows %q: %q", i, a[0], w.row(i))
		}
		return nil
	})
	on(`^the REPL asks before it is left$`, func(w *world, _ ...string) error {
		if err := showsMode(w, "REPL"); err != nil {
			return err
		}
		if readout := ruleReadout(w.row(rowRule)); readout == "" {
			return fmt.Errorf("row 22 is %q: no question on it", w.row(rowRule))
		}
		return nil
	})
	on(`^the prompt line shows "(.*)"$`, func(w *world, a ...string) error {
		return promptShows(w.row(rowPrompt), a[0])
	})
	on(`^the prompt line shows "(.*)" unless it fills its row$`, func(w *world, a ...string) error {
		row := w.row(rowPrompt)
		if utf8.RuneCountInString(row) >= w.width() {
			return nil
		}
		return promptShows(row, a[0])
	})
	on(`^the prompt line is empty$`, func(w *world, _ ...string) error {
		if atoms := rowAtoms(w.row(rowPrompt)); len(atoms) > 0 {
			return fmt.Errorf("row 23 is %q: it shows %q", w.row(rowPrompt), atoms)
		}
		return nil
	})
	on(`^row (\d+) shows the (prompt|result) "(.*)"$`, func(w *world, a ...string) error {
		i, _ := strconv.Atoi(a[0])
		kind, text := scrollEntry(w.row(i))
		if kind != a[1] || text != a[2] {
			return fmt.Errorf("row %d is %q: want the %s %q", i, w.row(i), a[1], a[2])
		}
		return nil
	})
	on(`^row 22 shows the type (\w+)$`, func(w *world, a ...string) error {
		if !hasWord(ruleReadout(w.row(rowRule)), a[0]) {
			return fmt.Errorf("row 22 is %q: no type %s", w.row(rowRule), a[0])
		}
		return nil
	})
	on(`^row 22 shows the Cipher line "([^"]*)" before the prompt appears$`, func(w *world, a ...string) error {
		return cipherLine(w, a[0])
	})
	on(`^the evaluation reports its cycles and the clock moved on with them$`, func(w *world, _ ...string) error {
		var reported, counted uint64
		var advanced time.Duration
		if w.proc != nil {
			n, err := w.proc.readout()
			if err != nil {
				return err
			}
			reported, counted, advanced = n, w.proc.now.cycles-w.proc.prev.cycles, w.proc.now.clock-w.proc.prev.clock
		} else {
			reported, counted, advanced = w.d.Last().Cycles, w.d.Cycles()-w.cyc, w.d.Uptime()-w.clock
		}
		if err := cyclesReported(reported, counted, advanced, w.row(rowRule)); err != nil {
			return err
		}
		w.rates = append(w.rates, float64(advanced)/float64(counted))
		return nil
	})
	on(`^the evaluation's cycles are noted$`, func(w *world, _ ...string) error {
		n, err := w.evalCycles()
		w.noted = n
		return err
	})
	on(`^the evaluation took more than the noted cycles$`, func(w *world, _ ...string) error {
		n, err := w.evalCycles()
		if err != nil {
			return err
		}
		if n <= w.noted {
			return fmt.Errorf("the evaluation took %d cycles, the one noted %d: more work did not cost more", n, w.noted)
		}
		return nil
	})
	on(`^the evaluation took twice the noted cycles$`, func(w *world, _ ...string) error {
		// Cycles are instructions times the cycles per instruction: the
		// same work at twice the CPI takes twice the cycles (each count
		// rounded down to a whole cycle).
		n, err := w.evalCycles()
		if err != nil {
			return err
		}
		if d := int64(n) - 2*int64(w.noted); d < -1 || d > 1 {
			return fmt.Errorf("the evaluation took %d cycles, the same one at half the CPI %d: not twice", n, w.noted)
		}
		return nil
	})
	on(`^the action bar shows key hints$`, func(w *world, _ ...string) error {
		// Row 24 is the runtime's on every screen, and it surfaces the
		// hints of its context: some key of the Lisp grammar by name.
		row := w.row(rowAction)
		for _, k := range []string{"CAR", "CDR", "CONS", "QUOTE", "EVAL", "BACK", "LAMBDA", "ATOM", "NIL"} {
			if hasWord(row, k) {
				return nil
			}
		}
		return fmt.Errorf("row 24 is %q: no hint naming a key", row)
	})
	on(`^the scrollback highlights the entry "(.*)"$`, func(w *world, a ...string) error {
		// The highlighted entry is the one prompt line (>) whose gutter is
		// marked; the glyph is the deck's own.
		var marked []string
		for i := rowScrollTop; i <= rowScrollEnd; i++ {
			row := w.row(i)
			kind, text := scrollEntry(row)
			if r := []rune(row); kind == "prompt" && r[0] != ' ' && r[0] != '>' {
				marked = append(marked, text)
			}
		}
		if len(marked) != 1 || marked[0] != a[0] {
			return fmt.Errorf("the scrollback highlights %q, want the entry %q alone", marked, a[0])
		}
		return nil
	})
	on(`^the mission phase answers a true value$`, func(w *world, _ ...string) error {
		// The seed's #t: in Fe any value but nil is true; an error is no
		// answer.
		result, err := w.missionResult()
		if err != nil {
			return err
		}
		if result == "nil" || result == "" || strings.HasPrefix(result, "(error ") {
			return fmt.Errorf("the mission phase answered %q, not a true value", result)
		}
		return nil
	})
	on(`^the clock moved at one rate for every evaluation$`, func(w *world, _ ...string) error {
		for _, r := range w.rates[1:] {
			if d := r/w.rates[0] - 1; d > 0.01 || d < -0.01 {
				return fmt.Errorf("the clock moved %v ns per cycle, then %v: not one clock rate", w.rates[0], r)
			}
		}
		return nil
	})
}

// cipherLine lets simulated time pass a second at a time until the stage's
// prompt appears (30 s at most), and checks that row 22 showed the whole
// Cipher line meanwhile, in one piece or page by page, while the prompt
// line stayed empty.
func cipherLine(w *world, line string) error {
	var shown []string
	for i := 0; i < 30 && len(rowAtoms(w.row(rowPrompt))) == 0; i++ {
		if r := ruleReadout(w.row(rowRule)); r != "" && (len(shown) == 0 || shown[len(shown)-1] != r) {
			shown = append(shown, r)
		}
		if err := w.wait(time.Second); err != nil {
			return err
		}
	}
	got := strings.Join(strings.Fields(strings.Join(shown, " ")), " ")
	if !strings.Contains(got, strings.Join(strings.Fields(line), " ")) {
		return fmt.Errorf("row 22 showed %q before the prompt appeared, not the Cipher line %q", shown, line)
	}
	return nil
}

// choose moves a menu's marker to item with CDR and selects it with EVAL
// (the home menu of Decision (§deck-invoke), the browser's of Decision
// (§deck-tutorial-latch)).
func (w *world) choose(item string) error {
	for i := 0; i < 8; i++ {
		for r := 0; r < screenRows; r++ {
			if strings.TrimSpace(w.row(r)) == "► "+item {
				return w.press("EVAL")
			}
		}
		if err := w.press("CDR"); err != nil {
			return err
		}
	}
	return fmt.Errorf("the screen offers no menu item %q to choose", item)
}

// press presses keys on the scenario's target.
func (w *world) press(keys string) error {
	if w.proc != nil {
		return w.proc.send(keys)
	}
	return deck.RunScript(w.d, keys)
}

// pressAnyway presses keys on the scenario's target whether or not the
// deck refuses one: what the deck then shows is the scenario's to check.
func (w *world) pressAnyway(keys string) error {
	if w.proc != nil {
		return w.proc.exchange(keys)
	}
	_ = deck.RunScript(w.d, keys)
	return nil
}

// leaveREPL leaves the REPL the seed's way from wherever its focus is:
// BACK until the REPL asks (a question on row 22), then EVAL for yes. It
// fails if the deck still shows the REPL after six keys.
func (w *world) leaveREPL() error {
	for i := 0; i < 6 && w.mode() == "REPL"; i++ {
		key := "BACK"
		if strings.Contains(ruleReadout(w.row(rowRule)), "?") {
			key = "EVAL"
		}
		if err := w.press(key); err != nil {
			return err
		}
	}
	if w.mode() == "REPL" {
		return fmt.Errorf("six keys did not leave the REPL (row 22 %q)", w.row(rowRule))
	}
	return nil
}

// wait lets simulated time pass on the scenario's target.
func (w *world) wait(d time.Duration) error {
	if w.proc != nil {
		return w.proc.send(fmt.Sprintf("WAIT:%d", d.Milliseconds()))
	}
	w.d.Wait(d)
	return nil
}

// evalCycles is the last evaluation's cycle count: the simulator's, or the
// number row 22's readout reports on a deck process.
func (w *world) evalCycles() (uint64, error) {
	if w.proc != nil {
		return w.proc.readout()
	}
	return w.d.Last().Cycles, nil
}

// lispError checks that the last result is a Lisp error, `(error …)`, whose
// text holds naming.
func lispError(w *world, naming string) error {
	text, _, err := w.lastResult()
	if err != nil {
		return err
	}
	if !strings.HasPrefix(text, "(error ") || !strings.Contains(text, naming) {
		return fmt.Errorf("result %q: want a Lisp error (error …) naming %q", text, naming)
	}
	return nil
}

// statusShows checks row 0 for the handle and the two numbers, each a
// whole number on its own.
func statusShows(row, handle, credits, rep string) error {
	if !strings.Contains(row, handle) {
		return fmt.Errorf("row 0 is %q: no handle %q", row, handle)
	}
	rest := strings.Replace(row, handle, " ", 1)
	for _, n := range []string{credits, rep} {
		if !regexp.MustCompile(`(^|[^\d-])` + regexp.QuoteMeta(n) + `(\D|$)`).MatchString(rest) {
			return fmt.Errorf("row 0 is %q: no %s", row, n)
		}
	}
	return nil
}

var versionRE = regexp.MustCompile(`Fe VM v\d+\.\d+`)

// bannerRest checks that row 1 is the seed's banner, KINOSHITA DEV REPL
// and the Fe VM's version vX.Y, and returns what follows the version.
func bannerRest(row string) (string, error) {
	at := strings.Index(row, "KINOSHITA DEV REPL")
	loc := versionRE.FindStringIndex(row)
	if at < 0 || loc == nil || loc[0] < at {
		return "", fmt.Errorf("row 1 is %q: want KINOSHITA DEV REPL and Fe VM vX.Y", row)
	}
	return row[loc[1]:], nil
}

// screenFind returns the first row showing text.
func screenFind(w *world, text string) (int, bool) {
	for i := 0; i < screenRows; i++ {
		if strings.Contains(w.row(i), text) {
			return i, true
		}
	}
	return 0, false
}

// showsMode checks the mode the deck is in: the simulator's, or the
// indicator in row 0's mode slot on a deck process.
func showsMode(w *world, mode string) error {
	return want("mode indicator on row 0", w.mode(), mode)
}

// ruleReadout is the text row 22 shows on its rule: the row without its
// box-drawing glyphs, trimmed.
func ruleReadout(row string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r >= 0x2500 && r <= 0x257F {
			return ' '
		}
		return r
	}, row))
}

// atomRune reports whether r can be part of an atom as the prompt line
// shows it: a printable ASCII character other than a blank, a parenthesis
// or a bracket. Every other glyph (brackets, cursors, box drawing) is
// structure.
func atomRune(r rune) bool {
	return r > ' ' && r < 0x7F && !strings.ContainsRune("()[]{}", r)
}

// rowAtoms are the atoms a row shows, in order, with quote marks dropped:
// the prompt line draws (quote x) and 'x alike.
func rowAtoms(row string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(row, func(r rune) bool { return !atomRune(r) }) {
		if f = strings.TrimLeft(f, "'"); f != "" && f != "quote" {
			out = append(out, f)
		}
	}
	return out
}

// formAtoms are the atoms of a form in Fe's printed syntax, in order, with
// quotes dropped as rowAtoms drops them.
func formAtoms(form string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(form, func(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == ')' }) {
		if f = strings.TrimLeft(f, "'"); f != "" && f != "quote" {
			out = append(out, f)
		}
	}
	return out
}

// promptShows checks the prompt line against a form at the seed's level:
// its atoms in order, no literal parenthesis, and a cursor.
func promptShows(row, form string) error {
	if strings.ContainsAny(row, "()") {
		return fmt.Errorf("row 23 is %q: literal parentheses", row)
	}
	got, wantA := rowAtoms(row), formAtoms(form)
	if strings.Join(got, " ") != strings.Join(wantA, " ") {
		return fmt.Errorf("row 23 is %q: it shows %q, want the atoms of %s: %q", row, got, form, wantA)
	}
	return showsCursor(row, form)
}

// showsCursor checks that the prompt line draws a cursor besides form:
// every list of the form takes two bracket glyphs, whatever they are, so
// the line shows at least one structure glyph more than twice its lists.
// The glyph itself is the deck's own.
func showsCursor(row, form string) error {
	glyphs := 0
	for _, r := range row {
		if r != ' ' && !atomRune(r) {
			glyphs++
		}
	}
	if lists := strings.Count(form, "("); glyphs <= 2*lists {
		return fmt.Errorf("row 23 is %q: %d structure glyphs for the %d lists of %s, so no cursor", row, glyphs, lists, form)
	}
	return nil
}

// scrollEntry reads a scrollback row: its gutter (a blank or a selection
// glyph) dropped, a prompt line starts with > and a result line with =>,
// each followed by at most one blank.
func scrollEntry(row string) (kind, text string) {
	r := []rune(row)
	if len(r) > 0 && (r[0] == ' ' || r[0] > 0x7F) {
		r = r[1:]
	}
	s := string(r)
	switch {
	case strings.HasPrefix(s, "=>"):
		return "result", strings.TrimPrefix(strings.TrimPrefix(s, "=>"), " ")
	case strings.HasPrefix(s, ">"):
		return "prompt", strings.TrimPrefix(strings.TrimPrefix(s, ">"), " ")
	}
	return "", s
}

// hasWord reports whether text holds word with no letter, digit or dash
// on either side.
func hasWord(text, word string) bool {
	return regexp.MustCompile(`(^|[^\w-])` + regexp.QuoteMeta(word) + `([^\w-]|$)`).MatchString(text)
}

// cyclesReported checks §deck-cycle-count at its own level: the evaluation
// reports a count of cycles on row 22, the cycle counter moved by at least
// that, and the simulated clock moved forward with it.
func cyclesReported(reported, counted uint64, advanced time.Duration, row22 string) error {
	switch {
	case reported == 0:
		return errors.New("no cycles reported")
	case !hasWord(ruleReadout(row22), strconv.FormatUint(reported, 10)):
		return fmt.Errorf("row 22 is %q: it does not report the %d cycles", row22, reported)
	case counted < reported:
		return fmt.Errorf("the cycle counter moved %d, the evaluation reported %d", counted, reported)
	case advanced <= 0:
		return fmt.Errorf("the clock moved %v for %d cycles", advanced, counted)
	}
	return nil
}
