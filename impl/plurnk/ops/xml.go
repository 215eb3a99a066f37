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

// xmlDoc is a content's XML projection: an xmlquery tree (navigated by
// antchfx/xpath) and the source byte range of each of its nodes.
type xmlDoc struct {
	root  *xmlquery.Node
	spans map[*xmlquery.Node][2]int // element: start tag to end tag; text: its non-blank part
	tags  map[*xmlquery.Node][2]int // element: its start tag
}

func newXMLDoc() *xmlDoc {
	return &xmlDoc{root: &xmlquery.Node{Type: xmlquery.DocumentNode}, spans: map[*xmlquery.Node][2]int{}, tags: map[*xmlquery.Node][2]int{}}
}

// parseXML builds the projection of XML content (html: lenient HTML, with
// void elements auto-closed, HTML entities and unclosed elements allowed).
// The tree is built here rather than by xmlquery's own parser so that every
// node keeps the exact source range it spans.
func parseXML(content string, html bool) (*xmlDoc, error) {
	d := newXMLDoc()
	dec := xml.NewDecoder(strings.NewReader(content))
	if html {
		dec.Strict, dec.AutoClose, dec.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	}
	type open struct {
		n    *xmlquery.Node
		from int
	}
	stack := []open{{n: d.root}}
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
			for _, a := range t.Attr {
				n.Attr = append(n.Attr, xmlquery.Attr{Name: a.Name, Value: a.Value, NamespaceURI: a.Name.Space})
			}
			xmlquery.AddChild(cur, n)
			d.tags[n] = [2]int{before, after}
			stack = append(stack, open{n: n, from: before})
			elements++
		case xml.EndElement:
			if len(stack) > 1 {
				top := stack[len(stack)-1]
				d.spans[top.n] = [2]int{top.from, max(after, top.from+1)}
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			n := &xmlquery.Node{Type: xmlquery.TextNode, Data: string(t)}
			xmlquery.AddChild(cur, n)
			d.spans[n] = trimmed(content, before, after)
		case xml.Comment:
			n := &xmlquery.Node{Type: xmlquery.CommentNode, Data: string(t)}
			xmlquery.AddChild(cur, n)
			d.spans[n] = [2]int{before, after}
		}
	}
	for len(stack) > 1 {
		top := stack[len(stack)-1]
		d.spans[top.n] = [2]int{top.from, len(content)}
		stack = stack[:len(stack)-1]
	}
	if elements == 0 {
		return nil, errors.New("no element found")
	}
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

// projectJSON builds the XML projection of a JSON document: the members of
// the top object become elements under the document root, named by their
// keys; an array's items become <item> elements inside its element (a
// top-level array's directly under the root); a scalar becomes the text of
// its element (a string unquoted, null empty). So `//host` selects the
// member "host" anywhere and `//tags/item[2]` the second item of "tags".
func projectJSON(root *jnode) *xmlDoc {
	d := newXMLDoc()
	var add func(parent *xmlquery.Node, n *jnode)
	add = func(parent *xmlquery.Node, n *jnode) {
		switch n.kind {
		case '{', '[':
			for _, k := range n.kids {
				name := k.key
				if k.item {
					name = "item"
				}
				el := &xmlquery.Node{Type: xmlquery.ElementNode, Data: name}
				xmlquery.AddChild(parent, el)
				d.spans[el] = [2]int{k.from, k.to}
				add(el, k)
			}
		default:
			t := &xmlquery.Node{Type: xmlquery.TextNode, Data: n.text}
			xmlquery.AddChild(parent, t)
			d.spans[t] = [2]int{n.vfrom, n.to}
		}
	}
	add(d.root, root)
	return d
}

func isJSONType(mt string) bool { return mt == "application/json" || strings.HasSuffix(mt, "+json") }

func isXMLType(mt string) bool {
	return mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml")
}

// xmlProjection returns the XML projection of content: HTML for text/html,
// JSON elements for JSON content (by mimetype, or when the content parses
// as JSON), else the content parsed as XML.
func xmlProjection(content, mimetype string) (*xmlDoc, error) {
	if mimetype == "text/html" {
		return parseXML(content, true)
	}
	if !isXMLType(mimetype) {
		if root, err := parseJSON(content); err == nil {
			return projectJSON(root), nil
		} else if isJSONType(mimetype) {
			return nil, err
		}
	}
	return parseXML(content, false)
}

func compileXPath(expr string) (x *xpath.Expr, err error) {
	defer func() {
		if p := recover(); p != nil {
			x, err = nil, fmt.Errorf("%v", p)
		}
	}()
	return xpath.Compile(expr)
}

// matchXPath evaluates an XPath 1.0 expression over the content's XML
// projection and reports the lines of the nodes it selects. An expression
// that yields a number, string or boolean selects no location and is
// malformed as a matcher (400).
func matchXPath(x *xpath.Expr, content, mimetype string) (res MatchResult) {
	d, err := xmlProjection(content, mimetype)
	if err != nil {
		return MatchResult{Status: 203, Reason: fmt.Sprintf("the source (%s) has no XML projection an xpath matcher can read: %v", mimetype, err)}
	}
	defer func() {
		if p := recover(); p != nil {
			res = MatchResult{Status: 400, Reason: fmt.Sprintf("xpath %q: %v", x.String(), p)}
		}
	}()
	it, ok := x.Evaluate(xmlquery.CreateXPathNavigator(d.root)).(*xpath.NodeIterator)
	if !ok {
		return MatchResult{Status: 400, Reason: fmt.Sprintf("xpath %q selects no nodes: a matcher selects locations, not values", x.String())}
	}
	idx := newLineIndex(content)
	var out []int
	for it.MoveNext() {
		nav, ok := it.Current().(*xmlquery.NodeNavigator)
		if !ok {
			continue
		}
		n := nav.Current()
		if nav.NodeType() == xpath.AttributeNode {
			if at, ok := d.attrAt(content, n, nav.LocalName()); ok {
				out = append(out, idx.line(at))
			}
			continue
		}
		if sp, ok := d.spans[n]; ok {
			out = append(out, idx.span(sp[0], sp[1])...)
		} else if n == d.root {
			out = append(out, idx.span(0, len(content))...)
		}
	}
	return hits(out)
}

// attrAt returns the offset of attribute name inside element n's start tag
// (the tag's start when it cannot be found, for a projected element).
func (d *xmlDoc) attrAt(content string, n *xmlquery.Node, name string) (int, bool) {
	tag, ok := d.tags[n]
	if !ok {
		sp, ok := d.spans[n]
		return sp[0], ok
	}
	src := content[tag[0]:tag[1]]
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
			return tag[0] + i, true
		}
	}
	return tag[0], true
}
