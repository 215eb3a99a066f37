package mutate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"": {}, "1/1": {1, 1}, "3/32": {3, 32}, " 2 / 2 ": {2, 2}} {
		got, err := ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0/3", "4/3", "3", "a/b", "1/0", "-1/2"} {
		if _, err := ParseShard(in); err == nil {
			t.Errorf("ParseShard(%q) accepted", in)
		}
	}
}

// TestShardsPartitionTheMutants: over the mutants of a real package, the n
// shards are disjoint and together hold every mutant, for several n; and a
// mutant's shard follows its code, not its line.
func TestShardsPartitionTheMutants(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	all, err := Enumerate(os.DirFS(root), []string{"reports/catalog", "reports/mutate"})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 100 {
		t.Fatalf("only %d mutants to shard", len(all))
	}
	for _, n := range []int{1, 2, 3, 32} {
		sizes := make([]int, n)
		for _, m := range all {
			in := 0
			for i := 1; i <= n; i++ {
				if (Shard{I: i, N: n}).Has(m) {
					in++
					sizes[i-1]++
				}
			}
			if in != 1 {
				t.Fatalf("n=%d: %s is in %d shards", n, m.ID, in)
			}
		}
		if n == 3 {
			for i, s := range sizes {
				if s < len(all)/6 {
					t.Errorf("shard %d/3 holds %d of %d mutants: the hash does not spread them", i+1, s, len(all))
				}
			}
		}
	}
	before, _ := FileMutants("impl/p/p.go", []byte("package p\n\nfunc f(a, b int) bool { return a < b }\n"))
	after, _ := FileMutants("impl/p/p.go", []byte("package p\n\n// f compares.\n\nfunc f(a, b int) bool { return a < b }\n"))
	for i := range before {
		if before[i].ID == after[i].ID || ShardOf(before[i].Key, 32) != ShardOf(after[i].Key, 32) {
			t.Errorf("%s → %s changed shard when its line moved", before[i].ID, after[i].ID)
		}
	}
}

func TestParseDiff(t *testing.T) {
	const diff = `diff --git a/impl/x/a.go b/impl/x/a.go
index 1111111..2222222 100644
--- a/impl/x/a.go
+++ b/impl/x/a.go
@@ -3 +3 @@ func f() {
-	a := 1
+	a := 2
@@ -10,0 +11,3 @@ func g() {
+	x++
+	y++
+	z++
@@ -20,2 +23,0 @@ func h() {
-	gone()
-	gone()
diff --git a/impl/x/old.go b/impl/x/old.go
deleted file mode 100644
--- a/impl/x/old.go
+++ /dev/null
@@ -1,3 +0,0 @@
-package x
`
	got, err := ParseDiff(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	want := ChangedLines{"impl/x/a.go": {{3, 3}, {11, 13}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("changed lines (-want +got):\n%s", d)
	}
	at := func(from, to int) Mutant {
		return Mutant{File: "impl/x/a.go", Start: Pos{from, 1}, End: Pos{to, 9}}
	}
	for m, want := range map[Mutant]bool{at(3, 3): true, at(2, 2): false, at(1, 3): true, at(12, 12): true, at(14, 20): false, at(13, 14): true} {
		if got.Touches(m) != want {
			t.Errorf("Touches(lines %d–%d) = %v, want %v", m.Start.Line, m.End.Line, !want, want)
		}
	}
	got.AddFile("impl/x/new.go")
	if !got.Touches(Mutant{File: "impl/x/new.go", Start: Pos{900, 1}, End: Pos{900, 2}}) {
		t.Error("a new file's lines are not all changed")
	}
	if d := cmp.Diff([]string{"impl/x/a.go", "impl/x/new.go"}, got.Files()); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
}

// capturedRun is a mutant's run as the features print it with
// ANCHORAGE_DECISIONS=record: one scenario failed, and two decided
// assertions did not hold (one of them in the failing scenario).
const capturedRun = `=== RUN   TestFeatures
=== RUN   TestFeatures/jace
anchorage: decision differs: features/jace/wire.feature:41 (§jace-errors): code: want "BAD_JSON", got "X_BAD_JSON"
anchorage: decision differs: features/jace/api.feature:12 (§jace-api-content-type): Content-Type: want "application/json", got "application/json; charset=utf-8"
    suite.go:156: features/jace/api.feature:30 failed with master seed 20261122
        replay: ANCHORAGE_SEED=20261122 go test ./features -run 'TestFeatures/jace' -feature=features/jace/api.feature:30
--- FAIL: TestFeatures (0.52s)
`

func TestReadRunAndVerdict(t *testing.T) {
	r := ReadRun(capturedRun)
	want := RunOutput{
		Failed: []string{"features/jace/api.feature:30"},
		Differences: []Difference{
			{"features/jace/wire.feature:41", "jace-errors", `code: want "BAD_JSON", got "X_BAD_JSON"`},
			{"features/jace/api.feature:12", "jace-api-content-type", `Content-Type: want "application/json", got "application/json; charset=utf-8"`},
		},
	}
	if d := cmp.Diff(want, r); d != "" {
		t.Fatalf("ReadRun (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"features/jace/api.feature:30", "features/jace/wire.feature:41", "features/jace/api.feature:12"}, r.Killers()); d != "" {
		t.Errorf("killers (-want +got):\n%s", d)
	}
	if got := r.Differences[0].String(); got != `features/jace/wire.feature:41 (§jace-errors): code: want "BAD_JSON", got "X_BAD_JSON"` {
		t.Errorf("Difference.String() = %s", got)
	}
	decidedOnly := ReadRun(strings.Split(capturedRun, "    suite.go")[0] + "PASS\n")
	for _, c := range []struct {
		name             string
		run              RunOutput
		failed, timedOut bool
		status, norm     string
	}{
		{"a scenario failed", r, true, false, Killed, Killed},
		{"only decisions differed", decidedOnly, false, false, Killed, Survived},
		{"timed out", decidedOnly, false, true, Timeout, Timeout},
		{"all passed", RunOutput{}, false, false, Survived, Survived},
		{"failed without a location (a panic)", RunOutput{}, true, false, Killed, Killed},
	} {
		s, n := Verdict(c.run, c.failed, c.timedOut)
		if s != c.status || n != c.norm {
			t.Errorf("%s: %s, normatively %s; want %s, %s", c.name, s, n, c.status, c.norm)
		}
	}
}

func TestTallyRates(t *testing.T) {
	var tl Tally
	for _, s := range [][2]string{{Killed, Killed}, {Killed, Survived}, {Killed, ""}, {Timeout, Timeout}, {Survived, Survived}, {Ignored, ""}, {CompileError, ""}} {
		tl.Add(s[0], s[1])
	}
	want := Tally{Killed: 3, Timeout: 1, Survived: 1, Equivalent: 1, DecidedOnly: 1}
	if tl != want {
		t.Fatalf("tally %+v, want %+v", tl, want)
	}
	for name, c := range map[string]struct {
		f    func() (float64, bool)
		want float64
	}{"net": {tl.Net, 4.0 / 5}, "raw": {tl.Raw, 4.0 / 6}, "normative": {tl.Normative, 3.0 / 5}} {
		if got, ok := c.f(); !ok || fmt.Sprintf("%.4f", got) != fmt.Sprintf("%.4f", c.want) {
			t.Errorf("%s rate %v, want %v", name, got, c.want)
		}
	}
	if _, ok := (Tally{Equivalent: 2}).Net(); ok {
		t.Error("a net rate of nothing measured")
	}
}
