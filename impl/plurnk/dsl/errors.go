package dsl

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxErrors bounds the diagnostics kept per emission; the rest are counted
// in Result.Suppressed.
const MaxErrors = 200

// Severity says whether a diagnostic drops a statement (error) or only
// flags a likely mistake while the emission still parses (warning).
type Severity int

const (
	SeverityError Severity = iota
	SeverityWarning
)

func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// ErrorKind classifies a diagnostic so callers can branch without reading
// the message.
type ErrorKind int

const (
	ErrUnclosedBody   ErrorKind = iota + 1 // no close tag before end of input
	ErrUnclosedSlot                        // [ ( or < without its closer on the line
	ErrUnterminated                        // input ended inside the slot region
	ErrStrayCharacter                      // something other than a slot or ':' between op and body
	ErrDuplicateSlot                       // a slot given twice
	ErrSlotNotAllowed                      // PLAN takes no slots
	ErrBadSignal                           // signal content does not fit the op's family
	ErrBadTarget                           // empty target or whitespace inside it
	ErrBadScope                            // <scope> content is not a list of numbers
	WarnUnknownOp                          // `<<WORD(` shaped like a statement with an unknown op
)

func (k ErrorKind) String() string {
	switch k {
	case ErrUnclosedBody:
		return "unclosed_body"
	case ErrUnclosedSlot:
		return "unclosed_slot"
	case ErrUnterminated:
		return "unterminated_statement"
	case ErrStrayCharacter:
		return "stray_character"
	case ErrDuplicateSlot:
		return "duplicate_slot"
	case ErrSlotNotAllowed:
		return "slot_not_allowed"
	case ErrBadSignal:
		return "bad_signal"
	case ErrBadTarget:
		return "bad_target"
	case ErrBadScope:
		return "bad_scope"
	case WarnUnknownOp:
		return "unknown_op"
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Error is one parse diagnostic. Line and Column are 1-based and count
// Unicode code points (an invalid UTF-8 byte counts as one column); LF ends a
// line, so CRLF does too, a lone CR does not. They are a content offset into
// the emission, the locator the service stores on the parse-error row.
type Error struct {
	Kind      ErrorKind
	Severity  Severity
	Offset    int // byte offset of the offending text
	Line      int
	Column    int
	Statement int // byte offset of the statement's <<, or -1 outside a statement
	Message   string
	// Snippet is the offending line (clipped around the column) and a second
	// line with a caret under the offending character.
	Snippet string
}

// Error formats the diagnostic as "line:column: message" followed by the
// snippet.
func (e *Error) Error() string {
	return fmt.Sprintf("%d:%d: %s\n%s", e.Line, e.Column, e.Message, e.Snippet)
}

// positioner turns byte offsets into line/column. Diagnostics arrive in
// increasing offset order, so it walks forward from the last answer; a
// backward request restarts from the top.
type positioner struct {
	src       string
	off       int
	line, col int
	lineStart int
}

func (p *positioner) at(off int) (line, col, lineStart int) {
	if p.line == 0 || off < p.off {
		p.off, p.line, p.col, p.lineStart = 0, 1, 1, 0
	}
	for p.off < off {
		r, w := utf8.DecodeRuneInString(p.src[p.off:])
		if r == '\n' {
			p.line++
			p.col = 1
			p.lineStart = p.off + w
		} else {
			p.col++
		}
		p.off += w
	}
	return p.line, p.col, p.lineStart
}

// snippetWindow bounds how many bytes of the line around the offending text
// a snippet shows on each side, so that a huge single-line emission with
// many errors stays linear.
const snippetWindow = 60

// snippet renders the line holding off, clipped to snippetWindow bytes each
// side, with a caret line under off. Tabs are kept (so the caret lines up);
// other control characters and invalid bytes print as U+FFFD, one per
// column.
func snippet(src string, off, lineStart int) string {
	from := lineStart
	clipped := false
	if off-from > snippetWindow {
		from = off - snippetWindow
		for from < off && !utf8.RuneStart(src[from]) {
			from++
		}
		clipped = true
	}
	to := off
	limit := min(len(src), off+snippetWindow)
	for to < limit && src[to] != '\n' {
		to++
	}
	if to < len(src) && to == limit && src[to] != '\n' {
		for to > off && to < len(src) && !utf8.RuneStart(src[to]) {
			to--
		}
	}
	var text, caret strings.Builder
	if clipped {
		text.WriteString("…")
		caret.WriteByte(' ')
	}
	for i := from; i < to; {
		r, w := utf8.DecodeRuneInString(src[i:])
		switch {
		case r == '\t':
			text.WriteByte('\t')
		case r == '\r' && i+w == to:
			// the CR of a CRLF line end: not shown
		case r == utf8.RuneError && w == 1, unicode.IsControl(r):
			text.WriteRune(utf8.RuneError)
		default:
			text.WriteRune(r)
		}
		if i < off {
			if r == '\t' {
				caret.WriteByte('\t')
			} else {
				caret.WriteByte(' ')
			}
		}
		i += w
	}
	caret.WriteByte('^')
	return text.String() + "\n" + caret.String()
}
