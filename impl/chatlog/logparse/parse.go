package logparse

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Request is an agent request found in a log (§chatlog-request-header).
type Request struct {
	Line   int   // 1-based line of the header, counted from the parse start
	Offset int64 // byte offset of the header line in the file
	Agent  string
	Page   string
	At     string // HH:MM:SS, "" when the header has none (§chatlog-timestamp)
	Lang   string // first word of the fence's info string
	Code   string
	Closed bool // false: the fence is still open, the request is a draft
}

// Reply is a page reply found in a log (§chatlog-reply-header).
type Reply struct {
	Line        int
	Offset      int64
	Page        string
	Agent       string
	At          string
	DurationMS  int64 // valid when HasDuration
	HasDuration bool
	Error       bool // (**ERROR** …)
	Late        bool // result arrived after the job's timeout
	Timeout     bool // the server's timeout entry
	Interrupted bool // the server restarted while the job was executing
	Placeholder bool // "executing ..." (§chatlog-executing-placeholder)
	Lang        string
	Body        string
	// Request is the index in Log.Requests of the request this reply pairs
	// with (§chatlog-reply-pairing), -1 when none.
	Request int
}

// Log is the result of parsing a chat log or a part of one.
type Log struct {
	Requests []Request
	Replies  []Reply
	// Ambiguous describes same-second pairing collisions
	// (§chatlog-same-second); the server prints them on its console.
	Ambiguous []string
	// Resume is the offset from which a later parse of the same, grown,
	// file must start again: everything before it is settled (no draft, no
	// open fence, no header still waiting for its body).
	Resume int64
}

// Limits of the parser: a line longer than MaxLine is kept whole but never
// read as a header or a fence; it is ordinary text.
const MaxLine = 1 << 16

// header is a parsed header line, request or reply not yet known.
type header struct {
	from, to, at string
	paren        bool
	dur          int64
	hasDur       bool
	isErr        bool
	marks        map[string]bool
}

func parseHeader(line []byte) (header, bool) {
	if len(line) > MaxLine {
		return header{}, false
	}
	m := splitHeader(line)
	h := header{from: string(m.from), to: string(m.to), at: string(m.at)}
	// No header, or a sender of blanks only.
	if strings.TrimSpace(h.from) == "" {
		return header{}, false
	}
	if h.at != "" && !clockInRange(h.at) {
		return header{}, false
	}
	if m.hasParen {
		h.paren = true
		if !h.readParen(string(m.paren)) {
			return header{}, false
		}
	}
	return h, true
}

// headerParts are the pieces of a header line: the sender, the addressee,
// the optional " at HH:MM:SS" clock and the optional parenthesis.
type headerParts struct {
	from, to, at, paren []byte
	hasParen            bool
}

// splitHeader cuts a header line into its parts. It is a hand-written
// scanner with exactly the behaviour (the same match and the same parts)
// of the regular expression
//
//	^\*\*([^*]+)\*\* to (\S(?:.*?\S)??)(?: at ([0-9]{2}:[0-9]{2}:[0-9]{2}))?(?: \(([^()]*)\))?[ \t]*$
//
// in Go's leftmost-first semantics, where \s is [\t\n\f\r ] and . is any
// character but a newline. The addressee is lazy: it is the shortest run
// (non-space first and last byte, no newline) after which the rest of the
// line matches one of the four tails, tried for each length in the order
// clock and parenthesis, clock alone, parenthesis alone, nothing; trailing
// spaces and tabs end every tail. Each tail fixes where the addressee must
// end, so only four ends are candidates and the shortest valid one wins.
// A line that does not match gives parts with an empty sender (a match has
// a sender of one byte or more). The test file keeps the
// expression as the oracle of a differential test.
func splitHeader(line []byte) headerParts {
	if !bytes.HasPrefix(line, []byte("**")) {
		return headerParts{}
	}
	// ([^*]+)\*\* to : the sender runs to the first '*' (an empty one is
	// no match).
	from, rest, found := bytes.Cut(line[2:], []byte("*"))
	if !found || !bytes.HasPrefix(rest, []byte("* to ")) {
		return headerParts{}
	}
	s := 2 + len(from) + len("** to ")
	if s >= len(line) || reSpace(line[s]) {
		return headerParts{}
	}
	// The addressee is line[s:e]: e > s, line[e-1] not a space, and no
	// newline before e.
	limit := len(line)
	if nl := bytes.IndexByte(line[s:], '\n'); nl >= 0 {
		limit = s + nl
	}
	valid := func(e int) bool { return e > s && e <= limit && !reSpace(line[e-1]) }
	// t is where the trailing spaces and tabs start.
	t := len(line)
	for t > s && (line[t-1] == ' ' || line[t-1] == '\t') {
		t--
	}
	// The four candidate ends, in increasing order of e as the lazy
	// addressee tries them: A (clock and parenthesis) < C (parenthesis)
	// and B (clock) < D (nothing); A < B needs no test because each
	// candidate is tried from the smallest e up.
	best := headerParts{}
	bestE := -1
	try := func(e int, p headerParts) {
		if valid(e) && (bestE < 0 || e < bestE) {
			bestE, best = e, p
		}
	}
	// Tails with a parenthesis: " (" content ")" with no parenthesis in
	// the content, ending at t. (t > s: line[s] is no blank. When the
	// parenthesis is the addressee's only byte, every end it proposes is at
	// or before s, which valid refuses.)
	if line[t-1] == ')' {
		q := bytes.LastIndexAny(line[:t-1], "()")
		if q >= 1 && line[q] == '(' && line[q-1] == ' ' {
			paren := line[q+1 : t-1]
			// A: " at HH:MM:SS (" ... ")".
			if e := q - 1 - 12; e >= 0 && isClockTail(line[e:q-1]) {
				try(e, headerParts{at: line[e+4 : q-1], paren: paren, hasParen: true})
			}
			// C: " (" ... ")".
			try(q-1, headerParts{paren: paren, hasParen: true})
		}
	}
	// B: " at HH:MM:SS".
	if e := t - 12; e >= 0 && isClockTail(line[e:t]) {
		try(e, headerParts{at: line[e+4 : t]})
	}
	// D: nothing but trailing spaces.
	try(t, headerParts{})
	if bestE < 0 {
		return headerParts{}
	}
	best.from, best.to = from, line[s:bestE]
	return best
}

// isClockTail reports whether b is " at " and then [0-9]{2}:[0-9]{2}:[0-9]{2}.
func isClockTail(b []byte) bool {
	if len(b) != 12 || string(b[:4]) != " at " || b[6] != ':' || b[9] != ':' {
		return false
	}
	for _, i := range [...]int{4, 5, 7, 8, 10, 11} {
		if b[i] < '0' || b[i] > '9' {
			return false
		}
	}
	return true
}

// reSpace reports whether c is in the regexp class \s: [\t\n\f\r ].
func reSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// markOf reads a mark, in the reference's words or in the other words a
// server may write for it (the reference's variation "reply-marks").
func markOf(p string) string {
	switch p {
	case "timed out":
		return "timeout"
	case "late result":
		return "late"
	case "not run again":
		return "interrupted"
	}
	return p
}

// readParen reads "17ms", "**ERROR** after 16ms", "**ERROR**" and the marks
// "timeout", "late", "interrupted" after them, comma separated.
func (h *header) readParen(s string) bool {
	parts := strings.Split(s, ", ")
	first := parts[0]
	switch {
	case first == "**ERROR**":
		h.isErr = true
		parts = parts[1:]
	case strings.HasPrefix(first, "**ERROR** after "):
		d, ok := ParseDuration(strings.TrimPrefix(first, "**ERROR** after "))
		if !ok {
			return false
		}
		h.isErr, h.dur, h.hasDur = true, d, true
		parts = parts[1:]
	default:
		if d, ok := ParseDuration(first); ok {
			h.dur, h.hasDur = d, true
			parts = parts[1:]
		}
	}
	for _, p := range parts {
		switch p = markOf(p); p {
		case "timeout", "late", "interrupted":
			if h.marks == nil {
				h.marks = map[string]bool{}
			}
			h.marks[p] = true
		default:
			return false
		}
	}
	// Every part was read, and there is at least one: the parentheses
	// hold the ERROR marker, a duration or a mark.
	return true
}

// fence describes an opening fence line.
type fence struct {
	ch   byte
	n    int
	info string
}

// openFence reads a CommonMark fence opener: at most three spaces of
// indentation, three or more backticks or tildes, and an info string that
// for backtick fences contains no backtick.
func openFence(line []byte) (fence, bool) {
	if len(line) > MaxLine {
		return fence{}, false
	}
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i > 3 || i >= len(line) {
		return fence{}, false
	}
	ch := line[i]
	if ch != '`' && ch != '~' {
		return fence{}, false
	}
	j := i
	for j < len(line) && line[j] == ch {
		j++
	}
	if j-i < 3 {
		return fence{}, false
	}
	info := line[j:]
	if ch == '`' && bytes.IndexByte(info, '`') >= 0 {
		return fence{}, false
	}
	return fence{ch: ch, n: j - i, info: string(bytes.Trim(info, " \t"))}, true
}

// closes reports whether line closes f: at most three spaces of
// indentation, at least f.n of f.ch, then only spaces and tabs.
func (f fence) closes(line []byte) bool {
	if len(line) > MaxLine {
		return false
	}
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i > 3 {
		return false
	}
	j := i
	for j < len(line) && line[j] == f.ch {
		j++
	}
	if j-i < f.n {
		return false
	}
	for _, c := range line[j:] {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

func (f fence) lang() string {
	w, _, _ := strings.Cut(f.info, " ")
	w, _, _ = strings.Cut(w, "\t")
	return w
}

// isResultTag reports the fence tags of replies (§chatlog-result-fences); a
// header followed by one of them is a reply, never a request. An untagged
// fence is not one: after a request header it makes a request that names
// no language, which the server refuses with a reply saying so.
func isResultTag(tag string) bool {
	switch strings.ToLower(tag) {
	case "json", "text", "error":
		return true
	}
	return false
}

// line is one line of the input.
type line struct {
	start, next int64 // offsets of the line and of the following line
	text        []byte
	complete    bool // ended by '\n'
	num         int
}

type scanner struct {
	data []byte
	base int64 // the offset of data in the file
	pos  int
	num  int
}

func (s *scanner) next() (line, bool) {
	if s.pos >= len(s.data) {
		return line{}, false
	}
	rest := s.data[s.pos:]
	end := bytes.IndexByte(rest, '\n')
	l := line{start: s.base + int64(s.pos), num: s.num + 1}
	if end < 0 {
		l.text = rest
		s.pos = len(s.data)
	} else {
		l.text = rest[:end]
		l.complete = true
		s.pos += end + 1
	}
	l.text = bytes.TrimSuffix(l.text, []byte{'\r'})
	l.next = s.base + int64(s.pos)
	s.num++
	return l, true
}

// peek returns the next line without consuming it.
func (s *scanner) peek() (line, bool) {
	saved, savedNum := s.pos, s.num
	l, ok := s.next()
	s.pos, s.num = saved, savedNum
	return l, ok
}

// readFence consumes the body of fence f up to and including its closing
// line. It returns the body and whether the fence was closed; closing is
// the closing line (the zero line, not complete, when there is none).
func (s *scanner) readFence(f fence) (body string, closed bool, closing line) {
	var lines [][]byte
	for {
		l, ok := s.next()
		if !ok {
			return joinLines(lines), false, line{}
		}
		if f.closes(l.text) {
			return joinLines(lines), true, l
		}
		lines = append(lines, l.text)
	}
}

func joinLines(lines [][]byte) string {
	return string(bytes.Join(lines, []byte{'\n'}))
}

// ValidateText checks that data can be parsed as a chat log: valid UTF-8,
// no NUL bytes. Parse itself accepts anything; the replserve parse command
// refuses such input with a clear error.
func ValidateText(data []byte) error {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Errorf("line %d: NUL byte at offset %d: binary data, not a chat log", 1+bytes.Count(data[:i], []byte{'\n'}), i)
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return fmt.Errorf("line %d: invalid UTF-8 at offset %d: expected UTF-8 text", 1+bytes.Count(data[:off], []byte{'\n'}), off)
	}
	return nil
}

// Parse reads the whole of data as a chat log.
func Parse(data []byte) Log { return ParseAt(data, 0) }

// ParseAt reads data, which starts at offset base of a file (outside any
// fence), and pairs the replies it finds with the requests it finds. Lines
// are counted from 1 at the start of data.
func ParseAt(data []byte, base int64) Log {
	s := &scanner{data: data, base: base}
	lg := Log{Resume: base}
	settled := true // false once something unfinished is seen: Resume stops moving
	// settle moves Resume past l, the last line of something finished,
	// while nothing before it is unfinished.
	settle := func(l line) {
		settled = settled && l.complete
		if settled {
			lg.Resume = l.next
		}
	}
	for {
		l, ok := s.next()
		if !ok {
			break
		}
		h, isHeader := parseHeader(l.text)
		if !isHeader {
			if f, ok := openFence(l.text); ok {
				_, _, closing := s.readFence(f)
				settle(closing)
				continue
			}
			settle(l)
			continue
		}
		nl, hasNext := s.peek()
		if !l.complete || !hasNext {
			// A header that is the last line: its body has not been
			// written yet. Only a reply header (with a parenthesis) can
			// be recognised now.
			if h.paren {
				lg.Replies = append(lg.Replies, h.reply(l, "", ""))
			}
			settle(line{})
			continue
		}
		f, isFence := openFence(nl.text)
		switch {
		case !h.paren && isFence && !isResultTag(f.lang()):
			s.next()
			code, closed, closing := s.readFence(f)
			lg.Requests = append(lg.Requests, Request{Line: l.num, Offset: l.start, Agent: h.from, Page: h.to, At: h.at,
				Lang: f.lang(), Code: code, Closed: closed})
			settle(closing)
		case isFence:
			s.next()
			body, _, closing := s.readFence(f)
			lg.Replies = append(lg.Replies, h.reply(l, f.lang(), body))
			settle(closing)
		case !h.paren && string(bytes.TrimRight(nl.text, " \t")) == Placeholder:
			rp := h.reply(l, "", "")
			rp.Placeholder = true
			lg.Replies = append(lg.Replies, rp)
			s.next()
			settle(nl)
		default:
			lg.Replies = append(lg.Replies, h.reply(l, "", ""))
			settle(l)
		}
	}
	pair(&lg)
	return lg
}

func (h header) reply(l line, lang, body string) Reply {
	return Reply{Line: l.num, Offset: l.start, Page: h.from, Agent: h.to, At: h.at,
		DurationMS: h.dur, HasDuration: h.hasDur, Error: h.isErr,
		Late: h.marks["late"], Timeout: h.marks["timeout"], Interrupted: h.marks["interrupted"],
		Lang: lang, Body: body, Request: -1}
}

// pair matches each reply with a request (§chatlog-reply-pairing,
// §chatlog-same-second).
//
// Candidates are the closed requests of the reply's agent that appear before
// the reply and have no final reply yet. The closest earlier one by
// timestamp is chosen: the latest timestamp not after the reply's (when
// none is, as across midnight, the last appended). Candidates sharing that
// second are taken in append order, and the ambiguity is recorded.
//
// An "executing ..." placeholder pairs the same way but leaves the request
// waiting; the next final reply of that page to that agent takes the
// placeholder's request. A late reply takes the oldest request of its agent
// that was closed by a timeout entry and has no late reply yet.
func pair(lg *Log) {
	waiting := map[string][]int{}      // agent → closed requests without a final reply, append order
	timedOut := map[string][]int{}     // agent → requests closed by a timeout entry, no late reply yet
	placeholders := map[string][]int{} // agent → requests with an open placeholder
	ri := 0
	drop := func(l []int, i int) []int {
		for k, x := range l {
			if x == i {
				return append(l[:k:k], l[k+1:]...)
			}
		}
		return l
	}
	for k := range lg.Replies {
		rp := &lg.Replies[k]
		for ri < len(lg.Requests) && lg.Requests[ri].Offset < rp.Offset {
			if r := lg.Requests[ri]; r.Closed {
				waiting[r.Agent] = append(waiting[r.Agent], ri)
			}
			ri++
		}
		choose := func(c []int, skip []int) int {
			pick := -1
			better := func(i int) bool { return lg.Requests[i].At > lg.Requests[pick].At }
			fits := func(i int) bool {
				at := lg.Requests[i].At
				return at == "" || rp.At == "" || at <= rp.At
			}
			for _, i := range c {
				if inList(skip, i) || !fits(i) {
					continue
				}
				if pick < 0 || better(i) {
					pick = i
				}
			}
			if pick < 0 { // every candidate is later than the reply (midnight)
				for _, i := range c {
					if !inList(skip, i) {
						pick = i
					}
				}
			}
			if pick < 0 {
				return -1
			}
			same := 0
			for _, i := range c {
				if !inList(skip, i) && lg.Requests[i].At == lg.Requests[pick].At {
					same++
				}
			}
			if same > 1 {
				lg.Ambiguous = append(lg.Ambiguous, fmt.Sprintf(
					"reply of %s to %s at %s: %d requests at %s are waiting; paired in append order with the first",
					rp.Page, rp.Agent, rp.At, same, lg.Requests[pick].At))
			}
			return pick
		}
		finish := func(i int) {
			waiting[rp.Agent] = drop(waiting[rp.Agent], i)
		}
		switch {
		case rp.Placeholder:
			i := choose(waiting[rp.Agent], placeholders[rp.Agent])
			if i >= 0 {
				placeholders[rp.Agent] = append(placeholders[rp.Agent], i)
			}
			rp.Request = i
		case rp.Late:
			i := -1
			if q := timedOut[rp.Agent]; len(q) > 0 {
				i, timedOut[rp.Agent] = q[0], q[1:]
			} else if i = choose(waiting[rp.Agent], nil); i >= 0 {
				finish(i)
			}
			rp.Request = i
		default:
			i := -1
			if q := placeholders[rp.Agent]; len(q) > 0 {
				i, placeholders[rp.Agent] = q[0], q[1:]
			} else {
				i = choose(waiting[rp.Agent], placeholders[rp.Agent])
			}
			if i >= 0 {
				finish(i)
				if rp.Timeout {
					timedOut[rp.Agent] = append(timedOut[rp.Agent], i)
				}
			}
			rp.Request = i
		}
	}
}

func inList(l []int, i int) bool {
	for _, x := range l {
		if x == i {
			return true
		}
	}
	return false
}

// Answered reports, for each request of lg, whether a final reply (not a
// placeholder) pairs with it.
func (lg Log) Answered() []bool { return lg.AnsweredBesides(nil) }

// AnsweredBesides is Answered leaving out the replies whose header lines
// start at the offsets in skip.
func (lg Log) AnsweredBesides(skip []int64) []bool {
	a := make([]bool, len(lg.Requests))
	for _, rp := range lg.Replies {
		if rp.Request >= 0 && !rp.Placeholder && !slices.Contains(skip, rp.Offset) {
			a[rp.Request] = true
		}
	}
	return a
}

// Executing reports, for each request, whether a placeholder pairs with it.
func (lg Log) Executing() []bool {
	a := make([]bool, len(lg.Requests))
	for _, rp := range lg.Replies {
		if rp.Request >= 0 && rp.Placeholder {
			a[rp.Request] = true
		}
	}
	return a
}

// TailStart finds where a tail parse of chunk may begin when nothing is known
// about the text before it (§chatlog-tail-only): the first header line in
// chunk that is followed by a fence, a placeholder or that carries a reply
// parenthesis; when no line of the chunk starts an entry, the start of its
// last, unfinished line (the end of the chunk when its last line is whole),
// where a parse finds nothing and resumes. atStart says the chunk begins
// the file; then the parse starts at its start. It returns an offset in
// chunk.
func TailStart(chunk []byte, atStart bool) int {
	if atStart {
		return 0
	}
	// The chunk's first line may have begun before it: skip it.
	pos := bytes.IndexByte(chunk, '\n') + 1
	for {
		end := bytes.IndexByte(chunk[pos:], '\n')
		if end < 0 {
			return pos
		}
		text := bytes.TrimSuffix(chunk[pos:pos+end], []byte{'\r'})
		if h, ok := parseHeader(text); ok {
			rest := chunk[pos+end+1:]
			nl, _, _ := bytes.Cut(rest, []byte{'\n'})
			nl = bytes.TrimSuffix(nl, []byte{'\r'})
			if _, f := openFence(nl); f || h.paren || string(nl) == Placeholder {
				return pos
			}
		}
		pos += end + 1
	}
}

// OpenFence reads line as a fence opener and returns the fence's character
// (a backtick or a tilde) and its length.
func OpenFence(line []byte) (ch byte, n int, ok bool) {
	f, ok := openFence(line)
	return f.ch, f.n, ok
}

// ClosesFence reports whether line closes a fence opened by n of ch.
func ClosesFence(ch byte, n int, line []byte) bool {
	return fence{ch: ch, n: n}.closes(line)
}
