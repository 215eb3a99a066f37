package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"anchorage/reports/mutate"
	"anchorage/sim/seed"
)

// resolveSeed reads -seed: "fresh" derives a master seed from the commit
// and the date (see freshSeed), anything else is seed.Resolve's. The note
// says how a fresh seed was made, for the printed summary.
func resolveSeed(flagValue string, now time.Time) (seed.Seeds, string, error) {
	if strings.TrimSpace(flagValue) != "fresh" {
		s, err := seed.Resolve(flagValue)
		return s, "", err
	}
	commit := "no-commit"
	if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
	}
	day := now.UTC().Format(time.DateOnly)
	short := commit[:min(12, len(commit))]
	return seed.New(freshSeed(commit, day)), fmt.Sprintf(" (fresh: commit %s, %s UTC; rerun with -seed %d)", short, day, freshSeed(commit, day)), nil
}

// freshSeed is the master seed of -seed fresh: a hash of the commit and the
// day, so every change (and every day) draws a sample no one has seen, while
// a rerun of the same commit the same day draws the same one.
func freshSeed(commit, day string) uint64 {
	h := sha256.Sum256([]byte("fresh\x00" + commit + "\x00" + day))
	return binary.BigEndian.Uint64(h[:8]) % 1_000_000_000
}

// loadDiff reads the lines of impl/ changed since -diff's revision (the
// working tree and untracked files included) and returns the chosen systems
// that have any.
func (m *mutator) loadDiff() ([]string, error) {
	out, err := m.git("diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-renames", m.o.diff, "--", "impl/")
	if err != nil {
		return nil, fmt.Errorf("-diff %s: %w", m.o.diff, err)
	}
	all, err := mutate.ParseDiff(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("-diff %s: %w", m.o.diff, err)
	}
	untracked, err := m.git("ls-files", "--others", "--exclude-standard", "--", "impl/")
	if err != nil {
		return nil, fmt.Errorf("-diff %s: %w", m.o.diff, err)
	}
	for _, f := range strings.Fields(string(untracked)) {
		all.AddFile(f)
	}
	m.changed = mutate.ChangedLines{}
	bySystem := map[string]int{}
	for _, f := range all.Files() {
		if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") && mutate.SystemOfFile(f) != "" {
			m.changed[f] = all[f]
			bySystem[mutate.SystemOfFile(f)]++
		}
	}
	var systems []string
	for _, s := range m.o.systems {
		if bySystem[s] > 0 {
			systems = append(systems, s)
		}
	}
	fmt.Fprintf(m.stdout, "-diff %s: %d Go files of impl/ changed; systems to measure: %s\n", m.o.diff, len(m.changed), orNone(systems))
	return systems, nil
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// git runs a git command in the module root and returns its output.
func (m *mutator) git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-c", "core.quotePath=false"}, args...)...)
	cmd.Dir = m.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// mergeReports merges shard reports into -out and prints the merged rates.
func (m *mutator) mergeReports(files []string) error {
	var reps []*mutate.Report
	for _, f := range files {
		r, err := readReportFile(f)
		if err != nil {
			return err
		}
		reps = append(reps, r)
	}
	merged, err := mutate.Merge(files, reps)
	if err != nil {
		return err
	}
	if missing := mutate.MissingShards(merged); len(missing) > 0 {
		fmt.Fprintf(m.stderr, "mutate: warning: the merged report lacks shards %s: their mutants are not in it\n", strings.Join(missing, ", "))
	}
	if err := m.writeReport(merged); err != nil {
		return err
	}
	tallies := merged.Tallies()
	systems := make([]string, 0, len(tallies))
	for s := range tallies {
		systems = append(systems, s)
	}
	sort.Strings(systems)
	total := 0
	fmt.Fprintf(m.stdout, "merged %d reports into %s\n", len(files), m.o.out)
	for _, s := range systems {
		t := tallies[s]
		total += t.Killed + t.Timeout + t.Survived + t.Equivalent
		fmt.Fprintf(m.stdout, "  %-8s net %-6s raw %-6s normative %-6s  killed %d (%d only by a decided assertion), timeout %d, survived %d, equivalent %d\n",
			s, percent(t.Net), percent(t.Raw), percent(t.Normative), t.Killed, t.DecidedOnly, t.Timeout, t.Survived, t.Equivalent)
	}
	fmt.Fprintf(m.stdout, "  %d mutants with a verdict\n", total)
	return nil
}

func readReportFile(name string) (*mutate.Report, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := mutate.ReadReport(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(name), err)
	}
	return r, nil
}
