package dsl

import (
	"strconv"
	"strings"
)

// Format prints s in canonical form: `<<OP` suffix, then the slots in the
// order [signal](target)<scope>, then `:body:` and the close tag. A null body
// prints as `::`; an empty tag signal prints as `[]`; a nil signal on an int
// or ident op prints nothing.
//
// For every well-formed s (the tests' Validate, in validate_test.go, says
// which), Parse(Format(s)) yields one statement equal to s apart from its
// Span. Format does not check; on a malformed statement the output may parse
// differently or not at all.
func Format(s Statement) string {
	var b strings.Builder
	b.WriteString("<<")
	b.WriteString(string(s.Op))
	b.WriteString(s.Suffix)
	if s.Signal != nil {
		b.WriteByte('[')
		b.WriteString(formatSignal(s.Op, *s.Signal))
		b.WriteByte(']')
	}
	if s.Target != nil {
		b.WriteByte('(')
		b.WriteString(s.Target.String())
		b.WriteByte(')')
	}
	if s.Scope != nil {
		b.WriteByte('<')
		b.WriteString(s.Scope.String())
		b.WriteByte('>')
	}
	b.WriteByte(':')
	if s.Body != nil {
		b.WriteString(*s.Body)
	}
	b.WriteString(s.closer())
	return b.String()
}

// FormatAll prints statements one per line.
func FormatAll(stmts []Statement) string {
	parts := make([]string, len(stmts))
	for i, s := range stmts {
		parts[i] = Format(s)
	}
	return strings.Join(parts, "\n")
}

func formatSignal(op Op, sig Signal) string {
	switch op.SignalFamily() {
	case FamilyInt:
		return strconv.Itoa(sig.Code)
	case FamilyIdent:
		return sig.Executor
	}
	return strings.Join(sig.Tags, ",")
}
