package dsl

import (
	"strconv"
	"strings"
)

// Op is a statement keyword. Every keyword is exactly four upper-case letters.
type Op string

// The ops of the 0.56-era grammar. WORK and FORK (grammar 0.74.55) do not
// exist yet: a run is spawned with EDIT(run://<name>) and forked with
// COPY(run://<src>).
const (
	OpPlan Op = "PLAN"
	OpFind Op = "FIND"
	OpRead Op = "READ"
	OpEdit Op = "EDIT"
	OpCopy Op = "COPY"
	OpMove Op = "MOVE"
	OpOpen Op = "OPEN"
	OpFold Op = "FOLD"
	OpExec Op = "EXEC"
	OpKill Op = "KILL"
	OpSend Op = "SEND"
)

// lookupOp reports whether s is an op keyword.
func lookupOp(s string) (Op, bool) {
	switch Op(s) {
	case OpPlan, OpFind, OpRead, OpEdit, OpCopy, OpMove, OpOpen, OpFold, OpExec, OpKill, OpSend:
		return Op(s), true
	}
	return "", false
}

// Family is the lexical type of an op's [signal] slot.
type Family int

const (
	// FamilyNone: the op takes no signal (PLAN).
	FamilyNone Family = iota
	// FamilyTags: comma-separated tags (FIND READ EDIT COPY MOVE OPEN FOLD).
	FamilyTags
	// FamilyInt: one signed integer — the status on SEND, the Unix signal on KILL.
	FamilyInt
	// FamilyIdent: one executor id on EXEC (sh, node, python …).
	FamilyIdent
)

// SignalFamily returns the lexical type of op's signal slot.
func (op Op) SignalFamily() Family {
	switch op {
	case OpPlan:
		return FamilyNone
	case OpSend, OpKill:
		return FamilyInt
	case OpExec:
		return FamilyIdent
	}
	return FamilyTags
}

// Signal is the content of a [signal] slot. Which field is meaningful
// depends on the op's Family; the others stay zero.
//
// An empty slot `[]` is a Signal with no tags on the tag family and no
// signal at all (nil) on the int and ident families.
type Signal struct {
	Tags     []string // FamilyTags; nil when the slot holds no tag
	Code     int      // FamilyInt: SEND status code or KILL signal number
	Executor string   // FamilyIdent: the EXEC runtime
}

// Target is the content of a (target) slot, split without loss: String
// rebuilds the exact slot text.
//
// A target starting with `scheme://` (scheme = [a-z][a-z0-9+.-]*) is a URL:
// Host is the authority verbatim (up to the first `/` or `#`), Path runs to
// the first `#`. Anything else is a local path with an empty Scheme. In both
// forms the text after the first `#` is the channel fragment.
type Target struct {
	Scheme      string
	Host        string
	Path        string
	Fragment    string
	HasFragment bool
}

// IsURL reports whether the target was written as scheme://….
func (t Target) IsURL() bool { return t.Scheme != "" }

// String returns the target as written in the slot.
func (t Target) String() string {
	var b strings.Builder
	if t.Scheme != "" {
		b.WriteString(t.Scheme)
		b.WriteString("://")
		b.WriteString(t.Host)
	}
	b.WriteString(t.Path)
	if t.HasFragment {
		b.WriteByte('#')
		b.WriteString(t.Fragment)
	}
	return b.String()
}

// RunName reports the run named by a control-face run:// target: a target
// with a name as authority and no path (`run://<name>`). The name "." is
// the current run (self). A run:// target with a path is run-scope scratch
// storage, not a run, and reports false.
func (t Target) RunName() (string, bool) {
	if t.Scheme != "run" || t.Host == "" || t.Path != "" {
		return "", false
	}
	return t.Host, true
}

// Scope is the content of a <scope> slot (the <L> line marker): numbers
// separated by commas. READ/EDIT/COPY/MOVE read it as lines, FIND/OPEN/FOLD
// as results, EXEC as <timeout,poll> in seconds.
type Scope struct {
	Marks []float64
}

// Int returns mark i as an integer and whether it exists and is integral.
func (s Scope) Int(i int) (int, bool) {
	if i < 0 || i >= len(s.Marks) {
		return 0, false
	}
	m := s.Marks[i]
	if m != float64(int(m)) {
		return 0, false
	}
	return int(m), true
}

// String returns the canonical slot text without the angle brackets.
func (s Scope) String() string {
	parts := make([]string, len(s.Marks))
	for i, m := range s.Marks {
		parts[i] = strconv.FormatFloat(m, 'f', -1, 64)
	}
	return strings.Join(parts, ",")
}

// Span locates a statement in its emission, in byte offsets. BodyStart and
// BodyEnd delimit the body text (equal when the body is null).
type Span struct {
	Start     int // the opening <<
	End       int // just after the close tag
	BodyStart int
	BodyEnd   int
}

// Statement is one parsed op (the spec's PlurnkStatement).
type Statement struct {
	Op     Op
	Suffix string  // the [A-Za-z0-9_]+ glued to the op, "" when absent
	Signal *Signal // nil: no [signal] slot (or an empty one on int/ident ops)
	Target *Target // nil: no (target) slot
	Scope  *Scope  // nil: no <scope> slot
	Body   *string // nil: null body `::`; never points at "" after Parse
	Span   Span
}

// Status returns the integer signal of a SEND or KILL statement.
func (s Statement) Status() (int, bool) {
	if s.Op.SignalFamily() != FamilyInt || s.Signal == nil {
		return 0, false
	}
	return s.Signal.Code, true
}

// closer returns the close tag of s, colon included.
func (s Statement) closer() string { return ":" + string(s.Op) + s.Suffix }

// Prose is free text between statements (for example a <think> preamble).
// Whitespace-only gaps are not reported.
type Prose struct {
	Text       string
	Start, End int // byte offsets
}

// Result is what Parse makes of one emission. Statements and Prose are each
// in emission order; their Spans/offsets interleave them.
type Result struct {
	Statements []Statement
	Prose      []Prose
	Errors     []*Error // errors and warnings, in emission order
	// Tail is the error that stopped the parse (a body never closed);
	// nothing after it became a statement. Nil when the whole input was read.
	Tail *Error
	// Suppressed counts the diagnostics beyond MaxErrors that were not kept.
	Suppressed int
}

func isWordByte(c byte) bool {
	return c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}
