package ops

import (
	"strings"
	"testing"

	"anchorage/impl/plurnk/dsl"
	"github.com/google/go-cmp/cmp"
)

// pairs is a handler for "key=value" lines whose deepJson is an object of
// those pairs: the raw content is no JSON, so only its projection can
// answer a jsonpath or an xpath.
func pairs(calls *int) MimetypeHandler {
	return func(content string) Derived {
		*calls++
		lines := splitLines(content)
		root := &JSONNode{Kind: '{', Span: LineSpan{From: 1, To: len(lines)}}
		for i, l := range lines {
			k, v, ok := strings.Cut(l, "=")
			if !ok {
				continue
			}
			root.Kids = append(root.Kids, &JSONNode{Key: k, Kind: 's', Text: v, Span: LineSpan{From: i + 1, To: i + 1}})
		}
		return Derived{Lines: len(lines), DeepJSON: NewJSONProjection(root)}
	}
}

func TestMatcherReadsARegisteredHandlersProjection(t *testing.T) {
	f := newFixture(t)
	calls := 0
	f.eng.Mimetypes = NewMimetypes()
	f.eng.Mimetypes.Register("text/markdown", pairs(&calls))
	if r := f.do(t, "<<EDIT(known:///p.md):host=a\nport=80\nmode=x:EDIT"); r.Status != 201 {
		t.Fatalf("EDIT answered %d %s", r.Status, r.Reason)
	}
	for _, c := range []struct {
		src   string
		want  string
		calls int
	}{
		{"<<READ(known:///p.md):$.port:READ", "2:\tport=80\n", 1},
		{"<<READ(known:///p.md)://mode:READ", "3:\tmode=x\n", 1},
		{"<<READ(known:///p.md):$[?@=='a']:READ", "1:\thost=a\n", 1},
		{"<<READ(known:///p.md):port*:READ", "2:\tport=80\n", 1},
	} {
		r := f.do(t, c.src)
		if r.Status != 200 || r.Content != c.want || calls != c.calls {
			t.Fatalf("%s = %d %q (%s) after %d calls, want 200 %q after %d", c.src, r.Status, r.Content, r.Reason, calls, c.want, c.calls)
		}
	}
	if n := len(f.eng.Derive(f.actor.Session)); n != 1 || calls != 2 {
		t.Fatalf("the pass derived %d channels with %d calls, want 1 channel and 2 calls", n, calls)
	}
	f.do(t, "<<READ(known:///p.md):$.host:READ")
	if calls != 2 {
		t.Fatalf("a match after the pass called the handler again: %d calls", calls)
	}
	f.do(t, "<<EDIT(known:///p.md):host=b:EDIT")
	if r := f.do(t, "<<READ(known:///p.md):$.port:READ"); r.Status != 204 || calls != 3 {
		t.Fatalf("after the EDIT $.port = %d %q, %d calls; want 204 after 3", r.Status, r.Content, calls)
	}
}

func TestCSVProjection(t *testing.T) {
	content := "name,port\nweb,80\ndb,\"54\n32\"\n"
	d := processCSV(content)
	if d.DeepJSON == nil {
		t.Fatalf("no deepJson: %s", d.JSONError)
	}
	want := []any{map[string]any{"name": "web", "port": "80"}, map[string]any{"name": "db", "port": "54\n32"}}
	if diff := cmp.Diff(want, d.DeepJSON.doc); diff != "" {
		t.Fatalf("deepJson (-want +got):\n%s", diff)
	}
	if got := []Symbol{{"name", "key", 1}, {"port", "key", 1}}; !cmp.Equal(d.Symbols, got) {
		t.Fatalf("symbols %v", d.Symbols)
	}
	for q, lines := range map[string][]int{"$[1].port": {3, 4}, "$[0]": {2}, "//item[2]/name": {3}, "$": {1, 2, 3, 4}} {
		m, _ := dsl.ClassifyMatcher(q)
		if got := Match(m, content, "text/csv"); got.Status != 200 || !cmp.Equal(got.Lines, lines) {
			t.Fatalf("%s = %+v, want lines %v", q, got, lines)
		}
	}
	for _, bad := range []string{"", "a,b\n1\n", "a\n\"x\n"} {
		if d := processCSV(bad); d.DeepJSON != nil || d.JSONError == "" || d.Symbols != nil {
			t.Fatalf("%q derived %+v", bad, d)
		}
	}
}
