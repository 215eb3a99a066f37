package scheme

import (
	"errors"
	"testing"
	"time"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

type fixture struct {
	fs  afero.Fs
	reg *Registry
	st  *store.Store
	ss  *store.Session
	run *store.Run
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fs := afero.NewMemMapFs()
	reg, err := Defaults(fs, "/work", "sh")
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(clock.NewSim(time.Time{}))
	ss, err := st.NewSession("model")
	if err != nil {
		t.Fatal(err)
	}
	run, _ := ss.Run("model")
	return &fixture{fs: fs, reg: reg, st: st, ss: ss, run: run}
}

// in runs f inside one transaction, failing it when fail is true.
func (f *fixture) in(t *testing.T, fail bool, fn func(c Call)) {
	t.Helper()
	err := f.st.Update(f.ss, func(tx *store.Tx) error {
		fn(Call{Tx: tx, Run: f.run, Writer: WriterModel})
		if fail {
			return errors.New("rolled back")
		}
		return nil
	})
	if (err != nil) != fail {
		t.Fatalf("transaction: %v", err)
	}
}

func target(t *testing.T, s string) dsl.Target {
	t.Helper()
	st, err := dsl.ParseStatement("<<READ(" + s + ")::READ")
	if err != nil || st.Target == nil {
		t.Fatalf("target %q: %v", s, err)
	}
	return *st.Target
}

func TestManifests(t *testing.T) {
	f := newFixture(t)
	type man struct {
		Channels []string
		Default  string
		Pinned   map[string]string
		Writers  []Writer
	}
	summary := func(m Manifest) man {
		out := man{Channels: m.ChannelNames(), Default: m.DefaultChannel, Pinned: map[string]string{}, Writers: m.WritableBy}
		for n, c := range m.Channels {
			if c.Mimetype != "" {
				out.Pinned[n] = c.Mimetype
			}
		}
		return out
	}
	all := []Writer{WriterModel, WriterClient, WriterPlurnk, WriterPlugin}
	want := map[string]man{
		"exec":    {Channels: []string{"stderr", "stdout"}, Default: "stdout", Pinned: map[string]string{"stderr": "text/plain", "stdout": "text/plain"}},
		"file":    {Channels: []string{"body"}, Default: "body", Pinned: map[string]string{}, Writers: []Writer{WriterModel, WriterClient, WriterPlurnk}},
		"known":   {Channels: []string{"body", "symbols"}, Default: "body", Pinned: map[string]string{"symbols": "application/json"}, Writers: all},
		"log":     {Channels: []string{"body"}, Default: "body", Pinned: map[string]string{}},
		"plurnk":  {Channels: []string{"body"}, Default: "body", Pinned: map[string]string{}, Writers: []Writer{WriterPlurnk, WriterClient}},
		"sh":      {Channels: []string{"stderr", "stdout"}, Default: "stdout", Pinned: map[string]string{"stderr": "text/plain", "stdout": "text/plain"}, Writers: []Writer{WriterPlurnk}},
		"skill":   {Channels: []string{"body"}, Default: "body", Pinned: map[string]string{"body": "text/markdown"}, Writers: []Writer{WriterClient, WriterPlurnk}},
		"unknown": {Channels: []string{"body"}, Default: "body", Pinned: map[string]string{}, Writers: all},
	}
	got := map[string]man{}
	for _, n := range f.reg.Names() {
		h, _ := f.reg.Handler(n)
		if h.Manifest().Name != n {
			t.Fatalf("scheme registered as %q names itself %q", n, h.Manifest().Name)
		}
		got[n] = summary(h.Manifest())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("manifests (-want +got):\n%s", d)
	}
	if _, err := NewRegistry(Known(), Known()); err == nil {
		t.Fatal("a scheme registered twice was accepted")
	}
	if err := f.reg.Register(Unknown()); err == nil {
		t.Fatal("Register accepted a duplicate")
	}
}

func TestAcceptsAndMimetypes(t *testing.T) {
	k := Known().Manifest()
	cases := []struct {
		channel, mt string
		want        bool
	}{
		{"body", "text/markdown", true},
		{"body", "application/json", true},
		{"body", "image/png", false},
		{"body", "application/octet-stream", false},
		{"symbols", "application/json", true},
		{"symbols", "text/plain", false},
		{"nope", "text/plain", false},
	}
	for _, c := range cases {
		if got := k.Accepts(c.channel, c.mt); got != c.want {
			t.Errorf("known#%s accepts %s = %v", c.channel, c.mt, got)
		}
	}
	if got := k.MimetypeFor("body", "/a/b.json"); got != "application/json" {
		t.Errorf("body of .json: %s", got)
	}
	if got := k.MimetypeFor("symbols", "/a/b.md"); got != "application/json" {
		t.Errorf("pinned symbols: %s", got)
	}
	for p, mt := range map[string]string{"x.md": "text/markdown", "X.JSON": "application/json", "a.go": "text/x-go", "noext": "text/markdown", "n.txt": "text/markdown", "y.yml": "application/yaml", "p.png": "image/png", "d.xml": "application/xml", "i.html": "text/html"} {
		if got := MimetypeOf(p); got != mt {
			t.Errorf("MimetypeOf(%s) = %s, want %s", p, got, mt)
		}
	}
	if !IsBinary("video/mp4") || IsBinary("text/csv") {
		t.Error("IsBinary")
	}
}

// Address folding (§scheme-address-namespace-fold): a registered scheme
// folds its authority into the path, a foreign one keeps its host, a local
// path resolves against the root and may not escape it.
func TestAddressFolding(t *testing.T) {
	f := newFixture(t)
	cases := map[string]string{
		"known://x":               "known:///x",
		"known:///x":              "known:///x",
		"known://a/b#symbols":     "known:///a/b#symbols",
		"known://":                "known:///",
		"https://example.com/a":   "https://example.com/a",
		"http://h:8080/p#frag":    "http://h:8080/p#frag",
		"src/../src/app.go":       "/src/app.go",
		"./notes.txt":             "/notes.txt",
		"/AGENTS.md":              "/AGENTS.md",
		"docs/":                   "/docs/",
		"flaky://x/y":             "flaky://x/y",
		"sh:///1/1/2#stderr":      "sh:///1/1/2#stderr",
		"log://1/1/2":             "log:///1/1/2",
		"unknown://who/is/there?": "unknown:///who/is/there?",
	}
	for in, want := range cases {
		a, err := f.reg.Address(target(t, in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if a.String() != want {
			t.Errorf("%s folds to %s, want %s", in, a, want)
		}
	}
	for _, in := range []string{"../secret", "a/../../b", ".."} {
		if _, err := f.reg.Address(target(t, in)); StatusOf(err) != 403 {
			t.Errorf("%s: %v, want 403", in, err)
		}
	}
}

func TestResolve(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		in      string
		status  int
		key     store.Key
		channel string
		named   bool
	}{
		{in: "known://a.md", key: store.Key{Scope: store.ScopeSession, Scheme: "known", Path: "/a.md"}, channel: "body"},
		{in: "known:///a.md#symbols", key: store.Key{Scope: store.ScopeSession, Scheme: "known", Path: "/a.md"}, channel: "symbols", named: true},
		{in: "sh:///1/1/2", key: store.Key{Scope: store.ScopeSession, Scheme: "sh", Path: "/1/1/2"}, channel: "stdout"},
		{in: "notes.md", key: store.Key{Scope: store.ScopeSession, Scheme: "file", Path: "/notes.md"}, channel: "body"},
		{in: "known:///a.md#stdout", status: 400},
		{in: "https://example.com/x", status: 501},
		{in: "error:///1/1/1", status: 501},
		{in: "../x", status: 403},
	}
	for _, c := range cases {
		r, err := f.reg.Resolve(target(t, c.in))
		if c.status != 0 {
			if StatusOf(err) != c.status || err == nil {
				t.Errorf("%s: %v, want %d", c.in, err, c.status)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if r.Key != c.key || r.Channel != c.channel || r.Named != c.named {
			t.Errorf("%s resolves to %+v #%s named=%v", c.in, r.Key, r.Channel, r.Named)
		}
	}
}

func TestFileScheme(t *testing.T) {
	f := newFixture(t)
	file := NewFile(f.fs, "work")
	k := func(p string) store.Key { return store.Key{Scope: store.ScopeSession, Scheme: "file", Path: p} }
	_ = afero.WriteFile(f.fs, "/work/src/app.go", []byte("package main\n"), 0o644)
	_ = afero.WriteFile(f.fs, "/work/logo.png", []byte("not really a png"), 0o644)
	_ = afero.WriteFile(f.fs, "/work/blob.txt", []byte{'a', 0, 'b'}, 0o644)
	_ = afero.WriteFile(f.fs, "/outside.txt", []byte("outside the root"), 0o644)

	f.in(t, false, func(c Call) {
		e, err := file.Load(c, k("/src/app.go"))
		if err != nil || e == nil {
			t.Fatalf("load: %v %v", e, err)
		}
		if ch := e.Channels["body"]; ch.Content != "package main\n" || ch.Mimetype != "text/x-go" || ch.State != store.StateStatic {
			t.Fatalf("body %+v", ch)
		}
		if e, err := file.Load(c, k("/absent.go")); e != nil || err != nil {
			t.Fatalf("absent file: %v %v", e, err)
		}
		for _, p := range []string{"/logo.png", "/blob.txt"} {
			if _, err := file.Load(c, k(p)); StatusOf(err) != 415 {
				t.Fatalf("binary %s: %v, want 415", p, err)
			}
		}
		if err := file.Save(c, &store.Entry{Key: k("/img.gif"), Channels: map[string]store.Channel{"body": {Content: "x"}}}); StatusOf(err) != 415 {
			t.Fatalf("saving a binary path: %v, want 415", err)
		}
		all, err := file.List(c)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, e := range all {
			paths = append(paths, e.Key.Path)
		}
		if d := cmp.Diff([]string{"/src/app.go"}, paths); d != "" {
			t.Fatalf("list leaves binaries out and stays under the root (-want +got):\n%s", d)
		}
	})
	if ok, _ := afero.Exists(f.fs, "/work/img.gif"); ok {
		t.Fatal("a refused binary save wrote the file")
	}

	// A failed transaction restores the disk: an overwrite, a create and a
	// removal are all undone.
	f.in(t, true, func(c Call) {
		if err := file.Save(c, &store.Entry{Key: k("/src/app.go"), Channels: map[string]store.Channel{"body": {Content: "changed"}}, Tags: []string{"t"}}); err != nil {
			t.Fatal(err)
		}
		if err := file.Save(c, &store.Entry{Key: k("/new/file.txt"), Channels: map[string]store.Channel{"body": {Content: "new"}}}); err != nil {
			t.Fatal(err)
		}
		if ok, err := file.Remove(c, k("/src/app.go")); !ok || err != nil {
			t.Fatalf("remove: %v %v", ok, err)
		}
	})
	if b, _ := afero.ReadFile(f.fs, "/work/src/app.go"); string(b) != "package main\n" {
		t.Fatalf("app.go after rollback: %q", b)
	}
	if ok, _ := afero.Exists(f.fs, "/work/new/file.txt"); ok {
		t.Fatal("a created file survived the rollback")
	}
	if f.ss.Entry(k("/src/app.go")) != nil {
		t.Fatal("the tag shadow survived the rollback")
	}

	// A committed save writes through and keeps its tags beside the file.
	f.in(t, false, func(c Call) {
		if err := file.Save(c, &store.Entry{Key: k("/src/app.go"), Channels: map[string]store.Channel{"body": {Content: "v2\n"}}, Tags: []string{"go"}}); err != nil {
			t.Fatal(err)
		}
	})
	f.in(t, false, func(c Call) {
		e, _ := file.Load(c, k("/src/app.go"))
		if e.Channels["body"].Content != "v2\n" || !e.HasTag("go") || e.ID == 0 {
			t.Fatalf("after save: %+v", e)
		}
		if ok, err := file.Remove(c, k("/src/absent")); ok || err != nil {
			t.Fatalf("removing an absent file: %v %v", ok, err)
		}
	})
}

func TestFileSchemeEscapesAnswer403(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"../etc/passwd", "src/../../x"} {
		if _, err := f.reg.Resolve(target(t, p)); StatusOf(err) != 403 {
			t.Errorf("%s: %v, want 403", p, err)
		}
	}
}

func TestStreams(t *testing.T) {
	f := newFixture(t)
	k := ExecKey("sh", 1, 2, 3)
	if k.String() != "sh:///1/2/3" {
		t.Fatal(k)
	}
	m := Exec("sh").Manifest()
	f.in(t, false, func(c Call) {
		if err := OpenStream(c.Tx, m, k); err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []string{"a\n", "b"} {
			if err := AppendChunk(c.Tx, k, "stdout", chunk); err != nil {
				t.Fatal(err)
			}
		}
		if err := AppendChunk(c.Tx, k, "nope", "x"); err == nil {
			t.Fatal("appending to an undeclared channel")
		}
		if err := AppendChunk(c.Tx, ExecKey("sh", 9, 9, 9), "stdout", "x"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("appending to an absent stream: %v", err)
		}
	})
	e := f.ss.Entry(k)
	if ch := e.Channels["stdout"]; ch.Content != "a\nb" || ch.State != store.StateActive || ch.Mimetype != "text/plain" {
		t.Fatalf("stdout %+v", ch)
	}
	f.in(t, false, func(c Call) {
		if err := SetState(c.Tx, k, store.StateErrored); err != nil {
			t.Fatal(err)
		}
	})
	for n, ch := range f.ss.Entry(k).Channels {
		if ch.State != store.StateErrored {
			t.Fatalf("%s is %s", n, ch.State)
		}
	}
}

func TestLogScheme(t *testing.T) {
	f := newFixture(t)
	log := Log{}
	f.in(t, false, func(c Call) {
		c.Tx.AppendLog(f.run, &store.LogRow{Loop: 1, Turn: 1, Seq: 1, Op: "READ", Content: "1:\tx\n", Mimetype: "text/markdown"})
		c.Tx.AppendLog(f.run, &store.LogRow{Loop: 1, Turn: 1, Seq: 2, Op: "EDIT", Tx: "<<EDIT(a):b:EDIT"})
	})
	lk := func(p string) store.Key { return store.Key{Scope: store.ScopeSession, Scheme: "log", Path: p} }
	f.in(t, false, func(c Call) {
		cases := map[string]string{"/1/1/1": "1:\tx\n", "/1/1/1/READ": "1:\tx\n", "/1/1/1/read": "1:\tx\n", "/1/1/2": "<<EDIT(a):b:EDIT"}
		for p, want := range cases {
			e, err := log.Load(c, lk(p))
			if err != nil || e == nil || e.Channels["body"].Content != want {
				t.Fatalf("%s: %+v %v", p, e, err)
			}
		}
		if e, _ := log.Load(c, lk("/1/1/2")); e.Channels["body"].Mimetype != "text/vnd.plurnk" {
			t.Fatalf("a statement body is %s", e.Channels["body"].Mimetype)
		}
		for _, p := range []string{"/1/1/1/EDIT", "/1/1/9", "/1/1", "/**", "/1/1/01", "/a/b/c"} {
			if e, _ := log.Load(c, lk(p)); e != nil {
				t.Fatalf("%s found a row", p)
			}
		}
		all, _ := log.List(c)
		if len(all) != 2 || all[1].Key.Path != "/1/1/2" {
			t.Fatalf("list %v", all)
		}
		if err := log.Save(c, &store.Entry{Key: lk("/1/1/1")}); StatusOf(err) != 403 {
			t.Fatalf("save: %v", err)
		}
		if ok, err := log.Remove(c, lk("/1/1/1")); !ok || err != nil {
			t.Fatalf("remove: %v %v", ok, err)
		}
		if ok, _ := log.Remove(c, lk("/1/1/1")); ok {
			t.Fatal("removed twice")
		}
	})
	if len(f.run.Log) != 1 {
		t.Fatalf("%d rows left", len(f.run.Log))
	}
	// Without a run there is no log to read.
	f.in(t, false, func(c Call) {
		c.Run = nil
		if e, _ := log.Load(c, lk("/1/1/2")); e != nil {
			t.Fatal("a row without a run")
		}
		if all, _ := log.List(c); all != nil {
			t.Fatal("rows without a run")
		}
	})
}

func TestEntriesSchemeListsItsOwnSessionEntries(t *testing.T) {
	f := newFixture(t)
	known := Known()
	f.in(t, false, func(c Call) {
		for _, k := range []store.Key{
			{Scope: store.ScopeSession, Scheme: "known", Path: "/b"},
			{Scope: store.ScopeSession, Scheme: "known", Path: "/a"},
			{Scope: store.ScopeSession, Scheme: "unknown", Path: "/c"},
			{Scope: store.ScopeRun, Owner: "model", Scheme: "known", Path: "/d"},
		} {
			if err := known.Save(c, &store.Entry{Key: k, Channels: map[string]store.Channel{"body": {}}}); err != nil {
				t.Fatal(err)
			}
		}
		all, _ := known.List(c)
		var paths []string
		for _, e := range all {
			paths = append(paths, e.Key.Path)
		}
		if d := cmp.Diff([]string{"/a", "/b"}, paths); d != "" {
			t.Fatal(d)
		}
		if ok, _ := known.Remove(c, store.Key{Scope: store.ScopeSession, Scheme: "known", Path: "/a"}); !ok {
			t.Fatal("remove")
		}
	})
}

func TestStatusErrors(t *testing.T) {
	err := Errorf(415, "%s is binary", "x.png")
	if StatusOf(err) != 415 || err.Error() != "415 Unsupported Media Type: x.png is binary" {
		t.Fatal(err)
	}
	if StatusOf(errors.New("plain")) != 500 {
		t.Fatal("a plain error is not a 500")
	}
	wrapped := errors.Join(errors.New("ctx"), Errorf(403, "no"))
	if StatusOf(wrapped) != 403 {
		t.Fatal("a wrapped status error lost its status")
	}
}

func TestParseCoord(t *testing.T) {
	l, tn, s, op, ok := ParseCoord("/1/22/3/read")
	if !ok || l != 1 || tn != 22 || s != 3 || op != "READ" {
		t.Fatal(l, tn, s, op, ok)
	}
	for _, p := range []string{"", "/", "/1/2", "/1/2/3/4/5", "/1/2/x", "/-1/2/3"} {
		if _, _, _, _, ok := ParseCoord(p); ok {
			t.Errorf("%q parsed", p)
		}
	}
}
