package dsl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		kind     ErrorKind
		line     int
		column   int
		contains string // part of the message saying what was expected
		snippet  string
		tail     bool
		kept     int // statements still parsed
	}{
		{name: "unclosed body", src: "<<PLAN:p:PLAN\n<<EDIT(a.md):never closed",
			kind: ErrUnclosedBody, line: 2, column: 1, contains: "add :EDIT", snippet: "<<EDIT(a.md):never closed\n^", tail: true, kept: 1},
		{name: "wrong suffix on closer", src: "<<EDITouter(p):x:EDIT",
			kind: ErrUnclosedBody, line: 1, column: 1, contains: "add :EDITouter", snippet: "<<EDITouter(p):x:EDIT\n^", tail: true},
		{name: "stray character", src: "<<EDIT(p)X:y:EDIT",
			kind: ErrStrayCharacter, line: 1, column: 10, contains: "expected [signal], (target), <L>", snippet: "<<EDIT(p)X:y:EDIT\n         ^"},
		{name: "matcher in slot region", src: "<<FIND(p)~x:FIND",
			kind: ErrStrayCharacter, line: 1, column: 10, contains: "a matcher rides the :body: slot"},
		{name: "unclosed target", src: "<<READ(a.md\n:x:READ",
			kind: ErrUnclosedSlot, line: 1, column: 7, contains: "add )"},
		{name: "unclosed signal", src: "<<SEND[200:x:SEND",
			kind: ErrUnclosedSlot, line: 1, column: 7, contains: "add ]"},
		{name: "unclosed scope", src: "<<READ(a)<1,2:x:READ",
			kind: ErrUnclosedSlot, line: 1, column: 10, contains: "add >"},
		{name: "<< inside target", src: "<<READ(a<<b)::READ",
			kind: ErrUnclosedSlot, line: 1, column: 7, contains: "add )"},
		{name: "send signal not integer", src: "<<SEND[abc]:x:SEND",
			kind: ErrBadSignal, line: 1, column: 8, contains: "expected integer for SEND"},
		{name: "send two values", src: "<<SEND[200,extra]:x:SEND",
			kind: ErrBadSignal, line: 1, column: 8, contains: "expected integer"},
		{name: "kill signal not integer", src: "<<KILL[TERM](run://x)::KILL",
			kind: ErrBadSignal, line: 1, column: 8, contains: "expected integer for KILL"},
		{name: "exec timeout in signal", src: "<<EXEC[-1,300]:ls:EXEC",
			kind: ErrBadSignal, line: 1, column: 8, contains: "try EXEC<-1,300>"},
		{name: "exec bad executor", src: "<<EXEC[1sh]:ls:EXEC",
			kind: ErrBadSignal, line: 1, column: 8, contains: "expected executor"},
		{name: "duplicate signal", src: "<<FIND[a][b](p)::FIND",
			kind: ErrDuplicateSlot, line: 1, column: 10, contains: "at most once"},
		{name: "duplicate target", src: "<<READ(a)(b)::READ",
			kind: ErrDuplicateSlot, line: 1, column: 10, contains: "at most once"},
		{name: "duplicate scope", src: "<<READ(a)<1><2>::READ",
			kind: ErrDuplicateSlot, line: 1, column: 13, contains: "at most once"},
		{name: "bad scope", src: "<<READ(a)<x>::READ",
			kind: ErrBadScope, line: 1, column: 11, contains: "expected numbers"},
		{name: "bad scope separator", src: "<<READ(a)<1;2>::READ",
			kind: ErrBadScope, line: 1, column: 12, contains: "expected numbers"},
		{name: "empty target", src: "<<READ()::READ",
			kind: ErrBadTarget, line: 1, column: 7, contains: "empty (target)"},
		{name: "space in target", src: "<<READ(my file.md)::READ",
			kind: ErrBadTarget, line: 1, column: 10, contains: "without spaces"},
		{name: "plan with slot", src: "<<PLAN[x]:p:PLAN",
			kind: ErrSlotNotAllowed, line: 1, column: 7, contains: "PLAN takes no slots"},
		{name: "input ends in slot region", src: "ok\n<<READ(a)  ",
			kind: ErrUnterminated, line: 2, column: 1, contains: "expected [signal], (target), <L> or :body:READ", tail: true},
		{name: "<< in slot region", src: "<<READ(a)<<EDIT(b):c:EDIT",
			kind: ErrStrayCharacter, line: 1, column: 10, contains: "unexpected '<<'", kept: 1},
		{name: "column counts code points", src: "é✓ <<READ(a)?::READ",
			kind: ErrStrayCharacter, line: 1, column: 13, snippet: "é✓ <<READ(a)?::READ\n            ^"},
		{name: "crlf lines", src: "<<PLAN:p:PLAN\r\n\r\n  <<READ(a)!::READ",
			kind: ErrStrayCharacter, line: 3, column: 12, snippet: "  <<READ(a)!::READ\n           ^", kept: 1},
		{name: "lone cr does not end a line", src: "a\rb <<READ(a)!::READ",
			kind: ErrStrayCharacter, line: 1, column: 14},
		{name: "tab kept in caret line", src: "\t<<READ(a)!::READ",
			kind: ErrStrayCharacter, line: 1, column: 11, snippet: "\t<<READ(a)!::READ\n\t         ^"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse(tt.src)
			if len(r.Errors) == 0 {
				t.Fatalf("Parse(%q): no error, want %v", tt.src, tt.kind)
			}
			e := r.Errors[0]
			if e.Kind != tt.kind || e.Line != tt.line || e.Column != tt.column || e.Severity != SeverityError {
				t.Errorf("Parse(%q) error = %v %v at %d:%d, want %v error at %d:%d (message %q)",
					tt.src, e.Severity, e.Kind, e.Line, e.Column, tt.kind, tt.line, tt.column, e.Message)
			}
			if !strings.Contains(e.Message, tt.contains) {
				t.Errorf("message %q does not say %q", e.Message, tt.contains)
			}
			if tt.snippet != "" && e.Snippet != tt.snippet {
				t.Errorf("snippet:\n%s\nwant:\n%s", e.Snippet, tt.snippet)
			}
			if (r.Tail != nil) != tt.tail {
				t.Errorf("tail = %v, want %v", r.Tail != nil, tt.tail)
			}
			if len(r.Statements) != tt.kept {
				t.Errorf("kept %d statements, want %d: %+v", len(r.Statements), tt.kept, r.Statements)
			}
			if !hasErrors(r) {
				t.Errorf("HasErrors = false")
			}
			if !strings.HasPrefix(e.Error(), "") || !strings.Contains(e.Error(), e.Message) {
				t.Errorf("Error() = %q does not carry the message", e.Error())
			}
		})
	}
}

func TestErrorRecovery(t *testing.T) {
	// A statement broken in its slot region is skipped up to its own close
	// tag; the statements around it still parse.
	src := "<<PLAN:p:PLAN\n<<EDIT(a)X:body with (parens):EDIT\n<<READ(b)::READ\n<<SEND[200]:ok:SEND"
	r := Parse(src)
	var ops []Op
	for _, s := range r.Statements {
		ops = append(ops, s.Op)
	}
	if diff := cmp.Diff([]Op{OpPlan, OpRead, OpSend}, ops); diff != "" {
		t.Errorf("ops (-want +got):\n%s", diff)
	}
	if len(r.Errors) != 1 || r.Errors[0].Line != 2 || r.Errors[0].Statement != 14 {
		t.Errorf("errors = %v, want one on line 2 for the statement at byte 14", r.Errors)
	}
	if len(r.Prose) != 0 {
		t.Errorf("skipped text became prose: %+v", r.Prose)
	}

	// Without its close tag before the next <<, scanning resumes at that <<.
	r = Parse("<<EDIT(a)X: no closer\n<<READ(b)::READ")
	if len(r.Statements) != 1 || r.Statements[0].Op != OpRead {
		t.Errorf("statements = %+v, want the READ", r.Statements)
	}

	// An unclosed body ends the parse: nothing after it is a statement.
	r = Parse("<<READ(a)::READ <<EDIT(b):x <<READ(c)::READ")
	if len(r.Statements) != 1 || r.Tail == nil || r.Tail.Offset != 16 {
		t.Errorf("statements %d, tail %v; want 1 and a tail at byte 16", len(r.Statements), r.Tail)
	}
}

func TestUnknownOpWarning(t *testing.T) {
	r := Parse("<<WORK(run://x):task:WORK <<SHOW(log:///1)::SHOW")
	if len(r.Statements) != 0 {
		t.Errorf("unknown ops parsed as statements: %+v", r.Statements)
	}
	if len(r.Errors) != 2 {
		t.Fatalf("errors = %v, want two warnings", r.Errors)
	}
	for _, e := range r.Errors {
		if e.Kind != WarnUnknownOp || e.Severity != SeverityWarning {
			t.Errorf("got %v %v, want warning unknown_op", e.Severity, e.Kind)
		}
	}
	if !strings.Contains(r.Errors[0].Message, "EDIT(run://<name>)") || !strings.Contains(r.Errors[1].Message, "<<OPEN") {
		t.Errorf("hints missing: %q / %q", r.Errors[0].Message, r.Errors[1].Message)
	}
	if hasErrors(r) {
		t.Errorf("HasErrors = true for warnings only")
	}
}

func TestErrorCap(t *testing.T) {
	src := strings.Repeat("<<READ(a)X\n", MaxErrors+50)
	r := Parse(src)
	if len(r.Errors) != MaxErrors || r.Suppressed != 50 {
		t.Errorf("kept %d errors, suppressed %d; want %d and 50", len(r.Errors), r.Suppressed, MaxErrors)
	}
	last := r.Errors[MaxErrors-1]
	if last.Line != MaxErrors || last.Column != 10 {
		t.Errorf("last kept error at %d:%d, want %d:10", last.Line, last.Column, MaxErrors)
	}
}

func TestSnippetClipsLongLines(t *testing.T) {
	src := strings.Repeat("x", 5000) + "<<READ(a)!::READ" + strings.Repeat("y", 5000)
	r := Parse(src)
	if len(r.Errors) != 1 {
		t.Fatalf("errors = %v", r.Errors)
	}
	e := r.Errors[0]
	if e.Column != 5010 {
		t.Errorf("column = %d, want 5010", e.Column)
	}
	lines := strings.Split(e.Snippet, "\n")
	if len(lines) != 2 || len(lines[0]) > 3*snippetWindow {
		t.Fatalf("snippet not clipped: %d bytes", len(e.Snippet))
	}
	caret := strings.IndexByte(lines[1], '^')
	if got := []rune(lines[0])[caret]; got != '!' {
		t.Errorf("caret points at %q, want '!'", got)
	}
}

func TestSnippetInvalidBytes(t *testing.T) {
	src := "a\xff\x00b<<READ(a)!::READ"
	r := Parse(src)
	if len(r.Errors) != 1 {
		t.Fatalf("errors = %v", r.Errors)
	}
	e := r.Errors[0]
	if e.Column != 14 {
		t.Errorf("column = %d, want 14", e.Column)
	}
	want := "a\uFFFD\uFFFDb<<READ(a)!::READ\n             ^"
	if e.Snippet != want {
		t.Errorf("snippet = %q, want %q", e.Snippet, want)
	}
}
