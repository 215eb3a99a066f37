package deck

import "fmt"

// EditorEvalArena is the part of the editor's 16 KB arena lent to the
// transient evaluator of eval-from-editor.
const EditorEvalArena = 8 * KB

// Editor is the minimal nEmacs: one top-level form edited structurally,
// with EVAL at the top level running it in a transient evaluator.
type Editor struct {
	comp   composer
	result string
}

// Buffer returns the edited form (nil when empty).
func (e *Editor) Buffer() *Node { return e.comp.p.Root }

// Result returns the last eval-from-editor result shown on row 22.
func (e *Editor) Result() string { return e.result }

func (d *Deck) openEditor(n *Node) error {
	if err := d.sram.Alloc(EditArena, 16*KB); err != nil {
		return fmt.Errorf("deck: open editor: %w", err)
	}
	if d.mode == ModeHome {
		d.saved = d.homeSel
	}
	e := &Editor{}
	e.comp.clip = d.clip
	e.comp.p.SetForm(n)
	d.editor, d.mode = e, ModeEditor
	return nil
}

func (d *Deck) editorKey(k Key) error {
	e := d.editor
	e.comp.readout = ""
	if e.comp.key(k) {
		return nil
	}
	switch k {
	case KeyBack:
		if err := d.sram.Free(EditArena); err != nil {
			return err
		}
		d.editor, d.mode, d.homeSel = nil, ModeHome, d.saved
		if c := d.pending; c != nil {
			d.pending = nil
			return d.loadCart(*c)
		}
	case KeyEval:
		return d.EvalFromEditor()
	}
	return nil
}

// EvalFromEditor evaluates the buffer's top-level form in a transient
// evaluator with the REPL-tier primitives; the result goes to row 22 and
// nothing is recorded in history.
func (d *Deck) EvalFromEditor() error {
	e := d.editor
	if e == nil {
		return fmt.Errorf("deck: eval from editor: the editor is not open")
	}
	if e.comp.p.Root == nil {
		e.comp.readout = "NOTHING TO EVAL"
		return nil
	}
	vm, err := d.newVM(EditorEvalArena, nil)
	if err != nil {
		e.result = fmt.Sprintf("(error deck :message %s)", quoteString(err.Error()))
		return nil
	}
	ev := d.evaluate(vm, e.comp.p.Root)
	e.result = ev.Result
	e.comp.readout = "=> " + ev.Result
	return nil
}
