package deck

import (
	"fmt"

	"anchorage/impl/fe"
)

// Editor is the minimal nEmacs: one top-level form edited structurally,
// with EVAL at the top level running it in a transient evaluator. Its 16 KB
// arena is split into two regions: the buffer (the form's text) and the
// transient evaluator's arena.
type Editor struct {
	comp   composer
	buffer *Region
	eval   *Region
}

// Buffer returns the edited form (nil when empty).
func (e *Editor) Buffer() *Node { return e.comp.p.Root }

func (d *Deck) openEditor(n *Node) error {
	if _, err := d.sram.Alloc(EditArena, EditorBytes); err != nil {
		d.refuse(err)
		return fmt.Errorf("deck: open editor: %w", err)
	}
	e := &Editor{}
	var err error
	if e.buffer, err = d.sram.Alloc(EditBuffer, EditBufferBytes); err == nil {
		e.eval, err = d.sram.Alloc(EditEval, EditEvalBytes)
	}
	if err == nil && n != nil {
		err = d.fits(EditBuffer, 0, len(n.String()))
	}
	if err != nil {
		d.sram.Free(EditArena)
		d.refuse(err)
		return fmt.Errorf("deck: open editor: %w", err)
	}
	d.saved = d.homeSel // the deck is home: the REPL, if it was open, has been left
	e.comp.clip, e.comp.w = d.clip, &d.words
	e.comp.predict = func() []string { return nil } // the editor predicts nothing beyond the vocabulary
	e.comp.p.SetForm(n)
	d.editor, d.mode = e, ModeEditor
	return nil
}

func (d *Deck) editorKey(k Key) error {
	e := d.editor
	e.comp.readout = ""
	before := e.comp.p.Root.Clone()
	if e.comp.key(k) {
		// An edit that grows the buffer past its region is undone.
		if root := e.comp.p.Root; root != nil {
			if err := d.fits(EditBuffer, textBytes(before), len(root.String())); err != nil {
				e.comp.p.SetForm(before)
				e.comp.readout = d.words.words.bufferFull + short(err)
				return fmt.Errorf("deck: edit undone: %w", err)
			}
		}
		return nil
	}
	switch k {
	case KeyBack:
		form := e.comp.p.Root
		d.sram.Free(EditArena)
		d.editor, d.mode, d.homeSel = nil, ModeHome, d.saved
		if c := d.pending; c != nil {
			d.pending = nil
			if err := d.loadCart(*c); err != nil {
				return err
			}
			if c.Mission != 0 {
				// A refused sub-arena leaves the cartridge screen
				// showing the refusal.
				_ = d.startMission(form)
			}
		}
	case KeyEval:
		return d.EvalFromEditor()
	}
	return nil
}

// textBytes is the length of n's source text, 0 for no form.
func textBytes(n *Node) int {
	if n == nil {
		return 0
	}
	return len(n.String())
}

// EvalFromEditor evaluates the buffer's top-level form in a transient
// evaluator, opened in the editor's evaluator region, with the REPL-tier
// primitives; the result goes to row 22 and nothing is recorded in history.
func (d *Deck) EvalFromEditor() error {
	e := d.editor
	if e == nil {
		return fmt.Errorf("deck: eval from editor: the editor is not open")
	}
	if e.comp.p.Root == nil {
		e.comp.readout = d.words.words.nothingToEval
		return nil
	}
	d.evalVM = d.newVM(e.eval, nil)
	ev := d.evaluate(d.evalVM, e.comp.p.Root)
	e.comp.readout = d.words.words.result(ev.Result)
	return nil
}

// MissionPhase is a scripted-mission phase of the loaded cartridge: the
// form nEmacs handed over, evaluated in a Fe VM whose arena is the
// mission sub-arena inside the cartridge arena.
type MissionPhase struct {
	Region *Region
	VM     *fe.VM
	Form   *Node
	Result string
}

// Mission returns the running mission phase, or nil.
func (d *Deck) Mission() *MissionPhase { return d.mission }

// startMission is the nEmacs → mission hand-off: the cartridge is loaded,
// its scripted mission allocates its sub-arena inside the cartridge arena,
// opens a VM there and evaluates the handed-over form as the phase's
// submission. (mission-active?) is t inside it.
func (d *Deck) startMission(form *Node) error {
	r, err := d.sram.Alloc(Mission, d.cart.Mission)
	if err != nil {
		d.refuse(err)
		return fmt.Errorf("deck: start mission: %w", err)
	}
	vm := d.openVM(r)
	active := func(vm *fe.VM, _ fe.Value) (fe.Value, error) { return vm.Bool(d.sram.Has(Mission)), nil }
	must(vm.RegisterPrimitive("mission-active?", active, "(mission-active?) → t while a mission phase runs."))
	m := &MissionPhase{Region: r, VM: vm, Form: form}
	d.mission, d.mode = m, ModeMission
	if form != nil {
		m.Result = d.evaluate(vm, form).Result
	}
	return nil
}

// EndMission ends the mission phase: the sub-arena is freed and the
// cartridge screen returns.
func (d *Deck) EndMission() error {
	if d.mission == nil {
		return fmt.Errorf("deck: end mission: no mission phase")
	}
	d.sram.Free(Mission)
	d.mission, d.mode = nil, ModeCart
	return nil
}
