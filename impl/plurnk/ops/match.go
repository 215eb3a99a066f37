package ops

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"github.com/gobwas/glob"
	"github.com/tidwall/gjson"
)

// MatchResult is the outcome of a matcher over one channel's content.
// Status is 200 (Lines holds the 1-based source lines hit, in order), 204
// (no hit), 400 (malformed expression), 203 (the source cannot be parsed
// for the dialect; Reason says why) or 501 (a dialect not built: the parked
// ~semantic, and xpath and @graph in this build).
type MatchResult struct {
	Status int
	Lines  []int
	Reason string
}

// Match runs m over content. A matcher selects locations: glob and regex
// test each line; jsonpath resolves over the parsed JSON and reports the
// lines the value spans.
func Match(m dsl.Matcher, content, mimetype string) MatchResult {
	switch m.Dialect {
	case dsl.DialectGlob:
		g, err := glob.Compile(m.Raw)
		if err != nil {
			return MatchResult{Status: 400, Reason: fmt.Sprintf("glob %q: %v", m.Raw, err)}
		}
		return byLine(content, g.Match)
	case dsl.DialectRegex:
		re, err := compileRegex(m)
		if err != nil {
			return MatchResult{Status: 400, Reason: err.Error()}
		}
		return byLine(content, re.MatchString)
	case dsl.DialectJSONPath:
		return matchJSONPath(m.Raw, content, mimetype)
	case dsl.DialectSemantic:
		return MatchResult{Status: 501, Reason: "the ~semantic dialect is parked"}
	}
	return MatchResult{Status: 501, Reason: fmt.Sprintf("the %s dialect is not built", m.Dialect)}
}

func byLine(content string, hit func(string) bool) MatchResult {
	var out []int
	for i, l := range splitLines(content) {
		if hit(l) {
			out = append(out, i+1)
		}
	}
	if len(out) == 0 {
		return MatchResult{Status: 204}
	}
	return MatchResult{Status: 200, Lines: out}
}

// compileRegex compiles a /pattern/flags body with Go's RE2: i, m and s
// carry over as inline flags, the others (g, y, d, u, v) change nothing
// for a per-line test.
func compileRegex(m dsl.Matcher) (*regexp.Regexp, error) {
	var inline string
	for _, f := range m.Flags {
		if strings.ContainsRune("ims", f) {
			inline += string(f)
		}
	}
	p := m.Pattern
	if inline != "" {
		p = "(?" + inline + ")" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w", m.Raw, err)
	}
	return re, nil
}

// matchJSONPath resolves a JSONPath ($, .name, ['name'], [N], [*], .*)
// over content. A content that is not JSON answers 203.
func matchJSONPath(expr, content, mimetype string) MatchResult {
	path, err := gjsonPath(expr)
	if err != nil {
		return MatchResult{Status: 400, Reason: err.Error()}
	}
	var v any
	if err := json.Unmarshal([]byte(content), &v); err != nil {
		return MatchResult{Status: 203, Reason: fmt.Sprintf("source (%s) is not valid JSON: %v", mimetype, err)}
	}
	r := gjson.Get(content, path)
	if !r.Exists() {
		return MatchResult{Status: 204}
	}
	type span struct{ at, n int }
	var spans []span
	if len(r.Indexes) > 0 {
		for i, el := range r.Array() {
			if i < len(r.Indexes) {
				spans = append(spans, span{r.Indexes[i], len(el.Raw)})
			}
		}
	} else {
		at := r.Index
		if at == 0 && !strings.HasPrefix(content, r.Raw) {
			at = strings.Index(content, r.Raw)
		}
		spans = append(spans, span{at, len(r.Raw)})
	}
	seen := map[int]bool{}
	var out []int
	for _, s := range spans {
		if s.at < 0 {
			continue
		}
		first := 1 + strings.Count(content[:s.at], "\n")
		last := first + strings.Count(content[s.at:min(len(content), s.at+s.n)], "\n")
		for l := first; l <= last; l++ {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	if len(out) == 0 {
		return MatchResult{Status: 204}
	}
	return MatchResult{Status: 200, Lines: out}
}

// gjsonPath translates the JSONPath subset into a gjson path. Anything
// outside the subset (recursive descent, filters) is reported as malformed
// (400).
func gjsonPath(expr string) (string, error) {
	if !strings.HasPrefix(expr, "$") {
		return "", fmt.Errorf("jsonpath %q must start with $", expr)
	}
	rest := expr[1:]
	var parts []string
	esc := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if strings.ContainsRune(`.*?|#@\`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, ".."):
			return "", fmt.Errorf("jsonpath %q: recursive descent is outside the supported subset", expr)
		case strings.HasPrefix(rest, ".*"):
			parts, rest = append(parts, "#"), rest[2:]
		case rest[0] == '.':
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			name := rest[1 : 1+end]
			if name == "" {
				return "", fmt.Errorf("jsonpath %q: empty member name", expr)
			}
			parts, rest = append(parts, esc(name)), rest[1+end:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return "", fmt.Errorf("jsonpath %q: unclosed [", expr)
			}
			in := rest[1:end]
			rest = rest[end+1:]
			switch {
			case in == "*":
				parts = append(parts, "#")
			case len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0]:
				parts = append(parts, esc(in[1:len(in)-1]))
			default:
				n, err := strconv.Atoi(in)
				if err != nil || n < 0 {
					return "", fmt.Errorf("jsonpath %q: [%s] is not an index, a quoted name or *", expr, in)
				}
				parts = append(parts, strconv.Itoa(n))
			}
		default:
			return "", fmt.Errorf("jsonpath %q: unexpected %q", expr, rest[:1])
		}
	}
	if len(parts) == 0 {
		return "@this", nil
	}
	return strings.Join(parts, "."), nil
}
