package deck

import (
	"errors"
	"strings"

	"anchorage/impl/fe"
)

// Gated-primitive errors carry these tags: (error not-authorized outside-mission ...).
func gateTags() []string { return []string{"not-authorized", "outside-mission"} }

// gated is one write primitive of the REPL tier: bound, documented, refused.
type gated struct{ name, sig, doc, message string }

const msgDeckWrite = "Writes to deck state require mission context."

func gatedPrimitives() []gated {
	draw := "The REPL is text-only; drawing requires mission context."
	sound := "Sound requires mission context."
	return []gated{
		{"credit-add", "(credit-add n)", "Adds n credits to the deck.", msgDeckWrite},
		{"rep-modify", "(rep-modify delta)", "Changes reputation by delta.", msgDeckWrite},
		{"spawn-cell", "(spawn-cell kind)", "Creates a runtime-owned cell.", msgDeckWrite},
		{"drill-into", "(drill-into cell)", "Moves the runtime cursor into a cell.", msgDeckWrite},
		{"phase-advance", "()", "Advances the active mission phase.", msgDeckWrite},
		{"mission-complete", "(mission-complete outcome)", "Completes the active mission.", msgDeckWrite},
		{"text-puts", "(text-puts row col string)", "Writes text to the screen.", draw},
		{"text-clear", "(text-clear)", "Clears the text screen.", draw},
		{"gfx-pixel", "(gfx-pixel x y colour)", "Plots a pixel.", draw},
		{"gfx-line", "(gfx-line x0 y0 x1 y1 colour)", "Draws a line.", draw},
		{"gfx-rect", "(gfx-rect x y w h colour)", "Draws a rectangle.", draw},
		{"gfx-blit", "(gfx-blit sprite x y)", "Copies a bitmap to the screen.", draw},
		{"gfx-clear", "(gfx-clear colour)", "Clears the graphics screen.", draw},
		{"sfx-play", "(sfx-play id)", "Plays a sound effect.", sound},
		{"sfx-stop", "(sfx-stop)", "Stops sound effects.", sound},
		{"mission-accept!", "(mission-accept! id)", "Accepts a contract from the Mission Board.", "Accepting a contract requires mission context."},
		{"mission-board-refresh!", "(mission-board-refresh!)", "Regenerates the Mission Board.", "Regenerating the board requires a deck-state mutation context."},
		{"cipher-narrate", "(cipher-narrate msg)", "Pushes narration to the live Cipher surface.", "Cipher narration requires mission context."},
	}
}

// coreDocs documents Fe's own primitives and the extension layer, so that
// describe answers for every bound primitive.
func coreDocs() map[string]string {
	return map[string]string{
		"car": "(car x) → the first element of the list x.", "cdr": "(cdr x) → the rest of the list x.",
		"cons": "(cons a b) → a new pair.", "list": "(list x ...) → a new list of its arguments.",
		"quote": "(quote x) → x, unevaluated.", "eval": "(eval x) → evaluates the form x.",
		"fn": "(fn params body...) → a function.", "lambda": "(lambda params body...) → a function (fn).",
		"mac": "(mac params body...) → a macro.", "if": "(if c e ... else) → chained conditional.",
		"let": "(let sym val) → binds sym in the rest of a body.", "=": "(= sym val) → assigns sym.",
		"while": "(while c body...) → loops while c; nil.", "do": "(do x ...) → the last value.",
		"and": "(and x ...) → short-circuit and.", "or": "(or x ...) → short-circuit or.",
		"not": "(not x) → t when x is nil.", "is": "(is a b) → t when a and b are the same.",
		"atom": "(atom x) → t unless x is a pair.", "print": "(print x ...) → prints; nil.",
		"setcar": "(setcar p v) → sets the car of p; nil.", "setcdr": "(setcdr p v) → sets the cdr of p; nil.",
		"<": "(< a b) → t when a < b.", "<=": "(<= a b) → t when a <= b.",
		"+": "(+ n ...) → sum.", "-": "(- n ...) → difference.", "*": "(* n ...) → product.", "/": "(/ n ...) → quotient.",
		"describe": "(describe 'name) → the signature and documentation of name.",
		"type-of":  "(type-of x) → atom, cons, lambda, symbol, number, string or nil.",
		"try":      "(try f) → calls f; an error becomes its error object.",
	}
}

// bindTier binds the REPL-tier FFI (read-only, write-gated and the
// cross-capability primitives) into vm. It never binds eval-string,
// load-file or intern.
func (d *Deck) bindTier(vm *fe.VM, s *Session) {
	for name, doc := range coreDocs() {
		vm.SetDoc(name, d.words.coreDoc(doc))
	}
	type prim struct {
		name, doc string
		fn        fe.Primitive
	}
	num := func(f float64) fe.Value { return vm.Number(float32(f)) }
	prims := []prim{
		{"get-handle", "(get-handle) → the operator handle, a string.", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			return vm.String(d.state.Handle), nil
		}},
		{"get-credits", "(get-credits) → the deck's credits.", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			return num(float64(d.state.Credits)), nil
		}},
		{"get-reputation", "(get-reputation) → the deck's reputation.", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			return num(float64(d.state.Reputation)), nil
		}},
		{"has-capability", "(has-capability 'name) → t when the deck has the capability.", func(vm *fe.VM, a fe.Value) (fe.Value, error) {
			name := vm.GoString(vm.Car(a))
			for i, c := range CapabilityNames() {
				if c == name {
					return vm.Bool(d.state.Capabilities&(1<<i) != 0), nil
				}
			}
			return fe.Nil, nil
		}},
		{"deck-state", "(deck-state) → (:handle h :credits c :reputation r :capabilities caps :tutorial stage).", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			var caps []fe.Value
			for i, c := range CapabilityNames() {
				if d.state.Capabilities&(1<<i) != 0 {
					caps = append(caps, vm.Symbol(c))
				}
			}
			return vm.List(vm.Symbol(":handle"), vm.String(d.state.Handle), vm.Symbol(":credits"), num(float64(d.state.Credits)),
				vm.Symbol(":reputation"), num(float64(d.state.Reputation)), vm.Symbol(":capabilities"), vm.List(caps...),
				vm.Symbol(":tutorial"), tutorialValue(vm, d.state.Tutorial)), nil
		}},
		{"current-cell", "(current-cell) → the form under the prompt cursor when EVAL was pressed.", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			if s == nil || s.cell == nil {
				return fe.Nil, nil
			}
			return s.cell.ToValue(vm), nil
		}},
		{"list-get", "(list-get list n) → element n (from 0) of list, or nil.", func(vm *fe.VM, a fe.Value) (fe.Value, error) {
			l, n := vm.Car(a), int(vm.ToNumber(vm.Car(vm.Cdr(a))))
			for i := 0; i < n && vm.Type(l) == fe.TPair; i++ {
				l = vm.Cdr(l)
			}
			if n < 0 || vm.Type(l) != fe.TPair {
				return fe.Nil, nil
			}
			return vm.Car(l), nil
		}},
		{"list-length", "(list-length list) → the number of elements of list.", func(vm *fe.VM, a fe.Value) (fe.Value, error) {
			l, n := vm.Car(a), 0
			for ; vm.Type(l) == fe.TPair; n++ {
				if n == maxListPairs { // more pairs than any arena holds: a cycle
					return fe.Nil, errors.New("list-length: cyclic list")
				}
				l = vm.Cdr(l)
			}
			return num(float64(n)), nil
		}},
		{"is-leaf", "(is-leaf x) → t when x is not a pair.", func(vm *fe.VM, a fe.Value) (fe.Value, error) {
			return vm.Bool(vm.Type(vm.Car(a)) != fe.TPair), nil
		}},
		{"lfsr-seed", "(lfsr-seed n) → seeds the session's 16-bit LFSR; nil.", func(vm *fe.VM, a fe.Value) (fe.Value, error) {
			s.lfsr = uint16(vm.ToNumber(vm.Car(a)))
			if s.lfsr == 0 {
				s.lfsr = 1
			}
			return fe.Nil, nil
		}},
		{"lfsr-next", "(lfsr-next) → the next 16-bit LFSR value.", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			s.lfsr = lfsrStep(s.lfsr)
			return num(float64(s.lfsr)), nil
		}},
		{"lfsr-range", "(lfsr-range lo hi) → a value in [lo, hi) from the LFSR.", func(vm *fe.VM, a fe.Value) (fe.Value, error) {
			lo, hi := int(vm.ToNumber(vm.Car(a))), int(vm.ToNumber(vm.Car(vm.Cdr(a))))
			if hi <= lo {
				return fe.Nil, errors.New("lfsr-range: empty range")
			}
			s.lfsr = lfsrStep(s.lfsr)
			return num(float64(lo + int(s.lfsr)%(hi-lo))), nil
		}},
		{"display-mode", "(display-mode) → text (the REPL has no graphics mode).", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			return vm.Symbol("text"), nil
		}},
		{"mission-board-contracts", "(mission-board-contracts) → ((id threat payout phase-count domains) ...) for the visible contracts.", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			var out []fe.Value
			for _, c := range d.board.Visible(d.state.Reputation) {
				out = append(out, vm.List(vm.Symbol(c.ID), num(float64(c.Threat)), num(float64(c.Payout)), num(float64(c.Phases)), symbols(vm, c.Domains)))
			}
			return vm.List(out...), nil
		}},
		{"mission-board-contract", "(mission-board-contract 'id) → (:id :title :threat :payout :phases :description :cipher-intro).", func(vm *fe.VM, a fe.Value) (fe.Value, error) {
			id := vm.GoString(vm.Car(a))
			for _, c := range d.board.Visible(d.state.Reputation) {
				if c.ID == id {
					return vm.List(vm.Symbol(":id"), vm.Symbol(c.ID), vm.Symbol(":title"), vm.String(c.Title),
						vm.Symbol(":threat"), num(float64(c.Threat)), vm.Symbol(":payout"), num(float64(c.Payout)),
						vm.Symbol(":phases"), num(float64(c.Phases)), vm.Symbol(":description"), vm.String(c.Description),
						vm.Symbol(":cipher-intro"), vm.String(c.Intro)), nil
				}
			}
			return fe.Nil, nil
		}},
		{"mission-active?", "(mission-active?) → nil: no mission runs while the REPL is open.", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			return vm.Bool(d.sram.Has(Mission)), nil // never from the REPL: the mission lives in a cartridge
		}},
		{"cipher-vocabulary", "(cipher-vocabulary) → ((term domain definition) ...).", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			var out []fe.Value
			for _, t := range Vocabulary() {
				out = append(out, vm.List(vm.Symbol(t.Term), vm.Symbol(t.Domain), vm.String(t.Definition)))
			}
			return vm.List(out...), nil
		}},
		{"cipher-seed", "(cipher-seed) → the live Cipher seed (24 bits); reading it changes nothing.", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			return num(float64(d.state.CipherSeed)), nil
		}},
		{"cipher-generate", "(cipher-generate :seed s :template t) → a Cipher passage; pure, the live seed is untouched.", func(vm *fe.VM, a fe.Value) (fe.Value, error) {
			seed, tmpl := uint32(0), ""
			for l := a; vm.Type(l) == fe.TPair && vm.Type(vm.Cdr(l)) == fe.TPair; l = vm.Cdr(vm.Cdr(l)) {
				switch vm.Print(vm.Car(l)) {
				case ":seed":
					seed = uint32(vm.ToNumber(vm.Car(vm.Cdr(l))))
				case ":template":
					tmpl = vm.Print(vm.Car(vm.Cdr(l)))
				}
			}
			text, err := CipherGenerate(seed, tmpl)
			if err != nil {
				return fe.Nil, vm.RaiseError([]string{"bad-template"}, fe.Field{Key: "template", Value: vm.Symbol(tmpl)},
					fe.Field{Key: "message", Value: vm.String(err.Error())})
			}
			return vm.String(text), nil
		}},
		{"snippet-list", "(snippet-list) → ((name . signature) ...) of the snippet library.", func(vm *fe.VM, _ fe.Value) (fe.Value, error) {
			var out []fe.Value
			for _, sn := range d.snippets() {
				out = append(out, vm.Cons(vm.Symbol(sn.Name), signature(sn.form()).ToValue(vm)))
			}
			return vm.List(out...), nil
		}},
		{"snippet-load", "(snippet-load 'name) → the form saved under name, or nil.", func(vm *fe.VM, a fe.Value) (fe.Value, error) {
			name := vm.GoString(vm.Car(a))
			for _, sn := range d.snippets() {
				if sn.Name == name {
					return sn.form().ToValue(vm), nil
				}
			}
			return fe.Nil, nil
		}},
		{"snippet-save!", "(snippet-save! 'name form) → nil; saves form (as source) in the deck's 4 KB snippet library.", func(vm *fe.VM, a fe.Value) (fe.Value, error) {
			name := vm.GoString(vm.Car(a))
			n, err := FromValue(vm, vm.Car(vm.Cdr(a)), 0)
			if err != nil {
				return fe.Nil, vm.RaiseError([]string{"snippet-unsaveable"}, fe.Field{Key: "message", Value: vm.String(err.Error())})
			}
			if err := d.saveSnippet(name, n.String()); err != nil {
				return fe.Nil, vm.RaiseError([]string{"snippet-library-full"}, fe.Field{Key: "message", Value: vm.String(err.Error())})
			}
			return fe.Nil, nil
		}},
	}
	if s != nil {
		prims = append(prims, prim{"open-in-nemacs", "(open-in-nemacs form) → nil; saves history, leaves the REPL and opens nEmacs on form.", func(vm *fe.VM, a fe.Value) (fe.Value, error) {
			n, err := FromValue(vm, vm.Car(a), 0)
			if err != nil {
				return fe.Nil, vm.RaiseError([]string{"not-editable"}, fe.Field{Key: "message", Value: vm.String(err.Error())})
			}
			s.openEditor = n
			return fe.Nil, nil
		}})
	}
	for _, p := range prims {
		must(vm.RegisterPrimitive(p.name, p.fn, p.doc))
	}
	for _, g := range gatedPrimitives() {
		must(vm.Restrict(g.name, gateTags(), d.words.gatedMsg(g.name, g.message), d.words.docs(g.sig, g.doc)))
	}
}

func symbols(vm *fe.VM, names []string) fe.Value {
	items := make([]fe.Value, len(names))
	for i, n := range names {
		items[i] = vm.Symbol(n)
	}
	return vm.List(items...)
}

// tutorialValue is *tutorial-cursor*: the furthest stage reached, or nil.
func tutorialValue(vm *fe.VM, bits uint8) fe.Value {
	names := TutorialNames()
	for i := len(names) - 1; i >= 0; i-- {
		if bits&(1<<i) != 0 {
			return vm.Symbol(names[i])
		}
	}
	return fe.Nil
}

// signature is a snippet's signature: the parameter list of a fn or lambda
// form, else nil.
func signature(n *Node) *Node {
	if n.IsList && len(n.List) >= 2 && !n.List[0].IsList && (n.List[0].Atom == "fn" || n.List[0].Atom == "lambda") {
		return n.List[1]
	}
	return Sym("nil")
}

func lfsrStep(x uint16) uint16 {
	lsb := x & 1
	x >>= 1
	if lsb != 0 {
		x ^= 0xB400
	}
	return x
}

// snippets is the deck's snippet library. The deck's state only ever holds
// a library that decodes, every form reading as one: Decode refuses an
// image that holds another, Encode refuses to write one (so SetState and
// every save keep the old state), and saveSnippet stores only what
// EncodeSnippets made of forms printed from Lisp values.
func (d *Deck) snippets() []Snippet {
	lib, err := DecodeSnippets(d.state.Snippets)
	must(err)
	return lib
}

// saveSnippet stores form under name, replacing an older one, if the
// library still fits its budget.
func (d *Deck) saveSnippet(name, form string) error {
	lib := d.snippets()
	replaced := false
	for i := range lib {
		if lib[i].Name == name {
			lib[i].Form, replaced = form, true
		}
	}
	if !replaced {
		lib = append(lib, Snippet{Name: name, Form: form})
	}
	b, err := EncodeSnippets(lib)
	if err != nil {
		return err
	}
	if err := d.fits(Snippets, len(d.state.Snippets), len(b)); err != nil {
		return err
	}
	d.state.Snippets = b
	return d.save()
}

// errorText renders an evaluation error as the REPL shows it after "=> ".
func (d *Deck) errorText(err error) string {
	var fer *fe.Error
	if !errors.As(err, &fer) {
		return d.words.deckError(err.Error())
	}
	var raised *fe.Raised
	switch {
	case errors.As(fer.Cause, &raised):
		return fer.Msg
	case errors.Is(fer.Cause, ErrWatchdog):
		return d.words.watchdogErr
	case strings.HasPrefix(fer.Msg, "(error "):
		return fer.Msg
	}
	return d.words.feError(fer.Msg)
}
