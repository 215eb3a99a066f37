package ops

import (
	"encoding/json"
	"slices"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// edit writes one channel of one entry: the fragment's, or the scheme's
// default. It answers 201 when it creates the entry, 200 when it changes
// content or adds a tag, 304 when it changes nothing. A null body clears
// the channel; tags are only ever added. With <L> on existing content the
// body is spliced in by line (spliceLines); on an entry that does not exist
// yet the body simply becomes its content.
func (e *Engine) edit(c scheme.Call, st dsl.Statement) (Result, error) {
	r, err := e.resolve(st)
	if err != nil {
		return Result{}, err
	}
	m := r.Handler.Manifest()
	if !m.Writable(c.Writer) {
		return Result{}, fail(403, "%s may not write %s:// entries", c.Writer, m.Name)
	}
	if err := guard(c, r); err != nil {
		return Result{}, err
	}
	cur, err := load(c, r)
	if err != nil {
		return Result{}, err
	}
	if cur == nil && r.Channel != m.DefaultChannel {
		return Result{}, fail(404, "%s does not exist; only its default channel %q can create it", r.Key, m.DefaultChannel)
	}
	body := ""
	if st.Body != nil {
		body = *st.Body
	}
	mt := m.MimetypeFor(r.Channel, r.Key.Path)
	if IsJSON(mt) && st.Body != nil && strings.TrimSpace(body) != "" && (cur == nil || st.Scope == nil) && !json.Valid([]byte(body)) {
		return Result{}, fail(400, "the body of an EDIT of %s (%s) does not parse as JSON", r.Key, mt)
	}
	// region is the span of lines the write produces: every line unless a
	// line splice narrows it (§edit-result-render).
	region := [2]int{0, -1}
	if cur != nil && st.Scope != nil && IsJSON(mt) {
		spliced, status, err := spliceJSON(cur.Channels[r.Channel].Content, st.Scope, st.Body)
		if err != nil {
			return Result{}, fail(status, "%v", err)
		}
		body = spliced
	} else if cur != nil && st.Scope != nil {
		spliced, status, err := spliceLines(cur.Channels[r.Channel].Content, st.Scope, st.Body)
		if err != nil {
			return Result{}, fail(status, "%v", err)
		}
		region = spliceRegion(cur.Channels[r.Channel].Content, st.Scope, st.Body)
		body = spliced
	}
	var tags []string
	if st.Signal != nil {
		tags = st.Signal.Tags
	}
	next := cur.Clone()
	status := 200
	if next == nil {
		status = 201
		next = &store.Entry{Key: r.Key, Channels: map[string]store.Channel{}}
	}
	old, had := next.Channels[r.Channel]
	added := next.AddTags(tags...)
	if status == 200 && had && old.Content == body && added == 0 {
		return Result{Status: 304, EntryID: cur.ID, Target: target(r), Tags: cur.Tags}, nil
	}
	ch := old
	ch.Content = body
	ch.Mimetype = mt
	ch.Tokens = e.tokens(body)
	if ch.State == "" {
		ch.State = store.StateStatic
	}
	next.Channels[r.Channel] = ch
	if err := save(c, r, next); err != nil {
		return Result{}, err
	}
	return Result{Status: status, EntryID: next.ID, Target: target(r), Tags: slices.Clone(next.Tags), Span: span(body, mt, region)}, nil
}

// SpanContext is how many lines of context an EDIT's span shows on each
// side of the region it wrote.
const SpanContext = 2

// span renders what an EDIT produced (§edit-result-render): tree content
// verbatim, whole; line content as the written region of lines
// [region[0], region[1]) (region[1] < 0: to the end) with SpanContext lines
// either side, numbered in the new content. Emptied content has no span.
func span(content, mt string, region [2]int) string {
	if content == "" {
		return ""
	}
	if IsTree(mt) {
		return content
	}
	lines := splitLines(content)
	from, to := region[0], region[1]
	if to < 0 {
		to = len(lines)
	}
	return numbered(lines, max(from-SpanContext, 0), min(to+SpanContext, len(lines)), nil)
}

// spliceRegion returns the lines a line splice of content wrote, as a
// half-open range over the spliced result: the body's lines from where the
// <L> marker put them (an empty range where lines were deleted). The scope
// is one spliceLines accepted.
func spliceRegion(content string, scope *dsl.Scope, body *string) [2]int {
	n := len(splitLines(content))
	inserted := 0
	if body != nil {
		inserted = len(splitLines(*body))
	}
	from, _, _, _ := spliceSpan(scope, n)
	return [2]int{from, from + inserted}
}

// spliceSpan resolves a splice's <L> marker over n lines or items: the two
// insertion sentinels, <0> and <-1>, give an empty span before the first
// and after the last; any other marker selects what sliceRange selects.
func spliceSpan(scope *dsl.Scope, n int) (from, to, status int, err error) {
	if v, ok := scope.Int(0); ok && len(scope.Marks) == 1 && (v == 0 || v == -1) {
		if v == -1 {
			return n, n, 0, nil
		}
		return 0, 0, 0, nil
	}
	return sliceRange(scope, n)
}

// spliceLines replaces lines of content with body, by the <L> marker:
//
//   - <N> (1 ≤ N ≤ lines) replaces line N; <a,b> replaces lines a to b
//     inclusive, a negative mark counting from the end (<1,-1> is every
//     line);
//   - <0> inserts the body before line 1, <-1> after the last line (the
//     two insertion sentinels);
//   - a null body deletes the selected lines (and inserts nothing).
//
// The result ends with a newline exactly when content did (an empty
// content takes the body's). Marks that are not whole numbers, or more than
// two, answer 400; lines outside the content answer 416.
func spliceLines(content string, scope *dsl.Scope, body *string) (string, int, error) {
	lines := splitLines(content)
	n := len(lines)
	var insert []string
	if body != nil {
		insert = splitLines(*body)
	}
	from, to, status, err := spliceSpan(scope, n)
	if err != nil {
		return "", status, err
	}
	out := append(append(slices.Clone(lines[:from]), insert...), lines[to:]...)
	if len(out) == 0 {
		return "", 0, nil
	}
	trail := strings.HasSuffix(content, "\n")
	if content == "" && body != nil {
		trail = strings.HasSuffix(*body, "\n")
	}
	res := strings.Join(out, "\n")
	if trail {
		res += "\n"
	}
	return res, 0, nil
}

// guard asks a scheme that vets writes (scheme.WriteGuard: the file scheme
// under a membership) before the entry is loaded at all.
func guard(c scheme.Call, r scheme.Resolved) error {
	g, ok := r.Handler.(scheme.WriteGuard)
	if !ok {
		return nil
	}
	if err := g.GuardWrite(c, r.Key); err != nil {
		return fail(scheme.StatusOf(err), "%v", err)
	}
	return nil
}
