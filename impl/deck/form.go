package deck

import (
	"fmt"
	"strconv"
	"strings"

	"anchorage/impl/fe"
)

// Node is one form of the structural prompt: an atom (its source token) or
// a list. Quoted is set on a (quote x) list written with the ' shorthand,
// so that it prints back the way it was written.
type Node struct {
	Atom   string
	IsList bool
	List   []*Node
	Quoted bool
}

// Sym returns an atom node.
func Sym(tok string) *Node { return &Node{Atom: tok} }

// NewList returns a list node.
func NewList(items ...*Node) *Node { return &Node{IsList: true, List: items} }

// Clone returns a deep copy of n.
func (n *Node) Clone() *Node {
	if n == nil {
		return nil
	}
	c := &Node{Atom: n.Atom, IsList: n.IsList, Quoted: n.Quoted}
	for _, k := range n.List {
		c.List = append(c.List, k.Clone())
	}
	return c
}

// String prints n as Fe source.
func (n *Node) String() string {
	return string(n.layout(nil, nil, layoutStyle{
		open: '(', close: ')', shorthand: true,
		atom: func(out []byte, tok string) []byte { return append(out, tok...) },
		mark: func(out []byte, _ []int) []byte { return out },
	}))
}

// layoutStyle is how layout writes a form: as Fe source, or as the
// structural prompt line draws it.
type layoutStyle struct {
	open, close byte
	shorthand   bool                                // a quoted (quote x) written with the ' it was written with
	atom        func(out []byte, tok string) []byte // appends an atom
	mark        func(out []byte, path []int) []byte // appends what precedes the form at path (the cursor)
}

// layout appends n, at path from the root, to out: a list between open and
// close with its items separated by blanks.
func (n *Node) layout(out []byte, path []int, st layoutStyle) []byte {
	out = st.mark(out, path)
	if !n.IsList {
		return st.atom(out, n.Atom)
	}
	if st.shorthand && n.Quoted && len(n.List) == 2 {
		return n.List[1].layout(append(out, '\''), append(path, 1), st)
	}
	out = append(out, st.open)
	for i, k := range n.List {
		if i > 0 {
			out = append(out, ' ')
		}
		out = k.layout(out, append(path, i), st)
	}
	return append(out, st.close)
}

// Kind classifies the form for the ATOM key: nil, cons, lambda, symbol,
// number, string or atom.
func (n *Node) Kind() string {
	if n.IsList {
		if len(n.List) == 0 {
			return "nil"
		}
		if h := n.List[0]; !h.IsList && (h.Atom == "fn" || h.Atom == "lambda") {
			return "lambda"
		}
		return "cons"
	}
	switch {
	case n.Atom == "nil":
		return "nil"
	case strings.HasPrefix(n.Atom, "\""):
		return "string"
	case isNumber(n.Atom):
		return "number"
	}
	return "symbol"
}

func isNumber(tok string) bool {
	_, err := strconv.ParseFloat(tok, 32)
	if err == nil {
		return true
	}
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return true
	}
	return false
}

// Parse reads exactly one datum of Fe source into a Node.
func Parse(src string) (*Node, error) {
	p := &parser{s: src}
	n, err := p.datum(0)
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("parse: trailing text at %d", p.i)
	}
	return n, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) skip() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			p.i++
		case c == ';':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

const maxParseDepth = 200

func (p *parser) datum(depth int) (*Node, error) {
	if depth > maxParseDepth {
		return nil, fmt.Errorf("parse: nesting deeper than %d", maxParseDepth)
	}
	p.skip()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("parse: unexpected end")
	}
	switch c := p.s[p.i]; c {
	case '(':
		p.i++
		l := NewList()
		for {
			p.skip()
			if p.i >= len(p.s) {
				return nil, fmt.Errorf("parse: unclosed list")
			}
			if p.s[p.i] == ')' {
				p.i++
				return l, nil
			}
			k, err := p.datum(depth + 1)
			if err != nil {
				return nil, err
			}
			l.List = append(l.List, k)
		}
	case ')':
		return nil, fmt.Errorf("parse: stray ')'")
	case '\'':
		p.i++
		k, err := p.datum(depth + 1)
		if err != nil {
			return nil, err
		}
		return &Node{IsList: true, List: []*Node{Sym("quote"), k}, Quoted: true}, nil
	case '"':
		start := p.i
		p.i++
		for p.i < len(p.s) && p.s[p.i] != '"' {
			if p.s[p.i] == '\\' {
				p.i++
			}
			p.i++
		}
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("parse: unclosed string")
		}
		p.i++
		return Sym(p.s[start:p.i]), nil
	}
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(" \n\t\r();", rune(p.s[p.i])) {
		p.i++
	}
	tok := p.s[start:p.i]
	if len(tok) > 63 {
		return nil, fmt.Errorf("parse: symbol too long")
	}
	return Sym(tok), nil
}

// unquote returns the text of a string token.
func unquote(tok string) string {
	body := strings.TrimSuffix(strings.TrimPrefix(tok, "\""), "\"")
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '\\' { // never the body's last byte: the reader took the one after it
			i++
			switch body[i] {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'r':
				c = '\r'
			default:
				c = body[i]
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// quoteString writes s as a string token.
func quoteString(s string) string {
	return "\"" + strings.NewReplacer("\\", "\\\\", "\"", "\\\"").Replace(s) + "\""
}

// ToValue builds n as a Lisp value. Call it inside vm.Do or a primitive.
func (n *Node) ToValue(vm *fe.VM) fe.Value {
	if n.IsList {
		items := make([]fe.Value, len(n.List))
		for i, k := range n.List {
			items[i] = k.ToValue(vm)
		}
		return vm.List(items...)
	}
	switch n.Kind() {
	case "nil":
		return fe.Nil
	case "string":
		return vm.String(unquote(n.Atom))
	case "number":
		f, _ := strconv.ParseFloat(n.Atom, 32)
		return vm.Number(float32(f))
	}
	return vm.Symbol(n.Atom)
}

// FromValue reads a Lisp value back into a Node. Functions and other
// values with no source form are an error. Call it inside vm.Do or a
// primitive. depth bounds recursion and length bounds list walking.
func FromValue(vm *fe.VM, v fe.Value, depth int) (*Node, error) {
	if depth > maxParseDepth {
		return nil, fmt.Errorf("form nested deeper than %d", maxParseDepth)
	}
	switch vm.Type(v) {
	case fe.TNil:
		return Sym("nil"), nil
	case fe.TNumber, fe.TSymbol:
		return Sym(vm.Print(v)), nil
	case fe.TString:
		return Sym(quoteString(vm.GoString(v))), nil
	case fe.TPair:
		if err := checkSpine(vm, v); err != nil {
			return nil, err
		}
		l := NewList()
		for ; vm.Type(v) == fe.TPair; v = vm.Cdr(v) {
			k, err := FromValue(vm, vm.Car(v), depth+1)
			if err != nil {
				return nil, err
			}
			l.List = append(l.List, k)
		}
		return l, nil
	}
	return nil, fmt.Errorf("a %s has no source form", vm.Type(v))
}

// maxListPairs bounds a list's spine: no arena holds this many pairs, so a
// walk that reaches it is going round a cycle (setcdr onto the list itself).
const maxListPairs = 4097

// checkSpine walks the cdr chain from v without allocating, so a cyclic
// list is refused before any node is built for it; it also refuses a
// dotted list, which has no structural form.
func checkSpine(vm *fe.VM, v fe.Value) error {
	for n := 0; vm.Type(v) == fe.TPair; n++ {
		if n == maxListPairs {
			return fmt.Errorf("list too long or cyclic")
		}
		v = vm.Cdr(v)
	}
	if v != fe.Nil {
		return fmt.Errorf("dotted list has no structural form")
	}
	return nil
}

// Prompt is a form under construction with a cursor: Path indexes from the
// root down to the form under the cursor. An empty prompt has no root.
type Prompt struct {
	Root *Node
	Path []int
}

// SetForm replaces the prompt with n, cursor at the root.
func (p *Prompt) SetForm(n *Node) { p.Root, p.Path = n, nil }

// Cur returns the form under the cursor (nil if empty).
func (p *Prompt) Cur() *Node {
	n := p.Root
	for _, i := range p.Path {
		n = n.List[i]
	}
	return n
}

func (p *Prompt) parent() *Node {
	n := p.Root
	for _, i := range p.Path[:len(p.Path)-1] {
		n = n.List[i]
	}
	return n
}

// HasChild reports whether the form under the cursor is a list with a
// first child to descend into.
func (p *Prompt) HasChild() bool {
	c := p.Cur()
	return c != nil && c.IsList && len(c.List) > 0
}

// Descend moves to the first child of the form under the cursor, which
// has one (HasChild).
func (p *Prompt) Descend() { p.Path = append(p.Path, 0) }

// HasNext reports whether the form under the cursor has a next sibling.
func (p *Prompt) HasNext() bool {
	return len(p.Path) > 0 && p.Path[len(p.Path)-1]+1 < len(p.parent().List)
}

// Next moves to the next sibling, which exists (HasNext).
func (p *Prompt) Next() { p.Path[len(p.Path)-1]++ }

// Ascend moves to the parent form; false at the root.
func (p *Prompt) Ascend() bool {
	if len(p.Path) == 0 {
		return false
	}
	p.Path = p.Path[:len(p.Path)-1]
	return true
}

// Insert places n at the cursor: into an empty list under the cursor, as
// the last element when the cursor is on a list at the root, otherwise
// after the form under the cursor. The cursor moves to n.
func (p *Prompt) Insert(n *Node) error {
	if p.Root == nil {
		p.Root, p.Path = n, nil
		return nil
	}
	c := p.Cur()
	switch {
	case c.IsList && len(c.List) == 0, len(p.Path) == 0 && c.IsList:
		c.List = append(c.List, n)
		p.Path = append(p.Path, len(c.List)-1)
	case len(p.Path) == 0:
		return fmt.Errorf("the prompt holds a single atom")
	default:
		par := p.parent()
		i := p.Path[len(p.Path)-1] + 1
		par.List = append(par.List[:i], append([]*Node{n}, par.List[i:]...)...)
		p.Path[len(p.Path)-1] = i
	}
	return nil
}

// Delete removes the form under the cursor and returns it. The cursor
// moves to the previous sibling, else to the parent.
func (p *Prompt) Delete() *Node {
	c := p.Cur()
	if c == nil {
		return nil
	}
	if len(p.Path) == 0 {
		p.Root = nil
		return c
	}
	par := p.parent()
	i := p.Path[len(p.Path)-1]
	par.List = append(par.List[:i], par.List[i+1:]...)
	if i > 0 {
		p.Path[len(p.Path)-1] = i - 1
	} else {
		p.Path = p.Path[:len(p.Path)-1]
	}
	return c
}

// RenderWith draws the prompt structurally as CP437 bytes with the glyphs
// and indentation of g: g.Indent columns of indentation per level of the
// cursor's depth (at most five levels), lists between g.Open and g.Close,
// the form under the cursor preceded by g.Cursor, and g.Block for an empty
// prompt. A line wider than width is scrolled to keep the cursor in view,
// with g.Left marking the cut.
func (p *Prompt) RenderWith(width int, g Glyphs) []byte {
	out := []byte(strings.Repeat(" ", g.Indent*min(len(p.Path), 5)))
	if p.Root == nil {
		return append(out, g.Block)
	}
	mark := -1
	out = p.Root.layout(out, nil, layoutStyle{
		open: g.Open, close: g.Close,
		atom: func(out []byte, tok string) []byte { return append(out, EncodeCP437(tok)...) },
		mark: func(out []byte, path []int) []byte {
			if len(path) == len(p.Path) && equalPath(path, p.Path) {
				mark = len(out)
				out = append(out, g.Cursor)
			}
			return out
		},
	})
	if len(out) > width && mark > width-10 {
		cut := mark - (width - 10)
		out = append([]byte{g.Left}, out[cut+1:]...)
	}
	return out[:min(len(out), width)]
}

func equalPath(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
