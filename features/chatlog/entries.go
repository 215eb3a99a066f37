package chatlog

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// The seed's level of a chat log. A step that quotes log text compares it
// with the log entry by entry, as seed 000 describes entries: a request is
// its header and its fenced code; a reply is its header (the agent it
// answers, its time, the ERROR marker and the duration in parentheses) and
// its result (a JSON value, a Text, an error's stack in an Error fence or
// as plain text) with the errors collected beside it (a comment block or an
// Error fence). What the seed leaves open is not compared there: blank
// lines between entries, a fence's length, the page name a reply header
// gives, the marks after a duration, the layout of a JSON value, the
// executing placeholder, the words an adapter puts before a rejection. The
// steps "that holds byte for byte per Decision (§…)" compare the same text
// with the reference's own layout.
//
// This reader is the harness's own, written from the seed, and never the
// reference's parser: a defect of the parser cannot hide itself.

// entry is one entry of a log: a header line and what stands below it up
// to the next header. The text before the first header is an entry with no
// header (line 0).
type entry struct {
	line     int // 1-based line of the header; 0 for the text before the first header
	header   string
	from, to string
	at       string // HH:MM:SS, "" when the header has none
	paren    string // inside the parentheses closing the header
	hasParen bool
	blocks   []block
}

// block is a fenced block or a run of plain lines (blank lines end a run and
// are dropped).
type block struct {
	fenced bool
	tag    string // the first word of the fence's info string
	text   string
}

// headerRE is the seed's header line: **from** to to [at HH:MM:SS] [(…)].
var headerRE = regexp.MustCompile(`^\*\*([^*]+)\*\* to (\S(?:.*?\S)?)(?: at (\d\d:\d\d:\d\d))?(?: \(([^()]*)\))?[ \t]*$`)

// readEntries cuts a log into its entries.
func readEntries(text string) []entry {
	lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(text, "\r\n", "\n"), "\n"), "\n")
	out := []entry{{}}
	cur := &out[0]
	var plain []string
	flush := func() {
		if len(plain) > 0 {
			cur.blocks = append(cur.blocks, block{text: strings.Join(plain, "\n")})
			plain = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if ch, n, info, ok := fenceOpen(l); ok {
			flush()
			var body []string
			for i++; i < len(lines) && !fenceCloses(lines[i], ch, n); i++ {
				body = append(body, lines[i])
			}
			tag, _, _ := strings.Cut(strings.TrimSpace(info), " ")
			tag, _, _ = strings.Cut(tag, "\t")
			cur.blocks = append(cur.blocks, block{fenced: true, tag: tag, text: strings.Join(body, "\n")})
			continue
		}
		if m := headerRE.FindStringSubmatchIndex(l); m != nil {
			flush()
			e := entry{line: i + 1, header: l, from: l[m[2]:m[3]], to: l[m[4]:m[5]]}
			if m[6] >= 0 {
				e.at = l[m[6]:m[7]]
			}
			if m[8] >= 0 {
				e.paren, e.hasParen = l[m[8]:m[9]], true
			}
			out = append(out, e)
			cur = &out[len(out)-1]
			continue
		}
		if strings.TrimSpace(l) == "" {
			flush()
			continue
		}
		plain = append(plain, l)
	}
	flush()
	if len(out[0].blocks) == 0 {
		out = out[1:]
	}
	return out
}

// fenceOpen reads a fence opener: up to three spaces, three or more
// backticks or tildes, an info string (with no backtick after backticks).
func fenceOpen(l string) (ch byte, n int, info string, ok bool) {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0, "", false
	}
	ch = t[0]
	for n < len(t) && t[n] == ch {
		n++
	}
	if n < 3 || (ch == '`' && strings.ContainsRune(t[n:], '`')) {
		return 0, 0, "", false
	}
	return ch, n, t[n:], true
}

// fenceCloses reports whether l closes a fence of n ch.
func fenceCloses(l string, ch byte, n int) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return false
	}
	k := 0
	for k < len(t) && t[k] == ch {
		k++
	}
	return k >= n && strings.TrimRight(t[k:], " \t") == ""
}

// placeholder reports whether e is the executing placeholder: a reply
// without parentheses whose body is the line "executing ...".
func (e entry) placeholder() bool {
	return e.line > 0 && !e.hasParen && len(e.blocks) == 1 && !e.blocks[0].fenced && strings.TrimSpace(e.blocks[0].text) == "executing ..."
}

// withoutRequests is text with every request whose code is in codes taken
// out, from its header line to the next entry's, as an editor would cut it;
// n is how many were.
func withoutRequests(text string, codes map[string]bool) (out string, n int) {
	lines := strings.SplitAfter(text, "\n")
	es := readEntries(text)
	cut := map[int]bool{}
	for i, e := range es {
		if !e.request() || !codes[e.blocks[0].text] {
			continue
		}
		end := len(lines)
		if i+1 < len(es) {
			end = es[i+1].line - 1
		}
		for l := e.line - 1; l < end; l++ {
			cut[l] = true
		}
		n++
	}
	var b strings.Builder
	for i, l := range lines {
		if !cut[i] {
			b.WriteString(l)
		}
	}
	return b.String(), n
}

// request reports whether e is a request: a header without parentheses
// followed by a fence whose tag is not a result's.
func (e entry) request() bool {
	if e.line == 0 || e.hasParen || len(e.blocks) == 0 || !e.blocks[0].fenced {
		return false
	}
	switch strings.ToLower(e.blocks[0].tag) {
	case "json", "text", "error":
		return false
	}
	return true
}

// describe shows an entry in a failure message.
func (e entry) describe() string {
	var b strings.Builder
	if e.line > 0 {
		fmt.Fprintf(&b, "line %d: %s", e.line, e.header)
	} else {
		b.WriteString("(text before any header)")
	}
	for _, bl := range e.blocks {
		if bl.fenced {
			fmt.Fprintf(&b, " | ```%s %q", bl.tag, bl.text)
		} else {
			fmt.Fprintf(&b, " | %q", bl.text)
		}
	}
	return b.String()
}

// seedLevel compares logs at the seed's level for one driver: on the wall
// clock (a server process) times of day stand for any, durations are
// checked for their form and their bounds, and QuickJS's messages are read
// in V8's words.
type seedLevel struct {
	wall bool
}

// paren is what a reply header's parentheses say at the seed's level.
type paren struct {
	err    bool
	ms     int64
	unit   int64 // the precision the duration is written with, in ms
	hasDur bool
	rest   string // the marks after the duration (the seed names none)
}

var anyClockRE = regexp.MustCompile(`\d\d:\d\d:\d\d`)

var clockRE = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$`)

var durationRE = regexp.MustCompile(`^(\d+)ms|^(\d+)(?:\.(\d+))?s`)

// readParen reads "17ms", "**ERROR** after 16ms", "**ERROR**" and what
// follows; the duration must keep the seed's rule: whole milliseconds up to
// 2000 ms, seconds above.
func readParen(s string) (paren, error) {
	var p paren
	after := false
	if r, ok := strings.CutPrefix(s, "**ERROR**"); ok {
		p.err = true
		s, after = strings.CutPrefix(r, " after ")
	}
	m := durationRE.FindStringSubmatch(s)
	if m != nil && len(s) > len(m[0]) && wordByte(s[len(m[0])]) {
		m = nil // "5s5ms", "60.s": no duration of the seed's forms
	}
	if m == nil {
		if after {
			return p, fmt.Errorf("`**ERROR** after` is followed by %q, not a duration of the seed's forms", s)
		}
		p.rest = s
		return p, nil
	}
	p.hasDur, p.rest = true, s[len(m[0]):]
	if m[1] != "" {
		p.ms, _ = strconv.ParseInt(m[1], 10, 64)
		p.unit = 1
		if p.ms > 2000 {
			return p, fmt.Errorf("the duration %s is over 2000 ms: the seed writes it in seconds", m[0])
		}
		return p, nil
	}
	whole, _ := strconv.ParseInt(m[2], 10, 64)
	frac := m[3]
	p.unit = 1000
	p.ms = whole * 1000
	for i := 0; i < len(frac) && i < 3; i++ {
		p.unit /= 10
		p.ms += int64(frac[i]-'0') * p.unit
	}
	if len(frac) > 3 {
		p.unit = 1
	}
	if p.ms <= 2000 {
		return p, fmt.Errorf("the duration %s is not over 2000 ms: the seed writes it in milliseconds", m[0])
	}
	return p, nil
}

// wordByte reports whether c can go on a duration's token.
func wordByte(c byte) bool {
	return c == '.' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// match compares the log got with the entries of want: "suffix" (the log
// ends with them), "contains" (they stand in the log one after another; the
// last may be only a header, or a header and the first blocks) or "whole".
// Executing placeholders are left out on both sides.
func (lv seedLevel) match(got, want, how string) error {
	g, w := notPlaceholders(readEntries(got)), notPlaceholders(readEntries(want))
	if len(w) == 0 {
		return fmt.Errorf("the expected text holds no entry")
	}
	switch how {
	case "whole":
		if len(g) != len(w) {
			return fmt.Errorf("the log has %d entries, want %d:\n%s", len(g), len(w), describeAll(g))
		}
		return lv.run(g, w, false)
	case "suffix":
		if len(g) < len(w) {
			return fmt.Errorf("the log has %d entries, want at least %d:\n%s", len(g), len(w), describeAll(g))
		}
		return lv.run(g[len(g)-len(w):], w, false)
	}
	var first error
	for i := 0; i+len(w) <= len(g); i++ {
		err := lv.run(g[i:i+len(w)], w, true)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return fmt.Errorf("no run of entries of the log matches (%v):\n%s", first, describeAll(g))
}

func notPlaceholders(es []entry) []entry {
	var out []entry
	for _, e := range es {
		if !e.placeholder() {
			out = append(out, e)
		}
	}
	return out
}

func describeAll(es []entry) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString("  " + e.describe() + "\n")
	}
	return b.String()
}

// run compares entries one to one; partial lets the last wanted entry be a
// header alone, or a header and its first blocks.
func (lv seedLevel) run(g, w []entry, partial bool) error {
	for i := range w {
		last := i == len(w)-1
		// Text before the first expected header is the end of the entry
		// before it.
		tail := i == 0 && w[0].line == 0
		if err := lv.entry(g[i], w[i], partial && last, tail); err != nil {
			return fmt.Errorf("%s: want %s: %w", g[i].describe(), w[i].describe(), err)
		}
	}
	return nil
}

// entry compares one entry. tail compares only the end of its blocks.
func (lv seedLevel) entry(g, w entry, partial, tail bool) error {
	if tail {
		if len(g.blocks) < len(w.blocks) {
			return fmt.Errorf("it has %d blocks, want %d", len(g.blocks), len(w.blocks))
		}
		if partial {
			// Blocks alone, somewhere in the log: the result of an entry
			// and what follows it.
			return lv.blocks(g.blocks, w.blocks, g.request(), true)
		}
		return lv.blocks(g.blocks[len(g.blocks)-len(w.blocks):], w.blocks, g.request(), false)
	}
	if g.request() != w.request() {
		return fmt.Errorf("request %v, want %v", g.request(), w.request())
	}
	if w.request() {
		if g.from != w.from || lv.names(g.to) != lv.names(w.to) || !lv.sameTime(g.at, w.at) {
			return fmt.Errorf("another request header")
		}
	} else {
		// The page name of a reply is not compared: the seed's examples
		// give the page as the request names it and as the registry
		// does (Decision §chatlog-reply-header).
		if lv.names(g.to) != lv.names(w.to) {
			return fmt.Errorf("the reply is to %q, want %q", g.to, w.to)
		}
		if !lv.sameTime(g.at, w.at) {
			return fmt.Errorf("the reply is stamped %q, want %q", g.at, w.at)
		}
		if err := lv.parens(g, w); err != nil {
			return err
		}
	}
	if partial && len(g.blocks) >= len(w.blocks) {
		return lv.blocks(g.blocks[:len(w.blocks)], w.blocks, w.request(), true)
	}
	return lv.blocks(g.blocks, w.blocks, w.request(), false)
}

// names is a header's name as compared: on the wall clock a time of day
// in it (a name the header's form cannot cut off, "agent  at 09:00:00")
// stands for any.
func (lv seedLevel) names(s string) string {
	if !lv.wall {
		return s
	}
	return anyClockRE.ReplaceAllString(s, "HH:MM:SS")
}

func (lv seedLevel) sameTime(got, want string) bool {
	if !lv.wall || want == "" {
		return got == want
	}
	return clockRE.MatchString(got)
}

// parens compares the ERROR marker and the duration of two reply headers.
func (lv seedLevel) parens(g, w entry) error {
	wp, err := readParen(w.paren)
	if err != nil {
		return fmt.Errorf("the expected header: %w", err)
	}
	gp, err := readParen(g.paren)
	if err != nil {
		return err
	}
	if !g.hasParen {
		gp = paren{}
	}
	if !w.hasParen {
		wp = paren{}
	}
	if gp.err != wp.err {
		return fmt.Errorf("ERROR marker %v, want %v", gp.err, wp.err)
	}
	if gp.hasDur != wp.hasDur {
		return fmt.Errorf("a duration %v, want %v (the seed: always reported when known)", gp.hasDur, wp.hasDur)
	}
	if !gp.hasDur {
		return nil
	}
	if lv.wall {
		// On the wall clock a measured duration is the target's: only
		// its form and a lower bound (the page's own time) are known; a
		// timeout is a setting, give or take a second.
		if strings.Contains(wp.rest, "timeout") {
			if gp.ms < wp.ms || gp.ms > wp.ms+1000 {
				return fmt.Errorf("a timeout after %d ms, want %d ms", gp.ms, wp.ms)
			}
			return nil
		}
		if gp.ms < wp.ms-10 {
			return fmt.Errorf("a duration of %d ms, want at least %d ms", gp.ms, wp.ms-10)
		}
		return nil
	}
	if d := gp.ms - wp.ms; d <= -gp.unit || d >= gp.unit {
		return fmt.Errorf("a duration of %d ms, want %d ms", gp.ms, wp.ms)
	}
	return nil
}

// blocks compares what stands below two headers: for a reply, its result
// and then the errors collected beside it; for a request, its code.
func (lv seedLevel) blocks(g, w []block, request, prefix bool) error {
	if request {
		if len(g) == 0 || len(w) == 0 {
			return fmt.Errorf("no code")
		}
		if !strings.EqualFold(g[0].tag, w[0].tag) || g[0].text != w[0].text {
			return fmt.Errorf("the code differs")
		}
		return nil
	}
	if len(w) == 0 {
		return nil
	}
	if len(g) == 0 {
		return fmt.Errorf("no result")
	}
	if err := lv.result(g[0], w[0]); err != nil {
		return err
	}
	ge, err := errorList(g[1:])
	if err != nil {
		return err
	}
	we, err := errorList(w[1:])
	if err != nil {
		return fmt.Errorf("the expected text: %w", err)
	}
	if prefix && len(ge) > len(we) {
		ge = ge[:len(we)]
	}
	if len(ge) != len(we) {
		return fmt.Errorf("%d errors collected beside the result, want %d", len(ge), len(we))
	}
	for i := range we {
		if !lv.sameError(ge[i], we[i]) {
			return fmt.Errorf("collected error %d is %q, want %q", i+1, ge[i], we[i])
		}
	}
	return nil
}

// result compares a reply's result: a JSON value (compared as values), a
// Text, or an error's stack in an Error fence or as plain text.
func (lv seedLevel) result(g, w block) error {
	wtag, gtag := strings.ToLower(w.tag), strings.ToLower(g.tag)
	if !w.fenced || wtag == "error" {
		if g.fenced && gtag != "error" {
			return fmt.Errorf("a %q fence, want an error's stack (an Error fence or plain text)", g.tag)
		}
		if !lv.sameText(g.text, w.text) {
			return fmt.Errorf("the stack differs")
		}
		return nil
	}
	if !g.fenced || gtag != wtag {
		return fmt.Errorf("a %q block, want a %s fence", g.tag, w.tag)
	}
	if wtag == "json" {
		var gv, wv any
		if json.Unmarshal([]byte(w.text), &wv) == nil {
			if json.Unmarshal([]byte(g.text), &gv) != nil || !reflect.DeepEqual(gv, wv) {
				return fmt.Errorf("the JSON value differs")
			}
			return nil
		}
	}
	if !lv.sameText(g.text, w.text) {
		return fmt.Errorf("the text differs")
	}
	return nil
}

// errorList reads the blocks after a result as the errors they carry: a
// comment block /* … */ with the errors separated by ---, or Error fences.
// A comment block must not end before its last line.
func errorList(bs []block) ([]string, error) {
	var out []string
	for _, b := range bs {
		t := strings.TrimSpace(b.text)
		if inner, ok := strings.CutPrefix(t, "/*"); ok && strings.HasSuffix(inner, "*/") {
			t = strings.TrimSpace(strings.TrimSuffix(inner, "*/"))
			if strings.Contains(t, "*/") {
				return nil, fmt.Errorf("the comment block /* … */ ends before its last line: %q", b.text)
			}
		}
		for _, e := range strings.Split(t, "\n---\n") {
			out = append(out, strings.TrimSpace(e))
		}
	}
	return out, nil
}

// rejectionMark is the reference adapter's words before an unhandled
// rejection's error (Decision §chatlog-error-buffer): the seed gives none.
const rejectionMark = "Unhandled rejection: "

// sameError compares a collected error: its own text must be there; the
// words an adapter puts before it are its own.
func (lv seedLevel) sameError(got, want string) bool {
	// How a comment block keeps an error's own "*/" from ending it is the
	// server's choice.
	got, want = strings.ReplaceAll(got, "* /", "*/"), strings.ReplaceAll(want, "* /", "*/")
	if lv.sameText(got, want) {
		return true
	}
	rest, ok := strings.CutPrefix(want, rejectionMark)
	if !ok {
		return false
	}
	for i := 0; i <= len(got); i++ {
		if (i == 0 || got[i-1] == ' ') && lv.sameText(got[i:], rest) {
			return true
		}
	}
	return false
}

// sameText compares text line by line; in want a line "…" stands for any
// lines (none too) and a line ending in "…" for any end of that line.
func (lv seedLevel) sameText(got, want string) bool {
	if lv.wall {
		want = v8Messages(want, false)
	}
	return linesMatch(strings.Split(got, "\n"), strings.Split(want, "\n"))
}

func linesMatch(got, want []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "…" {
		for k := 0; k <= len(got); k++ {
			if linesMatch(got[k:], want[1:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	if p, ok := strings.CutSuffix(want[0], "…"); ok {
		if !strings.HasPrefix(got[0], p) {
			return false
		}
	} else if got[0] != want[0] {
		return false
	}
	return linesMatch(got[1:], want[1:])
}

// exactPattern is the regular expression of want byte for byte, where a
// line "…" stands for any lines and a line ending in "…" for any end of
// it; quote turns a line into its expression (the driver's pattern).
func exactPattern(want string, quote func(string) string) string {
	lines := strings.Split(want, "\n")
	var b strings.Builder
	for i, l := range lines {
		switch {
		case l == "…":
			b.WriteString(`(?:[^\n]*\n)*?`)
			continue
		case strings.HasSuffix(l, "…"):
			b.WriteString(quote(strings.TrimSuffix(l, "…")) + `[^\n]*`)
		default:
			b.WriteString(quote(l))
		}
		if i < len(lines)-1 {
			b.WriteString(`\n`)
		}
	}
	return b.String()
}
