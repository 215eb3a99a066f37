package fe

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusDir is the differential corpus inside this package (see its README).
func corpusDir(t *testing.T) string {
	t.Helper()
	c := filepath.Join("testdata", "corpus")
	if _, err := os.Stat(filepath.Join(c, "MANIFEST.tsv")); err != nil {
		t.Fatalf("corpus: %v", err)
	}
	return c
}

type corpusRow struct {
	name, tier, mode string
	arena, exit32    int
	exit64           int
}

func readManifest(t *testing.T, dir string) []corpusRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatalf("read manifest: %v", err)
	}
	var rows []corpusRow
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if i == 0 {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 6 {
			t.Fatalf("MANIFEST.tsv line %d: %d fields, want at least 6", i+1, len(f))
		}
		arena, err1 := strconv.Atoi(f[3])
		e32, err2 := strconv.Atoi(f[4])
		e64, err3 := strconv.Atoi(f[5])
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("MANIFEST.tsv line %d: bad number in %q", i+1, line)
		}
		rows = append(rows, corpusRow{name: f[0], tier: f[1], mode: f[2], arena: arena, exit32: e32, exit64: e64})
	}
	return rows
}

// runProgram runs one corpus program the way the reference harness does and
// returns the combined, pointer-masked output and the exit status.
func runProgram(t *testing.T, src []byte, mode string, arena int, opts ...Option) (string, int) {
	t.Helper()
	var out bytes.Buffer
	vm, err := New(arena, opts...)
	if err != nil {
		e, ok := err.(*Error)
		if !ok {
			t.Fatalf("new: %v", err)
		}
		writeError(&out, e, nil)
		return maskPointers(out.String()), 1
	}
	status := 0
	if mode == "repl" {
		vm.RunREPL(bytes.NewReader(src), &out, &out)
	} else {
		status = vm.RunFile(bytes.NewReader(src), &out, &out)
	}
	return maskPointers(out.String()), status
}

var pointerRE = regexp.MustCompile(`\[(pair|free|nil|number|symbol|string|func|macro|prim|cfunc|ptr) (0x[0-9a-f]+|\(nil\))\]`)

func maskPointers(s string) string { return pointerRE.ReplaceAllString(s, "[$1 0xPTR]") }

// TestCorpus runs every corpus program through the target (the Go VM, or
// FE_CMD) and compares output and exit status with the recordings.
func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	ft := targetFromEnv(t)
	pass := map[string]int{}
	total := map[string]int{}
	skipped := map[string]int{}
	for _, r := range readManifest(t, dir) {
		total[r.tier]++
		if why := ft.skip(r); why != "" {
			skipped[why]++
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, r.name+".fe"))
		if err != nil {
			t.Errorf("%s: %v", r.name, err)
			continue
		}
		want, exit, err := ft.want(dir, r)
		if err != nil {
			t.Errorf("%s: %v", r.name, err)
			continue
		}
		got, status := ft.run(t, dir, r, src)
		ok := true
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (%s, %s): output mismatch (-want +got):\n%s", r.name, r.tier, r.mode, d)
			ok = false
		}
		if status != exit {
			t.Errorf("%s: exit status %d, want %d", r.name, status, exit)
			ok = false
		}
		if ok {
			pass[r.tier]++
		}
	}
	tiers := make([]string, 0, len(total))
	for k := range total {
		tiers = append(tiers, k)
	}
	sort.Strings(tiers)
	run, passed, skips := 0, 0, 0
	for _, k := range tiers {
		t.Logf("tier %-11s %3d/%d pass", k, pass[k], total[k])
		passed += pass[k]
		run += total[k]
	}
	reasons := make([]string, 0, len(skipped))
	for why, n := range skipped {
		skips += n
		reasons = append(reasons, fmt.Sprintf("%d: %s", n, why))
	}
	sort.Strings(reasons)
	t.Logf("target %s: run %d, passed %d, skipped %d %v", ft, run-skips, passed, skips, reasons)
}

// TestCorpusM33 checks the .out-m33 variants with newlib NaN printing.
func TestCorpusM33(t *testing.T) {
	dir := corpusDir(t)
	n := 0
	for _, r := range readManifest(t, dir) {
		want, err := os.ReadFile(filepath.Join(dir, r.name+".out-m33"))
		if err != nil {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, r.name+".fe"))
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		got, _ := runProgram(t, src, r.mode, r.arena, WithNaNStyle(NaNNewlib))
		if d := cmp.Diff(string(want), got); d != "" {
			t.Errorf("%s: m33 output mismatch (-want +got):\n%s", r.name, d)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no .out-m33 files found in the corpus")
	}
}

// TestCorpus64 checks the .out64 variants under the 64-bit layout.
func TestCorpus64(t *testing.T) {
	dir := corpusDir(t)
	n := 0
	for _, r := range readManifest(t, dir) {
		want, err := os.ReadFile(filepath.Join(dir, r.name+".out64"))
		if err != nil {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, r.name+".fe"))
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		got, status := runProgram(t, src, r.mode, r.arena, WithModel(Model64()))
		if d := cmp.Diff(string(want), got); d != "" {
			t.Errorf("%s: 64-bit output mismatch (-want +got):\n%s", r.name, d)
		}
		if status != r.exit64 {
			t.Errorf("%s: 64-bit exit status %d, want %d", r.name, status, r.exit64)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no .out64 files found in the corpus")
	}
}
