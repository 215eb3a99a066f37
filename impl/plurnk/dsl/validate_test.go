package dsl

// What the tests check statements and parse results against: which
// statements Format prints so that Parse reads them back unchanged, every op
// of the grammar, and whether a parse found an error.

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Validate reports why s cannot be printed and parsed back unchanged, or nil.
func Validate(s Statement) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if _, ok := lookupOp(string(s.Op)); !ok {
		bad("unknown op %q", s.Op)
	}
	for i := 0; i < len(s.Suffix); i++ {
		if !isWordByte(s.Suffix[i]) {
			bad("suffix %q: expected only [A-Za-z0-9_]", s.Suffix)
			break
		}
	}
	if s.Op == OpPlan && (s.Signal != nil || s.Target != nil || s.Scope != nil) {
		bad("PLAN takes no slots")
	}
	if s.Signal != nil {
		if err := validateSignal(s.Op, *s.Signal); err != nil {
			bad("signal: %w", err)
		}
	}
	if s.Target != nil {
		if err := validateTarget(*s.Target); err != nil {
			bad("target: %w", err)
		}
	}
	if s.Scope != nil {
		if len(s.Scope.Marks) == 0 {
			bad("scope: expected at least one mark")
		}
		for _, m := range s.Scope.Marks {
			if math.IsNaN(m) || math.IsInf(m, 0) {
				bad("scope: mark %v is not a finite number", m)
			}
		}
	}
	if s.Body != nil {
		if *s.Body == "" {
			bad("body: an empty body prints as :: and parses as null; use a nil Body")
		} else if at := findCloser(*s.Body+":", 0, len(*s.Body), s.closer()); at >= 0 {
			bad("body: holds the close tag %s at byte %d; give the statement a suffix", s.closer(), at)
		}
	}
	return errors.Join(errs...)
}

func validateSignal(op Op, sig Signal) error {
	switch op.SignalFamily() {
	case FamilyNone:
		return errors.New("PLAN takes no signal")
	case FamilyInt:
		if sig.Tags != nil || sig.Executor != "" {
			return fmt.Errorf("%s takes an integer signal only", op)
		}
	case FamilyIdent:
		if sig.Tags != nil || sig.Code != 0 {
			return errors.New("EXEC takes an executor signal only")
		}
		if !isIdent(sig.Executor) {
			return fmt.Errorf("executor %q: expected [A-Za-z_][A-Za-z0-9_.+-]*", sig.Executor)
		}
	case FamilyTags:
		if sig.Code != 0 || sig.Executor != "" {
			return fmt.Errorf("%s takes tags only", op)
		}
		if sig.Tags != nil && len(sig.Tags) == 0 {
			return errors.New("no tags must be a nil Tags slice")
		}
		for _, t := range sig.Tags {
			if t == "" || strings.Trim(t, " \t\r") != t {
				return fmt.Errorf("tag %q: expected non-empty text without surrounding whitespace", t)
			}
			if strings.ContainsAny(t, ",]\n") {
				return fmt.Errorf("tag %q: may not hold ',', ']' or a newline", t)
			}
		}
		if strings.Contains(strings.Join(sig.Tags, ","), "<<") {
			return errors.New("tags may not hold <<")
		}
	}
	return nil
}

func validateTarget(t Target) error {
	s := t.String()
	switch {
	case s == "":
		return errors.New("empty target")
	case strings.ContainsAny(s, ") \t\r\n"):
		return fmt.Errorf("%q: may not hold ')' or whitespace", s)
	case strings.Contains(s, "<<"):
		return fmt.Errorf("%q: may not hold <<", s)
	}
	if parseTarget(s) != t {
		return fmt.Errorf("%q: fields do not split back the same way (scheme, host up to '/' or '#', path up to '#')", s)
	}
	return nil
}

// allOps returns every op of the grammar in a fixed order.
func allOps() []Op {
	return []Op{OpPlan, OpFind, OpRead, OpEdit, OpCopy, OpMove, OpOpen, OpFold, OpExec, OpKill, OpSend}
}

// hasErrors reports whether any diagnostic of r of severity error was found.
func hasErrors(r Result) bool {
	if r.Suppressed > 0 {
		return true
	}
	for _, e := range r.Errors {
		if e.Severity == SeverityError {
			return true
		}
	}
	return false
}
