package dsl

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func str(s string) *string { return &s }

func local(p string) *Target { return &Target{Path: p} }

func url(scheme, host, path string) *Target {
	return &Target{Scheme: scheme, Host: host, Path: path}
}

func frag(t *Target, f string) *Target {
	t.Fragment, t.HasFragment = f, true
	return t
}

func tags(t ...string) *Signal { return &Signal{Tags: t} }
func code(n int) *Signal       { return &Signal{Code: n} }
func scope(m ...float64) *Scope {
	return &Scope{Marks: m}
}

// ignoreSpan compares statements without their offsets.
var ignoreSpan = cmpopts.IgnoreFields(Statement{}, "Span")

func TestParseConstructs(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Statement
	}{
		{"plan", "<<PLAN:Check the config, then answer.:PLAN",
			[]Statement{{Op: OpPlan, Body: str("Check the config, then answer.")}}},
		{"read line range local", "<<READ(src/app.ts)<10,20>::READ",
			[]Statement{{Op: OpRead, Target: local("src/app.ts"), Scope: scope(10, 20)}}},
		{"read single line", "<<READ(notes.md)<7>::READ",
			[]Statement{{Op: OpRead, Target: local("notes.md"), Scope: scope(7)}}},
		{"read range with space after comma", "<<READ(notes.md)<1, -1>::READ",
			[]Statement{{Op: OpRead, Target: local("notes.md"), Scope: scope(1, -1)}}},
		{"read dash range (older form)", "<<READ(notes.md)<4-7>::READ",
			[]Statement{{Op: OpRead, Target: local("notes.md"), Scope: scope(4, 7)}}},
		{"read negative dash range", "<<READ(notes.md)<-3--1>::READ",
			[]Statement{{Op: OpRead, Target: local("notes.md"), Scope: scope(-3, -1)}}},
		{"find tags glob", "<<FIND[draft](known:///notes/**):TODO*:FIND",
			[]Statement{{Op: OpFind, Signal: tags("draft"), Target: url("known", "", "/notes/**"), Body: str("TODO*")}}},
		{"find threshold", "<<FIND(known:///**)<0.7>:~french concessions:FIND",
			[]Statement{{Op: OpFind, Target: url("known", "", "/**"), Scope: scope(0.7), Body: str("~french concessions")}}},
		{"find empty tag list", "<<FIND[](known:///**)::FIND",
			[]Statement{{Op: OpFind, Signal: &Signal{}, Target: url("known", "", "/**")}}},
		{"tags trimmed, empties dropped", "<<EDIT[ a ,,b , ](x.md):y:EDIT",
			[]Statement{{Op: OpEdit, Signal: tags("a", "b"), Target: local("x.md"), Body: str("y")}}},
		{"edit multi-line body into self scratch", "<<EDIT[plan,france](run:///plan.md):- [ ] Decompose\n- [ ] Answer:EDIT",
			[]Statement{{Op: OpEdit, Signal: tags("plan", "france"), Target: url("run", "", "/plan.md"), Body: str("- [ ] Decompose\n- [ ] Answer")}}},
		{"edit append sentinel", `<<EDIT(known:///users.json)<-1>:{"name":"Eve"}:EDIT`,
			[]Statement{{Op: OpEdit, Target: url("known", "", "/users.json"), Scope: scope(-1), Body: str(`{"name":"Eve"}`)}}},
		{"edit null body clears", "<<EDIT(known:///countries/france/capital.md)<1,-1>::EDIT",
			[]Statement{{Op: OpEdit, Target: url("known", "", "/countries/france/capital.md"), Scope: scope(1, -1)}}},
		{"body whitespace only is not null", "<<EDIT(a.md): :EDIT",
			[]Statement{{Op: OpEdit, Target: local("a.md"), Body: str(" ")}}},
		{"body keeps colons and op words", "<<EDIT(a.md):x: EDIT :EDITING :READ y:EDIT",
			[]Statement{{Op: OpEdit, Target: local("a.md"), Body: str("x: EDIT :EDITING :READ y")}}},
		{"first close tag ends the body", "<<EDIT(a.md):one:EDIT two:EDIT",
			[]Statement{{Op: OpEdit, Target: local("a.md"), Body: str("one")}}},
		{"suffix nesting", "<<EDIT1(known:///demo):quoted: <<EDIT(known:///inner):hello:EDIT:EDIT1",
			[]Statement{{Op: OpEdit, Suffix: "1", Target: url("known", "", "/demo"), Body: str("quoted: <<EDIT(known:///inner):hello:EDIT")}}},
		{"word suffix", "<<EDITouter(a.md):x:EDIT y:EDITouter",
			[]Statement{{Op: OpEdit, Suffix: "outer", Target: local("a.md"), Body: str("x:EDIT y")}}},
		{"suffix close needs boundary", "<<EDIT1(a.md):x:EDIT12 y:EDIT1",
			[]Statement{{Op: OpEdit, Suffix: "1", Target: local("a.md"), Body: str("x:EDIT12 y")}}},
		{"copy with replacement tags", "<<COPY[archive](known:///draft.md):known:///archive/draft.md:COPY",
			[]Statement{{Op: OpCopy, Signal: tags("archive"), Target: url("known", "", "/draft.md"), Body: str("known:///archive/draft.md")}}},
		{"move", "<<MOVE(known:///draft/answer.md):known:///final/answer.md:MOVE",
			[]Statement{{Op: OpMove, Target: url("known", "", "/draft/answer.md"), Body: str("known:///final/answer.md")}}},
		{"copy source line range", "<<COPY(a.md)<3,5>:b.md:COPY",
			[]Statement{{Op: OpCopy, Target: local("a.md"), Scope: scope(3, 5), Body: str("b.md")}}},
		{"open log row", "<<OPEN(log:///1/2/3)::OPEN",
			[]Statement{{Op: OpOpen, Target: url("log", "", "/1/2/3")}}},
		{"fold log range", "<<FOLD(log:///**)<101,200>::FOLD",
			[]Statement{{Op: OpFold, Target: url("log", "", "/**"), Scope: scope(101, 200)}}},
		{"exec runtime cwd timeout poll", "<<EXEC[sh](./)<60,5>:npm test:EXEC",
			[]Statement{{Op: OpExec, Signal: &Signal{Executor: "sh"}, Target: local("./"), Scope: scope(60, 5), Body: str("npm test")}}},
		{"exec unbounded", "<<EXEC<-1>:tail -f log:EXEC",
			[]Statement{{Op: OpExec, Scope: scope(-1), Body: str("tail -f log")}}},
		{"exec empty signal is nil", "<<EXEC[]:ls:EXEC",
			[]Statement{{Op: OpExec, Body: str("ls")}}},
		{"exec dotted executor", "<<EXEC[python3.12]:print(1):EXEC",
			[]Statement{{Op: OpExec, Signal: &Signal{Executor: "python3.12"}, Body: str("print(1)")}}},
		{"kill stream sigkill", "<<KILL[9](sh:///3/1/3)::KILL",
			[]Statement{{Op: OpKill, Signal: code(9), Target: url("sh", "", "/3/1/3")}}},
		{"kill run", "<<KILL(run://recheck)::KILL",
			[]Statement{{Op: OpKill, Target: url("run", "recheck", "")}}},
		{"kill self", "<<KILL(run://.)::KILL",
			[]Statement{{Op: OpKill, Target: url("run", ".", "")}}},
		{"spawn run", "<<EDIT(run://capital-checker):Find the capital of France:EDIT",
			[]Statement{{Op: OpEdit, Target: url("run", "capital-checker", ""), Body: str("Find the capital of France")}}},
		{"fork run", "<<COPY(run://.):Re-derive the capital:COPY",
			[]Statement{{Op: OpCopy, Target: url("run", ".", ""), Body: str("Re-derive the capital")}}},
		{"irc", `<<SEND(run://capital-checker):{"hint":"x"}:SEND`,
			[]Statement{{Op: OpSend, Target: url("run", "capital-checker", ""), Body: str(`{"hint":"x"}`)}}},
		{"send done", "<<SEND[200]:Paris.:SEND",
			[]Statement{{Op: OpSend, Signal: code(200), Body: str("Paris.")}}},
		{"send hibernate", "<<SEND[202]:waiting on the build:SEND",
			[]Statement{{Op: OpSend, Signal: code(202), Body: str("waiting on the build")}}},
		{"send cancel stream", "<<SEND[499](exec:///1/2/3)::SEND",
			[]Statement{{Op: OpSend, Signal: code(499), Target: url("exec", "", "/1/2/3")}}},
		{"send delete channel", "<<SEND[410](known:///a.md#notes)::SEND",
			[]Statement{{Op: OpSend, Signal: code(410), Target: frag(url("known", "", "/a.md"), "notes")}}},
		{"send empty signal is nil", "<<SEND[ ]:hi:SEND",
			[]Statement{{Op: OpSend, Body: str("hi")}}},
		{"send negative", "<<SEND[-1]:x:SEND",
			[]Statement{{Op: OpSend, Signal: code(-1), Body: str("x")}}},
		{"read channel fragment", "<<READ(sh:///1/1/2#stderr)::READ",
			[]Statement{{Op: OpRead, Target: frag(url("sh", "", "/1/1/2"), "stderr")}}},
		{"foreign host", "<<READ(https://example.com/a?b=1#top)::READ",
			[]Statement{{Op: OpRead, Target: frag(url("https", "example.com", "/a?b=1"), "top")}}},
		{"authority form", "<<READ(known://entries/foo)::READ",
			[]Statement{{Op: OpRead, Target: url("known", "entries", "/foo")}}},
		{"upper-case scheme stays local", "<<READ(HTTP://x)::READ",
			[]Statement{{Op: OpRead, Target: local("HTTP://x")}}},
		{"fragment runs from the first #", "<<FIND(known:///a#b#c)::FIND",
			[]Statement{{Op: OpFind, Target: frag(url("known", "", "/a"), "b#c")}}},
		{"host ends at #", "<<READ(run://w#log)::READ",
			[]Statement{{Op: OpRead, Target: frag(url("run", "w", ""), "log")}}},
		{"exec scope as timeout and poll", "<<EXEC[node](run:///)<0,30>:x:EXEC",
			[]Statement{{Op: OpExec, Signal: &Signal{Executor: "node"}, Target: url("run", "", "/"), Scope: scope(0, 30), Body: str("x")}}},
		{"local fragment", "<<READ(notes.md#meta)::READ",
			[]Statement{{Op: OpRead, Target: frag(local("notes.md"), "meta")}}},
		{"slot order free 1", "<<FIND<2>(p)[t]:m:FIND",
			[]Statement{{Op: OpFind, Signal: tags("t"), Target: local("p"), Scope: scope(2), Body: str("m")}}},
		{"slot order free 2", "<<FIND(p)<2>[t]:m:FIND",
			[]Statement{{Op: OpFind, Signal: tags("t"), Target: local("p"), Scope: scope(2), Body: str("m")}}},
		{"slot order free 3", "<<FIND[t]<2>(p):m:FIND",
			[]Statement{{Op: OpFind, Signal: tags("t"), Target: local("p"), Scope: scope(2), Body: str("m")}}},
		{"whitespace between slots", "<<FIND [t]\n\t(p) <2>\r\n:m:FIND",
			[]Statement{{Op: OpFind, Signal: tags("t"), Target: local("p"), Scope: scope(2), Body: str("m")}}},
		{"glued statements", "<<READ(a)::READ<<EDIT(b):c:EDIT",
			[]Statement{{Op: OpRead, Target: local("a")}, {Op: OpEdit, Target: local("b"), Body: str("c")}}},
		{"finder is FIND+suffix", "<<FINDER(a)::FINDER",
			[]Statement{{Op: OpFind, Suffix: "ER", Target: local("a")}}},
		{"triple angle", "<<<READ(a)::READ",
			[]Statement{{Op: OpRead, Target: local("a")}}},
		{"unicode body", "<<EDIT(a.md):héllo ✓\n:EDIT",
			[]Statement{{Op: OpEdit, Target: local("a.md"), Body: str("héllo ✓\n")}}},
		{"close tag at end of input", "<<EDIT(a.md):x:EDIT",
			[]Statement{{Op: OpEdit, Target: local("a.md"), Body: str("x")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse(tt.src)
			if len(r.Errors) != 0 {
				t.Fatalf("Parse(%q) errors: %v", tt.src, r.Errors)
			}
			if diff := cmp.Diff(tt.want, r.Statements, ignoreSpan); diff != "" {
				t.Errorf("Parse(%q) statements (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

func TestParseSpans(t *testing.T) {
	src := "pre <<READ(a)::READ mid\n<<EDIT(b):xy:EDIT"
	r := Parse(src)
	want := []Span{{Start: 4, End: 19, BodyStart: 14, BodyEnd: 14}, {Start: 24, End: 41, BodyStart: 34, BodyEnd: 36}}
	var got []Span
	for _, s := range r.Statements {
		got = append(got, s.Span)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	wantProse := []Prose{{Text: "pre ", Start: 0, End: 4}, {Text: " mid\n", Start: 19, End: 24}}
	if diff := cmp.Diff(wantProse, r.Prose); diff != "" {
		t.Errorf("prose (-want +got):\n%s", diff)
	}
	if got := src[r.Statements[1].Span.BodyStart:r.Statements[1].Span.BodyEnd]; got != "xy" {
		t.Errorf("body span covers %q, want %q", got, "xy")
	}
}

func TestParseProse(t *testing.T) {
	src := "<think>free reasoning</think>\n<<PLAN:p:PLAN\n  \n<<SEND[200]:done:SEND\ntrailing words"
	r := Parse(src)
	want := []Prose{
		{Text: "<think>free reasoning</think>\n", Start: 0, End: 30},
		{Text: "\ntrailing words", Start: 68, End: 83},
	}
	if diff := cmp.Diff(want, r.Prose); diff != "" {
		t.Errorf("prose (-want +got):\n%s", diff)
	}
	if len(r.Statements) != 2 {
		t.Fatalf("got %d statements, want 2", len(r.Statements))
	}
	// A mention of << that is not an op is prose, with no diagnostic.
	r = Parse("use << and <<x and <<DELETE vs KILL")
	if len(r.Statements) != 0 || len(r.Errors) != 0 || len(r.Prose) != 1 {
		t.Errorf("bare mentions: statements %d, errors %v, prose %d; want 0, none, 1", len(r.Statements), r.Errors, len(r.Prose))
	}
}

func TestParseStatementHelper(t *testing.T) {
	s, err := ParseStatement("  <<READ(a)::READ\n")
	if err != nil {
		t.Fatalf("ParseStatement: %v", err)
	}
	if diff := cmp.Diff(Statement{Op: OpRead, Target: local("a")}, s, ignoreSpan); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, src := range []string{"", "x <<READ(a)::READ", "<<READ(a)::READ<<READ(b)::READ", "<<READ(a)X::READ"} {
		if _, err := ParseStatement(src); err == nil {
			t.Errorf("ParseStatement(%q) = nil error, want one", src)
		}
	}
}

func TestTargetHelpers(t *testing.T) {
	if n, ok := url("run", "cap", "").RunName(); !ok || n != "cap" {
		t.Errorf("run://cap RunName = %q, %v", n, ok)
	}
	if n, ok := url("run", ".", "").RunName(); !ok || n != "." {
		t.Errorf("run://. RunName = %q, %v", n, ok)
	}
	for _, tg := range []*Target{url("run", "cap", "/notes.md"), url("run", "", "/x"), url("known", "cap", ""), local("run")} {
		if _, ok := tg.RunName(); ok {
			t.Errorf("%s: RunName ok, want not a run control target", tg)
		}
	}
	st := Statement{Op: OpSend, Signal: code(202)}
	if c, ok := st.Status(); !ok || c != 202 {
		t.Errorf("Status = %d, %v; want 202, true", c, ok)
	}
	if _, ok := (Statement{Op: OpFind, Signal: tags("a")}).Status(); ok {
		t.Errorf("FIND Status ok, want false")
	}
	sc := Scope{Marks: []float64{60, 0.5}}
	if v, ok := sc.Int(0); !ok || v != 60 {
		t.Errorf("Int(0) = %d, %v", v, ok)
	}
	if _, ok := sc.Int(1); ok {
		t.Errorf("Int(1) of 0.5 ok, want false")
	}
	if _, ok := sc.Int(2); ok {
		t.Errorf("Int(2) ok, want false")
	}
}
