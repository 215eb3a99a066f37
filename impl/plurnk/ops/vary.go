package ops

import (
	"encoding/json"
	"regexp"
	"strings"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/vary"
)

// The op engine's side of the spec-permitted variations
// (config.Variations).

// reason is the reason a failed op's row records: its own, or under the
// reasons variation the same facts reworded. A one-word outcome
// (rejected, write_conflict, timeout) is a code and stays.
func (e *Engine) reason(status int, reason string) string {
	return vary.Apply(e.Vary, config.VaryReasons, reason, func(r string) string { return rewordFailure(status, r) })
}

// rewordFailure is the reasons variation's wording of a failed op's reason.
func rewordFailure(status int, reason string) string {
	if status < 400 {
		return reason
	}
	return Reword(reason)
}

// rewordRE finds the words Reword replaces.
var rewordRE = regexp.MustCompile(`\b(the|no|not|is|has|there|cannot|acts|needs|names|invalid|must|unknown|missing)\b`)

// Reword says a free-text message otherwise, keeping its facts (addresses,
// quoted names, numbers): a few common words of its own framing are
// replaced by others. The cause a message quotes after its first ": " (a
// handler's exception, a probe's detail, a parser's message) is a fact and
// is kept as it is, and so is a one-word outcome code.
func Reword(msg string) string {
	if !strings.ContainsAny(strings.TrimSpace(msg), " ") {
		return msg
	}
	frame, cause, quoted := strings.Cut(msg, ": ")
	frame = rewordRE.ReplaceAllStringFunc(frame, rewordWord)
	if quoted {
		return frame + ": " + cause
	}
	return frame
}

// RewordAll says a whole message otherwise (a JSON-RPC error's), keeping
// what it quotes between double quotes as it is.
func RewordAll(msg string) string {
	parts := strings.Split(msg, `"`)
	for i := 0; i < len(parts); i += 2 {
		parts[i] = rewordRE.ReplaceAllStringFunc(parts[i], rewordWord)
	}
	return strings.Join(parts, `"`)
}

// rewordWord is the word Reword puts in place of w.
func rewordWord(w string) string {
	{
		switch w {
		case "the":
			return "this"
		case "no":
			return "none of"
		case "not":
			return "never"
		case "is":
			return "stands"
		case "has":
			return "holds"
		case "there":
			return "here"
		case "cannot":
			return "can never"
		case "acts":
			return "works"
		case "needs":
			return "wants"
		case "invalid":
			return "bad"
		case "must":
			return "has to"
		case "unknown":
			return "unrecognised"
		case "missing":
			return "absent"
		}
		return "called"
	}
}

// jsRegexReason is the regex-js variation's reason for a matcher that does
// not compile: a JavaScript engine's words for a bad regex, other refusals
// as they are.
func jsRegexReason(m dsl.Matcher, status int, reason string) string {
	if m.Dialect != dsl.DialectRegex || status != 400 {
		return reason
	}
	return jsRegexError(m)
}

// jsRegexError is how a JavaScript engine words a regex it cannot compile.
func jsRegexError(m dsl.Matcher) string {
	what := "Invalid regular expression"
	switch p := m.Pattern; {
	case strings.Contains(p, "(?<=") || strings.Contains(p, "(?<!") || strings.Contains(p, "(?=") || strings.Contains(p, "(?!"):
		what = "Invalid group"
	case hasBackref(p):
		what = "Invalid escape"
	case strings.Count(p, "(") > strings.Count(p, ")"):
		what = "Unterminated group"
	case strings.Count(p, "[") > strings.Count(p, "]"):
		what = "Unterminated character class"
	case strings.HasPrefix(p, "*") || strings.HasPrefix(p, "+") || strings.HasPrefix(p, "?"):
		what = "Nothing to repeat"
	}
	return "Invalid regular expression: /" + m.Pattern + "/" + m.Flags + ": " + what
}

// marshalCatalog encodes a FIND's catalog rows: seconds and tags left out
// when empty, or under the catalog-rows variation always there.
func (e *Engine) marshalCatalog(rows []CatalogRow) ([]byte, error) {
	return vary.Choose(e.Vary, config.VaryCatalogRows, marshalRows, marshalFullRows)(rows)
}

func marshalRows(rows []CatalogRow) ([]byte, error) { return json.Marshal(rows) }

// marshalFullRows is the catalog-rows variation's encoding: every member
// there, empty or not.
func marshalFullRows(rows []CatalogRow) ([]byte, error) {
	type full struct {
		Path     string                  `json:"path"`
		Seconds  int64                   `json:"seconds"`
		Tags     []string                `json:"tags"`
		Channels map[string]CatalogEntry `json:"channels"`
	}
	out := make([]full, len(rows))
	for i, r := range rows {
		out[i] = full{Path: r.Path, Seconds: r.Seconds, Tags: r.Tags, Channels: r.Channels}
		if out[i].Tags == nil {
			out[i].Tags = []string{}
		}
	}
	return json.Marshal(out)
}
