package main

import (
	"bytes"
	"os"
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
	checker, err := mutate.NewChecker(root, dirs)
	if err != nil {
		t.Fatal(err)
	}
	equiv, err := mutate.ReadEquivalents(strings.NewReader(all[3].ID + " listed for the test\n"))
	if err != nil {
		t.Fatal(err)
	}
	srcs := map[string][]byte{}
	var cands []candidate
	for i, mu := range all[:min(len(all), 80)] {
		if srcs[mu.File] == nil {
			if srcs[mu.File], err = os.ReadFile(filepath.Join(root, mu.File)); err != nil {
				t.Fatal(err)
			}
		}
		cands = append(cands, candidate{mutant: mu, locs: []string{"features/x.feature:1"}, rank: string(rune(i))})
	}
	for _, o := range []options{{n: 25}, {n: 10_000, all: true}} {
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
