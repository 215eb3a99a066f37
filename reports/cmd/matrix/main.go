// Command matrix writes the results matrix: the anchor verdicts of several
// runs of the features side by side, one column per target (as wpt.fyi does
// for browsers). It reads -reports/coverage.json (the reference run) and
// every -reports/targets/NAME/coverage.json (written by make report
// TARGET=NAME), and writes matrix.md and matrix.html to -reports.
//
// Usage: go run ./reports/cmd/matrix [-reports reports]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"anchorage/reports/coverage"
)

func main() {
	dir := flag.String("reports", "reports", "directory holding coverage.json and targets/")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "matrix:", err)
		os.Exit(2)
	}
}

func run(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "targets", "*", "coverage.json"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	files = append([]string{filepath.Join(dir, "coverage.json")}, files...)
	var runs []*coverage.Report
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("reading a run: %w", err)
		}
		r := &coverage.Report{}
		if err := json.Unmarshal(b, r); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		runs = append(runs, r)
	}
	m := coverage.BuildMatrix(runs)
	var html bytes.Buffer
	if err := m.HTML(&html); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "matrix.md"), []byte(m.Markdown()), 0o644); err != nil {
		return fmt.Errorf("writing the matrix: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "matrix.html"), html.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the matrix: %w", err)
	}
	for _, t := range m.Targets {
		fmt.Printf("  %-16s", t.Name)
		for _, s := range m.Systems {
			fmt.Printf("  %s %s", s.System, passOfRun(t.Counts[s.System]))
		}
		fmt.Println()
	}
	fmt.Printf("  wrote %s/matrix.{md,html} (%d targets)\n", dir, len(m.Targets))
	return nil
}

func passOfRun(c coverage.Counts) string {
	if c.Total == 0 {
		return coverage.NotThisTarget
	}
	return fmt.Sprintf("%d/%d", c.Pass, c.Total)
}
