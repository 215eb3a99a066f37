package ops

import (
	"anchorage/impl/plurnk/config"
	"anchorage/impl/vary"
	"fmt"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"

	"github.com/gobwas/glob"
)

// read returns one channel's content with its mimetype, every line
// prefixed `N:\t`, optionally sliced by <L> and filtered by a matcher body.
// A target whose path is a glob fans out: one item per entry that has
// content (with a matcher: that has a match), each recorded as its own log
// row by Do; none at all answers 204.
func (e *Engine) read(c scheme.Call, st dsl.Statement) (Result, error) {
	r, err := e.resolve(st)
	if err != nil {
		return Result{}, err
	}
	matcher, err := e.compileBody(st)
	if err != nil {
		return Result{}, err
	}
	e.bind(c, matcher)
	if isGlob(r.Key.Path) {
		return e.readMany(c, st, r, matcher)
	}
	ent, err := load(c, r)
	if err != nil {
		return Result{}, err
	}
	if ent == nil {
		return Result{}, fail(404, "%s does not exist", r.Key)
	}
	res := readEntry(ent, r, st.Scope, matcher)
	if res.Status >= 400 {
		return Result{}, &failure{res: res}
	}
	return res, nil
}

// compileBody classifies and compiles a statement's matcher body; nil when
// the body is null.
func (e *Engine) compileBody(st dsl.Statement) (*Compiled, error) {
	if st.Body == nil {
		return nil, nil
	}
	m, err := dsl.ClassifyMatcher(*st.Body)
	if err != nil {
		return nil, fail(400, "%v", err)
	}
	c, bad := Compile(m)
	if c == nil {
		reason := vary.Apply(e.Vary, config.VaryRegexJS, bad.Reason, func(r string) string { return jsRegexReason(m, bad.Status, r) })
		return nil, fail(bad.Status, "%s", reason)
	}
	return c, nil
}

// readEntry reads channel r.Channel of ent.
func readEntry(ent *store.Entry, r scheme.Resolved, scope *dsl.Scope, matcher *Compiled) Result {
	res := Result{EntryID: ent.ID, Target: target(r), Tags: ent.Tags}
	ch, ok := ent.Channels[r.Channel]
	if !ok {
		res.Status, res.Reason = 404, fmt.Sprintf("%s has no %q channel", r.Key, r.Channel)
		return res
	}
	if matcher == nil && IsTree(ch.Mimetype) {
		res.Status, res.Mimetype = 200, ch.Mimetype
		res.Content = ch.Content
		if scope == nil {
			return res
		}
		if IsJSON(ch.Mimetype) {
			sliced, status, err := sliceJSON(ch.Content, scope)
			if err == nil {
				res.Content = sliced
				return res
			}
			if err != errNotItems {
				res.Status, res.Reason, res.Content, res.Mimetype = status, err.Error(), "", ""
				return res
			}
		}
		lines := splitLines(ch.Content)
		from, to, status, err := sliceRange(scope, len(lines))
		if err != nil {
			res.Status, res.Reason, res.Content, res.Mimetype = status, err.Error(), "", ""
			return res
		}
		res.Content = strings.Join(lines[from:to], "\n") + "\n"
		return res
	}
	lines := splitLines(ch.Content)
	from, to, status, err := sliceRange(scope, len(lines))
	if err != nil {
		res.Status, res.Reason = status, err.Error()
		return res
	}
	if matcher == nil && r.Key.Scheme == "log" && resultLines(lines) {
		// A stored result is re-read by result: <N> picks its Nth line,
		// which keeps its source numbering (§slice-semantics-compose-pattern).
		res.Status, res.Mimetype = 200, ch.Mimetype
		res.Content = strings.Join(lines[from:to], "\n") + "\n"
		return res
	}
	if matcher == nil {
		res.Status, res.Mimetype = 200, ch.Mimetype
		res.Content = numbered(lines, from, to, nil)
		return res
	}
	mr := matcher.MatchIn(ent.Key, r.Channel, ch.Content, ch.Mimetype)
	res.Status, res.Reason = mr.Status, mr.Reason
	switch mr.Status {
	case 200:
		res.Mimetype = "text/markdown"
		res.Content = numbered(lines, from, to, mr.Lines)
		if res.Content == "" {
			res.Status = 204
		}
	case 203:
		res.Mimetype = "text/markdown"
		res.Content = ch.Content
	case 204:
		res.Mimetype = "text/markdown"
	}
	return res
}

// numbered renders lines[from:to] as `N:\t<line>` rows, N the 1-based
// source line; when only is non-nil just those source lines are kept.
func numbered(lines []string, from, to int, only []int) string {
	var keep map[int]bool
	if only != nil {
		keep = map[int]bool{}
		for _, n := range only {
			keep[n] = true
		}
	}
	var b strings.Builder
	for i := from; i < to; i++ {
		if keep != nil && !keep[i+1] {
			continue
		}
		fmt.Fprintf(&b, "%d:\t%s\n", i+1, lines[i])
	}
	return b.String()
}

// sliceRange turns an <L> scope into a half-open 0-based range over n
// lines: <a> is line a alone, <a,b> lines a to b inclusive; a negative mark
// counts from the end (-1 is the last line). A mark that is not a whole
// number, or more than two marks, answers 400; lines outside the content
// answer 416.
func sliceRange(scope *dsl.Scope, n int) (from, to, status int, err error) {
	if scope == nil || len(scope.Marks) == 0 {
		return 0, n, 0, nil
	}
	if len(scope.Marks) > 2 {
		return 0, 0, 400, fmt.Errorf("line marker <%s> has %d marks; a range has at most two", scope, len(scope.Marks))
	}
	var m [2]int
	for i := range scope.Marks {
		v, ok := scope.Int(i)
		if !ok {
			return 0, 0, 400, fmt.Errorf("line mark <%s> is not a line number", scope)
		}
		if v < 0 {
			v = n + 1 + v
		}
		m[i] = v
	}
	a, b := m[0], m[0]
	if len(scope.Marks) == 2 {
		b = m[1]
	}
	if a < 1 || a > n || b < a || b > n {
		return 0, 0, 416, fmt.Errorf("lines <%s> are outside the content's %d lines", scope, n)
	}
	return a - 1, b, 0, nil
}

func isGlob(p string) bool { return strings.ContainsAny(p, "*?[{") }

// compilePathGlob compiles a path glob where `*` stays inside one segment
// and `**` crosses segments.
func compilePathGlob(p string) (*glob.Pattern, error) {
	g, err := glob.Compiler{Separators: []rune{'/'}, Globstar: true}.Compile(p)
	if err != nil {
		return nil, fail(400, "path glob %q: %v", p, err)
	}
	return g, nil
}

// readMany reads every entry of the scheme whose path matches the target's
// glob (and, with a matcher, whose content matches): one item each.
func (e *Engine) readMany(c scheme.Call, st dsl.Statement, r scheme.Resolved, matcher *Compiled) (Result, error) {
	var tags []string
	if st.Signal != nil {
		tags = st.Signal.Tags
	}
	ents, err := e.candidates(c, r, tags)
	if err != nil {
		return Result{}, err
	}
	res := Result{Status: 204, Target: target(r)}
	for _, ent := range ents {
		one := r
		one.Key = ent.Key
		item := readEntry(ent, one, st.Scope, matcher)
		if item.Status == 200 {
			res.Items = append(res.Items, item)
		}
	}
	if len(res.Items) > 0 {
		res.Status = 200
	}
	return res, nil
}

// candidates lists the scheme's entries whose path matches r's path glob
// and which carry every tag of tags.
func (e *Engine) candidates(c scheme.Call, r scheme.Resolved, tags []string) ([]*store.Entry, error) {
	g, err := compilePathGlob(r.Key.Path)
	if err != nil {
		return nil, err
	}
	all, err := r.Handler.List(c)
	if err != nil {
		return nil, fail(scheme.StatusOf(err), "list %s: %v", r.Key.Scheme, err)
	}
	var out []*store.Entry
	for _, ent := range all {
		if !g.Match(ent.Key.Path) {
			continue
		}
		ok := true
		for _, t := range tags {
			ok = ok && ent.HasTag(t)
		}
		if ok {
			out = append(out, ent)
		}
	}
	return out, nil
}

// resultLines reports whether every line is already an `N:\t` result line
// (a stored READ or matcher result), so re-reading it slices by result.
func resultLines(lines []string) bool {
	if len(lines) == 0 {
		return false
	}
	for _, l := range lines {
		i := strings.Index(l, ":\t")
		if i < 1 {
			return false
		}
		for _, c := range l[:i] {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}
