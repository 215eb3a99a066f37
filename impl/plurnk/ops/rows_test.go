package ops

import (
	"strings"
	"testing"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestSpliceLines(t *testing.T) {
	s := func(v string) *string { return &v }
	cases := []struct {
		content string
		marks   []float64
		body    *string
		want    string
		status  int
	}{
		{"a\nb\nc\n", []float64{2}, s("B"), "a\nB\nc\n", 0},
		{"a\nb\nc\n", []float64{2, 3}, s("X\nY\nZ"), "a\nX\nY\nZ\n", 0},
		{"a\nb\nc\n", []float64{0}, s("top"), "top\na\nb\nc\n", 0},
		{"a\nb\nc\n", []float64{-1}, s("end"), "a\nb\nc\nend\n", 0},
		{"a\nb\nc", []float64{-1}, s("end"), "a\nb\nc\nend", 0},
		{"a\nb\nc\n", []float64{2}, nil, "a\nc\n", 0},
		{"a\nb\nc\n", []float64{1, -1}, nil, "", 0},
		{"a\nb\nc\n", []float64{-2, -1}, s("z"), "a\nz\n", 0},
		{"a\nb\nc\n", []float64{0}, nil, "a\nb\nc\n", 0},
		{"", []float64{0}, s("first\n"), "first\n", 0},
		{"", []float64{-1}, s("first"), "first", 0},
		{"a\nb\nc\n", []float64{4}, s("x"), "", 416},
		{"a\nb\nc\n", []float64{-2}, s("x"), "a\nx\nc\n", 0},
		{"a\nb\nc\n", []float64{3, 2}, s("x"), "", 416},
		{"a\nb\nc\n", []float64{1.5}, s("x"), "", 400},
		{"a\nb\nc\n", []float64{1, 2, 3}, s("x"), "", 400},
		{"", []float64{1}, s("x"), "", 416},
	}
	for _, c := range cases {
		got, status, err := spliceLines(c.content, &dsl.Scope{Marks: c.marks}, c.body)
		if c.status != 0 {
			if err == nil || status != c.status {
				t.Errorf("%q <%v>: status %d (%v), want %d", c.content, c.marks, status, err, c.status)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q <%v>: %v", c.content, c.marks, err)
			continue
		}
		if got != c.want {
			t.Errorf("%q <%v> %v = %q, want %q", c.content, c.marks, c.body, got, c.want)
		}
	}
}

// Splicing a range and reading it back gives the body; the lines around it
// keep their content.
func TestSpliceThenRead(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		lines := rapid.SliceOfN(rapid.StringMatching(`[a-z]{1,4}`), 1, 8).Draw(rt, "lines")
		n := len(lines)
		a := rapid.IntRange(1, n).Draw(rt, "a")
		b := rapid.IntRange(a, n).Draw(rt, "b")
		ins := rapid.SliceOfN(rapid.StringMatching(`[A-Z]{1,4}`), 1, 4).Draw(rt, "insert")
		body := strings.Join(ins, "\n")
		got, _, err := spliceLines(strings.Join(lines, "\n")+"\n", &dsl.Scope{Marks: []float64{float64(a), float64(b)}}, &body)
		if err != nil {
			rt.Fatal(err)
		}
		want := append(append(append([]string{}, lines[:a-1]...), ins...), lines[b:]...)
		if d := cmp.Diff(want, splitLines(got)); d != "" {
			rt.Fatalf("(-want +got):\n%s", d)
		}
	})
}

func TestEditWithLineMarker(t *testing.T) {
	f := newFixture(t)
	var got []int
	for _, src := range []string{
		"<<EDIT(known:///l.md)<3>:born:EDIT",
		"<<EDIT(known:///l.md)<0>:zero:EDIT",
		"<<EDIT(known:///l.md)<-1>:last:EDIT",
		"<<EDIT(known:///l.md)<2>:born:EDIT",
		"<<EDIT(known:///l.md)<9>:far:EDIT",
		"<<EDIT(known:///l.md)<1>::EDIT",
	} {
		got = append(got, f.do(t, src).Status)
	}
	if d := cmp.Diff([]int{201, 200, 200, 304, 416, 200}, got); d != "" {
		t.Fatalf("statuses (-want +got):\n%s", d)
	}
	if r := f.do(t, "<<READ(known:///l.md)::READ"); r.Content != "1:\tborn\n2:\tlast\n" {
		t.Fatalf("content %q", r.Content)
	}
}

func rowsOf(r *store.Run) []string {
	var out []string
	for _, row := range r.Log {
		mark := "-"
		if row.Expanded {
			mark = "+"
		}
		out = append(out, mark+row.Handle())
	}
	return out
}

func TestOpenFoldKillRows(t *testing.T) {
	f := newFixture(t)
	f.do(t, "<<EDIT(known:///a.md):alpha\nTODO one:EDIT") // 1/1/1
	f.do(t, "<<READ(known:///a.md)::READ")                // 1/1/2
	f.do(t, "<<READ(known:///missing.md)::READ")          // 1/1/3 (404, folded)
	f.actor.Turn = 2
	type step struct {
		src    string
		status int
		rows   []string
	}
	steps := []step{
		{"<<FOLD(log:///1/1/2)::FOLD", 200, []string{"+1/1/1/EDIT", "-1/1/2/READ", "-1/1/3/READ", "+1/2/1/FOLD"}},
		{"<<FOLD(log:///1/1/2)::FOLD", 304, []string{"+1/1/1/EDIT", "-1/1/2/READ", "-1/1/3/READ", "+1/2/1/FOLD", "+1/2/2/FOLD"}},
		{"<<OPEN(log:///1/1/2/READ)::OPEN", 200, []string{"+1/1/1/EDIT", "+1/1/2/READ", "-1/1/3/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN"}},
		{"<<OPEN(log:///1/1/2/EDIT)::OPEN", 404, []string{"+1/1/1/EDIT", "+1/1/2/READ", "-1/1/3/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN", "-1/2/4/OPEN"}},
		{"<<FOLD(log:///1/1/*):/TODO/:FOLD", 200, []string{"-1/1/1/EDIT", "-1/1/2/READ", "-1/1/3/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN", "-1/2/4/OPEN", "+1/2/5/FOLD"}},
		{"<<OPEN(log:///**/READ)::OPEN", 200, []string{"-1/1/1/EDIT", "+1/1/2/READ", "+1/1/3/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN", "-1/2/4/OPEN", "+1/2/5/FOLD", "+1/2/6/OPEN"}},
		{"<<OPEN(log:///1/1/*)<1>::OPEN", 200, []string{"+1/1/1/EDIT", "+1/1/2/READ", "+1/1/3/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN", "-1/2/4/OPEN", "+1/2/5/FOLD", "+1/2/6/OPEN", "+1/2/7/OPEN"}},
		{"<<OPEN[x](log:///**)::OPEN", 204, []string{"+1/1/1/EDIT", "+1/1/2/READ", "+1/1/3/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN", "-1/2/4/OPEN", "+1/2/5/FOLD", "+1/2/6/OPEN", "+1/2/7/OPEN", "+1/2/8/OPEN"}},
		{"<<OPEN(log:///**)<99>::OPEN", 416, []string{"+1/1/1/EDIT", "+1/1/2/READ", "+1/1/3/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN", "-1/2/4/OPEN", "+1/2/5/FOLD", "+1/2/6/OPEN", "+1/2/7/OPEN", "+1/2/8/OPEN", "-1/2/9/OPEN"}},
		{"<<OPEN(known:///a.md)::OPEN", 501, []string{"+1/1/1/EDIT", "+1/1/2/READ", "+1/1/3/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN", "-1/2/4/OPEN", "+1/2/5/FOLD", "+1/2/6/OPEN", "+1/2/7/OPEN", "+1/2/8/OPEN", "-1/2/9/OPEN", "-1/2/10/OPEN"}},
		{"<<KILL(log:///1/1/3)::KILL", 200, []string{"+1/1/1/EDIT", "+1/1/2/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN", "-1/2/4/OPEN", "+1/2/5/FOLD", "+1/2/6/OPEN", "+1/2/7/OPEN", "+1/2/8/OPEN", "-1/2/9/OPEN", "-1/2/10/OPEN", "+1/2/11/KILL"}},
		{"<<KILL(log:///1/1/3)::KILL", 404, []string{"+1/1/1/EDIT", "+1/1/2/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN", "-1/2/4/OPEN", "+1/2/5/FOLD", "+1/2/6/OPEN", "+1/2/7/OPEN", "+1/2/8/OPEN", "-1/2/9/OPEN", "-1/2/10/OPEN", "+1/2/11/KILL", "-1/2/12/KILL"}},
		{"<<SEND[410](log:///1/2/*):/OPEN/:SEND", 200, []string{"+1/1/1/EDIT", "+1/1/2/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN", "+1/2/5/FOLD", "+1/2/6/OPEN", "+1/2/7/OPEN", "+1/2/11/KILL", "-1/2/12/KILL", "+1/2/13/SEND"}},
		{"<<KILL(log:///1/1/1#body)::KILL", 400, []string{"+1/1/1/EDIT", "+1/1/2/READ", "+1/2/1/FOLD", "+1/2/2/FOLD", "+1/2/3/OPEN", "+1/2/5/FOLD", "+1/2/6/OPEN", "+1/2/7/OPEN", "+1/2/11/KILL", "-1/2/12/KILL", "+1/2/13/SEND", "-1/2/14/KILL"}},
	}
	for _, s := range steps {
		r := f.do(t, s.src)
		if r.Status != s.status {
			t.Fatalf("%s: %d (%s), want %d", s.src, r.Status, r.Reason, s.status)
		}
		if d := cmp.Diff(s.rows, rowsOf(f.actor.Run)); d != "" {
			t.Fatalf("after %s (-want +got):\n%s", s.src, d)
		}
	}
}

func TestCurationTouchesOnlyTheActingRun(t *testing.T) {
	f := newFixture(t)
	f.do(t, "<<EDIT(known:///a.md):x:EDIT")
	other, err := f.eng.Store.AddRun(f.actor.Session, "B")
	if err != nil {
		t.Fatal(err)
	}
	b := f.actor
	b.Run = other
	if r := f.eng.Do(b, mustParse(t, "<<FOLD(log:///1/1/1)::FOLD")); r.Status != 404 {
		t.Fatalf("B folding A's row: %d", r.Status)
	}
	if !f.actor.Run.Log[0].Expanded {
		t.Fatal("A's row was folded by B")
	}
}

func mustParse(t *testing.T, src string) dsl.Statement {
	t.Helper()
	s, err := dsl.ParseStatement(src)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSendDispatch(t *testing.T) {
	f := newFixture(t)
	f.do(t, "<<EDIT(known:///a.md):x:EDIT")
	f.do(t, "<<EDIT(known:///a.md#symbols):[]:EDIT")
	cases := []struct {
		src    string
		status int
	}{
		{"<<SEND[499](known:///a.md)::SEND", 501},
		{"<<SEND[200]::SEND", 501},
		{"<<SEND(run://B):hi:SEND", 501},
		{"<<SEND[410](known:///a.md#symbols)::SEND", 200},
		{"<<SEND[410](known:///a.md#symbols)::SEND", 404},
		{"<<SEND[410](known:///a.md)::SEND", 200},
		{"<<SEND[410](known:///a.md)::SEND", 404},
		{"<<SEND[410](plurnk:///x.md)::SEND", 403},
	}
	for _, c := range cases {
		if r := f.do(t, c.src); r.Status != c.status {
			t.Errorf("%s: %d (%s), want %d", c.src, r.Status, r.Reason, c.status)
		}
	}
}

// controlled is a scheme fronting live state: it answers KILL and SEND[499]
// itself and hands everything else back.
type controlled struct {
	*scheme.Entries
	calls []string
}

func (c *controlled) Control(_ scheme.Call, k store.Key, ch string, op dsl.Op, code int) (int, error) {
	c.calls = append(c.calls, string(op)+" "+k.String()+"#"+ch)
	if op == dsl.OpSend && code == 499 {
		return 200, nil
	}
	if op == dsl.OpKill && code == 9 {
		return 200, nil
	}
	return 0, nil
}

func TestControllerSeesKillAndSend(t *testing.T) {
	f := newFixture(t)
	ctl := &controlled{Entries: scheme.Exec("node")}
	ctl.M.WritableBy = []scheme.Writer{scheme.WriterModel}
	if err := f.eng.Schemes.Register(ctl); err != nil {
		t.Fatal(err)
	}
	f.do(t, "<<EDIT(node:///1/1/1):out:EDIT")
	var got []int
	for _, src := range []string{
		"<<SEND[499](node:///1/1/1)::SEND",
		"<<KILL[9](node:///1/1/1)::KILL",
		"<<SEND[300](node:///1/1/1)::SEND",
		"<<KILL(node:///1/1/1)::KILL",
	} {
		got = append(got, f.do(t, src).Status)
	}
	if d := cmp.Diff([]int{200, 200, 501, 200}, got); d != "" {
		t.Fatalf("statuses (-want +got):\n%s", d)
	}
	if len(ctl.calls) != 4 {
		t.Fatalf("controller calls %v", ctl.calls)
	}
}

func TestReadGlobFansOutOneRowPerEntry(t *testing.T) {
	f := newFixture(t)
	f.do(t, "<<EDIT(known:///d/a.md):TODO a\nx:EDIT")
	f.do(t, "<<EDIT(known:///d/b.md):nothing:EDIT")
	f.do(t, "<<EDIT(known:///d/c.md):y\nTODO c:EDIT")
	r := f.do(t, "<<READ(known:///d/*.md):TODO*:READ")
	if r.Status != 200 || len(r.Items) != 2 || len(r.Rows) != 2 {
		t.Fatalf("status %d, %d items, %d rows", r.Status, len(r.Items), len(r.Rows))
	}
	var got []string
	for _, row := range r.Rows {
		got = append(got, row.Coord()+" "+row.Target+" "+row.Content)
	}
	want := []string{"1/1/4 known:///d/a.md 1:\tTODO a\n", "1/1/5 known:///d/c.md 2:\tTODO c\n"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("rows (-want +got):\n%s", d)
	}
	if r.Row.ID != r.Rows[1].ID {
		t.Fatal("Row does not name the last recorded row")
	}
	none := f.do(t, "<<READ(known:///d/*.md):/zzz/:READ")
	if none.Status != 204 || len(none.Rows) != 1 || none.Row.Status != 204 {
		t.Fatalf("no match: %d with %d rows", none.Status, len(none.Rows))
	}
	if bad := f.do(t, "<<READ(known:///d/*.md):/(/:READ"); bad.Status != 400 {
		t.Fatalf("malformed matcher over a glob: %d", bad.Status)
	}
}

func TestRowsRecordTheStatement(t *testing.T) {
	f := newFixture(t)
	r := f.do(t, "<<EDIT[t](known:///a.md):hi:EDIT")
	if r.Row.Tx != "<<EDIT[t](known:///a.md):hi:EDIT" {
		t.Fatalf("tx %q", r.Row.Tx)
	}
	read := f.do(t, "<<READ(log:///1/1/1)::READ")
	if read.Status != 200 || read.Content != "1:\t<<EDIT[t](known:///a.md):hi:EDIT\n" {
		t.Fatalf("READ of the row: %d %q", read.Status, read.Content)
	}
}
