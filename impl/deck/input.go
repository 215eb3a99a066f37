package deck

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Key is one press of a deck key: a Lisp key or a keypad digit.
type Key string

// The Lisp keys.
const (
	KeyCar    Key = "CAR"
	KeyCdr    Key = "CDR"
	KeyCons   Key = "CONS"
	KeyQuote  Key = "QUOTE"
	KeyEval   Key = "EVAL"
	KeyBack   Key = "BACK"
	KeyLambda Key = "LAMBDA"
	KeyAtom   Key = "ATOM"
	KeyNil    Key = "NIL"
)

// LispKeys returns the nine Lisp keys.
func LispKeys() []Key {
	return []Key{KeyCar, KeyCdr, KeyCons, KeyQuote, KeyEval, KeyBack, KeyLambda, KeyAtom, KeyNil}
}

// IsDigit reports whether k is a keypad digit "0".."9".
func (k Key) IsDigit() bool { return len(k) == 1 && k[0] >= '0' && k[0] <= '9' }

// Valid reports whether k is a deck key.
func (k Key) Valid() bool {
	if k.IsDigit() {
		return true
	}
	for _, l := range LispKeys() {
		if k == l {
			return true
		}
	}
	return false
}

// keypad returns the multi-tap characters of each digit key, in tap order.
func keypad() [10]string {
	return [10]string{" 0", ".-+*/<=>!?:\"'1", "abc2", "def3", "ghi4", "jkl5", "mno6", "pqrs7", "tuv8", "wxyz9"}
}

// Taps returns the key presses that type text in literal entry: LAMBDA,
// the multi-tap presses (ATOM commits a character when the next one is on
// the same key) and EVAL to insert the token.
func Taps(text string) ([]Key, error) {
	pad := keypad()
	keys := []Key{KeyLambda}
	prev := -1
	for _, r := range text {
		found := false
		for d, chars := range pad {
			i := strings.IndexRune(chars, r)
			if i < 0 {
				continue
			}
			if d == prev {
				keys = append(keys, KeyAtom)
			}
			for n := 0; n <= i; n++ {
				keys = append(keys, Key(fmt.Sprint(d)))
			}
			prev, found = d, true
			break
		}
		if !found {
			return nil, fmt.Errorf("taps: %q cannot be typed on the keypad", r)
		}
	}
	return append(keys, KeyEval), nil
}

// literal is the multi-tap literal entry state.
type literal struct {
	buf     []byte
	pending int // digit being tapped, -1 if none
	tap     int
}

func (l *literal) commit() {
	if l.pending >= 0 {
		chars := keypad()[l.pending]
		l.buf = append(l.buf, chars[l.tap%len(chars)])
		l.pending = -1
	}
}

func (l *literal) text() string {
	s := string(l.buf)
	if l.pending >= 0 {
		chars := keypad()[l.pending]
		s += string(chars[l.tap%len(chars)])
	}
	return s
}

// palette is the predictive token palette opened by CONS.
type palette struct {
	items []string
	i     int
}

// baseVocabulary is the palette's fixed vocabulary, after the predicted
// tokens. "()" inserts an empty list.
func baseVocabulary() []string {
	return strings.Fields("() car cdr cons quote eval lambda list + - * / < <= = is not atom if do let while " +
		"get-credits get-handle get-reputation has-capability deck-state describe type-of " +
		"*history* *clipboard* *tutorial-cursor* nil t")
}

// composer is the structural composition surface shared by the REPL prompt
// and the editor: the prompt, the palette, literal entry, the clipboard.
type composer struct {
	p       Prompt
	pal     *palette
	lit     *literal
	predict func() []string   // the tokens predicted for the palette (set by every owner)
	clip    func(*Node) error // stores a cut form; an error when it does not fit (set by every owner)
	w       *wording          // the deck's readouts and glyphs (set by every owner)
	readout string
}

// key handles a composition key. It returns false when the key is left to
// the caller (EVAL and QUOTE outside the palette and literal entry, and
// BACK at the root); any other key is the composer's (a digit outside
// literal entry does nothing).
func (c *composer) key(k Key) bool {
	if c.lit != nil {
		c.literalKey(k)
		return true
	}
	if c.pal != nil {
		c.paletteKey(k)
		return true
	}
	switch k {
	case KeyCar:
		if !c.p.HasChild() {
			c.readout = c.w.words.noChild
			break
		}
		c.p.Descend()
	case KeyCdr:
		if !c.p.HasNext() {
			c.readout = c.w.words.endOfList
			break
		}
		c.p.Next()
	case KeyBack:
		return c.p.Ascend()
	case KeyCons:
		c.pal = &palette{items: c.candidates()}
	case KeyLambda:
		c.lit = &literal{pending: -1}
	case KeyAtom:
		if n := c.p.Cur(); n != nil {
			c.readout = c.w.words.atom(n.Kind())
		} else {
			c.readout = c.w.words.atom("nil")
		}
	case KeyNil:
		n := c.p.Delete()
		if n == nil {
			c.readout = c.w.words.nothingToDelete
			break
		}
		c.readout = c.w.words.deleted
		if err := c.clip(n); err != nil {
			c.readout = c.w.words.deleted + "; " + short(err)
		}
	}
	return k != KeyQuote && k != KeyEval
}

// candidates are the palette's tokens: the predicted ones, then the fixed
// vocabulary, each once.
func (c *composer) candidates() []string {
	var out []string
	for _, s := range append(c.predict(), baseVocabulary()...) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func (c *composer) paletteKey(k Key) {
	switch k {
	case KeyCdr:
		c.pal.i = (c.pal.i + 1) % len(c.pal.items)
	case KeyCar:
		c.pal.i = (c.pal.i + len(c.pal.items) - 1) % len(c.pal.items)
	case KeyEval:
		tok := c.pal.items[c.pal.i]
		c.pal = nil
		n := Sym(tok)
		if tok == "()" {
			n = NewList()
		}
		if err := c.p.Insert(n); err != nil {
			c.readout = c.w.words.cannotInsert
		}
	case KeyBack:
		c.pal = nil
	}
}

func (c *composer) literalKey(k Key) {
	l := c.lit
	switch {
	case k.IsDigit():
		d := int(k[0] - '0')
		if l.pending == d {
			l.tap++
			return
		}
		l.commit()
		l.pending, l.tap = d, 0
	case k == KeyAtom:
		l.commit()
	case k == KeyNil:
		if l.pending >= 0 {
			l.pending = -1
		} else if len(l.buf) > 0 {
			l.buf = l.buf[:len(l.buf)-1]
		}
	case k == KeyBack:
		c.lit = nil
	case k == KeyEval:
		l.commit()
		c.lit = nil
		tok := strings.TrimSpace(string(l.buf))
		if tok == "" {
			return
		}
		if strings.HasPrefix(tok, "\"") && (len(tok) == 1 || !strings.HasSuffix(tok, "\"")) {
			tok += "\""
		} else if strings.ContainsAny(tok, " \"'") && !strings.HasPrefix(tok, "\"") {
			c.readout = c.w.words.notAToken
			return
		}
		if err := c.p.Insert(Sym(tok)); err != nil {
			c.readout = c.w.words.cannotInsert
		}
	}
}

// overlay returns the row-22 text of the palette or literal entry, if open.
func (c *composer) overlay() (string, bool) {
	switch {
	case c.lit != nil:
		return c.w.words.literal + c.lit.text() + string(DecodeCP437([]byte{c.w.glyphs.Block})), true
	case c.pal != nil:
		var b strings.Builder
		b.WriteString(c.w.words.palette)
		for i := c.pal.i; i < len(c.pal.items) && b.Len() < 70; i++ {
			b.WriteByte(' ')
			if i == c.pal.i {
				b.WriteString(DecodeCP437([]byte{c.w.glyphs.Cursor}))
			}
			b.WriteString(c.pal.items[i])
		}
		return b.String(), true
	}
	return "", false
}

// short is an error as a row-22 readout: a refused budget in its short form.
func short(err error) string {
	var be *BudgetError
	if errors.As(err, &be) {
		return be.Short()
	}
	return err.Error()
}
