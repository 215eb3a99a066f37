package ops

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/antchfx/xmlquery"
	"github.com/antchfx/xpath"
)

// parseXML builds the deepXml projection of XML content (html: lenient
// HTML, with void elements auto-closed, HTML entities and unclosed elements
// allowed). The tree is built here rather than by xmlquery's own parser so
// that every node keeps the exact source lines it spans.
func parseXML(content string, html bool) (*XMLProjection, error) {
	d := NewXMLProjection()
	idx := newLineIndex(content)
	dec := xml.NewDecoder(strings.NewReader(content))
	if html {
		dec.Strict, dec.AutoClose, dec.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	}
	type open struct {
		n    *xmlquery.Node
		from int
	}
	stack := []open{{n: d.Root}}
	elements := 0
	for {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if html && elements > 0 {
				break // lenient: keep what was read, close what is open
			}
			return nil, err
		}
		after := int(dec.InputOffset())
		cur := stack[len(stack)-1].n
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xmlquery.Node{Type: xmlquery.ElementNode, Data: t.Name.Local, NamespaceURI: t.Name.Space}
			attrs := map[string]int{}
			for _, a := range t.Attr {
				n.Attr = append(n.Attr, xmlquery.Attr{Name: a.Name, Value: a.Value, NamespaceURI: a.Name.Space})
				attrs[a.Name.Local] = idx.line(attrAt(content, before, after, a.Name.Local))
			}
			d.Attrs[n] = attrs
			xmlquery.AddChild(cur, n)
			stack = append(stack, open{n: n, from: before})
			elements++
		case xml.EndElement:
			if len(stack) > 1 {
				top := stack[len(stack)-1]
				d.Spans[top.n] = idx.lines(top.from, max(after, top.from+1))
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			n := &xmlquery.Node{Type: xmlquery.TextNode, Data: string(t)}
			xmlquery.AddChild(cur, n)
			sp := trimmed(content, before, after)
			d.Spans[n] = idx.lines(sp[0], sp[1])
		case xml.Comment:
			n := &xmlquery.Node{Type: xmlquery.CommentNode, Data: string(t)}
			xmlquery.AddChild(cur, n)
			d.Spans[n] = idx.lines(before, after)
		}
	}
	for len(stack) > 1 {
		top := stack[len(stack)-1]
		d.Spans[top.n] = idx.lines(top.from, len(content))
		stack = stack[:len(stack)-1]
	}
	if elements == 0 {
		return nil, errors.New("no element found")
	}
	d.Spans[d.Root] = idx.lines(0, len(content))
	return d, nil
}

// trimmed returns the range [from, to) without leading and trailing
// whitespace (the whole range when it is all whitespace).
func trimmed(s string, from, to int) [2]int {
	a, b := from, to
	for a < b && unicode.IsSpace(rune(s[a])) {
		a++
	}
	for b > a && unicode.IsSpace(rune(s[b-1])) {
		b--
	}
	if a == b {
		return [2]int{from, to}
	}
	return [2]int{a, b}
}

// projectJSON builds the deepXml projection of a deepJson one: the
// members of the top object become elements under the document root, named
// by their keys; an array's items become <item> elements inside its element
// (a top-level array's directly under the root); a scalar becomes the text
// of its element (a string unquoted, null empty). So `//host` selects the
// member "host" anywhere and `//tags/item[2]` the second item of "tags".
// Every node keeps the source lines of the JSON node it came from.
func projectJSON(root *JSONNode) *XMLProjection {
	d := NewXMLProjection()
	var add func(parent *xmlquery.Node, n *JSONNode)
	add = func(parent *xmlquery.Node, n *JSONNode) {
		switch n.Kind {
		case '{', '[':
			for _, k := range n.Kids {
				name := k.Key
				if k.Item {
					name = "item"
				}
				el := &xmlquery.Node{Type: xmlquery.ElementNode, Data: name}
				xmlquery.AddChild(parent, el)
				d.Spans[el] = k.Span
				add(el, k)
			}
		default:
			t := &xmlquery.Node{Type: xmlquery.TextNode, Data: n.Text}
			xmlquery.AddChild(parent, t)
			d.Spans[t] = n.valueSpan()
		}
	}
	add(d.Root, root)
	d.Spans[d.Root] = LineSpan{From: 1, To: root.Span.To}
	return d
}

func isJSONType(mt string) bool { return mt == "application/json" || strings.HasSuffix(mt, "+json") }

func isXMLType(mt string) bool {
	return mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml")
}

func compileXPath(expr string) (x *xpath.Expr, err error) {
	defer func() {
		if p := recover(); p != nil {
			x, err = nil, fmt.Errorf("%v", p)
		}
	}()
	return xpath.Compile(expr)
}

// matchXPath evaluates an XPath 1.0 expression over a channel's deepXml
// projection and reports the source lines of the nodes it selects; a
// channel without one answers 203. An expression that yields a number,
// string or boolean selects no location and is malformed as a matcher (400).
func matchXPath(x *xpath.Expr, d Derived, mimetype string) (res MatchResult) {
	proj := d.DeepXML
	if proj == nil {
		why := d.XMLError
		if why == "" {
			why = "its mimetype's process derived no deepXml projection"
		}
		return MatchResult{Status: 203, Reason: fmt.Sprintf("the source (%s) has no XML projection an xpath matcher can read: %s", mimetype, why)}
	}
	defer func() {
		if p := recover(); p != nil {
			res = MatchResult{Status: 400, Reason: fmt.Sprintf("xpath %q: %v", x.String(), p)}
		}
	}()
	it, ok := x.Evaluate(xmlquery.CreateXPathNavigator(proj.Root)).(*xpath.NodeIterator)
	if !ok {
		return MatchResult{Status: 400, Reason: fmt.Sprintf("xpath %q selects no nodes: a matcher selects locations, not values", x.String())}
	}
	var out []int
	for it.MoveNext() {
		nav, ok := it.Current().(*xmlquery.NodeNavigator)
		if !ok {
			continue
		}
		n := nav.Current()
		if nav.NodeType() == xpath.AttributeNode {
			if ln, ok := proj.Attrs[n][nav.LocalName()]; ok {
				out = append(out, ln)
			} else if sp, ok := proj.Spans[n]; ok {
				out = append(out, sp.From)
			}
			continue
		}
		if sp, ok := proj.Spans[n]; ok {
			out = sp.add(out)
		}
	}
	return hits(out)
}

// attrAt returns the offset of attribute name inside the start tag at
// content[from:to] (the tag's start when it cannot be found).
func attrAt(content string, from, to int, name string) int {
	src := content[from:to]
	for i := 0; i+len(name) <= len(src); i++ {
		j := strings.Index(src[i:], name)
		if j < 0 {
			break
		}
		i += j
		rest := strings.TrimLeft(src[i+len(name):], " \t\r\n")
		if i == 0 {
			continue
		}
		before := src[i-1]
		if (before == ' ' || before == '\t' || before == '\n' || before == '\r' || before == ':') && strings.HasPrefix(rest, "=") {
			return from + i
		}
	}
	return from
}
