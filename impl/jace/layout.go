package jace

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// What the variations do, in functions the reference never calls: the same
// answers written another way the protocol allows.

// relayout writes a JSON text again with every object's members in reverse
// order, indented by two spaces, ending with a newline (json-layout). Text
// that does not parse comes back as it was.
func relayout(b []byte) []byte {
	var out bytes.Buffer
	parseTree(b).encodeIndented(&out, "")
	out.WriteByte('\n')
	return out.Bytes()
}

// relayoutEvent is relayout for an event's data, without the final newline.
func relayoutEvent(b []byte) []byte { return bytes.TrimRight(relayout(b), "\n") }

// variedMediaParams are the Content-Type parameters under media-params.
func variedMediaParams() map[string]string {
	return map[string]string{
		TypeHTML: "; charset=utf-8", TypeJACE: `; profile="JACE/0.1"`, TypeJSON: "; charset=utf-8",
		"text/event-stream": "; charset=utf-8",
	}
}

// recase writes a header value HTTP compares without case in another case
// (header-case): in lower case, or capitalised when it is lower case.
func recase(v string) string {
	if lower := strings.ToLower(v); lower != v {
		return lower
	}
	return strings.ToUpper(v[:1]) + v[1:]
}

// variedEventDefaults are the defaults of an event's members under
// event-defaults: id <action>#<n>, entity "jace", ts without
// milliseconds, no changes.
func variedEventDefaults(d eventDefaults) *node {
	return &node{kind: '{', keys: []string{"type", "id", "ts", "entity"}, vals: []*node{
		scalarNode(d.action), scalarNode(d.action + "#" + strconv.FormatUint(d.seq, 10)),
		scalarNode(d.now.UTC().Format(time.RFC3339)), scalarNode("jace"),
	}}
}

// calledPreview is the derived audit_preview under preview: action(params).
func calledPreview(action, canonParams string) string { return action + "(" + canonParams + ")" }

// withSource adds a member to a relayed event (extra-members).
func withSource(ev *node) *node {
	ev.keys = append(ev.keys, "source")
	ev.vals = append(ev.vals, scalarNode("jace-runtime"))
	return ev
}

func (n *node) encodeIndented(w *bytes.Buffer, indent string) {
	inner := indent + "  "
	switch n.kind {
	case '{':
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
	case '[':
		if len(n.vals) == 0 {
			w.WriteString("[]")
			return
		}
		w.WriteString("[\n")
		for i, v := range n.vals {
			w.WriteString(inner)
			v.encodeIndented(w, inner)
			if i < len(n.vals)-1 {
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
func renderHTMLPlain(man Manifest, view json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>")
	b.WriteString(escapeNumeric(man.Name))
	b.WriteString("</title>\n</head>\n<body>\n<section class=\"view\">\n")
	renderPlain(&b, parseTree(view))
	b.WriteString("\n</section>\n</body>\n</html>\n")
	return b.Bytes()
}

func renderPlain(b *bytes.Buffer, n *node) {
	switch n.kind {
	case '{':
		b.WriteString("<ul>")
		for i, k := range n.keys {
			b.WriteString("<li><b>")
			b.WriteString(escapeNumeric(k))
			b.WriteString("</b>: ")
			renderPlain(b, n.vals[i])
			b.WriteString("</li>")
		}
		b.WriteString("</ul>")
	case '[':
		b.WriteString("<ul>")
		for _, v := range n.vals {
			b.WriteString("<li>")
			renderPlain(b, v)
			b.WriteString("</li>")
		}
		b.WriteString("</ul>")
	default:
		b.WriteString(escapeNumeric(scalarText(n.raw)))
	}
}

// escapeNumeric escapes the five characters HTML text and attributes need
// escaped, as numeric character references.
func escapeNumeric(s string) string {
	return strings.NewReplacer("&", "&#38;", "<", "&#60;", ">", "&#62;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// familyCode is FamilyStatus backwards: the canonical code of a status
// (for the statuses variation).
func familyCode(status int) (string, bool) {
	for _, c := range []string{"INVALID_PARAMS", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT",
		"PRECONDITION_FAILED", "RATE_LIMITED", "POLICY_DENIED", "INTERNAL", "DRY_RUN_UNSUPPORTED"} {
		if s, _ := FamilyStatus(c); s == status {
			return c, true
		}
	}
	return "", false
}
