package ops

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/antchfx/xmlquery"
)

// LineSpan is a run of 1-based source lines, From to To inclusive.
type LineSpan struct {
	From, To int
}

// JSONNode is one value of a deepJson projection together with the source
// lines it came from: Span is what a hit on it selects (an object member
// from its key to the end of its value, anything else its value), Value
// the lines of its value alone (what the text of its projected XML element
// spans). A handler whose content is not JSON builds these nodes from its
// own parse, pointing at the lines of its own source.
type JSONNode struct {
	Key  string // the member name; "" for the root and array items
	Item bool   // an array item
	Kind byte   // '{' object, '[' array, 's' string, 'n' number, 'b' bool, 'z' null
	Text string // a scalar's text: a string unquoted, a number or bool as written
	Span LineSpan
	// Value is the lines of the value alone; zero means Span.
	Value LineSpan
	Kids  []*JSONNode
}

// JSONProjection is a channel's deepJson: the tree a jsonpath query runs
// over, with each node's source lines.
type JSONProjection struct {
	Root *JSONNode
	doc  any                  // the tree as encoding/json decodes it (numbers as json.Number)
	at   map[string]*JSONNode // RFC 6901 pointer → node; a repeated member keeps its last
}

// NewJSONProjection makes the deepJson projection of the tree at root; nil
// when root is nil.
func NewJSONProjection(root *JSONNode) *JSONProjection {
	if root == nil {
		return nil
	}
	p := &JSONProjection{Root: root, at: map[string]*JSONNode{}}
	p.doc = root.value("", p.at)
	return p
}

// value returns n as a decoded JSON value and records every node under its
// pointer.
func (n *JSONNode) value(ptr string, at map[string]*JSONNode) any {
	at[ptr] = n
	switch n.Kind {
	case '{':
		m := map[string]any{}
		for _, k := range n.Kids {
			seg := strings.ReplaceAll(strings.ReplaceAll(k.Key, "~", "~0"), "/", "~1")
			m[k.Key] = k.value(ptr+"/"+seg, at)
		}
		return m
	case '[':
		s := make([]any, 0, len(n.Kids))
		for i, k := range n.Kids {
			s = append(s, k.value(ptr+"/"+strconv.Itoa(i), at))
		}
		return s
	case 's':
		return n.Text
	case 'n':
		return json.Number(n.Text)
	case 'b':
		return n.Text == "true"
	}
	return nil
}

// valueSpan returns the lines of n's value.
func (n *JSONNode) valueSpan() LineSpan {
	if n.Value == (LineSpan{}) {
		return n.Span
	}
	return n.Value
}

// XMLProjection is a channel's deepXml: an xmlquery document (navigated by
// antchfx/xpath) with the source lines of each node. Spans holds an
// element's lines from its start tag to its end tag, a text node's non-blank
// text, the document's every line; Attrs the line of each attribute of an
// element, by local name (an attribute without one sits on its element's
// first line).
type XMLProjection struct {
	Root  *xmlquery.Node
	Spans map[*xmlquery.Node]LineSpan
	Attrs map[*xmlquery.Node]map[string]int
}

// NewXMLProjection returns an empty projection: a document node and no
// spans yet.
func NewXMLProjection() *XMLProjection {
	return &XMLProjection{
		Root:  &xmlquery.Node{Type: xmlquery.DocumentNode},
		Spans: map[*xmlquery.Node]LineSpan{},
		Attrs: map[*xmlquery.Node]map[string]int{},
	}
}

// jsonProjection is the deepJson of content that is exactly one JSON
// value, its nodes pointing at content's own lines.
func jsonProjection(content string) (*JSONProjection, error) {
	root, err := parseJSON(content)
	if err != nil {
		return nil, err
	}
	idx := newLineIndex(content)
	var conv func(n *jnode) *JSONNode
	conv = func(n *jnode) *JSONNode {
		out := &JSONNode{Key: n.key, Item: n.item, Kind: n.kind, Text: n.text,
			Span: idx.lines(n.from, n.to), Value: idx.lines(n.vfrom, n.to)}
		for _, k := range n.kids {
			out.Kids = append(out.Kids, conv(k))
		}
		return out
	}
	return NewJSONProjection(conv(root)), nil
}

// lines returns the first and last line a half-open byte range touches.
func (x lineIndex) lines(from, to int) LineSpan {
	s := x.span(from, to)
	return LineSpan{From: s[0], To: s[len(s)-1]}
}

// add appends the lines of s to out.
func (s LineSpan) add(out []int) []int {
	for l := s.From; l <= s.To; l++ {
		out = append(out, l)
	}
	return out
}
