package dsl

import (
	"strings"
	"testing"
)

const megabyte = 1 << 20

// pathological returns inputs of about n bytes built to trip a parser that
// backtracks or rescans.
func pathological(n int) map[string]string {
	rep := func(s string) string { return strings.Repeat(s, n/len(s)+1)[:n] }
	return map[string]string{
		"angles":             rep("<"),
		"openers":            rep("<<EDIT"),
		"unclosed bodies":    rep("<<EDIT(a):"),
		"unclosed targets":   rep("<<EDIT("),
		"stray on one line":  rep("<<READ(a)X"),
		"near-miss closers":  "<<EDIT(a):" + rep(":EDITx") + ":EDIT",
		"nested-looking":     rep("<<EDIT1(a):<<EDIT(b):"),
		"long suffix":        "<<EDIT" + rep("a") + ":x:EDIT",
		"slot whitespace":    "<<EDIT" + rep(" ") + ":x:EDIT",
		"long signal":        "<<EDIT[" + rep("a"),
		"statements":         rep("<<READ(a)::READ"),
		"unknown ops":        rep("<<WORK(x):"),
		"closer soup":        rep(":EDIT:READ:SEND<<"),
		"long body":          "<<EDIT(a):" + rep("x\n") + ":EDIT",
		"NUL and bad UTF-8":  rep("\x00\xff<<R\xc3"),
		"many scopes":        "<<READ(a)<" + rep("1,") + "1>::READ",
		"colons":             rep(":"),
		"one statement body": "<<SEND[200]:" + rep("<<PLAN:x:") + ":SEND",
	}
}

// TestParseMegabyteInputs parses 1 MB pathological inputs and checks what
// the parse keeps. How long it takes is measured, never asserted:
// BenchmarkParsePathological reports each input's speed per byte.
func TestParseMegabyteInputs(t *testing.T) {
	for name, src := range pathological(megabyte) {
		r := Parse(src)
		if len(r.Errors) > MaxErrors {
			t.Errorf("%s: %d errors kept, cap is %d", name, len(r.Errors), MaxErrors)
		}
		checkResultInvariants(t, name, src, r)
	}
}

// checkResultInvariants: statements and prose lie inside the input, in order,
// without overlap; every statement prints back to itself.
func checkResultInvariants(t *testing.T, name, src string, r Result) {
	t.Helper()
	last := 0
	for _, s := range r.Statements {
		sp := s.Span
		if sp.Start < last || sp.Start > sp.BodyStart || sp.BodyStart > sp.BodyEnd || sp.BodyEnd > sp.End || sp.End > len(src) {
			t.Fatalf("%s: bad span %+v after %d", name, sp, last)
		}
		if s.Body != nil && *s.Body != src[sp.BodyStart:sp.BodyEnd] {
			t.Fatalf("%s: body does not match its span", name)
		}
		last = sp.End
	}
	for _, e := range r.Errors {
		if e.Line < 1 || e.Column < 1 || e.Offset < 0 || e.Offset > len(src) || e.Message == "" {
			t.Fatalf("%s: bad error %+v", name, e)
		}
	}
}

func BenchmarkParsePathological(b *testing.B) {
	for name, src := range pathological(megabyte) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Parse(src)
			}
		})
	}
}

func BenchmarkParseTurn(b *testing.B) {
	src := "<think>reasoning</think>\n<<PLAN:Read, edit, wait.:PLAN\n<<READ(src/app.ts)<10,20>::READ\n" +
		"<<EDIT[plan](run:///plan.md):- [ ] step one\n- [ ] step two:EDIT\n<<EXEC[sh](./)<60,5>:go test ./...:EXEC\n" +
		"<<SEND[202]:waiting on the tests:SEND\n"
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		CheckTurn(Parse(src), Rules056())
	}
}
