package dsl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestFormatCanonical(t *testing.T) {
	tests := []struct{ src, want string }{
		{"<<FIND<2>(p)[t]:m:FIND", "<<FIND[t](p)<2>:m:FIND"},
		{"<<EDIT[ a ,,b , ](x.md):y:EDIT", "<<EDIT[a,b](x.md):y:EDIT"},
		{"<<READ(a)<4-7>::READ", "<<READ(a)<4,7>::READ"},
		{"<<READ(a)<1, -1>::READ", "<<READ(a)<1,-1>::READ"},
		{"<<FIND[](known:///**)::FIND", "<<FIND[](known:///**)::FIND"},
		{"<<SEND[]:x:SEND", "<<SEND:x:SEND"},
		{"<<SEND[0200]:x:SEND", "<<SEND[200]:x:SEND"},
		{"<<EXEC[sh](./)<60,5>:npm test:EXEC", "<<EXEC[sh](./)<60,5>:npm test:EXEC"},
		{"<<FIND(known:///**)<0.70>:~x:FIND", "<<FIND(known:///**)<0.7>:~x:FIND"},
		{"<<EDIT1 (a) :x:EDIT y:EDIT1", "<<EDIT1(a):x:EDIT y:EDIT1"},
		{"<<SEND[410](known:///a.md#notes)::SEND", "<<SEND[410](known:///a.md#notes)::SEND"},
	}
	for _, tt := range tests {
		s, err := ParseStatement(tt.src)
		if err != nil {
			t.Errorf("ParseStatement(%q): %v", tt.src, err)
			continue
		}
		if got := Format(s); got != tt.want {
			t.Errorf("Format(Parse(%q)) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []struct {
		name string
		s    Statement
		says string
	}{
		{"unknown op", Statement{Op: "WORK"}, "unknown op"},
		{"bad suffix", Statement{Op: OpEdit, Suffix: "a-b"}, "suffix"},
		{"plan with target", Statement{Op: OpPlan, Target: local("x")}, "PLAN takes no slots"},
		{"empty body pointer", Statement{Op: OpEdit, Body: str("")}, "nil Body"},
		{"body holds closer", Statement{Op: OpEdit, Body: str("a :EDIT b")}, "close tag"},
		{"body ends with closer", Statement{Op: OpEdit, Body: str("a:EDIT")}, "close tag"},
		{"tags on SEND", Statement{Op: OpSend, Signal: tags("a")}, "integer signal only"},
		{"code on FIND", Statement{Op: OpFind, Signal: code(3)}, "tags only"},
		{"bad executor", Statement{Op: OpExec, Signal: &Signal{Executor: "1x"}}, "executor"},
		{"empty tags slice", Statement{Op: OpFind, Signal: &Signal{Tags: []string{}}}, "nil Tags"},
		{"tag with comma", Statement{Op: OpFind, Signal: tags("a,b")}, "may not hold"},
		{"tag padded", Statement{Op: OpFind, Signal: tags(" a")}, "surrounding whitespace"},
		{"tags form <<", Statement{Op: OpFind, Signal: tags("a<", "<b", "c<<")}, "<<"},
		{"target with space", Statement{Op: OpRead, Target: local("a b")}, "whitespace"},
		{"target with paren", Statement{Op: OpRead, Target: local("a)")}, "')'"},
		{"empty target", Statement{Op: OpRead, Target: &Target{}}, "empty target"},
		{"inconsistent target", Statement{Op: OpRead, Target: &Target{Scheme: "known", Host: "a/b"}}, "split back"},
		{"local looks like url", Statement{Op: OpRead, Target: local("known://x")}, "split back"},
		{"empty scope", Statement{Op: OpRead, Scope: &Scope{}}, "at least one mark"},
	}
	for _, tt := range bad {
		err := Validate(tt.s)
		if err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: Validate = %v, want an error saying %q", tt.name, err, tt.says)
		}
	}
	good := Statement{Op: OpEdit, Suffix: "1", Signal: tags("a"), Target: url("run", "x", ""), Scope: scope(-1), Body: str("x :EDIT y")}
	if err := Validate(good); err != nil {
		t.Errorf("Validate(%s) = %v", Format(good), err)
	}
}

// seedSet is a set of emissions, valid and broken, for the
// parse∘format∘parse property.
func seedSet() []string {
	return []string{
		"<think>free reasoning</think>\n<<PLAN:Delegate, then wait.:PLAN\n<<EDIT(run://capital-checker):Find the capital of France:EDIT\n<<SEND[202]:Awaiting capital-checker.:SEND",
		"<<PLAN:p:PLAN<<READ(src/app.ts)<10,20>::READ<<FIND[draft](known:///notes/**):TODO*:FIND<<SEND[200]:done:SEND",
		"<<EDIT1(known:///demo):quoted: <<EDIT(known:///inner):hello:EDIT:EDIT1",
		"<<FIND<2>(p)[t]:m:FIND\n<<FIND(p)[t]<2>:m:FIND",
		"<<EXEC[sh](./)<60,5>:npm test:EXEC <<KILL[9](sh:///3/1/3)::KILL <<OPEN(log:///1/2/3)::OPEN <<FOLD(log:///**)<101,200>::FOLD",
		"<<COPY[archive](known:///draft.md):known:///archive/draft.md:COPY\n<<MOVE(known:///a.md):known:///b.md:MOVE\n<<COPY(run://.):branch:COPY",
		"<<SEND[499](exec:///1/2/3)::SEND <<SEND[410](known:///a.md#notes)::SEND <<SEND(run://peer):{\"a\":1}:SEND",
		"<<EDIT(p)X:y:EDIT <<READ(a)::READ <<SEND[abc]:x:SEND <<READ(b)<1;2>::READ",
		"<<READ(a)::READ <<EDIT(b):never closed",
		"é✓ <<READ(notes.md#meta)<1, -1>::READ\r\n<<READ(a)<4-7>::READ",
		"<<EDIT[ a ,,b , ](x.md): :EDIT <<EDIT(y.md):a:EDITx b:EDIT",
		"<<<<<<READ(a)::READ<<WORK(run://x):t:WORK",
		"<<PLAN:p:PLAN\n<<EXEC<-1>:tail -f x:EXEC\n<<EXEC[python3.12]:print(1):EXEC\n<<SEND[102]:go on:SEND",
	}
}

// TestParseFormatParse checks parse(format(parse(s))) == parse(s) for the
// statements of every seed emission.
func TestParseFormatParse(t *testing.T) {
	for _, src := range seedSet() {
		first := Parse(src)
		for _, s := range first.Statements {
			if err := Validate(s); err != nil {
				t.Errorf("parsed statement fails Validate: %v\n%s", err, Format(s))
			}
		}
		again := Parse(FormatAll(first.Statements))
		if len(again.Errors) != 0 {
			t.Errorf("reparse of %q: errors %v", src, again.Errors)
		}
		if diff := cmp.Diff(first.Statements, again.Statements, ignoreSpan); diff != "" {
			t.Errorf("parse(format(parse(%q))) differs (-first +again):\n%s", src, diff)
		}
	}
}

// genStatement draws a statement that Validate accepts.
func genStatement() *rapid.Generator[Statement] {
	ops := allOps()
	word := rapid.StringMatching(`[A-Za-z0-9_]{1,4}`)
	tagGen := rapid.StringMatching(`[a-z0-9][a-z0-9 .:/é<>()-]{0,6}[a-z0-9]|[a-z]`)
	pathGen := rapid.StringMatching(`[A-Za-z0-9_./*?é:-]{0,12}`)
	bodyPart := rapid.SampledFrom([]string{"a", "Z", " ", "\n", "\r\n", "\t", ":", "::", "<", "<<", ">", "[", "]", "(", ")",
		"#", "é", "✓", "EDIT", "READ", ":EDITx", ":SEND_", "<<READ(x)::READ", "{\"k\":1}", "/", "$", "~", "\x00", "\xff"})
	return rapid.Custom(func(t *rapid.T) Statement {
		s := Statement{Op: rapid.SampledFrom(ops).Draw(t, "op")}
		if rapid.Bool().Draw(t, "hasSuffix") {
			s.Suffix = word.Draw(t, "suffix")
		}
		if s.Op != OpPlan {
			if rapid.Bool().Draw(t, "hasSignal") {
				switch s.Op.SignalFamily() {
				case FamilyTags:
					var tg []string
					for range rapid.IntRange(0, 3).Draw(t, "ntags") {
						tg = append(tg, tagGen.Draw(t, "tag"))
					}
					s.Signal = &Signal{Tags: tg}
				case FamilyInt:
					s.Signal = &Signal{Code: rapid.IntRange(-1000, 100000).Draw(t, "code")}
				case FamilyIdent:
					s.Signal = &Signal{Executor: rapid.StringMatching(`[a-z_][a-z0-9_.+-]{0,6}`).Draw(t, "exec")}
				}
			}
			if rapid.Bool().Draw(t, "hasTarget") {
				var tg Target
				if rapid.Bool().Draw(t, "url") {
					tg.Scheme = rapid.SampledFrom([]string{"known", "run", "log", "sh", "https", "a+b.c-d"}).Draw(t, "scheme")
					tg.Host = rapid.StringMatching(`[a-z0-9.-]{0,8}`).Draw(t, "host")
					if rapid.Bool().Draw(t, "hasPath") {
						tg.Path = "/" + pathGen.Draw(t, "path")
					}
				} else {
					tg.Path = pathGen.Draw(t, "local")
				}
				if rapid.Bool().Draw(t, "hasFragment") {
					tg.Fragment = rapid.StringMatching(`[a-z#]{0,6}`).Draw(t, "fragment")
					tg.HasFragment = true
				}
				s.Target = &tg
			}
			if rapid.Bool().Draw(t, "hasScope") {
				var marks []float64
				for range rapid.IntRange(1, 3).Draw(t, "nmarks") {
					if rapid.Bool().Draw(t, "decimal") {
						marks = append(marks, float64(rapid.IntRange(-1000, 1000).Draw(t, "num"))/float64(rapid.SampledFrom([]int{1, 2, 4, 10, 1000}).Draw(t, "den")))
					} else {
						marks = append(marks, float64(rapid.IntRange(-1, 1<<40).Draw(t, "mark")))
					}
				}
				s.Scope = &Scope{Marks: marks}
			}
		}
		if rapid.Bool().Draw(t, "hasBody") {
			var b strings.Builder
			for range rapid.IntRange(1, 8).Draw(t, "nparts") {
				b.WriteString(bodyPart.Draw(t, "part"))
			}
			body := b.String()
			s.Body = &body
		}
		return s
	}).Filter(func(s Statement) bool { return Validate(s) == nil })
}

// TestRapidFormatParse: printing a generated statement and parsing it back
// gives the same statement.
func TestRapidFormatParse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genStatement().Draw(t, "stmt")
		text := Format(s)
		got, err := ParseStatement(text)
		if err != nil {
			t.Fatalf("ParseStatement(%q): %v", text, err)
		}
		if diff := cmp.Diff(s, got, ignoreSpan); diff != "" {
			t.Fatalf("round trip of %q (-generated +parsed):\n%s", text, diff)
		}
		if got.Span.Start != 0 || got.Span.End != len(text) {
			t.Fatalf("span %+v does not cover %d bytes", got.Span, len(text))
		}
	})
}

// TestRapidFormatAllParse: a generated emission of several statements
// printed together parses back statement for statement.
func TestRapidFormatAllParse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		stmts := rapid.SliceOfN(genStatement(), 0, 6).Draw(t, "stmts")
		text := FormatAll(stmts)
		r := Parse(text)
		if len(r.Errors) != 0 {
			t.Fatalf("Parse(%q) errors: %v", text, r.Errors)
		}
		if diff := cmp.Diff(stmts, r.Statements, ignoreSpan, cmpEmptyAsNil()); diff != "" {
			t.Fatalf("round trip of %q (-generated +parsed):\n%s", text, diff)
		}
	})
}

func cmpEmptyAsNil() cmp.Option {
	return cmp.FilterValues(func(a, b []Statement) bool { return len(a) == 0 && len(b) == 0 }, cmp.Comparer(func(a, b []Statement) bool { return true }))
}
