package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/vary"
)

// The daemon's side of the spec-permitted variations
// (config.Variations): what a frame looks like on the wire, and the
// choices the orchestrator makes.

// varyFrame rewrites a frame the server sends (an answer, a batch of
// them, or a notification) under the variations in force: reasons rewords
// an error's message, extra-members adds a daemon member to every result
// and params object, json-order reverses the order of every object's
// members. Without any of them the frame is sent as it is.
func (s *Server) varyFrame(b []byte) []byte {
	v := s.cfg.Vary
	if !v.Has(config.VaryReasons) && !v.Has(config.VaryExtraMembers) && !v.Has(config.VaryJSONOrder) {
		return b
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tree, err := decodeOrdered(dec)
	if err != nil {
		return b
	}
	switch t := tree.(type) {
	case object:
		tree = s.varyMessage(t)
	case []any:
		for i, item := range t {
			if o, ok := item.(object); ok {
				t[i] = s.varyMessage(o)
			}
		}
	}
	var out bytes.Buffer
	encodeOrdered(&out, tree, v.Has(config.VaryJSONOrder))
	return out.Bytes()
}

// varyMessage applies reasons and extra-members to one JSON-RPC message.
func (s *Server) varyMessage(m object) object {
	for i, mem := range m {
		switch mem.key {
		case "error":
			if e, ok := mem.val.(object); ok && s.cfg.Vary.Has(config.VaryReasons) {
				for j, em := range e {
					if msg, ok := em.val.(string); ok && em.key == "message" {
						e[j].val = ops.RewordAll(msg)
					}
				}
			}
		case "result", "params":
			if o, ok := mem.val.(object); ok && s.cfg.Vary.Has(config.VaryExtraMembers) {
				m[i].val = append(o, member{key: "daemon", val: "plurnkd"})
			}
		}
	}
	return m
}

// object is a JSON object with its members in order.
type object []member

type member struct {
	key string
	val any
}

// decodeOrdered reads one JSON value, keeping the order of object members
// (numbers stay json.Number).
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := tok.(type) {
	case json.Delim:
		switch d {
		case '{':
			var o object
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := k.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v", k)
				}
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, member{key, v})
			}
			_, err := dec.Token() // }
			if o == nil {
				o = object{}
			}
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token() // ]
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", d)
	}
	return tok, nil
}

// encodeOrdered writes v as JSON, every object's members in their order,
// or in the opposite order when reverse is set.
func encodeOrdered(b *bytes.Buffer, v any, reverse bool) {
	switch t := v.(type) {
	case object:
		b.WriteByte('{')
		for i := range t {
			m := t[i]
			if reverse {
				m = t[len(t)-1-i]
			}
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(m.key)
			b.Write(k)
			b.WriteByte(':')
			encodeOrdered(b, m.val, reverse)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, x := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeOrdered(b, x, reverse)
		}
		b.WriteByte(']')
	case json.Number:
		b.WriteString(t.String())
	default:
		enc, _ := json.Marshal(t)
		b.Write(enc)
	}
}

// wakeAction is stream/concluded's wakeAction: the runs service's, or
// under the wake-actions variation names of its own.
func (o *Orchestrator) wakeAction(a string) string {
	return vary.Apply(o.cfg.Vary, config.VaryWakeActions, a, ownWakeAction)
}

// ownWakeAction is the wake-actions variation's name for a.
func ownWakeAction(a string) string {
	switch a {
	case runs.WakeResumed:
		return "resumed"
	case runs.WakeActiveLoop:
		return "folded"
	case runs.WakeSkippedAborted:
		return "skipped:aborted"
	case runs.WakeSkippedCancelled:
		return "skipped:cancelled"
	case runs.WakeNoLoop:
		return "none"
	}
	return a
}

// summary is stream/concluded's summary, for display: the runs service's,
// or under the stream-summary variation worded otherwise.
func (o *Orchestrator) summary(s string) string {
	return vary.Apply(o.cfg.Vary, config.VaryStreamSummary, s, ownSummary)
}

// ownSummary is the stream-summary variation's wording of s.
func ownSummary(s string) string {
	s = strings.Replace(s, " exited with code ", ": exit status ", 1)
	s = strings.Replace(s, " was killed", ": killed", 1)
	s = strings.Replace(s, " stopped at its time limit", ": timed out", 1)
	return "stream done — " + s
}

// sessionName is the name a session created without one gets: session-<id>,
// or s<id> under the session-names variation.
func (o *Orchestrator) sessionName(id int64) string {
	return fmt.Sprintf(vary.Choose(o.cfg.Vary, config.VarySessionNames, "session-%d", "s%d"), id)
}
