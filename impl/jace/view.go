package jace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
)

// Audiences of /view.
const (
	AudienceAgent = "agent"
	AudienceHuman = "human"
)

// node is a JSON value that keeps object key order, so filtering a view
// and rendering it never reorders what the module wrote.
type node struct {
	kind  byte // 'o' object, 'a' array, 'v' scalar
	keys  []string
	vals  []*node
	items []*node
	raw   json.RawMessage
}

func parseTree(b []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		return nil, fmt.Errorf("decoding the view: %w", err)
	}
	return n, nil
}

func readNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: 'o'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				v, err := readNode(dec)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k)
				n.vals = append(n.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		case '[':
			n := &node{kind: 'a'}
			for dec.More() {
				v, err := readNode(dec)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		return &node{kind: 'v', raw: json.RawMessage(t.String())}, nil
	default:
		return &node{kind: 'v', raw: mustJSON(t)}, nil
	}
}

func (n *node) encode(w *bytes.Buffer) {
	switch n.kind {
	case 'o':
		w.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				w.WriteByte(',')
			}
			w.Write(mustJSON(k))
			w.WriteByte(':')
			n.vals[i].encode(w)
		}
		w.WriteByte('}')
	case 'a':
		w.WriteByte('[')
		for i, v := range n.items {
			if i > 0 {
				w.WriteByte(',')
			}
			v.encode(w)
		}
		w.WriteByte(']')
	default:
		w.Write(n.raw)
	}
}

func (n *node) str(key string) (string, bool) {
	if n.kind != 'o' {
		return "", false
	}
	for i, k := range n.keys {
		if k == key && n.vals[i].kind == 'v' {
			var s string
			if json.Unmarshal(n.vals[i].raw, &s) == nil {
				return s, true
			}
		}
	}
	return "", false
}

// filter returns the view for audience: for agents every "presentation"
// field is removed and every node with audience "human" is dropped; for
// humans every node with audience "agent" is dropped. nil means the node
// itself is dropped.
func filter(n *node, audience string) *node {
	drop := AudienceAgent
	if audience == AudienceAgent {
		drop = AudienceHuman
	}
	switch n.kind {
	case 'o':
		if a, ok := n.str("audience"); ok && a == drop {
			return nil
		}
		out := &node{kind: 'o'}
		for i, k := range n.keys {
			if audience == AudienceAgent && k == "presentation" {
				continue
			}
			if v := filter(n.vals[i], audience); v != nil {
				out.keys = append(out.keys, k)
				out.vals = append(out.vals, v)
			}
		}
		return out
	case 'a':
		out := &node{kind: 'a', items: []*node{}}
		for _, it := range n.items {
			if v := filter(it, audience); v != nil {
				out.items = append(out.items, v)
			}
		}
		return out
	}
	return n
}

// filterTree is the tree-based form of FilterView, kept as the oracle the
// byte scanner is tested against.
func filterTree(view json.RawMessage, audience string) (json.RawMessage, error) {
	t, err := parseTree(view)
	if err != nil {
		return nil, err
	}
	f := filter(t, audience)
	if f == nil {
		return json.RawMessage("null"), nil
	}
	var b bytes.Buffer
	f.encode(&b)
	return json.RawMessage(b.Bytes()), nil
}

// RenderHTML renders a view (already filtered for humans) as a standalone
// HTML page: objects become definition lists (with their "type" as a
// class), arrays ordered lists, scalars escaped text.
func RenderHTML(w io.Writer, man Manifest, view json.RawMessage) error {
	t, err := parseTree(view)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	title := html.EscapeString(man.Name + " " + man.Version)
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>")
	b.WriteString(title)
	b.WriteString("</title></head>\n<body>\n<main class=\"jace\" data-module=\"")
	b.WriteString(html.EscapeString(man.Name))
	b.WriteString("\">\n")
	renderNode(&b, t)
	b.WriteString("\n</main>\n</body>\n</html>\n")
	_, err = w.Write(b.Bytes())
	return err
}

func renderNode(b *bytes.Buffer, n *node) {
	switch n.kind {
	case 'o':
		b.WriteString(`<dl class="jace-node`)
		if t, ok := n.str("type"); ok {
			b.WriteString(" jace-")
			b.WriteString(html.EscapeString(t))
		}
		b.WriteString(`"`)
		if id, ok := n.str("id"); ok {
			b.WriteString(` id="`)
			b.WriteString(html.EscapeString(id))
			b.WriteString(`"`)
		}
		b.WriteString(">")
		for i, k := range n.keys {
			b.WriteString("<dt>")
			b.WriteString(html.EscapeString(k))
			b.WriteString("</dt><dd>")
			renderNode(b, n.vals[i])
			b.WriteString("</dd>")
		}
		b.WriteString("</dl>")
	case 'a':
		b.WriteString("<ol>")
		for _, it := range n.items {
			b.WriteString("<li>")
			renderNode(b, it)
			b.WriteString("</li>")
		}
		b.WriteString("</ol>")
	default:
		var s string
		if json.Unmarshal(n.raw, &s) == nil {
			b.WriteString(html.EscapeString(s))
		} else {
			b.WriteString(html.EscapeString(string(n.raw)))
		}
	}
}

// Representations of a view.
const (
	TypeJACE = "application/jace+json"
	TypeJSON = "application/json"
	TypeHTML = "text/html"
)

// Negotiate picks, among offers, the media type the Accept header rates
// highest: q > 0, a type named exactly beats a wildcard at the same q, and
// otherwise the earlier offer wins. A media range named twice counts with
// its first q. ok is false when the header is empty or accepts none of the
// offers.
func Negotiate(accept string, offers []string) (mt string, ok bool) {
	if strings.TrimSpace(accept) == "" {
		return "", false
	}
	type rng struct {
		typ, sub string
		q        float64
	}
	var ranges []rng
	for _, part := range strings.Split(accept, ",") {
		fields := strings.Split(part, ";")
		full := strings.ToLower(strings.TrimSpace(fields[0]))
		typ, sub, found := strings.Cut(full, "/")
		if !found {
			continue
		}
		q := 1.0
		for _, p := range fields[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		ranges = append(ranges, rng{typ, sub, q})
	}
	bestQ, bestSpec := 0.0, -1
	for _, o := range offers {
		ot, os, _ := strings.Cut(o, "/")
		q, spec := 0.0, -1
		for _, r := range ranges {
			s := -1
			switch {
			case r.typ == ot && r.sub == os:
				s = 2
			case r.typ == ot && r.sub == "*":
				s = 1
			case r.typ == "*" && r.sub == "*":
				s = 0
			}
			if s > spec {
				spec, q = s, r.q
			}
		}
		if spec < 0 || q <= 0 {
			continue
		}
		if q > bestQ || (q == bestQ && spec == 2 && bestSpec < 2) {
			mt, bestQ, bestSpec = o, q, spec
		}
	}
	return mt, mt != ""
}
