package plurnk

import (
	"os"
	"strings"
	"testing"

	"anchorage/fuzz/internal/fuzzfile"

	"anchorage/impl/plurnk/dsl"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzParse: Parse never panics, returns statements and prose in order
// inside the input, errors with 1-based positions, and statements that
// print and parse back unchanged.
func FuzzParse(f *testing.F) {
	f.Add("<<PLAN:p:PLAN\n<<READ(a)<1,-1>::READ\n<<SEND[200]:ok:SEND")
	// Small versions of the pathological inputs (the large ones are
	// regression tests: TestPathological).
	for _, unit := range []string{":EDIT:READ:SEND<<", "<<EDIT1(a):<<EDIT(b):", "<", "<<EDIT", "<<EDIT(a):", "<<EDIT(a)::EDITx :EDIT_ :EDIT9"} {
		f.Add(strings.Repeat(unit, 8))
	}
	f.Add("<<EDIT" + strings.Repeat("a", 64))
	f.Fuzz(parseCheck)
}

// parseCheck is the body of FuzzParse.
func parseCheck(t *testing.T, src string) {
	{
		r := dsl.Parse(src)
		last := 0
		for _, s := range r.Statements {
			sp := s.Span
			if sp.Start < last || sp.Start > sp.BodyStart || sp.BodyStart > sp.BodyEnd || sp.BodyEnd > sp.End || sp.End > len(src) {
				t.Fatalf("bad span %+v after offset %d", sp, last)
			}
			if s.Body != nil && (*s.Body == "" || *s.Body != src[sp.BodyStart:sp.BodyEnd]) {
				t.Fatalf("body %q does not match its span %+v", *s.Body, sp)
			}
			last = sp.End
		}
		last = 0
		for _, p := range r.Prose {
			if p.Start < last || p.End < p.Start || p.End > len(src) || p.Text != src[p.Start:p.End] {
				t.Fatalf("bad prose %+v after offset %d", p, last)
			}
			last = p.End
		}
		if len(r.Errors) > dsl.MaxErrors {
			t.Fatalf("%d errors kept, cap %d", len(r.Errors), dsl.MaxErrors)
		}
		for _, e := range r.Errors {
			if e.Line < 1 || e.Column < 1 || e.Offset < 0 || e.Offset > len(src) || e.Message == "" || e.Snippet == "" {
				t.Fatalf("malformed error %+v", e)
			}
		}
		ignoreSpan := cmpopts.IgnoreFields(dsl.Statement{}, "Span")
		for _, s := range r.Statements {
			text := dsl.Format(s)
			back, err := dsl.ParseStatement(text)
			if err != nil {
				t.Fatalf("ParseStatement(Format(s)) = %v for %q", err, text)
			}
			if diff := cmp.Diff(s, back, ignoreSpan); diff != "" {
				t.Fatalf("round trip of %q (-parsed +reparsed):\n%s", text, diff)
			}
		}
		again := dsl.Parse(dsl.FormatAll(r.Statements))
		if len(again.Errors) != 0 {
			t.Fatalf("canonical emission has errors: %v", again.Errors)
		}
		if diff := cmp.Diff(r.Statements, again.Statements, ignoreSpan, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("parse(format(parse(s))) != parse(s) (-first +again):\n%s", diff)
		}
		turn := dsl.CheckTurn(r, dsl.Rules056())
		if n := len(turn.Actions) + len(turn.Dropped); n > len(r.Statements) {
			t.Fatalf("turn counts %d ops of %d statements", n, len(r.Statements))
		}
	}
}

// TestPathological runs the large pathological inputs under
// testdata/pathological through the FuzzParse body. They are kept out of
// the seed corpus: mutating and minimizing inputs of tens of kilobytes
// would stall the fuzzing engine.
func TestPathological(t *testing.T) {
	entries, err := fuzzfile.ReadDir(os.DirFS("testdata/pathological"), "FuzzParse")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("no pathological inputs")
	}
	for _, e := range entries {
		t.Run(e.Name, func(t *testing.T) {
			parseCheck(t, e.Values[0].(string))
		})
	}
}
