package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"anchorage/reports/mutate"
)

func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-shard", "4/3"}, 2, "-shard"},
		{[]string{"-merge"}, 2, "needs the shard reports"},
		{[]string{"a.json"}, 2, "unexpected argument"},
		{[]string{"-system", "nope"}, 2, "-system"},
		{[]string{"-seed", "soon"}, 2, "seed"},
		{[]string{"-h"}, 0, "-merge [-out FILE] SHARD.json"},
	} {
		var stderr bytes.Buffer
		_, code := parseFlags(c.args, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
	for args, out := range map[string]string{
		"-all -shard 3/32":        "reports/tmp/mutation-shard-3-of-32.json",
		"-diff HEAD~1":            "reports/tmp/mutation-diff.json",
		"-n 5":                    "reports/mutation.json",
		"-shard 1/2 -out x.json":  "x.json",
		"-merge -out m.json a b":  "m.json",
		"-merge a.json b.json":    "reports/mutation.json",
		"-system jace,deck -all ": "reports/mutation.json",
	} {
		o, code := parseFlags(strings.Fields(args), &bytes.Buffer{})
		if code != -1 || o.out != out {
			t.Errorf("%s: exit %d, out %q; want %q", args, code, o.out, out)
		}
	}
}

func TestFreshSeed(t *testing.T) {
	a, b := freshSeed("abc", "2026-11-28"), freshSeed("abc", "2026-11-29")
	if a == b || a != freshSeed("abc", "2026-11-28") || a == freshSeed("abd", "2026-11-28") {
		t.Errorf("fresh seeds %d %d: want one per commit and day, the same on a rerun", a, b)
	}
	s, note, err := resolveSeed("fresh", time.Date(2026, 11, 28, 23, 0, 0, 0, time.UTC))
	if err != nil || !strings.Contains(note, "2026-11-28 UTC") || !strings.Contains(note, "-seed ") || s.Master() >= 1e9 {
		t.Errorf("resolveSeed(fresh) = %d, %q, %v", s.Master(), note, err)
	}
	if s, note, err := resolveSeed("42", time.Now()); err != nil || s.Master() != 42 || note != "" {
		t.Errorf("resolveSeed(42) = %d, %q, %v", s.Master(), note, err)
	}
}

// fakeChecker, in place of type-checking (mutate's tests check the real
// one), says that one mutated source in five does not compile: which, a
// hash of the source decides.
type fakeChecker struct{}

func (fakeChecker) Check(file string, src []byte) error {
	if sha256.Sum256(src)[0]%5 == 0 {
		return errors.New("does not compile")
	}
	return nil
}

// TestShardsOfASampleArePartsOfIt: the chosen mutants of the shards of a
// sample (and of -all) are disjoint and together the unsharded choice, the
// mutants known without a run (not compiling, equivalent) included.
func TestShardsOfASampleArePartsOfIt(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{"reports/catalog"}
	all, err := mutate.Enumerate(os.DirFS(root), dirs)
	if err != nil {
		t.Fatal(err)
	}
	checker := fakeChecker{}
	equiv, err := mutate.ReadEquivalents(strings.NewReader(all[3].ID + " listed for the test\n"))
	if err != nil {
		t.Fatal(err)
	}
	srcs := map[string][]byte{}
	var cands []candidate
	for i, mu := range all[:min(len(all), 120)] {
		if srcs[mu.File] == nil {
			if srcs[mu.File], err = os.ReadFile(filepath.Join(root, mu.File)); err != nil {
				t.Fatal(err)
			}
		}
		cands = append(cands, candidate{mutant: mu, locs: []string{"features/x.feature:1"}, rank: string(rune(i))})
	}
	for _, o := range []options{{n: 40}, {n: 10_000, all: true}} {
		choose := func(sh mutate.Shard) ([]string, int) {
			o.shard = sh
			m := &mutator{o: o, root: root, equiv: equiv}
			todo, known := m.choose(cands, srcs, checker)
			var ids []string
			for _, r := range todo {
				ids = append(ids, r.mutant.ID+" run")
			}
			for _, r := range known {
				ids = append(ids, r.Mutant.ID+" "+r.Status)
			}
			sort.Strings(ids)
			return ids, len(todo)
		}
		whole, runs := choose(mutate.Shard{})
		if !o.all && runs != o.n {
			t.Errorf("the sample runs %d mutants, want -n %d", runs, o.n)
		}
		if !strings.Contains(strings.Join(whole, "\n"), mutate.CompileError) || !strings.Contains(strings.Join(whole, "\n"), mutate.Ignored) {
			t.Errorf("the choice lacks a compile error or an equivalent mutant: the test needs both:\n%s", strings.Join(whole, "\n"))
		}
		var parts []string
		for i := 1; i <= 3; i++ {
			ids, _ := choose(mutate.Shard{I: i, N: 3})
			parts = append(parts, ids...)
		}
		sort.Strings(parts)
		if d := cmp.Diff(whole, parts); d != "" {
			t.Errorf("all=%v: the shards' choices (+) are not the unsharded one (-):\n%s", o.all, d)
		}
	}
}

// TestLoadDiff: -diff reads the lines of impl/ that a git revision's
// diff added or modified, new untracked files whole, and measures only the
// systems that have any.
func TestLoadDiff(t *testing.T) {
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(file, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(file)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const src = "package a\n\nfunc f(a, b int) bool {\n\treturn a < b\n}\n\nfunc g(a int) int {\n\treturn a + 1\n}\n"
	git("init", "-q")
	write("impl/jace/a.go", src)
	write("impl/deck/b.go", src)
	git("add", ".")
	git("commit", "-qm", "base")
	write("impl/jace/a.go", strings.Replace(src, "a + 1", "a + 2", 1))
	write("impl/jace/a_test.go", "package a\n")
	write("impl/chatlog/new.go", src)
	var stdout bytes.Buffer
	m := &mutator{o: options{diff: "HEAD", systems: []string{"chatlog", "plurnk", "jace", "deck"}}, root: root, stdout: &stdout}
	systems, err := m.loadDiff()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"chatlog", "jace"}, systems); d != "" {
		t.Errorf("systems (-want +got):\n%s\n%s", d, stdout.String())
	}
	ms, err := mutate.FileMutants("impl/jace/a.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var touched []string
	for _, mu := range ms {
		if m.changed.Touches(mu) {
			touched = append(touched, mu.Original+" → "+mu.Replacement)
		}
	}
	if d := cmp.Diff([]string{"+ → -"}, touched); d != "" {
		t.Errorf("mutants on the changed line (-want +got):\n%s", d)
	}
	if !m.changed.Touches(mutate.Mutant{File: "impl/chatlog/new.go", Start: mutate.Pos{Line: 4, Col: 1}, End: mutate.Pos{Line: 4, Col: 2}}) {
		t.Error("a new file's lines are not measured")
	}
	if _, err := (&mutator{o: options{diff: "no-such-rev"}, root: root, stdout: &stdout}).loadDiff(); err == nil || !strings.Contains(err.Error(), "no-such-rev") {
		t.Errorf("an unknown revision: %v", err)
	}
}
