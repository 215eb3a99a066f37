package jace

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// The json-layout and html variations: the same answers written another
// way the protocol allows.

// relayout writes a JSON text again with every object's members in reverse
// order, indented by two spaces, ending with a newline (json-layout). Text
// that does not parse comes back as it was.
func relayout(b []byte) []byte {
	t, err := parseTree(b)
	if err != nil {
		return b
	}
	var out bytes.Buffer
	t.encodeIndented(&out, "")
	out.WriteByte('\n')
	return out.Bytes()
}

func (n *node) encodeIndented(w *bytes.Buffer, indent string) {
	inner := indent + "  "
	switch n.kind {
	case 'o':
		if len(n.keys) == 0 {
			w.WriteString("{}")
			return
		}
		w.WriteString("{\n")
		for i := len(n.keys) - 1; i >= 0; i-- {
			w.WriteString(inner)
			w.Write(mustJSON(n.keys[i]))
			w.WriteString(": ")
			n.vals[i].encodeIndented(w, inner)
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "}")
	case 'a':
		if len(n.items) == 0 {
			w.WriteString("[]")
			return
		}
		w.WriteString("[\n")
		for i, it := range n.items {
			w.WriteString(inner)
			it.encodeIndented(w, inner)
			if i < len(n.items)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "]")
	default:
		w.Write(n.raw)
	}
}

// renderHTMLPlain is RenderHTML in other markup (the html variation): a
// lower-case doctype, sections and unordered lists, text escaped with
// numeric character references.
func renderHTMLPlain(w io.Writer, man Manifest, view json.RawMessage) error {
	t, err := parseTree(view)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("<!doctype html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>")
	b.WriteString(escapeNumeric(man.Name))
	b.WriteString("</title>\n</head>\n<body>\n<section class=\"view\">\n")
	renderPlain(&b, t)
	b.WriteString("\n</section>\n</body>\n</html>\n")
	_, err = w.Write(b.Bytes())
	return err
}

func renderPlain(b *bytes.Buffer, n *node) {
	switch n.kind {
	case 'o':
		b.WriteString("<ul>")
		for i, k := range n.keys {
			b.WriteString("<li><b>")
			b.WriteString(escapeNumeric(k))
			b.WriteString("</b>: ")
			renderPlain(b, n.vals[i])
			b.WriteString("</li>")
		}
		b.WriteString("</ul>")
	case 'a':
		b.WriteString("<ul>")
		for _, it := range n.items {
			b.WriteString("<li>")
			renderPlain(b, it)
			b.WriteString("</li>")
		}
		b.WriteString("</ul>")
	default:
		var s string
		if json.Unmarshal(n.raw, &s) != nil {
			s = string(n.raw)
		}
		b.WriteString(escapeNumeric(s))
	}
}

// escapeNumeric escapes the five characters HTML text and attributes need
// escaped, as numeric character references.
func escapeNumeric(s string) string {
	return strings.NewReplacer("&", "&#38;", "<", "&#60;", ">", "&#62;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
