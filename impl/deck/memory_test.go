package deck

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"anchorage/impl/fe"
)

// TestMemoryMapStateMachine drives a whole deck at random: entering and
// leaving the REPL, the editor, cartridges and mission phases, evaluating
// programs that allocate (and run out of memory) in whichever VM is open,
// cutting to the clipboard and saving snippets. After every step the
// memory map must hold: no region over its budget, nothing over the part's
// capacity, never two exclusive arenas, every byte of the part accounted
// for, and every live Fe VM exactly as large as the region it was opened
// in — judged from the VM's own arena and cell count, not the ledger.
func TestMemoryMapStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		part := rapid.SampledFrom([]Part{RP2350(), STM32F401RE()}).Draw(t, "part")
		d, err := New(Config{Part: part})
		if err != nil {
			t.Fatal(err)
		}
		d.words.watchdog = 5_000_000
		if rapid.Bool().Draw(t, "graduated") {
			st := d.State()
			st.Tutorial = 0x1F
			if err := d.SetState(st); err != nil {
				t.Fatal(err)
			}
		}
		keys := []Key{KeyCar, KeyCdr, KeyCons, KeyQuote, KeyEval, KeyBack, KeyNil, KeyAtom}
		for i := 0; i < 40; i++ {
			switch rapid.IntRange(0, 7).Draw(t, "action") {
			case 0, 1:
				_ = d.Press(rapid.SampledFrom(keys).Draw(t, "key"))
			case 2:
				c := Cart{Name: "c", Arena: rapid.IntRange(12, 36).Draw(t, "cart KB") * KB}
				if rapid.Bool().Draw(t, "has mission") {
					c.Mission = rapid.IntRange(3*KB, 9*KB).Draw(t, "mission bytes")
				}
				_ = d.Insert(c)
			case 3:
				_ = d.Eject()
			case 4:
				n := rapid.IntRange(0, 3000).Draw(t, "conses")
				_ = d.Compose(fmt.Sprintf("(do (= l nil) (= i 0) (while (< i %d) (= l (cons i l)) (= i (+ i 1))) i)", n))
				_ = d.Press(KeyEval)
			case 5:
				n := rapid.IntRange(0, 140).Draw(t, "symbols")
				_ = d.Compose(fmt.Sprintf("(do (let l nil) (let i 0) (while (< i %d) (= l (cons (quote s%063d) l)) (= i (+ i 1))) (open-in-nemacs l))", n, 0))
				_ = d.Press(KeyEval)
			case 6:
				n := rapid.IntRange(0, 1100).Draw(t, "clip bytes")
				_ = d.Compose(fmt.Sprintf("%q", strings.Repeat("x", n)))
				_ = d.Press(KeyNil)
			case 7:
				n := rapid.IntRange(0, 2100).Draw(t, "snippet bytes")
				_ = d.Compose(fmt.Sprintf("(snippet-save! (quote s%d) %q)", rapid.IntRange(0, 3).Draw(t, "name"), strings.Repeat("y", n)))
				_ = d.Press(KeyEval)
			}
			if err := checkMemory(d); err != nil {
				t.Fatalf("after step %d (mode %s): %v\n%s", i, d.mode, err, sramMap(d.SRAM()))
			}
		}
	})
}

// checkMemory checks the memory map of d against the research note's cell
// model (a 1068-byte context, then 8-byte cells) and the seed's table.
func checkMemory(d *Deck) error {
	s := d.SRAM()
	if err := checkSRAM(s); err != nil {
		return err
	}
	// Every byte accounted for: the top-level regions plus the free bytes
	// are the part, and no parent holds more than its size.
	top, inside := 0, map[Consumer]int{}
	for _, c := range s.Live() {
		r := s.Region(c)
		if p := Budgets()[c].Parent; p != "" {
			inside[p] += r.Bytes()
		} else {
			top += r.Bytes()
		}
	}
	if top+s.FreeIn("") != s.Part().SRAM || top > s.Part().SRAM {
		return fmt.Errorf("%d bytes allocated + %d free != %d", top, s.FreeIn(""), s.Part().SRAM)
	}
	for p, n := range inside {
		if n > s.Size(p) {
			return fmt.Errorf("%d bytes inside %s of %d", n, p, s.Size(p))
		}
	}
	// The seed's budgets, as literals.
	seed := map[Consumer][2]int{REPLArena: {24 * 1024, 24 * 1024}, EditArena: {16 * 1024, 16 * 1024},
		CartArena: {16 * 1024, 32 * 1024}, Mission: {4 * 1024, 8 * 1024}, Clipboard: {1024, 1024}, History: {512, 512}, Snippets: {4096, 4096}}
	for c, b := range seed {
		if n := s.Size(c); s.Has(c) && (n < b[0] || n > b[1]) {
			return fmt.Errorf("%s holds %d bytes, the seed allows %d–%d", c, n, b[0], b[1])
		}
	}
	// The modes and the arenas agree.
	want := map[Mode][]Consumer{ModeREPL: {REPLArena}, ModeEditor: {EditArena, EditBuffer, EditEval}, ModeCart: {CartArena}, ModeMission: {CartArena, Mission}}
	for _, c := range want[d.mode] {
		if !s.Has(c) {
			return fmt.Errorf("mode %s without its %s region", d.mode, c)
		}
	}
	owner := map[Consumer]Mode{REPLArena: ModeREPL, EditArena: ModeEditor, Mission: ModeMission}
	for c, m := range owner {
		if s.Has(c) && d.mode != m {
			return fmt.Errorf("%s allocated in mode %s", c, d.mode)
		}
	}
	// Each live VM is its region.
	vms := map[Consumer]*fe.VM{}
	if sess := d.Session(); sess != nil {
		vms[REPLArena] = sess.VM()
	}
	if d.mode == ModeEditor && d.EditorVM() != nil {
		vms[EditEval] = d.EditorVM()
	}
	if m := d.Mission(); m != nil {
		vms[Mission] = m.VM
		if m.Region != s.Region(Mission) {
			return fmt.Errorf("the mission VM's region is not the allocated one")
		}
	}
	for c, vm := range vms {
		n := s.Size(c)
		st := vm.Stats()
		if vm.ArenaBytes() != n || st.Cells != (n-1068)/8 || st.Free > st.Cells || (st.Cells*8+1068) > n {
			return fmt.Errorf("%s VM: arena %d bytes, %d cells (%d free); region %d bytes", c, vm.ArenaBytes(), st.Cells, st.Free, n)
		}
	}
	// The owned data fits its regions.
	if len(d.Clipboard()) > s.Size(Clipboard) {
		return fmt.Errorf("clipboard %d bytes in a %d-byte region", len(d.Clipboard()), s.Size(Clipboard))
	}
	if len(d.State().History) > s.Size(History) || len(d.State().Snippets) > s.Size(Snippets) {
		return fmt.Errorf("history %d / snippets %d bytes over their regions", len(d.State().History), len(d.State().Snippets))
	}
	if e := d.Editor(); e != nil && e.Buffer() != nil && len(e.Buffer().String()) > s.Size(EditBuffer) {
		return fmt.Errorf("editor buffer %d bytes in a %d-byte region", len(e.Buffer().String()), s.Size(EditBuffer))
	}
	return nil
}
