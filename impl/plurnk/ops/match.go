package ops

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/store"
	"github.com/antchfx/xpath"
	"github.com/gobwas/glob"
	"github.com/theory/jsonpath"
)

// MatchResult is the outcome of a matcher over one channel's content
// (§matcher-dispatch-203-soft-fallback). Status is 200 (Lines holds the
// 1-based source lines hit, ascending), 204 (no hit), 400 (malformed
// expression), 203 (the source has no projection the dialect can read;
// Reason says why) or 501 (the parked ~semantic dialect).
type MatchResult struct {
	Status int
	Lines  []int
	Reason string
}

// Compiled is a matcher whose expression has been checked, ready to run
// over any number of contents.
//
// The dialect is chosen by the body's leading characters (dsl.ClassifyMatcher):
//
//   - glob (anything else): each source line is tested whole with
//     gobwas/glob, `*` crossing every character, so `TODO*` is starts-with,
//     `*TODO*` contains, `*.log` ends-with.
//   - regex `/pattern/flags` (or `#pattern#flags`): Go's RE2 syntax, not
//     ECMAScript. The pattern runs over the whole content with ^ and $
//     anchoring at line boundaries (RE2's m flag is always on); a hit
//     selects every line it touches. Flag i is case-insensitive, s lets `.`
//     match a newline; m, g, y, d, u and v are accepted and change nothing.
//     What RE2 lacks — lookaround, backreferences, possessive quantifiers —
//     is a malformed expression (400).
//   - jsonpath `$…`: RFC 9535 (github.com/theory/jsonpath) over the
//     channel's deepJson projection as its mimetype's process derived it
//     (content that is one JSON value has one whatever its mimetype); a
//     channel without one answers 203.
//   - xpath `//…`: XPath 1.0 (antchfx/xpath over xmlquery nodes) over the
//     channel's deepXml projection as process derived it (text/html parsed
//     leniently as HTML, a deepJson projected to elements, anything else
//     parsed as XML; see complete); a channel without one answers 203.
//   - `~semantic` is parked (501); `@graph` resolves against the symbol
//     index the derivation pass keeps (graph.go), never the content.
//
// Structural hits report the source lines their node spans: a JSON object
// member from its key to the end of its value, an array item its value, an
// XML element from its start tag to its end tag, an attribute its own line,
// a text node its non-blank text.
type Compiled struct {
	m    dsl.Matcher
	glob *glob.Pattern
	re   *regexp.Regexp
	jp   *jsonpath.Path
	xp   *xpath.Expr
	// graph is a @graph query; index, bound per session by the engine,
	// looks up the symbol index it resolves against.
	graph *graphQuery
	index func(k store.Key, channel string) (Derived, bool)
	// derive, bound per session by the engine, returns what process
	// derived for a channel holding a content (Engine.derivedFor).
	derive func(k store.Key, channel, content, mimetype string) Derived
}

// Compile checks m's expression. A malformed expression answers 400, a
// dialect that is not built 501; a nil result then carries that status.
func Compile(m dsl.Matcher) (*Compiled, MatchResult) {
	c := &Compiled{m: m}
	switch m.Dialect {
	case dsl.DialectGlob:
		g, err := glob.Compile(m.Raw)
		if err != nil {
			return nil, MatchResult{Status: 400, Reason: fmt.Sprintf("glob %q: %v", m.Raw, err)}
		}
		c.glob = g
	case dsl.DialectRegex:
		re, err := compileRegex(m)
		if err != nil {
			return nil, MatchResult{Status: 400, Reason: err.Error()}
		}
		c.re = re
	case dsl.DialectJSONPath:
		p, err := jsonpath.Parse(m.Raw)
		if err != nil {
			return nil, MatchResult{Status: 400, Reason: fmt.Sprintf("jsonpath %q: %v", m.Raw, err)}
		}
		c.jp = p
	case dsl.DialectXPath:
		x, err := compileXPath(m.Raw)
		if err != nil {
			return nil, MatchResult{Status: 400, Reason: fmt.Sprintf("xpath %q: %v", m.Raw, err)}
		}
		c.xp = x
	case dsl.DialectSemantic:
		return nil, MatchResult{Status: 501, Reason: "the ~semantic dialect is parked"}
	case dsl.DialectGraph:
		q, err := compileGraph(m.Raw)
		if err != nil {
			return nil, MatchResult{Status: 400, Reason: err.Error()}
		}
		c.graph = q
	default:
		return nil, MatchResult{Status: 501, Reason: fmt.Sprintf("the %s dialect is not built", m.Dialect)}
	}
	return c, MatchResult{}
}

// Match runs the matcher over a content of the given mimetype that belongs
// to no channel: a structural dialect reads what the built-in handlers'
// process derives from it.
func (c *Compiled) Match(content, mimetype string) MatchResult {
	return c.MatchIn(store.Key{}, "", content, mimetype)
}

// MatchIn runs the matcher over channel of the entry at k, which holds
// content of the given mimetype. glob and regex read the raw lines;
// jsonpath and xpath read the channel's deepJson and deepXml, as process
// derived them (derivation); @graph resolves against the symbol index of
// the last derivation pass.
func (c *Compiled) MatchIn(k store.Key, channel, content, mimetype string) MatchResult {
	switch {
	case c.glob != nil:
		return byLine(content, c.glob.Match)
	case c.re != nil:
		return matchRegex(c.re, content)
	case c.jp != nil:
		return matchJSONPath(c.jp, c.derivation(k, channel, content, mimetype), mimetype)
	case c.xp != nil:
		return matchXPath(c.xp, c.derivation(k, channel, content, mimetype), mimetype)
	case c.graph != nil:
		if c.index == nil {
			return c.graph.match(Derived{}, false)
		}
		return c.graph.match(c.index(k, channel))
	}
	return MatchResult{Status: 501, Reason: fmt.Sprintf("the %s dialect is not built", c.m.Dialect)}
}

// derivation returns what process derives for the channel: through the
// engine that bound the matcher, else from the built-in handlers.
func (c *Compiled) derivation(k store.Key, channel, content, mimetype string) Derived {
	if c.derive != nil {
		return c.derive(k, channel, content, mimetype)
	}
	return NewMimetypes().Process(mimetype, content)
}

// Dialect returns the matcher's dialect.
func (c *Compiled) Dialect() dsl.Dialect { return c.m.Dialect }

func byLine(content string, hit func(string) bool) MatchResult {
	var out []int
	for i, l := range splitLines(content) {
		if hit(l) {
			out = append(out, i+1)
		}
	}
	return hits(out)
}

// hits turns a set of line numbers into a result: sorted, without
// duplicates, 204 when empty.
func hits(lines []int) MatchResult {
	if len(lines) == 0 {
		return MatchResult{Status: 204}
	}
	sort.Ints(lines)
	out := lines[:1]
	for _, l := range lines[1:] {
		if l != out[len(out)-1] {
			out = append(out, l)
		}
	}
	return MatchResult{Status: 200, Lines: out}
}

// compileRegex compiles a /pattern/flags body with Go's RE2, multi-line
// mode always on; i and s carry over as inline flags.
func compileRegex(m dsl.Matcher) (*regexp.Regexp, error) {
	inline := "m"
	for _, f := range m.Flags {
		if strings.ContainsRune("is", f) {
			inline += string(f)
		}
	}
	re, err := regexp.Compile("(?" + inline + ")" + m.Pattern)
	if err != nil {
		hint := ""
		for _, h := range [][2]string{{"(?=", "lookahead"}, {"(?!", "lookahead"}, {"(?<=", "lookbehind"}, {"(?<!", "lookbehind"}} {
			if strings.Contains(m.Pattern, h[0]) {
				hint = "; RE2 has no " + h[1]
				break
			}
		}
		if hint == "" && hasBackref(m.Pattern) {
			hint = "; RE2 has no backreferences"
		}
		return nil, fmt.Errorf("regex %q is not valid in the regex dialect, which is Go's RE2 and not ECMAScript: %v%s", m.Raw, err, hint)
	}
	return re, nil
}

// hasBackref reports an ECMAScript backreference (\1 … \9, \k<name>).
func hasBackref(p string) bool {
	for i := 0; i+1 < len(p); i++ {
		if p[i] != '\\' {
			continue
		}
		if c := p[i+1]; ('1' <= c && c <= '9') || (c == 'k' && i+2 < len(p) && p[i+2] == '<') {
			return true
		}
		i++
	}
	return false
}

func matchRegex(re *regexp.Regexp, content string) MatchResult {
	if content == "" {
		return MatchResult{Status: 204}
	}
	idx := newLineIndex(content)
	var out []int
	for _, m := range re.FindAllStringIndex(content, -1) {
		if m[0] > idx.end {
			continue // the empty position after a final newline is no line
		}
		out = append(out, idx.span(m[0], m[1])...)
	}
	return hits(out)
}

// lineIndex maps byte offsets of a content to its 1-based lines.
type lineIndex struct {
	starts []int // byte offset of each line's first byte
	end    int   // the offset past the last line (a final newline excluded)
}

func newLineIndex(content string) lineIndex {
	idx := lineIndex{starts: []int{0}, end: len(strings.TrimSuffix(content, "\n"))}
	for i := 0; i < idx.end; i++ {
		if content[i] == '\n' {
			idx.starts = append(idx.starts, i+1)
		}
	}
	return idx
}

// line returns the line holding byte offset off.
func (x lineIndex) line(off int) int {
	return sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off })
}

// span returns the lines a half-open byte range [from, to) touches; an
// empty range touches the line it sits on.
func (x lineIndex) span(from, to int) []int {
	last := to - 1
	if last < from {
		last = from
	}
	a, b := x.line(from), x.line(min(last, max(x.end-1, 0)))
	if b < a {
		b = a
	}
	out := make([]int, 0, b-a+1)
	for l := a; l <= b; l++ {
		out = append(out, l)
	}
	return out
}
