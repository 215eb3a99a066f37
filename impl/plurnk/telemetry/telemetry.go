// Package telemetry holds the engine notices of plurnk-service 0.56
// (features/plurnk/SPEC.md, §telemetry-drain-on-read,
// §telemetry-content-offset-snippet, §telemetry-telemetry-event-notify):
// a push-ordered buffer drained when a packet reads it, the canonical-JSON
// line each notice renders as under `## Plurnk System Errors`, and the
// numbered snippet of the model's own emission that a content-offset
// position brings with it.
//
// Errors are not notices: failed actions and parse failures are log rows
// (the packet's errors section points at them). There is no error://
// scheme; the `error://<line>` fence is only the label of a snippet.
//
// It imports only the standard library.
package telemetry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Notice is one engine or provider notice: flat fields, at least "source"
// and "kind". A content-offset notice carries
// "position": {"type": "content-offset", "line": L, "column": C}.
type Notice map[string]any

// Kind returns the notice's kind.
func (n Notice) Kind() string {
	k, _ := n["kind"].(string)
	return k
}

// Sink receives every notice the moment it is pushed, tagged with the
// session and loop it belongs to: the in-process side of the daemon's
// telemetry/event notification.
type Sink func(sessionID, loopID int64, n Notice)

// Buffer holds the notices not yet shown to the model, in push order.
type Buffer struct {
	notices []Notice
}

// Push appends n.
func (b *Buffer) Push(n Notice) { b.notices = append(b.notices, n) }

// Peek returns the buffered notices without draining them.
func (b *Buffer) Peek() []Notice { return append([]Notice(nil), b.notices...) }

// Drain returns the buffered notices and empties the buffer.
func (b *Buffer) Drain() []Notice {
	out := b.notices
	b.notices = nil
	return out
}

// Len returns how many notices wait.
func (b *Buffer) Len() int { return len(b.notices) }

// Canonical renders v as compact JSON with object keys sorted and no HTML
// escaping, the form a notice takes in the packet.
func Canonical(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("canonical json: %w", err)
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// SnippetRadius is how many lines on each side of the offending line a
// content-offset snippet shows.
const SnippetRadius = 2

// Position returns the line of a content-offset position, if n has one.
func (n Notice) Position() (line int, ok bool) {
	p, isMap := n["position"].(map[string]any)
	if !isMap || p["type"] != "content-offset" {
		return 0, false
	}
	switch v := p["line"].(type) {
	case int:
		return v, v > 0
	case float64:
		return int(v), v >= 1 && v == float64(int(v))
	case json.Number:
		i, err := v.Int64()
		return int(i), err == nil && i > 0
	}
	return 0, false
}

// RenderRadius renders notices one `* {canonical-JSON}` line each, in order.
// A notice with a content-offset position is followed by the radius lines
// on each side of that spot of prev (the model's previous emission), each
// `N:\t`-numbered, fenced `:::error://<line>` … `:::`; its own "snippet"
// field is left out of the JSON so the snippet appears once.
func RenderRadius(notices []Notice, prev string, radius int) (string, error) {
	var b strings.Builder
	for _, n := range notices {
		line, hasPos := n.Position()
		meta := n
		if hasPos {
			meta = Notice{}
			for k, v := range n {
				if k != "snippet" {
					meta[k] = v
				}
			}
		}
		js, err := Canonical(meta)
		if err != nil {
			return "", fmt.Errorf("render notice %q: %w", n.Kind(), err)
		}
		b.WriteString("* " + js + "\n")
		if !hasPos {
			continue
		}
		if snip := Snippet(prev, line, radius); snip != "" {
			fmt.Fprintf(&b, ":::error://%d\n%s:::\n", line, snip)
		}
	}
	return b.String(), nil
}

// Snippet returns lines line-radius … line+radius of src (1-based, clipped
// to the text), each prefixed `N:\t` and ended by a newline. It is empty
// when line is outside src.
func Snippet(src string, line, radius int) string {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if src == "" || line < 1 || line > len(lines) {
		return ""
	}
	from, to := max(1, line-radius), min(len(lines), line+radius)
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d:\t%s\n", i, lines[i-1])
	}
	return b.String()
}
