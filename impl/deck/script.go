package deck

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RunScript replays a key script (see cmd/deck for the token grammar).
func RunScript(d *Deck, script string) error {
	for _, tok := range strings.Fields(script) {
		if err := runToken(d, tok); err != nil {
			return fmt.Errorf("script token %q: %w", tok, err)
		}
	}
	return nil
}

func runToken(d *Deck, tok string) error {
	switch {
	case strings.HasPrefix(tok, "TYPE:"):
		keys, err := Taps(strings.TrimPrefix(tok, "TYPE:"))
		if err != nil {
			return err
		}
		return d.PressAll(keys...)
	case strings.HasPrefix(tok, "PICK:"):
		return d.Pick(strings.TrimPrefix(tok, "PICK:"))
	case strings.HasPrefix(tok, "INSERT:"):
		c, err := cartToken(tok)
		if err != nil {
			return err
		}
		return d.Insert(c)
	case tok == "EJECT":
		return d.Eject()
	case strings.HasPrefix(tok, "WAIT:"):
		ms, err := strconv.Atoi(strings.TrimPrefix(tok, "WAIT:"))
		if err != nil {
			return err
		}
		d.Wait(time.Duration(ms) * time.Millisecond)
		return nil
	}
	return d.Press(Key(tok))
}

// cartToken reads INSERT:name:size[:mission]: the arena's size in KB, or
// in bytes with a B suffix (INSERT:null:28097B), and the bytes of the
// cartridge's scripted-mission sub-arena, if it has one.
func cartToken(tok string) (Cart, error) {
	parts := strings.Split(tok, ":")
	if len(parts) != 3 && len(parts) != 4 {
		return Cart{}, fmt.Errorf("want INSERT:name:kb or INSERT:name:kb:mission-bytes")
	}
	c := Cart{Name: parts[1]}
	size, unit := parts[2], KB
	if b, ok := strings.CutSuffix(size, "B"); ok {
		size, unit = b, 1
	}
	n, err := strconv.Atoi(size)
	if err != nil {
		return Cart{}, fmt.Errorf("arena size %q: %w", parts[2], err)
	}
	c.Arena = n * unit
	if len(parts) == 4 {
		if c.Mission, err = strconv.Atoi(parts[3]); err != nil {
			return Cart{}, fmt.Errorf("mission size %q: %w", parts[3], err)
		}
	}
	return c, nil
}

// Pick opens the palette with CONS and presses CDR until token is
// highlighted, then EVAL to insert it. It fails (closing the palette with
// BACK) if the palette does not offer token.
func (d *Deck) Pick(token string) error {
	if err := d.Press(KeyCons); err != nil {
		return err
	}
	c := d.composerInFocus()
	if c == nil || c.pal == nil {
		return fmt.Errorf("pick %s: no palette open", token)
	}
	if !slices.Contains(c.pal.items, token) {
		_ = d.Press(KeyBack)
		return fmt.Errorf("pick %s: not in the palette", token)
	}
	// The palette has the keys (composerInFocus): CDR moves its highlight
	// and cannot fail.
	for c.pal.items[c.pal.i] != token {
		_ = d.Press(KeyCdr)
	}
	return d.Press(KeyEval)
}

// composerInFocus is the composer whose palette CONS opens, or nil: the
// REPL's prompt line while it has focus and no Cipher line or question
// stands before it, or the editor's buffer, outside literal entry.
func (d *Deck) composerInFocus() *composer {
	var c *composer
	switch {
	case d.modal != ModalNone:
	case d.mode == ModeREPL && d.repl.focus == FocusPrompt && !d.repl.narrating:
		c = &d.repl.comp
	case d.mode == ModeEditor:
		c = &d.editor.comp
	}
	if c == nil || c.lit != nil {
		return nil
	}
	return c
}

// Compose builds src on the focused prompt with real key presses: PICK for
// each palette token and list, TYPE for other atoms, BACK to close lists.
func (d *Deck) Compose(src string) error {
	n, err := Parse(src)
	if err != nil {
		return err
	}
	c := d.composerInFocus()
	if c == nil {
		return fmt.Errorf("compose: no prompt to compose on (mode %s)", d.mode)
	}
	if emptyBeforeSibling(n) {
		return fmt.Errorf("compose: %s: an empty list followed by a sibling cannot be entered in order (the prompt inserts into an empty list; write nil)", src)
	}
	return d.compose(c, n)
}

// emptyBeforeSibling reports whether n holds an empty list that is not the
// last of its list: with the cursor on an empty list, an insertion goes
// into it, so the next sibling cannot follow it in the order written.
func emptyBeforeSibling(n *Node) bool {
	if !n.IsList {
		return false
	}
	for i, k := range n.List {
		if k.IsList && len(k.List) == 0 && i < len(n.List)-1 {
			return true
		}
		if emptyBeforeSibling(k) {
			return true
		}
	}
	return false
}

// compose builds n on composer c, which keeps the focus throughout: none of
// the keys it presses leaves the prompt.
func (d *Deck) compose(c *composer, n *Node) error {
	if !n.IsList {
		if inPalette(c, n.Atom) {
			return d.Pick(n.Atom)
		}
		keys, err := Taps(n.Atom)
		if err != nil {
			return err
		}
		return d.PressAll(keys...)
	}
	// The palette opens (Compose checked the composer takes the keys); the
	// pick fails only when the editor undoes an insertion its buffer
	// cannot hold.
	if err := d.Pick("()"); err != nil {
		return err
	}
	for _, k := range n.List {
		if err := d.compose(c, k); err != nil {
			return err
		}
	}
	if len(n.List) > 0 {
		return d.Press(KeyBack) // from the last child back up to this list
	}
	return nil
}

func inPalette(c *composer, tok string) bool { return slices.Contains(c.candidates(), tok) }

// DumpWithCycles is the screen dump followed by the cycle counter and the
// simulated time since power on, the format of the goldens.
func DumpWithCycles(d *Deck) string {
	return d.Dump() + fmt.Sprintf("-- cycles %d  clock +%s\n", d.Cycles(), d.Uptime())
}
