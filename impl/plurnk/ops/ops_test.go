package ops

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
	"pgregory.net/rapid"
)

type fixture struct {
	eng   *Engine
	actor Actor
	fs    afero.Fs
}

type fataler interface {
	Fatal(args ...any)
}

func newFixture(t fataler) *fixture {
	fs := afero.NewMemMapFs()
	reg, err := scheme.Defaults(fs, "/work", "sh")
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(clock.NewSim(time.Time{}))
	ss, err := st.NewSession("model")
	if err != nil {
		t.Fatal(err)
	}
	run, _ := ss.Run("model")
	return &fixture{eng: &Engine{Store: st, Schemes: reg}, actor: Actor{Session: ss, Run: run, Loop: 1, Turn: 1, Writer: scheme.WriterModel}, fs: fs}
}

func (f *fixture) do(t testing.TB, src string) Result {
	t.Helper()
	s, err := dsl.ParseStatement(src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return f.eng.Do(f.actor, s)
}

func TestEditStatuses(t *testing.T) {
	f := newFixture(t)
	var got []int
	for _, src := range []string{
		"<<EDIT(known:///a.md):one:EDIT",
		"<<EDIT(known:///a.md):one:EDIT",
		"<<EDIT(known:///a.md):two:EDIT",
		"<<EDIT[x](known:///a.md):two:EDIT",
		"<<EDIT[x](known:///a.md):two:EDIT",
		"<<EDIT(known:///a.md#nope):two:EDIT",
		"<<EDIT(known:///b.md#symbols):[]:EDIT",
		"<<EDIT(known:///a.md)::EDIT",
	} {
		got = append(got, f.do(t, src).Status)
	}
	if d := cmp.Diff([]int{201, 304, 200, 200, 304, 400, 404, 200}, got); d != "" {
		t.Fatalf("statuses (-want +got):\n%s", d)
	}
	r := f.do(t, "<<READ(known:///a.md)::READ")
	if r.Status != 200 || r.Content != "" {
		t.Fatalf("after null EDIT: %d %q", r.Status, r.Content)
	}
	if n := len(f.actor.Run.Log); n != 9 {
		t.Fatalf("log rows = %d, want 9", n)
	}
}

func TestReadNumbersAndSlices(t *testing.T) {
	f := newFixture(t)
	f.do(t, "<<EDIT(known:///n.md):a\nb\nc\nTODO d:EDIT")
	r := f.do(t, "<<READ(known:///n.md)<2,3>::READ")
	if d := cmp.Diff("2:\tb\n3:\tc\n", r.Content); d != "" {
		t.Fatal(d)
	}
	r = f.do(t, "<<READ(known:///n.md)<2,4>:TODO*:READ")
	if d := cmp.Diff(Result{Status: 200, Content: "4:\tTODO d\n", Mimetype: "text/markdown"}, Result{Status: r.Status, Content: r.Content, Mimetype: r.Mimetype}); d != "" {
		t.Fatal(d)
	}
	if r := f.do(t, "<<READ(known:///absent.md)::READ"); r.Status != 404 {
		t.Fatalf("absent: %d", r.Status)
	}
}

func TestMatcherStatuses(t *testing.T) {
	cases := []struct {
		body, content string
		want          int
	}{
		{"/b+/", "a\nbb\n", 200},
		{"/z/", "a\n", 204},
		{"/(/", "a\n", 400},
		{"$.a", `{"a":1}`, 200},
		{"$.b", `{"a":1}`, 204},
		{"$.a", `not json`, 203},
		{"$[", `{}`, 400},
		{"~close to", "a", 501},
	}
	for _, c := range cases {
		m, err := dsl.ClassifyMatcher(c.body)
		if err != nil {
			t.Fatal(err)
		}
		if got := Match(m, c.content, "application/json"); got.Status != c.want {
			t.Errorf("%s over %q = %d (%s), want %d", c.body, c.content, got.Status, got.Reason, c.want)
		}
	}
}

func TestChannelCap(t *testing.T) {
	f := newFixture(t)
	big := strings.Repeat("x", store.MaxChannelChars+1)
	s := dsl.Statement{Op: dsl.OpEdit, Target: &dsl.Target{Scheme: "known", Path: "/big"}, Body: &big}
	if r := f.eng.Do(f.actor, s); r.Status != 500 {
		t.Fatalf("status %d", r.Status)
	}
	if e := f.actor.Session.Entry(store.Key{Scope: store.ScopeSession, Scheme: "known", Path: "/big"}); e != nil {
		t.Fatal("entry written despite the cap")
	}
}

// EDIT then READ returns what was written, and tags only grow.
func TestEditReadRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		f := newFixture(rt)
		var tags []string
		for i := 0; i < rapid.IntRange(1, 5).Draw(rt, "n"); i++ {
			lines := rapid.SliceOfN(rapid.StringMatching(`[a-z ]{0,8}`), 1, 4).Draw(rt, "lines")
			body := strings.Join(lines, "\n")
			tag := rapid.StringMatching(`[a-z]{1,3}`).Draw(rt, "tag")
			s := dsl.Statement{Op: dsl.OpEdit, Target: &dsl.Target{Scheme: "known", Path: "/p.md"}, Body: &body, Signal: &dsl.Signal{Tags: []string{tag}}}
			res := f.eng.Do(f.actor, s)
			if res.Status >= 400 {
				rt.Fatalf("edit: %d %s", res.Status, res.Reason)
			}
			for _, old := range tags {
				found := false
				for _, tg := range res.Tags {
					found = found || tg == old
				}
				if !found {
					rt.Fatalf("tag %q lost: %v", old, res.Tags)
				}
			}
			tags = res.Tags
			r := f.eng.Do(f.actor, dsl.Statement{Op: dsl.OpRead, Target: &dsl.Target{Scheme: "known", Path: "/p.md"}})
			var want strings.Builder
			for i, l := range splitLines(body) {
				want.WriteString(strings.Join([]string{strconv.Itoa(i + 1), ":\t", l, "\n"}, ""))
			}
			if d := cmp.Diff(want.String(), r.Content); d != "" {
				rt.Fatalf("read after edit (-want +got):\n%s", d)
			}
		}
	})
}
