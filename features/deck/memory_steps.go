package deck

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cucumber/godog"

	"anchorage/impl/deck"
	"anchorage/impl/fe"
)

// expand replaces each {s*N} in a step argument with N copies of s, so
// that a scenario can name a string of exact length.
func expand(s string) string {
	re := regexp.MustCompile(`\{(.+?)\*(\d+)\}`)
	return re.ReplaceAllStringFunc(s, func(m string) string {
		p := re.FindStringSubmatch(m)
		n, _ := strconv.Atoi(p[2])
		return strings.Repeat(p[1], n)
	})
}

// datasheetSRAM is the SRAM of each board model the scenarios name, by its
// datasheet (not the implementation's table).
func datasheetSRAM(name string) int {
	return map[string]int{"RP2350": 520 * 1024, "STM32F401RE": 96 * 1024, "nRF52832": 64 * 1024}[name]
}

func boardPart(name string) (deck.Part, error) {
	p, err := deck.PartNamed(name)
	if err != nil {
		return p, err
	}
	if want := datasheetSRAM(name); p.SRAM != want {
		return p, fmt.Errorf("board %s has %d bytes of SRAM, its datasheet says %d", name, p.SRAM, want)
	}
	return p, nil
}

func memorySteps(step func(expr string, f func(w *world, args ...string) error)) {
	step(`^a graduated deck on the (\S+) board$`, func(w *world, a ...string) error {
		p, err := boardPart(a[0])
		if err != nil {
			return err
		}
		w.part = p
		return w.graduated("OPERATOR", 100, 0)
	})
	step(`^powering on a deck on the (\S+) board is refused$`, func(w *world, a ...string) error {
		p, err := boardPart(a[0])
		if err != nil {
			return err
		}
		w.part = p
		return w.refused(w.power(), "the deck powered on")
	})
	step(`^inserting a cartridge "([^"]*)" with a (\d+) KB arena is refused$`, func(w *world, a ...string) error {
		err := w.d.Insert(deck.Cart{Name: a[0], Arena: atoi(a[1]) * 1024})
		if err := w.refused(err, fmt.Sprintf("the cartridge loaded; SRAM holds %v", w.d.SRAM().Live())); err != nil {
			return err
		}
		return w.sramHolds()
	})
	step(`^inserting a cartridge "([^"]*)" with a (\d+) byte arena is refused$`, func(w *world, a ...string) error {
		err := w.d.Insert(deck.Cart{Name: a[0], Arena: atoi(a[1])})
		if err := w.refused(err, fmt.Sprintf("the cartridge loaded; SRAM holds %v", w.d.SRAM().Live())); err != nil {
			return err
		}
		return w.sramHolds()
	})
	step(`^a cartridge "([^"]*)" with a (\d+) byte arena is inserted$`, func(w *world, a ...string) error {
		return w.d.Insert(deck.Cart{Name: a[0], Arena: atoi(a[1])})
	})
	step(`^the editor's buffer holds (\d+) bytes$`, func(w *world, a ...string) error {
		e := w.d.Editor()
		if e == nil || e.Buffer() == nil {
			return fmt.Errorf("no editor buffer (mode %s)", w.mode())
		}
		return want("editor buffer bytes", fmt.Sprint(len(e.Buffer().String())), a[0])
	})
	step(`^the cartridge is ejected$`, func(w *world, _ ...string) error { return w.d.Eject() })
	step(`^every live SRAM region keeps its budget$`, func(w *world, _ ...string) error { return w.sramHolds() })
	step(`^the deck shows no refusal$`, func(w *world, _ ...string) error { return noRefusal(w.row) })
	step(`^a cartridge "([^"]*)" with a (\d+) KB arena and a (\d+) byte mission is inserted$`, func(w *world, a ...string) error {
		return w.d.Insert(deck.Cart{Name: a[0], Arena: atoi(a[1]) * 1024, Mission: atoi(a[2])})
	})
	step(`^SRAM holds the (\S+) region with (\d+) bytes$`, func(w *world, a ...string) error {
		return regionCheck(w.d.SRAM().Part().Name, simRegions(w.d.SRAM()), a[0], a[1], "")
	})
	step(`^SRAM holds the (\S+) region with (\d+) bytes inside the (\S+) region$`, func(w *world, a ...string) error {
		return regionCheck(w.d.SRAM().Part().Name, simRegions(w.d.SRAM()), a[0], a[1], a[2])
	})
	step(`^SRAM has (\d+) bytes free$`, func(w *world, a ...string) error {
		if err := want("free SRAM", fmt.Sprint(freeBytes(w.d.SRAM().Part().Name, simRegions(w.d.SRAM()))), a[0]); err != nil {
			return err
		}
		// Full to the last byte is still within the part.
		return w.sramHolds()
	})
	step(`^the (REPL|editor evaluator|mission)'s Fe VM has (\d+) cells in its (\d+)-byte arena$`, func(w *world, a ...string) error {
		var vm *fe.VM
		var c deck.Consumer
		switch a[0] {
		case "REPL":
			if s := w.d.Session(); s != nil {
				vm = s.VM()
			}
			c = deck.REPLArena
		case "editor evaluator":
			vm, c = w.d.EditorVM(), deck.EditEval
		case "mission":
			if m := w.d.Mission(); m != nil {
				vm = m.VM
			}
			c = deck.Mission
		}
		if vm == nil {
			return fmt.Errorf("no %s VM (mode %s)", a[0], w.mode())
		}
		st := vm.Stats()
		return vmCheck(a[0], vmFigures{vm.ArenaBytes(), w.d.SRAM().Size(c), st.Cells, st.Free}, a[1], a[2])
	})
	step(`^the deck shows the refusal "(.*)"$`, func(w *world, a ...string) error { return showsRefusal(w.row, a[0]) })
	step(`^the mission phase shows "(.*)"$`, func(w *world, a ...string) error {
		m := w.d.Mission()
		if m == nil {
			return fmt.Errorf("no mission phase (mode %s)", w.mode())
		}
		return missionCheck(m.Result, w.row(rowRule), a[0])
	})
	step(`^the evaluation took between (\d+) and (\d+) cycles$`, func(w *world, a ...string) error {
		lo, _ := strconv.ParseUint(a[0], 10, 64)
		hi, _ := strconv.ParseUint(a[1], 10, 64)
		if got := w.d.Last().Cycles; got < lo || got > hi {
			return fmt.Errorf("took %d cycles, want %d–%d", got, lo, hi)
		}
		return nil
	})
	step(`^the clipboard holds (\d+) bytes$`, func(w *world, a ...string) error {
		return want("clipboard bytes", fmt.Sprint(len(w.d.Clipboard())), a[0])
	})
}

// eventNames are the event kinds of the cost table, by the names the
// scenarios use.
func eventNames() map[string]fe.Event {
	return map[string]fe.Event{"pair": fe.EvPair, "arg": fe.EvArg, "lookup": fe.EvLookup, "call": fe.EvCall,
		"atom": fe.EvAtom, "alloc": fe.EvAlloc, "mark": fe.EvMark, "sweep": fe.EvSweep}
}

// checkCycles compares an evaluation's events and cycles with a table of
// | event | count | instructions | rows; "read" and "print" rows are the
// reader's and printer's instructions (count 1). Cycles are the sum of
// count × instructions at the spec's CPI of 1.4, rounded down.
func checkCycles(ev deck.Eval, table *godog.Table) error {
	total := new(big.Rat)
	seen := map[fe.Event]bool{}
	for _, row := range table.Rows[1:] {
		kind, count, instr := row.Cells[0].Value, row.Cells[1].Value, row.Cells[2].Value
		n, err := strconv.ParseUint(count, 10, 64)
		if err != nil {
			return err
		}
		cost, ok := new(big.Rat).SetString(instr)
		if !ok {
			return fmt.Errorf("bad instructions %q", instr)
		}
		switch kind {
		case "read":
			if err := want("reader instructions", fmt.Sprint(ev.ReadInstr), instr); err != nil {
				return err
			}
		case "print":
			if err := want("printer instructions", fmt.Sprint(ev.PrintInstr), instr); err != nil {
				return err
			}
		default:
			e, ok := eventNames()[kind]
			if !ok {
				return fmt.Errorf("no event %q", kind)
			}
			seen[e] = true
			if err := want(kind+" events", fmt.Sprint(ev.Events[e]), count); err != nil {
				return err
			}
		}
		total.Add(total, new(big.Rat).Mul(cost, new(big.Rat).SetUint64(n)))
	}
	for name, e := range eventNames() {
		if !seen[e] && ev.Events[e] != 0 {
			return fmt.Errorf("%d %s events not in the table", ev.Events[e], name)
		}
	}
	cycles := new(big.Rat).Mul(total, big.NewRat(14, 10))
	whole := new(big.Int).Quo(cycles.Num(), cycles.Denom())
	return want("cycles", fmt.Sprint(ev.Cycles), whole.String())
}

// region is an SRAM region as the steps judge it: its consumer, offset and
// size.
type region struct {
	name        string
	base, bytes int
}

// simRegions are the live regions of the simulator's allocator.
func simRegions(s *deck.SRAM) []region {
	var rs []region
	for _, c := range s.Live() {
		r := s.Region(c)
		rs = append(rs, region{string(c), r.Base, r.Bytes()})
	}
	return rs
}

// sramHolds checks the simulator's SRAM against the seed's memory rules
// (regionsHold).
func (w *world) sramHolds() error {
	return regionsHold(w.d.SRAM().Part().Name, simRegions(w.d.SRAM()))
}

// regionsHold checks live SRAM regions against the seed's memory
// orchestration, judged from the regions alone: the arenas the budget
// table sizes within their budgets, at most one of the REPL, editor and
// cartridge arenas, the consumers of the budget table apart from each
// other, a scripted mission's sub-arena inside the cartridge arena, any
// other region either apart from or inside another (carved out of it),
// and everything within the part's SRAM by its datasheet.
func regionsHold(part string, rs []region) error {
	table := map[string]bool{"core+vm": true, "deckstate": true, "repl": true, "editor": true, "cartridge": true}
	budgets := map[string][2]int{"repl": {24 * 1024, 24 * 1024}, "editor": {16 * 1024, 16 * 1024},
		"cartridge": {16 * 1024, 32 * 1024}, "mission": {4 * 1024, 8 * 1024}, "clipboard": {1024, 1024},
		"history": {512, 512}, "snippets": {4096, 4096}}
	var exclusive []string
	for _, r := range rs {
		if b, ok := budgets[r.name]; ok && (r.bytes < b[0] || r.bytes > b[1]) {
			return fmt.Errorf("SRAM holds %d bytes for %s, the seed's budget is %d to %d", r.bytes, r.name, b[0], b[1])
		}
		if r.name == "repl" || r.name == "editor" || r.name == "cartridge" {
			exclusive = append(exclusive, r.name)
		}
		if r.base < 0 || r.base+r.bytes > datasheetSRAM(part) {
			return fmt.Errorf("%s [%#x,+%d) lies outside the %s's %d bytes of SRAM", r.name, r.base, r.bytes, part, datasheetSRAM(part))
		}
		for _, q := range rs {
			apart := r.base+r.bytes <= q.base || q.base+q.bytes <= r.base
			inside := q.base <= r.base && r.base+r.bytes <= q.base+q.bytes
			nested := inside || (r.base <= q.base && q.base+q.bytes <= r.base+r.bytes)
			switch {
			case q.name == r.name || apart:
			case table[r.name] && table[q.name], !nested:
				return fmt.Errorf("%s [%#x,+%d) and %s [%#x,+%d) overlap", r.name, r.base, r.bytes, q.name, q.base, q.bytes)
			case r.name == "mission" && q.name != "cartridge" && !inside:
				return fmt.Errorf("the mission sub-arena [%#x,+%d) lies across %s [%#x,+%d)", r.base, r.bytes, q.name, q.base, q.bytes)
			}
		}
		if r.name == "mission" && !insideOf(rs, r, "cartridge") {
			return fmt.Errorf("the mission sub-arena [%#x,+%d) is not inside the cartridge arena", r.base, r.bytes)
		}
	}
	if len(exclusive) > 1 {
		return fmt.Errorf("SRAM holds %v at once: they are mutually exclusive", exclusive)
	}
	if free := freeBytes(part, rs); free < 0 {
		return fmt.Errorf("SRAM holds %d bytes more than the %s has", -free, part)
	}
	return nil
}

// insideOf reports whether r lies inside the region named name.
func insideOf(rs []region, r region, name string) bool {
	for _, q := range rs {
		if q.name == name && q.base <= r.base && r.base+r.bytes <= q.base+q.bytes {
			return true
		}
	}
	return false
}

// regionCheck checks that region name holds size bytes and, with parent
// set, lies inside region parent, and that the regions keep the seed's
// memory rules (regionsHold).
func regionCheck(part string, rs []region, name, size, parent string) error {
	find := func(n string) (region, bool) {
		for _, r := range rs {
			if r.name == n {
				return r, true
			}
		}
		return region{}, false
	}
	r, ok := find(name)
	if !ok {
		return fmt.Errorf("SRAM holds %v, not %s", rs, name)
	}
	if parent != "" {
		p, ok := find(parent)
		if !ok {
			return fmt.Errorf("SRAM holds %v, not %s", rs, parent)
		}
		if r.base < p.base || r.base+r.bytes > p.base+p.bytes {
			return fmt.Errorf("%s [%#x,+%d) is not inside %s [%#x,+%d)", name, r.base, r.bytes, parent, p.base, p.bytes)
		}
	}
	if err := want("size of "+name, fmt.Sprint(r.bytes), size); err != nil {
		return err
	}
	return regionsHold(part, rs)
}

// freeBytes is judged from the regions themselves: the part's bytes by its
// datasheet less the top-level regions (those not inside another).
func freeBytes(part string, rs []region) int {
	used := 0
	for _, r := range rs {
		inside := false
		for _, q := range rs {
			if q.name != r.name && q.base <= r.base && r.base+r.bytes <= q.base+q.bytes && q.bytes > r.bytes {
				inside = true
			}
		}
		if !inside {
			used += r.bytes
		}
	}
	return datasheetSRAM(part) - used
}

// noRefusal checks that rows 19 to 21, where the deck shows a refusal, are
// blank.
func noRefusal(row func(int) string) error {
	for i := 19; i <= 21; i++ {
		if got := row(i); got != "" {
			return fmt.Errorf("row %d reads %q", i, got)
		}
	}
	return nil
}

// showsRefusal checks that rows 19 to 21 hold text: it wraps at 80
// columns, so a row's trailing blanks are part of it.
func showsRefusal(row func(int) string, text string) error {
	var b strings.Builder
	for i := 19; i <= 21; i++ {
		t := row(i)
		b.WriteString(t + strings.Repeat(" ", max(0, screenCols-utf8.RuneCountInString(t))))
	}
	if got := strings.TrimSpace(b.String()); !strings.Contains(got, text) {
		return fmt.Errorf("rows 19–21 read %q, want %q", got, text)
	}
	return nil
}

// vmFigures are what the steps read of a Fe VM: the bytes of its arena, of
// the SRAM region it was opened in, its cells and its free cells.
type vmFigures struct {
	arena, region, cells, free int
}

// vmCheck checks a VM's figures against the cells and arena bytes a
// scenario states.
func vmCheck(name string, f vmFigures, cells, arena string) error {
	if err := want("arena bytes of the "+name+" VM", fmt.Sprint(f.arena), arena); err != nil {
		return err
	}
	if err := want("SRAM region of the "+name+" VM", fmt.Sprint(f.region), arena); err != nil {
		return err
	}
	if f.free < 0 || f.free > f.cells {
		return fmt.Errorf("the %s VM counts %d free of its %d cells", name, f.free, f.cells)
	}
	return want("cells of the "+name+" VM", fmt.Sprint(f.cells), cells)
}

// missionCheck checks the mission phase's result and row 22, whose readout
// ends with it.
// missionResult is the running mission phase's result on the scenario's
// target: the simulator's, or STATE's mission line.
func (w *world) missionResult() (string, error) {
	if w.proc != nil {
		v, err := w.proc.stateOf("mission")
		if err != nil {
			return "", err
		}
		result, err := strconv.Unquote(v)
		if err != nil {
			return "", fmt.Errorf("STATE mission %s: %w", v, err)
		}
		return result, nil
	}
	m := w.d.Mission()
	if m == nil {
		return "", fmt.Errorf("no mission phase (mode %s)", w.mode())
	}
	return m.Result, nil
}

func missionCheck(result, row22, wantS string) error {
	if err := want("mission result", result, wantS); err != nil {
		return err
	}
	if !strings.HasSuffix(ruleReadout(row22), wantS) {
		return fmt.Errorf("row 22 is %q: it does not show %q", row22, wantS)
	}
	return nil
}
