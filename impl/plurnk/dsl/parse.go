package dsl

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Parse reads one model emission. It never fails as a whole: statements that
// parse are returned, statements that do not become Errors, and free text
// between statements becomes Prose.
//
// The parser is a single forward scan with one lookahead rule (the close
// tag); every byte is examined a bounded number of times, so the cost is
// linear in the input.
func Parse(src string) Result {
	p := &parser{src: src, pos: positioner{src: src}}
	p.run()
	return p.res
}

// ParseStatement parses text that must hold exactly one statement and
// nothing else but surrounding whitespace.
func ParseStatement(src string) (Statement, error) {
	r := Parse(src)
	for _, e := range r.Errors {
		if e.Severity == SeverityError {
			return Statement{}, fmt.Errorf("parse statement: %w", e)
		}
	}
	if len(r.Prose) > 0 {
		pr := r.Prose[0]
		return Statement{}, fmt.Errorf("parse statement: unexpected text %q at byte %d; expected only one <<OP…:OP statement", clip(pr.Text), pr.Start)
	}
	if len(r.Statements) != 1 {
		return Statement{}, fmt.Errorf("parse statement: found %d statements; expected exactly one", len(r.Statements))
	}
	return r.Statements[0], nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

type parser struct {
	src string
	res Result
	pos positioner
}

func (p *parser) run() {
	src := p.src
	at, prose := 0, 0
	for at < len(src) {
		i := strings.Index(src[at:], "<<")
		if i < 0 {
			break
		}
		start := at + i
		if start+6 > len(src) {
			break
		}
		op, ok := lookupOp(src[start+2 : start+6])
		if !ok {
			p.warnUnknownOp(start)
			at = start + 1
			continue
		}
		p.addProse(prose, start)
		next, stop := p.statement(start, op)
		if stop {
			return
		}
		at, prose = next, next
	}
	p.addProse(prose, len(src))
}

func (p *parser) addProse(from, to int) {
	if strings.TrimSpace(p.src[from:to]) == "" {
		return
	}
	p.res.Prose = append(p.res.Prose, Prose{Text: p.src[from:to], Start: from, End: to})
}

func (p *parser) diag(kind ErrorKind, sev Severity, off, stmt int, format string, args ...any) *Error {
	if len(p.res.Errors) >= MaxErrors {
		p.res.Suppressed++
		return nil
	}
	line, col, lineStart := p.pos.at(off)
	e := &Error{
		Kind:      kind,
		Severity:  sev,
		Offset:    off,
		Line:      line,
		Column:    col,
		Statement: stmt,
		Message:   fmt.Sprintf(format, args...),
		Snippet:   snippet(p.src, off, lineStart),
	}
	p.res.Errors = append(p.res.Errors, e)
	return e
}

// warnUnknownOp flags `<<WORD` followed directly by a slot or a colon when
// WORD is upper case but not an op. The text stays prose.
func (p *parser) warnUnknownOp(start int) {
	src := p.src
	i := start + 2
	for i < len(src) && i-start < 14 && 'A' <= src[i] && src[i] <= 'Z' {
		i++
	}
	word := src[start+2 : i]
	if len(word) < 3 || i >= len(src) || !strings.ContainsRune("[(<:", rune(src[i])) {
		return
	}
	hint := ""
	switch word {
	case "SHOW":
		hint = "; did you mean <<OPEN"
	case "HIDE", "CLOSE":
		hint = "; did you mean <<FOLD"
	case "DELETE", "REMOVE":
		hint = "; did you mean <<KILL"
	case "WORK", "SPAWN":
		hint = "; a run is spawned with <<EDIT(run://<name>):prompt:EDIT"
	case "FORK":
		hint = "; a run is forked with <<COPY(run://<src>):prompt:COPY"
	}
	p.diag(WarnUnknownOp, SeverityWarning, start, start,
		"unknown op <<%s%s; expected one of PLAN FIND READ EDIT COPY MOVE OPEN FOLD EXEC KILL SEND", word, hint)
}

// statement parses the statement whose << is at start. It returns where
// scanning resumes and whether the parse stops (the body never closed).
func (p *parser) statement(start int, op Op) (next int, stop bool) {
	src := p.src
	q := start + 6
	for q < len(src) && isWordByte(src[q]) {
		q++
	}
	st := Statement{Op: op, Suffix: src[start+6 : q]}
	name := "<<" + string(op) + st.Suffix
	closer := st.closer()
	var sawSignal, sawTarget, sawScope bool

	fail := func(kind ErrorKind, off int, format string, args ...any) (int, bool) {
		p.diag(kind, SeverityError, off, start, format, args...)
		return p.recover(off, closer), false
	}

	for {
		for q < len(src) && isSpace(src[q]) {
			q++
		}
		if q >= len(src) {
			e := p.diag(ErrUnterminated, SeverityError, start, start,
				"statement %s ended before its body; expected [signal], (target), <L> or :body%s", name, closer)
			p.res.Tail = e
			return len(src), true
		}
		c := src[q]
		if c != ':' && op == OpPlan {
			if c == '[' || c == '(' || c == '<' {
				return fail(ErrSlotNotAllowed, q, "PLAN takes no slots; expected :plan text%s", closer)
			}
		}
		switch c {
		case '[':
			if sawSignal {
				return fail(ErrDuplicateSlot, q, "second [signal] slot on %s; expected each slot at most once", name)
			}
			sawSignal = true
			end, ok := slotEnd(src, q+1, ']')
			if !ok {
				return fail(ErrUnclosedSlot, q, "signal slot of %s not closed; add ]", name)
			}
			sig, msg := parseSignal(op, src[q+1:end])
			if msg != "" {
				return fail(ErrBadSignal, q+1, "%s", msg)
			}
			st.Signal = sig
			q = end + 1
		case '(':
			if sawTarget {
				return fail(ErrDuplicateSlot, q, "second (target) slot on %s; expected each slot at most once", name)
			}
			sawTarget = true
			end, ok := slotEnd(src, q+1, ')')
			if !ok {
				return fail(ErrUnclosedSlot, q, "target slot of %s not closed; add )", name)
			}
			raw := src[q+1 : end]
			if raw == "" {
				return fail(ErrBadTarget, q, "empty (target) on %s; expected a path or scheme://address", name)
			}
			if i := strings.IndexAny(raw, " \t\r"); i >= 0 {
				return fail(ErrBadTarget, q+1+i, "whitespace inside (target) of %s; expected a path without spaces (encode a space as %%20)", name)
			}
			t := parseTarget(raw)
			st.Target = &t
			q = end + 1
		case '<':
			if q+1 < len(src) && src[q+1] == '<' {
				return fail(ErrStrayCharacter, q, "unexpected '<<' in the slot region of %s; expected [signal], (target), <L> or :body%s", name, closer)
			}
			if sawScope {
				return fail(ErrDuplicateSlot, q, "second <L> slot on %s; expected each slot at most once", name)
			}
			sawScope = true
			end, ok := slotEnd(src, q+1, '>')
			if !ok {
				return fail(ErrUnclosedSlot, q, "<L> slot of %s not closed; add >", name)
			}
			marks, bad := parseMarks(src[q+1 : end])
			if bad >= 0 {
				return fail(ErrBadScope, q+1+bad, "bad <L> on %s; expected numbers like <N>, <N,M> or <T,P>", name)
			}
			st.Scope = &Scope{Marks: marks}
			q = end + 1
		case ':':
			return p.body(&st, start, q+1)
		default:
			return fail(ErrStrayCharacter, q, "unrecognized character %q in the slot region of %s; expected [signal], (target), <L> in any order, then :body%s (a matcher rides the :body: slot)",
				printable(src, q), name, closer)
		}
	}
}

// body finds the close tag of st from bodyStart: the first occurrence of
// ":"+op+suffix not followed by a word character.
func (p *parser) body(st *Statement, start, bodyStart int) (int, bool) {
	closer := st.closer()
	at := findCloser(p.src, bodyStart, len(p.src), closer)
	if at < 0 {
		e := p.diag(ErrUnclosedBody, SeverityError, start, start,
			"body of <<%s%s never closed; add %s to terminate it", st.Op, st.Suffix, closer)
		p.res.Tail = e
		return len(p.src), true
	}
	if at > bodyStart {
		b := p.src[bodyStart:at]
		st.Body = &b
	}
	end := at + len(closer)
	st.Span = Span{Start: start, End: end, BodyStart: bodyStart, BodyEnd: at}
	p.res.Statements = append(p.res.Statements, *st)
	return end, false
}

// findCloser returns the offset of the first close tag in src[from:to],
// or -1.
func findCloser(src string, from, to int, closer string) int {
	for from < to {
		i := strings.Index(src[from:to], closer)
		if i < 0 {
			return -1
		}
		at := from + i
		after := at + len(closer)
		if after >= len(src) || !isWordByte(src[after]) {
			return at
		}
		from = at + 1
	}
	return -1
}

// recover skips a statement that failed in its slot region: scanning
// resumes after its close tag when one comes before the next <<, otherwise
// at that next << (or the end of input). The skipped text belongs to the
// failed statement, not to prose.
func (p *parser) recover(off int, closer string) int {
	src := p.src
	limit := len(src)
	if i := strings.Index(src[off:], "<<"); i >= 0 {
		limit = off + i
	}
	if at := findCloser(src, off, limit, closer); at != -1 {
		return at + len(closer)
	}
	return limit
}

// slotEnd finds the byte closing a slot that opened just before from. A slot
// may not span lines or hold "<<".
func slotEnd(src string, from int, close byte) (int, bool) {
	for i := from; i < len(src); i++ {
		switch src[i] {
		case close:
			return i, true
		case '\n':
			return 0, false
		case '<':
			if i+1 < len(src) && src[i+1] == '<' {
				return 0, false
			}
		}
	}
	return 0, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// printable is the character (the whole UTF-8 sequence) at src[at].
func printable(src string, at int) string {
	_, size := utf8.DecodeRuneInString(src[at:])
	return src[at : at+size]
}

// parseSignal types the text inside [ ] by the op's family. A non-empty
// message means the signal is invalid.
func parseSignal(op Op, raw string) (*Signal, string) {
	switch op.SignalFamily() {
	case FamilyTags:
		var tags []string
		for _, t := range strings.Split(raw, ",") {
			if t = strings.Trim(t, " \t\r"); t != "" {
				tags = append(tags, t)
			}
		}
		return &Signal{Tags: tags}, ""
	case FamilyInt:
		s := strings.Trim(raw, " \t\r")
		if s == "" {
			return nil, ""
		}
		if !isInteger(s) {
			return nil, fmt.Sprintf("expected integer for %s signal, found %q", op, clip(s))
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Sprintf("integer %s signal %q out of range", op, clip(s))
		}
		return &Signal{Code: n}, ""
	case FamilyIdent:
		s := strings.Trim(raw, " \t\r")
		if s == "" {
			return nil, ""
		}
		if !isIdent(s) {
			msg := fmt.Sprintf("expected executor for EXEC (like sh, node, python), found %q", clip(s))
			if _, bad := parseMarks(s); bad < 0 {
				msg += fmt.Sprintf("; timeout/poll ride the <L> slot, try EXEC<%s>", s)
			}
			return nil, msg
		}
		return &Signal{Executor: s}, ""
	}
	return nil, "PLAN takes no signal"
}

func isInteger(s string) bool {
	if strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isIdent reports whether s is an executor id: [A-Za-z_][A-Za-z0-9_.+-]*.
func isIdent(s string) bool {
	if s == "" || !(s[0] == '_' || ('a' <= s[0] && s[0] <= 'z') || ('A' <= s[0] && s[0] <= 'Z')) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isWordByte(c) && c != '.' && c != '+' && c != '-' {
			return false
		}
	}
	return true
}

// parseTarget splits the text inside ( ) into a Target; see Target.
func parseTarget(raw string) Target {
	var t Target
	rest := raw
	if n := schemeLen(raw); n > 0 {
		t.Scheme = raw[:n]
		rest = raw[n+3:]
		i := strings.IndexAny(rest, "/#")
		if i < 0 {
			i = len(rest)
		}
		t.Host, rest = rest[:i], rest[i:]
	}
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		t.Path, t.Fragment, t.HasFragment = rest[:i], rest[i+1:], true
	} else {
		t.Path = rest
	}
	return t
}

// schemeLen returns the length of the scheme when s starts with
// [a-z][a-z0-9+.-]*://, else 0.
func schemeLen(s string) int {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return 0
	}
	i := 1
	for i < len(s) {
		c := s[i]
		if ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || c == '+' || c == '.' || c == '-' {
			i++
			continue
		}
		break
	}
	if strings.HasPrefix(s[i:], "://") {
		return i
	}
	return 0
}

// parseMarks reads the inside of <…>: number ( "," " "? number )*, or the
// older dash range number "-" number. On failure it returns the byte index
// of the problem within s.
func parseMarks(s string) ([]float64, int) {
	var marks []float64
	i := 0
	num := func() bool {
		j := i
		if j < len(s) && s[j] == '-' {
			j++
		}
		d := j
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		if j == d {
			return false
		}
		if j < len(s) && s[j] == '.' {
			j++
			f := j
			for j < len(s) && '0' <= s[j] && s[j] <= '9' {
				j++
			}
			if j == f {
				return false
			}
		}
		v, err := strconv.ParseFloat(s[i:j], 64)
		if err != nil {
			return false
		}
		marks = append(marks, v)
		i = j
		return true
	}
	if !num() {
		return nil, i
	}
	if i < len(s) && s[i] == '-' {
		i++
		if !num() || i != len(s) {
			return nil, i
		}
		return marks, -1
	}
	for i < len(s) {
		if s[i] != ',' {
			return nil, i
		}
		i++
		if i < len(s) && s[i] == ' ' {
			i++
		}
		if !num() {
			return nil, i
		}
	}
	return marks, -1
}
