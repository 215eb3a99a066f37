package deck

import (
	"fmt"
	"time"

	"anchorage/impl/fe"
)

// HistoryMax is how many entries *history* keeps.
const HistoryMax = 32

// ScrollRows is the height of the scrollback ring.
const ScrollRows = 20

// Focus is the REPL zone receiving keys.
type Focus int

// The two focus zones.
const (
	FocusPrompt Focus = iota
	FocusScroll
)

// Stage is one tutorial stage: Cipher's line, the prompts it pre-loads and
// the cursor bit it sets.
type Stage struct {
	Narration string
	Prompts   []string
	Bit       uint8
}

// Stages returns the four tutorial stages.
func Stages() []Stage {
	return []Stage{
		{"Every list begins with a head and continues with a tail. Press EVAL to see the first number.", []string{"(car '(1 2 3))", "(cdr '(1 2 3))"}, TutCarCdr},
		{"Quote preserves a form. Eval executes one. Observe.", []string{"(quote (+ 1 2))", "(eval (quote (+ 1 2)))"}, TutQuoteEval},
		{"A lambda is an unnamed function. Apply it.", []string{"((lambda (x) (* x x)) 5)"}, TutLambda},
		{"You have the grammar. The rest is yours. Try (get-credits).", nil, TutGraduated},
	}
}

type scrollLine struct {
	text  string
	entry int // index into Session.shown of the entry this > line starts; -1 for => lines
}

// Session is one REPL session: everything in it lives in the 24 KB arena
// and is gone when the REPL exits, except history, which is persisted.
type Session struct {
	vm      *fe.VM
	comp    composer
	focus   Focus
	history []Entry // newest first, at most HistoryMax
	unsaved int
	shown   []Entry // this session's evaluated entries, oldest first
	lines   []scrollLine
	sel     int // index into shown while the scrollback has focus
	older   bool
	inspect *Prompt // a result being inspected with CAR/CDR from the scrollback

	stage      int // 1–4 while the tutorial runs, 0 otherwise
	step       int
	narrating  bool
	narratedAt time.Time
	pages      []string // the stage's Cipher line as row 22 shows it, page by page

	w          *wording // the deck's readouts and choices
	cell       *Node    // the form under the cursor when EVAL was pressed
	lfsr       uint16
	openEditor *Node // set by open-in-nemacs, acted on after the evaluation
}

// VM returns the session's VM.
func (s *Session) VM() *fe.VM { return s.vm }

// Focus returns the zone with focus.
func (s *Session) Focus() Focus { return s.focus }

// History returns *history* as the runtime holds it, newest first.
func (s *Session) History() []Entry { return append([]Entry(nil), s.history...) }

func (d *Deck) enterREPL() error {
	r, err := d.sram.Alloc(REPLArena, REPLBytes)
	if err != nil {
		d.refuse(err)
		return fmt.Errorf("deck: enter repl: %w", err)
	}
	d.saved = d.homeSel
	s := &Session{lfsr: 1, w: &d.words}
	s.vm = d.newVM(r, s)
	s.comp.predict = s.predict
	s.comp.clip, s.comp.w = d.clip, &d.words
	hist, err := DecodeHistory(d.state.History)
	if err != nil {
		hist = nil // Decode already validated it; a bad region restores nothing
	}
	s.history = hist
	if err := s.syncHistory(); err != nil {
		s.history = nil
	}
	d.repl, d.mode = s, ModeREPL
	d.syncCursor()
	if d.state.Tutorial&TutGraduated == 0 {
		d.startStage()
	}
	return nil
}

// startStage begins the next tutorial stage with its narration.
func (d *Deck) startStage() {
	s := d.repl
	s.stage, s.step = 0, 0
	for i, st := range Stages() {
		if d.state.Tutorial&st.Bit == 0 {
			s.stage = i + 1
			break
		}
	}
	if s.stage == 0 {
		return
	}
	// The prompt is empty: a new session's, or the one the stage's last
	// evaluation emptied.
	s.narrating, s.narratedAt = true, d.clk.Now()
	s.pages = d.words.pages[s.stage-1]
	s.comp.readout = s.pages[0]
}

// narrate shows the page of the Cipher line the time since it began asks
// for, and the stage's prompt once every page has had its time.
func (s *Session) narrate(now time.Time) {
	page := int(now.Sub(s.narratedAt) / s.w.narration)
	if page >= len(s.pages) {
		s.revealPrompt()
		return
	}
	s.comp.readout = s.pages[page]
}

func (s *Session) revealPrompt() {
	s.narrating = false
	s.comp.readout = ""
	st := Stages()[s.stage-1]
	if s.step < len(st.Prompts) {
		n, err := Parse(st.Prompts[s.step])
		if err == nil {
			s.comp.p.SetForm(n)
		}
	} else {
		s.comp.p.SetForm(nil)
	}
}

// syncHistory rebuilds the Lisp *history* list from the runtime's copy:
// ((expr . "result") ...), newest first; a grabbed subtree has a nil result.
func (s *Session) syncHistory() error {
	// One Do per entry, oldest first, consing onto the rooted global: each
	// Do releases the GC-root stack entries it used, so 32 entries never
	// overflow its 256 slots.
	if err := s.vm.Do(func() error { s.vm.SetGlobal("*history*", fe.Nil); return nil }); err != nil {
		return err
	}
	var first error
	for i := len(s.history) - 1; i >= 0; i-- {
		e := s.history[i]
		n, err := Parse(e.Expr)
		if err != nil {
			continue
		}
		err = s.vm.Do(func() error {
			res := fe.Nil
			if !e.Grabbed {
				res = s.vm.String(e.Result)
			}
			entry := s.w.historyEntry(s.vm, n.ToValue(s.vm), res)
			s.vm.SetGlobal("*history*", s.vm.Cons(entry, s.vm.Global("*history*")))
			return nil
		})
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// syncCursor sets *tutorial-cursor* and *clipboard* in the REPL's VM from
// the deck: on entry and before every evaluation, the only times Lisp can
// read them (a stage completed or skipped shows in the next evaluation).
func (d *Deck) syncCursor() {
	if s := d.repl; s != nil {
		_ = s.vm.Do(func() error {
			s.vm.SetGlobal("*tutorial-cursor*", tutorialValue(s.vm, d.state.Tutorial))
			clip := fe.Value(fe.Nil)
			if n, err := Parse(d.clipboard); err == nil {
				clip = n.ToValue(s.vm)
			}
			s.vm.SetGlobal("*clipboard*", clip)
			return nil
		})
	}
}

// clip stores a cut form in the clipboard region of the resident data, if
// its text fits the region.
func (d *Deck) clip(n *Node) error {
	text := n.String()
	if err := d.fits(Clipboard, len(d.clipboard), len(text)); err != nil {
		return err
	}
	d.clipboard = text
	return nil
}

// fits checks that size bytes can replace the held bytes of the region of
// c, the way a write into it is checked: the refusal names c, its budget
// and the bytes free in it (the region less what it holds now).
func (d *Deck) fits(c Consumer, held, size int) error {
	r := d.sram.Region(c)
	if r == nil {
		return d.sram.refusal(c, size, Budgets()[c], 0, "region not allocated")
	}
	if size > r.Bytes() {
		return d.sram.refusal(c, size, Budgets()[c], r.Bytes()-held, "does not fit the region")
	}
	return nil
}

// pushHistory records an entry, newest first, dropping the oldest past 32.
func (s *Session) pushHistory(e Entry) {
	s.history = append([]Entry{e}, s.history...)
	s.history = s.history[:min(len(s.history), HistoryMax)]
	s.unsaved++
	if err := s.syncHistory(); err != nil {
		s.comp.readout = s.w.words.historyFull
	}
}

func (s *Session) predict() []string {
	count := map[string]int{}
	var order []string
	var walk func(n *Node)
	walk = func(n *Node) {
		if !n.IsList {
			if n.Kind() == "symbol" {
				if count[n.Atom] == 0 {
					order = append(order, n.Atom)
				}
				count[n.Atom]++
			}
			return
		}
		for _, k := range n.List {
			walk(k)
		}
	}
	for _, e := range s.history {
		if n, err := Parse(e.Expr); err == nil {
			walk(n)
		}
	}
	// most used first, ties in order of recency
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && count[order[j]] > count[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	return order[:min(len(order), 8)]
}

func (s *Session) addLine(text string, entry int) {
	s.lines = append(s.lines, scrollLine{text, entry})
	s.lines = s.lines[max(0, len(s.lines)-ScrollRows):]
}

func (d *Deck) replKey(k Key) error {
	s := d.repl
	switch d.modal {
	case ModalExitREPL:
		d.modal = ModalNone
		if k == KeyEval {
			return d.leaveREPL()
		}
		return nil
	case ModalExitTutorial:
		d.modal = ModalNone
		if k == KeyEval {
			d.state.Tutorial |= TutFirstBoot | TutCarCdr | TutQuoteEval | TutLambda | TutGraduated
			s.stage, s.narrating = 0, false
			s.comp.p.SetForm(nil)
			return d.save()
		}
		s.focus = FocusScroll // cancelled: BACK goes on to the scrollback
		s.sel = len(s.shown) - 1
		return nil
	}
	if s.narrating {
		s.revealPrompt()
		return nil
	}
	s.comp.readout = ""
	if s.focus == FocusScroll {
		return d.scrollKey(k)
	}
	if s.comp.key(k) {
		return nil
	}
	switch k {
	case KeyBack:
		if s.stage > 0 {
			d.modal = ModalExitTutorial
			return nil
		}
		s.focus, s.sel = FocusScroll, len(s.shown)-1
	case KeyQuote:
		n := s.comp.p.Cur()
		if n == nil {
			s.comp.readout = s.w.words.nothingToGrab
			return nil
		}
		s.pushHistory(Entry{Expr: n.String(), Grabbed: true})
		s.comp.readout = s.w.words.grabbed
	case KeyEval:
		return d.evalPrompt()
	}
	return nil
}

func (d *Deck) evalPrompt() error {
	s := d.repl
	root := s.comp.p.Root
	if root == nil {
		s.comp.readout = s.w.words.nothingToEval
		return nil
	}
	s.cell = s.comp.p.Cur().Clone()
	d.syncCursor()
	ev := d.evaluate(s.vm, root)
	s.shown = append(s.shown, Entry{Expr: ev.Expr, Result: ev.Result})
	s.addLine("> "+ev.Expr, len(s.shown)-1)
	s.addLine("=> "+ev.Result, -1)
	s.pushHistory(Entry{Expr: ev.Expr, Result: ev.Result})
	s.comp.p.SetForm(nil)
	if s.comp.readout == "" {
		s.comp.readout = s.w.words.cycles(ev.Cycles)
	}
	var saveErr error // a tutorial stage completed but not written to flash
	if s.stage > 0 {
		saveErr = d.tutorialProgress(ev)
	}
	if n := s.openEditor; n != nil {
		s.openEditor = nil
		if err := d.leaveREPL(); err != nil {
			return err
		}
		// A form too large for the editor's buffer is refused by the
		// allocation; the deck is home with the refusal on screen.
		_ = d.openEditor(n)
	}
	return saveErr
}

func (d *Deck) tutorialProgress(ev Eval) error {
	s := d.repl
	st := Stages()[s.stage-1]
	if s.step < len(st.Prompts) {
		if ev.Expr != st.Prompts[s.step] {
			s.revealPrompt() // the pre-loaded prompt comes back until it is run
			return nil
		}
		s.step++
		if s.step < len(st.Prompts) {
			s.revealPrompt()
			return nil
		}
	}
	// The stage is done whether or not the flash takes the cursor: the
	// session goes on, and a failed write is the key's error.
	d.state.Tutorial |= st.Bit
	err := d.save()
	if st.Bit == TutGraduated {
		s.stage = 0
		s.comp.readout = TextClosing
		return err
	}
	d.startStage()
	return err
}

func (d *Deck) scrollKey(k Key) error {
	s := d.repl
	if in := s.inspect; in != nil {
		switch {
		case k == KeyCar && in.HasChild():
			in.Descend()
		case k == KeyCar:
			s.comp.readout = s.w.words.noChild
			return nil
		case k == KeyCdr && in.HasNext():
			in.Next()
		case k == KeyCdr:
			s.comp.readout = s.w.words.endOfList
			return nil
		case k == KeyBack && !in.Ascend():
			s.inspect = nil
			return nil
		}
		c := in.Cur()
		s.comp.readout = s.w.words.cell(c.Kind(), c.String())
		return nil
	}
	has := s.sel >= 0 && s.sel < len(s.shown)
	switch k {
	case KeyBack:
		if s.unsaved > 0 {
			d.modal = ModalExitREPL
			return nil
		}
		return d.leaveREPL()
	case KeyCdr:
		if len(s.shown) < 2 {
			return nil
		}
		if (s.older && s.sel == 0) || (!s.older && s.sel == len(s.shown)-1) {
			s.older = !s.older
		}
		if s.older {
			s.sel--
		} else {
			s.sel++
		}
	case KeyCar:
		if !has {
			return nil
		}
		n, err := Parse(s.shown[s.sel].Result)
		if err != nil || !n.IsList {
			s.comp.readout = s.w.words.resultIsAtom
			return nil
		}
		// A list result has a first element: Fe prints the empty list
		// as nil, an atom.
		s.inspect = &Prompt{Root: n, Path: []int{0}}
		c := s.inspect.Cur()
		s.comp.readout = s.w.words.cell(c.Kind(), c.String())
	case KeyQuote, KeyEval:
		if !has {
			s.focus = FocusPrompt
			return nil
		}
		n, err := Parse(s.shown[s.sel].Expr)
		if err != nil {
			return nil
		}
		s.comp.p.SetForm(n)
		s.focus = FocusPrompt
		if k == KeyEval {
			return d.evalPrompt()
		}
	}
	return nil
}

// leaveREPL tears the session down: history is serialized into deck state,
// the state is saved, the arena is released and the home context returns
// (or a deferred cartridge loads).
func (d *Deck) leaveREPL() error {
	s := d.repl
	if s == nil {
		return nil
	}
	enc, _ := EncodeHistory(s.history, d.sram.Region(History).Bytes())
	d.state.History = enc
	if err := d.save(); err != nil {
		// The REPL stays open, so the history is not lost with its arena.
		s.comp.readout = s.w.words.flashFailed
		return err
	}
	d.sram.Free(REPLArena)
	d.repl, d.mode, d.homeSel, d.modal = nil, ModeHome, d.saved, ModalNone
	if c := d.pending; c != nil {
		d.pending = nil
		return d.loadCart(*c)
	}
	return nil
}
