package deck

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/spf13/afero"

	"anchorage/impl/fe"
	"anchorage/impl/vary"
	"anchorage/sim/clock"
)

// Mode is what owns rows 1–23.
type Mode int

// The deck's modes.
const (
	ModeHome Mode = iota
	ModeREPL
	ModeEditor
	ModeCart
	ModeBrowser
	ModeMission
)

func (m Mode) String() string {
	return [...]string{"HOME", "REPL", "NEMACS", "CART", "DECK", "MISSION"}[m]
}

// Modal is a question waiting for EVAL or BACK.
type Modal int

// The modal questions.
const (
	ModalNone Modal = iota
	ModalFirstRun
	ModalCart
	ModalExitREPL
	ModalExitTutorial
)

// Screen texts seed 004 gives word for word. The texts it leaves open are
// the deck's wording (wording.go).
const (
	TextFirstRun     = "FIRST-RUN DIAGNOSTIC AVAILABLE. PRESS EVAL TO BEGIN."
	TextCartPrompt   = "CARTRIDGE INSERTED. SAVE REPL SESSION? (EVAL=YES, BACK=NO)"
	TextExitTutorial = "EXIT TUTORIAL? (EVAL=YES, BACK=CANCEL)"
	TextActionREPL   = "CAR descend · CDR sibling · CONS palette · QUOTE history · EVAL run · BACK exit"
	TextClosing      = "Tutorial complete. Mission Board awaits."
)

// StatePath is the deck-state image's file in the deck's flash.
const StatePath = "/deckstate.bin"

// Config configures a Deck. Zero fields take defaults.
type Config struct {
	Fs    afero.Fs   // flash; default an in-memory fs
	Clock *clock.Sim // default clock.NewSim(clock.Epoch())
	CPI   float64    // default DefaultCPI
	Part  Part       // the board model; default RP2350()
	Seed  uint64     // seeds the Mission Board model
	Vary  vary.Set   // spec-permitted variations (Variations); none by default
}

// NarrationTime is how long each page of a tutorial stage's Cipher line
// shows on row 22 before the next page or the prompt appears, unless a key
// dismisses the narration first.
const NarrationTime = 3 * time.Second

// Cart is an inserted cartridge.
type Cart struct {
	Name    string
	Arena   int // bytes of the cartridge arena
	Mission int // bytes of its scripted-mission sub-arena; 0 when it has none
}

// Deck is the simulated handheld: a state machine driven by Press, Insert,
// Eject and Wait.
type Deck struct {
	cfg    Config
	fs     afero.Fs
	clk    *clock.Sim
	cpu    *CPU
	sram   *SRAM
	screen Screen
	board  Board
	words  wording // the choices the seed leaves open

	state State

	mode    Mode
	modal   Modal
	homeSel int
	saved   int // home selection saved on entry to a capability

	repl    *Session
	editor  *Editor
	cart    *Cart
	pending *Cart // cartridge deferred until the REPL exits
	browser int

	clipboard string
	mission   *MissionPhase
	evalVM    *fe.VM // the editor's last transient evaluator
	refused   string // the last refusal as rows 19–21 show it, until the next key
	last      Eval
	boot      time.Time
}

// Eval is the outcome of one evaluation.
type Eval struct {
	Expr   string
	Result string // as shown after "=> "
	Cycles uint64
	Err    bool
	// Events counts the interpreter events of the evaluation, by
	// fe.Event; ReadInstr and PrintInstr are the instructions charged for
	// reading the form and printing the result.
	Events     [fe.NumEvents]uint64
	ReadInstr  uint64
	PrintInstr uint64
}

// New powers a deck on: loads (or resets) deck state, allocates the
// resident consumers and draws the home screen.
func New(cfg Config) (*Deck, error) {
	if cfg.Fs == nil {
		cfg.Fs = afero.NewMemMapFs()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.NewSim(clock.Epoch())
	}
	words := wordingFor(cfg.Vary)
	if cfg.Part.SRAM == 0 {
		cfg.Part = RP2350()
	}
	d := &Deck{cfg: cfg, fs: cfg.Fs, clk: cfg.Clock, cpu: NewCPU(cfg.CPI, cfg.Clock), sram: newSRAM(cfg.Part, words), board: NewBoard(cfg.Seed), words: words, boot: cfg.Clock.Now()}
	// The resident consumers: the core with the clipboard in its data, and
	// the deck-state mirror (the flash image, rounded up to 8 bytes so that
	// an arena after it is aligned for Fe's cells) with its history and
	// snippet regions.
	for _, a := range []struct {
		c    Consumer
		size int
	}{{CoreVM, CoreBytes}, {Clipboard, ClipboardBytes}, {DeckState, MirrorBytes}, {History, HistoryBytes}, {Snippets, SnippetBytes}} {
		if _, err := d.sram.Alloc(a.c, a.size); err != nil {
			return nil, fmt.Errorf("deck: power on: %w", err)
		}
	}
	if err := d.load(); err != nil {
		return nil, err
	}
	if d.state.Tutorial&TutFirstBoot == 0 {
		d.modal = ModalFirstRun
	}
	return d, nil
}

func (d *Deck) load() error {
	img, err := afero.ReadFile(d.fs, StatePath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.state = NewState()
		return d.save()
	case err != nil:
		return fmt.Errorf("deck: read state: %w", err)
	}
	st, err := Decode(img)
	if err != nil {
		// Why shows on the home screen (rows 19–21) until the next key.
		d.refuse(fmt.Errorf(d.words.stateReset, err))
		d.state = NewState()
		return d.save()
	}
	d.state = st
	return nil
}

func (d *Deck) save() error {
	img, err := d.state.Encode()
	if err != nil {
		return fmt.Errorf("deck: save state: %w", err)
	}
	// The image is written beside the old one and renamed over it, so a
	// write that fails leaves the previous image in flash.
	tmp := StatePath + ".new"
	if err := afero.WriteFile(d.fs, tmp, img, 0o644); err != nil {
		_ = d.fs.Remove(tmp)
		return fmt.Errorf("deck: save state: %w", err)
	}
	if err := d.fs.Rename(tmp, StatePath); err != nil {
		_ = d.fs.Remove(tmp)
		return fmt.Errorf("deck: save state: %w", err)
	}
	return nil
}

// Accessors.

func (d *Deck) Dump() string       { return d.draw().Dump() }
func (d *Deck) SRAM() *SRAM        { return d.sram }
func (d *Deck) Session() *Session  { return d.repl }
func (d *Deck) Editor() *Editor    { return d.editor }
func (d *Deck) Cart() *Cart        { return d.cart }
func (d *Deck) PendingCart() *Cart { return d.pending }
func (d *Deck) Last() Eval         { return d.last }
func (d *Deck) Clipboard() string  { return d.clipboard }
func (d *Deck) EditorVM() *fe.VM   { return d.evalVM }

// Cycles returns the cycles the CPU has counted since power on.
func (d *Deck) Cycles() uint64 { return d.cpu.Cycles() }

// Uptime returns the simulated time since power on.
func (d *Deck) Uptime() time.Duration { return d.clk.Now().Sub(d.boot) }

// State returns the deck state. The deck replaces its history and snippet
// regions rather than changing their bytes, so they stay as returned; the
// caller must not change them either (SetState replaces them).
func (d *Deck) State() State { return d.state }

// SetState replaces deck state (a test and tooling hook) and saves it. A
// state that cannot be saved is refused and the deck keeps its old one.
func (d *Deck) SetState(s State) error {
	old := d.state
	d.state = s
	if err := d.save(); err != nil {
		d.state = old
		return err
	}
	if d.state.Tutorial&TutFirstBoot != 0 && d.modal == ModalFirstRun {
		d.modal = ModalNone
	}
	return nil
}

// HomeItems are the home-screen menu entries.
func HomeItems() []string { return []string{"DEV REPL", "NEMACS", "DECK STATE"} }

// Press handles one key press.
func (d *Deck) Press(k Key) error {
	if !k.Valid() {
		return fmt.Errorf("deck: no key %q", k)
	}
	d.refused = ""
	var err error
	switch {
	case d.modal == ModalFirstRun:
		err = d.firstRunKey(k)
	case d.modal == ModalCart:
		err = d.cartKey(k)
	default:
		switch d.mode {
		case ModeHome:
			err = d.homeKey(k)
		case ModeREPL:
			err = d.replKey(k)
		case ModeEditor:
			err = d.editorKey(k)
		case ModeCart:
			if k == KeyBack {
				err = d.Eject()
			}
		case ModeMission:
			if k == KeyBack {
				err = d.EndMission()
			}
		case ModeBrowser:
			err = d.browserKey(k)
		}
	}
	d.cpu.Sync()
	return err
}

// PressAll presses keys in order, stopping at the first error.
func (d *Deck) PressAll(keys ...Key) error {
	for _, k := range keys {
		if err := d.Press(k); err != nil {
			return err
		}
	}
	return nil
}

// Wait lets simulated time pass with no key pressed.
func (d *Deck) Wait(dur time.Duration) {
	d.clk.Advance(dur)
	if s := d.repl; s != nil && s.narrating {
		s.narrate(d.clk.Now())
	}
}

func (d *Deck) firstRunKey(k Key) error {
	// The answer stands whether or not the flash takes it: a failed write
	// is the key's error.
	d.modal = ModalNone
	d.state.Tutorial |= TutFirstBoot
	err := d.save()
	if k == KeyEval {
		d.homeSel = 0
		err = errors.Join(err, d.enterREPL())
	}
	return err
}

func (d *Deck) homeKey(k Key) error {
	switch k {
	case KeyCdr:
		d.homeSel = (d.homeSel + 1) % len(HomeItems())
	case KeyCar:
		d.homeSel = (d.homeSel + len(HomeItems()) - 1) % len(HomeItems())
	case KeyEval:
		switch HomeItems()[d.homeSel] {
		case "DEV REPL":
			return d.enterREPL()
		case "NEMACS":
			return d.openEditor(nil)
		case "DECK STATE":
			d.saved, d.mode, d.browser = d.homeSel, ModeBrowser, 0
		}
	}
	return nil
}

// BrowserItems are the Deck State browser's actions.
func BrowserItems() []string { return []string{"RESET TUTORIAL", "WIPE DECK"} }

func (d *Deck) browserKey(k Key) error {
	switch k {
	case KeyCdr:
		d.browser = (d.browser + 1) % len(BrowserItems())
	case KeyBack:
		d.mode, d.homeSel = ModeHome, d.saved
	case KeyEval:
		if BrowserItems()[d.browser] == "RESET TUTORIAL" {
			return d.ResetTutorial()
		}
		return d.Wipe()
	}
	return nil
}

// ResetTutorial re-arms the tutorial (the Deck State browser's action):
// every stage is cleared but the first-run prompt stays seen.
func (d *Deck) ResetTutorial() error {
	d.state.Tutorial &= TutFirstBoot
	return d.save()
}

// Wipe resets the deck to a new deck's state: the tutorial and the
// first-run prompt re-arm. Only allowed from home or the browser.
func (d *Deck) Wipe() error {
	if d.mode != ModeHome && d.mode != ModeBrowser {
		return fmt.Errorf("deck: wipe: only from the home screen")
	}
	d.state = NewState()
	d.mode, d.modal, d.homeSel = ModeHome, ModalFirstRun, 0
	return d.save()
}

// Insert puts a cartridge in the slot. From home it loads at once; while
// the REPL is open the runtime asks whether to save the session.
func (d *Deck) Insert(c Cart) error {
	d.refused = ""
	if d.cart != nil || d.pending != nil {
		return fmt.Errorf("deck: insert %s: the slot is full", c.Name)
	}
	switch d.mode {
	case ModeREPL:
		d.pending = &c
		d.modal = ModalCart
		return nil
	case ModeHome, ModeBrowser:
		return d.loadCart(c)
	}
	d.pending = &c
	return nil
}

func (d *Deck) cartKey(k Key) error {
	switch k {
	case KeyEval:
		d.modal = ModalNone
		c := *d.pending
		d.pending = nil
		if err := d.leaveREPL(); err != nil {
			d.pending = &c // the REPL stays open: the cartridge waits, as after BACK
			return err
		}
		return d.loadCart(c)
	case KeyBack:
		d.modal = ModalNone // deferred: d.pending waits for the REPL to exit
	}
	return nil
}

func (d *Deck) loadCart(c Cart) error {
	if _, err := d.sram.Alloc(CartArena, c.Arena); err != nil {
		d.refuse(err)
		return fmt.Errorf("deck: load cartridge %s: %w", c.Name, err)
	}
	d.cart, d.mode = &c, ModeCart
	return nil
}

// Eject removes the cartridge and returns home.
func (d *Deck) Eject() error {
	if d.cart == nil {
		// A cartridge still waiting is pulled out: its question goes too.
		d.pending = nil
		if d.modal == ModalCart {
			d.modal = ModalNone
		}
		return nil
	}
	d.sram.Free(CartArena)
	d.cart, d.mission, d.mode = nil, nil, ModeHome
	return nil
}

// openVM opens a bare Fe VM (with the deck extensions and the cycle meter)
// in an SRAM region: the region is the arena, so its cell count follows
// from the bytes the allocator granted. The deck opens VMs only in regions
// the budget table makes at least 4 KB (fe.Open needs 2,444 bytes), from a
// key, outside any evaluation (so the meter's limit is its maximum): fe.Open
// cannot fail there, and if it did the deck itself would be wrong, so it
// panics.
func (d *Deck) openVM(r *Region) *fe.VM {
	d.cpu.Instr(instrOpenVM)
	vm, err := fe.Open(r, fe.WithExtensions(), fe.WithMeter(d.cpu.Meter()), fe.WithNaNStyle(fe.NaNNewlib))
	must(err)
	return vm
}

// newVM opens a Fe VM for the REPL tier in region r.
func (d *Deck) newVM(r *Region, s *Session) *fe.VM {
	vm := d.openVM(r)
	d.bindTier(vm, s)
	return vm
}

// must panics on an error the deck's own invariants rule out: opening a VM
// and binding its primitives in the regions the budget table sizes (the
// smallest, a 4 KB mission sub-arena, has over 200 cells free after
// opening; the REPL tier's bindings fit the editor evaluator's 8 KB), and
// reading the snippet library its state holds (Deck.snippets).
func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("deck: %v", err))
	}
}

// evaluate runs src in vm with the watchdog armed and prices reading and
// printing. It never panics; errors become the REPL's error text.
func (d *Deck) evaluate(vm *fe.VM, n *Node) Eval {
	src := n.String()
	d.cpu.Begin(d.words.watchdog)
	ev := Eval{Expr: src, ReadInstr: readCost(n)}
	d.cpu.Instr(ev.ReadInstr)
	before := vm.Counts()
	out, err := vm.Eval(src)
	ev.Result = out
	if err != nil {
		ev.Result, ev.Err = d.errorText(err), true
	}
	after := vm.Counts()
	for i := range after {
		ev.Events[i] = after[i] - before[i]
	}
	ev.PrintInstr = printCost(ev.Result)
	d.cpu.Instr(ev.PrintInstr)
	ev.Cycles = d.cpu.End()
	d.last = ev
	return ev
}

func readCost(n *Node) uint64 {
	if n.IsList {
		var c uint64
		for _, k := range n.List {
			c += readCost(k)
		}
		return c + 2*instrPrintChar
	}
	if n.Kind() == "number" {
		return instrNumberToken
	}
	return instrSymbolToken
}

func printCost(s string) uint64 {
	c := uint64(len(s)) * instrPrintChar
	if n, err := Parse(s); err == nil {
		c += uint64(countNumbers(n)) * instrPrintNumber
	}
	return c
}

func countNumbers(n *Node) int {
	if !n.IsList {
		if n.Kind() == "number" {
			return 1
		}
		return 0
	}
	c := 0
	for _, k := range n.List {
		c += countNumbers(k)
	}
	return c
}
