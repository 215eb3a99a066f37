package jace

import (
	"bytes"
	"encoding/json"
	"html"
	"strconv"
	"strings"
)

// Audiences of /view.
const (
	AudienceAgent = "agent"
	AudienceHuman = "human"
)

// node is a JSON value that keeps object member order, so filtering a view
// and rendering it never reorders what the module wrote: an object ('{')
// or array ('[') holds its values in vals (and an object its member names
// in keys), a scalar ('v') its JSON text in raw.
type node struct {
	kind byte
	keys []string
	vals []*node
	raw  json.RawMessage
}

// parseTree reads a JSON text that the VM's JSON.stringify wrote (the only
// JSON this runtime parses into a tree: views, and events from an
// ActionResult), so every token reads. A number is read as a float64 and
// written back as encoding/json writes it, which is how JSON.stringify
// wrote it (TestJSNumbersSurviveFloat64).
func parseTree(b []byte) *node {
	return readNode(json.NewDecoder(bytes.NewReader(b)))
}

func readNode(dec *json.Decoder) *node {
	tok, _ := dec.Token() // JSON.stringify's text: every token reads
	d, ok := tok.(json.Delim)
	if !ok {
		return &node{kind: 'v', raw: mustJSON(tok)}
	}
	n := &node{kind: byte(d)}
	for dec.More() {
		if d == '{' {
			k, _ := dec.Token()
			n.keys = append(n.keys, k.(string))
		}
		n.vals = append(n.vals, readNode(dec))
	}
	dec.Token() // the closing '}' or ']'
	return n
}

func (n *node) encode(w *bytes.Buffer) {
	if n.kind == 'v' {
		w.Write(n.raw)
		return
	}
	w.WriteByte(n.kind)
	for i, v := range n.vals {
		if i > 0 {
			w.WriteByte(',')
		}
		if n.kind == '{' {
			w.Write(mustJSON(n.keys[i]))
			w.WriteByte(':')
		}
		v.encode(w)
	}
	w.WriteString(closing(n.kind))
}

// closing is the delimiter that closes an object or an array.
func closing(kind byte) string { return map[byte]string{'{': "}", '[': "]"}[kind] }

// member is the JSON text of an object's member name, nil when it has none.
func (n *node) member(name string) json.RawMessage {
	for i, k := range n.keys {
		if k == name {
			return n.vals[i].raw
		}
	}
	return nil
}

// FilterView applies the audience rules to a view's JSON: for agents every
// "presentation" member is removed and every object whose own "audience"
// is "human" is left out; for humans every object whose "audience" is
// "agent" is left out. Member order and number spelling are kept. A view
// that is itself left out is null.
func FilterView(view json.RawMessage, audience string) json.RawMessage {
	f := filter(parseTree(view), audience)
	if f == nil {
		return json.RawMessage("null")
	}
	var b bytes.Buffer
	f.encode(&b)
	return b.Bytes()
}

// filter is FilterView on a tree; nil means the node itself is left out.
func filter(n *node, audience string) *node {
	if string(n.member("audience")) == map[string]string{AudienceAgent: `"human"`, AudienceHuman: `"agent"`}[audience] {
		return nil
	}
	if n.kind == 'v' {
		return n
	}
	out := &node{kind: n.kind}
	for i, v := range n.vals {
		if n.kind == '{' && audience == AudienceAgent && n.keys[i] == "presentation" {
			continue
		}
		f := filter(v, audience)
		if f == nil {
			continue
		}
		if n.kind == '{' {
			out.keys = append(out.keys, n.keys[i])
		}
		out.vals = append(out.vals, f)
	}
	return out
}

// RenderHTML renders a view (already filtered for humans) as a standalone
// HTML page: objects become definition lists, arrays ordered lists,
// scalars escaped text.
func RenderHTML(man Manifest, view json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>")
	b.WriteString(html.EscapeString(man.Name + " " + man.Version))
	b.WriteString("</title></head>\n<body>\n<main class=\"jace\" data-module=\"")
	b.WriteString(html.EscapeString(man.Name))
	b.WriteString("\">\n")
	renderNode(&b, parseTree(view))
	b.WriteString("\n</main>\n</body>\n</html>\n")
	return b.Bytes()
}

func renderNode(b *bytes.Buffer, n *node) {
	switch n.kind {
	case '{':
		b.WriteString("<dl>")
		for i, k := range n.keys {
			b.WriteString("<dt>")
			b.WriteString(html.EscapeString(k))
			b.WriteString("</dt><dd>")
			renderNode(b, n.vals[i])
			b.WriteString("</dd>")
		}
		b.WriteString("</dl>")
	case '[':
		b.WriteString("<ol>")
		for _, v := range n.vals {
			b.WriteString("<li>")
			renderNode(b, v)
			b.WriteString("</li>")
		}
		b.WriteString("</ol>")
	default:
		b.WriteString(html.EscapeString(scalarText(n.raw)))
	}
}

// scalarText is what a page shows for a scalar: a string's text, any other
// scalar's JSON.
func scalarText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(raw)
	}
	return s
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
