package engine

import (
	"fmt"
	"strings"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/packet"
	"anchorage/impl/plurnk/telemetry"
	"anchorage/impl/vary"
)

// The engine's side of the spec-permitted variations (config.Variations):
// each is a choice the seed leaves open, made otherwise than the
// reference decides it.

// variedKind is the kind the notices variation gives a notice kind the
// seed does not name ("" for any other kind).
func variedKind(kind string) string {
	switch kind {
	case "idle_turn":
		return "turn_idle"
	case "premature_terminate":
		return "terminate_premature"
	case "max_turns":
		return "turn_limit"
	}
	return ""
}

// renameNotice is the notices variation: it renames a notice of a kind the
// seed does not name (and the max-turns warning's remaining member).
func renameNotice(n telemetry.Notice) telemetry.Notice {
	kind := variedKind(n.Kind())
	if kind == "" {
		return n
	}
	out := telemetry.Notice{}
	for k, v := range n {
		switch k {
		case "kind":
			out[k] = kind
		case "remaining":
			out["turnsLeft"] = v
		default:
			out[k] = v
		}
	}
	return out
}

// parseMessage is the reason of a parse-error row: `parse: L:C: message`,
// or under the parse-errors variation a wording of its own.
func (e *Engine) parseMessage(line, column int, msg string) string {
	return vary.Choose(e.Config.Vary, config.VaryParseErrors, parseMessage, ownParseMessage)(line, column, msg)
}

func parseMessage(line, column int, msg string) string {
	return fmt.Sprintf("parse: %d:%d: %s", line, column, msg)
}

// ownParseMessage is the parse-errors variation's wording.
func ownParseMessage(line, column int, msg string) string {
	msg = strings.ReplaceAll(msg, "expected ", "wanted ")
	msg = strings.ReplaceAll(msg, "found ", "got ")
	return fmt.Sprintf("SyntaxError (line %d, column %d) %s", line, column, msg)
}

// headline renders the budget headline: `ceiling C, usage Y (P%), free F`,
// or under the headline variation `usage Y (P%) of C, F free`.
func (e *Engine) headline(h packet.Headline) string {
	return vary.Choose(e.Config.Vary, config.VaryHeadline, packet.Headline.String, ownHeadline)(h)
}

// ownHeadline is the headline variation's wording of a bounded headline.
func ownHeadline(h packet.Headline) string {
	if !h.Bounded {
		return h.String()
	}
	return fmt.Sprintf("usage %d (%d%%) of %d, %d free", h.Usage, h.Percent, h.Ceiling, h.Free)
}
