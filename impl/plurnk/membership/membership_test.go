package membership

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"anchorage/impl/plurnk/scheme"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

func resolve(t *testing.T, r *Resolver, o *Overlay) Set {
	t.Helper()
	s, err := r.Resolve(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGitMembership(t *testing.T) {
	dir := newRepo(t, map[string]string{"main.go": "package main\n", "docs/guide.md": "# guide\n", "notes.txt": "untracked\n"},
		"main.go", "docs/guide.md")
	r := &Resolver{FS: afero.NewOsFs(), Root: dir, Git: GitCLI{}}
	got := resolve(t, r, &Overlay{})
	want := Set{Members: []Member{{"docs/guide.md", "member"}, {"main.go", "member"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("members (-want +got):\n%s", d)
	}
}

func TestWithoutGitOnlyPicks(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "sub/c.txt": "c\n"})
	for _, g := range []Git{nil, GitCLI{}} { // no git at all; git present but no repository
		if g != nil {
			if err := (GitCLI{}).Available(); err != nil {
				t.Fatalf("needs the git binary: %v", err)
			}
		}
		r := &Resolver{FS: afero.NewOsFs(), Root: dir, Git: g}
		if got := resolve(t, r, &Overlay{}); len(got.Members) != 0 {
			t.Errorf("git %v: members %+v without a pick", g, got)
		}
		o := &Overlay{}
		if err := o.Add(Constraint{Pick, "b.txt"}); err != nil {
			t.Fatal(err)
		}
		if err := o.Add(Constraint{Pick, "sub/*.txt"}); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"b.txt", "sub/c.txt"}, resolve(t, r, o).Paths()); d != "" {
			t.Errorf("git %v: picked (-want +got):\n%s", g, d)
		}
	}
}

func TestOverlay(t *testing.T) {
	dir := newRepo(t, map[string]string{
		"main.go": "package main\n", "go.mod": "module x\n", "vendor/lib/l.go": "package lib\n",
		"scratch/todo.md": "- x\n", "scratch/deep/more.md": "- y\n", "scratch/img.png": "png",
	}, "main.go", "go.mod", "vendor/lib/l.go")
	r := &Resolver{FS: afero.NewOsFs(), Root: dir, Git: GitCLI{}}
	o := &Overlay{}
	for _, c := range []Constraint{{Pick, "scratch/**.md"}, {Hide, "vendor/**"}, {View, "go.mod"}} {
		if err := o.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	got := resolve(t, r, o)
	want := Set{
		Members: []Member{{"go.mod", "view"}, {"main.go", "member"}, {"scratch/deep/more.md", "member"}, {"scratch/todo.md", "member"}},
		Hidden:  []string{"vendor/lib/l.go"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("members (-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		path   string
		exists bool
		status int
	}{
		{"main.go", true, 0},
		{"go.mod", true, 403},
		{"vendor/lib/l.go", true, 403},
		{"new/file.go", false, 0},
	} {
		err := got.CheckWrite(tc.path, tc.exists)
		var se *scheme.StatusError
		switch {
		case tc.status == 0 && err != nil:
			t.Errorf("%s: %v, want allowed", tc.path, err)
		case tc.status != 0 && (!errors.As(err, &se) || se.Status != tc.status):
			t.Errorf("%s: %v, want %d", tc.path, err, tc.status)
		}
	}
	if err := o.Add(Constraint{"drop", "x"}); err == nil {
		t.Error("an unknown effect was accepted")
	}
}

func TestSessionsKeyOverlaysBySession(t *testing.T) {
	s := NewSessions()
	if s.Overlay(1) != s.Overlay(1) {
		t.Fatal("one session, two overlays")
	}
	if err := s.Overlay(1).Add(Constraint{Pick, "a"}); err != nil {
		t.Fatal(err)
	}
	if len(s.Overlay(2).Constraints()) != 0 {
		t.Fatal("a constraint leaked to another session")
	}
}

func TestSyncDivergence(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n"}, "a.go", "b.go")
	fsys := afero.NewOsFs()
	s := NewSync(fsys, dir)
	members := []string{"a.go", "b.go"}
	if d, err := s.Pass(members); err != nil || len(d) != 0 {
		t.Fatalf("first pass: %v %v, want a silent baseline", d, err)
	}
	// The model's own write-through is recorded, never reported.
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a // edited by the model\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Wrote("a.go"); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Pass(members); err != nil || len(d) != 0 {
		t.Fatalf("after the model's write: %v %v", d, err)
	}
	// A change made outside plurnk is.
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte("package b // edited in an editor\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := s.Pass(members)
	if err != nil {
		t.Fatal(err)
	}
	want := []Divergence{{Path: "b.go", Kind: "changed", Content: "package b // edited in an editor\n", Source: "file"}}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Fatalf("divergences (-want +got):\n%s", diff)
	}
	if d, _ := s.Pass(members); len(d) != 0 {
		t.Fatalf("reported twice: %v", d)
	}
	if err := os.Remove(filepath.Join(dir, "a.go")); err != nil {
		t.Fatal(err)
	}
	d, _ = s.Pass(members)
	if diff := cmp.Diff([]Divergence{{Path: "a.go", Kind: "deleted", Source: "file"}}, d); diff != "" {
		t.Fatalf("deletion (-want +got):\n%s", diff)
	}
	row := want[0].Row()
	if row.Op != "EDIT" || row.Origin != "plurnk" || row.Target != "file:///b.go" || row.Expanded {
		t.Errorf("row %+v, want a folded plurnk EDIT of file:///b.go", row)
	}
}
