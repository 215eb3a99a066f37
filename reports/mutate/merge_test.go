package mutate

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shardedReports measures the sample's mutants once (with made-up
// outcomes) and returns the unsharded report and one per shard of n.
func shardedReports(t *testing.T, n int) (*Report, []*Report) {
	t.Helper()
	ms, err := FileMutants("impl/p/p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	statuses := [][2]string{{Killed, Killed}, {Survived, Survived}, {Killed, Survived}, {Timeout, Timeout}, {Ignored, ""}, {CompileError, ""}}
	whole := NewReport()
	shards := make([]*Report, n)
	for i := range shards {
		shards[i] = NewReport()
		shards[i].Config["anchorage"] = map[string]any{"seed": 7, "all": true, "shard": fmt.Sprintf("%d/%d", i+1, n),
			"systems": map[string]any{"p": map[string]any{"mutants": 1, "seconds": 10}}}
	}
	for i, m := range ms {
		st := statuses[i%len(statuses)]
		r := Result{Mutant: m, Status: st[0], Normative: st[1], CoveredBy: []string{"features/p/a.feature:3", "features/p/b.feature:9"}}
		if st[0] == Killed {
			r.KilledBy = []string{"features/p/b.feature:9"}
		}
		whole.Add(r, []byte(sample))
		shards[ShardOf(m.Key, n)-1].Add(r, []byte(sample))
	}
	whole.NoteRates()
	return whole, shards
}

func TestMergedShardsEqualTheUnshardedReport(t *testing.T) {
	whole, shards := shardedReports(t, 3)
	for i, s := range shards {
		if len(s.Files) == 0 {
			t.Fatalf("shard %d/3 measured nothing: the sample is too small for the test", i+1)
		}
	}
	merged, err := Merge([]string{"a.json", "b.json", "c.json"}, shards)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(whole.Files, merged.Files); d != "" {
		t.Errorf("merged files (-unsharded +merged):\n%s", d)
	}
	a := anchorageConfig(merged)
	if d := cmp.Diff([]string{"1/3", "2/3", "3/3"}, a["shards"]); d != "" {
		t.Errorf("shards (-want +got):\n%s", d)
	}
	p := a["systems"].(map[string]any)["p"].(map[string]any)
	wp := anchorageConfig(whole)["systems"].(map[string]any)["p"].(map[string]any)
	if p["mutants"] != 3 || p["seconds"] != 30 || p["netRate"] != wp["netRate"] || p["rawRate"] != wp["rawRate"] || p["normativeRate"] != wp["normativeRate"] {
		t.Errorf("merged config of p: %v (unsharded rates %v)", p, wp)
	}
	if wp["netRate"] == nil || wp["normativeRate"] == nil || wp["equivalent"] == nil {
		t.Errorf("the unsharded report's config lacks its rates: %v", wp)
	}
	if a["seed"] != 7 {
		t.Errorf("merged seed %v", a["seed"])
	}
	if m := MissingShards(merged); len(m) != 0 {
		t.Errorf("missing shards %v", m)
	}
	// Shards read back from their files merge the same way.
	var read []*Report
	for _, s := range shards {
		var buf bytes.Buffer
		if err := s.Write(&buf); err != nil {
			t.Fatal(err)
		}
		r, err := ReadReport(&buf)
		if err != nil {
			t.Fatal(err)
		}
		read = append(read, r)
	}
	again, err := Merge([]string{"a", "b", "c"}, read[1:])
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"1/3"}, MissingShards(again)); d != "" {
		t.Errorf("missing shards (-want +got):\n%s", d)
	}
}

func TestMergeRefusesConflicts(t *testing.T) {
	_, shards := shardedReports(t, 1)
	_, twin := shardedReports(t, 1)
	if _, err := Merge([]string{"a.json", "b.json"}, []*Report{shards[0], twin[0]}); err != nil {
		t.Errorf("the same measurements twice: %v", err)
	}
	fr := twin[0].Files["impl/p/p.go"]
	id := fr.Mutants[0].ID
	fr.Mutants[0].Status = Survived
	_, err := Merge([]string{"a.json", "b.json"}, []*Report{shards[0], twin[0]})
	if err == nil || !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), "a.json") || !strings.Contains(err.Error(), "b.json") {
		t.Errorf("a mutant measured twice with different outcomes: %v", err)
	}
	_, other := shardedReports(t, 1)
	other[0].Files["impl/p/p.go"].Source += "// edited\n"
	if _, err := Merge([]string{"a.json", "b.json"}, []*Report{shards[0], other[0]}); err == nil || !strings.Contains(err.Error(), "different trees") {
		t.Errorf("two trees: %v", err)
	}
	_, seeded := shardedReports(t, 1)
	anchorageConfig(seeded[0])["seed"] = 8
	if _, err := Merge([]string{"a.json", "b.json"}, []*Report{shards[0], seeded[0]}); err == nil || !strings.Contains(err.Error(), "seed") {
		t.Errorf("two seeds: %v", err)
	}
}

// TestMergedShardsMatchTheUnshardedRun compares two real runs when CI names
// them: $MUTATION_UNSHARDED, a run of a sample, and $MUTATION_MERGED, the
// merge of the same sample run as shards (.ci/run makes both). For every
// system of the merged report, the two hold the same mutants with the same
// statuses, killers and coverers.
func TestMergedShardsMatchTheUnshardedRun(t *testing.T) {
	wholePath, mergedPath := os.Getenv("MUTATION_UNSHARDED"), os.Getenv("MUTATION_MERGED")
	if wholePath == "" || mergedPath == "" {
		t.Skip("MUTATION_UNSHARDED and MUTATION_MERGED are not set (.ci/run sets them)")
	}
	read := func(p string) *Report {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := ReadReport(f)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	whole, merged := read(wholePath), read(mergedPath)
	systems := map[string]bool{}
	for s := range anchorageConfig(merged)["systems"].(map[string]any) {
		systems[s] = true
	}
	verdicts := func(r *Report) []string {
		var out []string
		for f, fr := range r.Files {
			if !systems[SystemOfFile(f)] {
				continue
			}
			for _, m := range fr.Mutants {
				out = append(out, fmt.Sprintf("%s %s/%s killed by %v covered by %v", m.ID, m.Status, m.NormativeStatus, m.KilledBy, m.CoveredBy))
			}
		}
		sort.Strings(out)
		return out
	}
	want, got := verdicts(whole), verdicts(merged)
	if len(want) == 0 {
		t.Fatalf("%s has no mutant of %v", wholePath, systems)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the merged shards (+) differ from the unsharded run (-):\n%s", d)
	}
	t.Logf("%d mutants of %v: the merged shards match the unsharded run", len(want), systems)
}
