// Command report writes the spec-coverage report of a feature run: it reads
// the digests and features under <root>/features and the Cucumber JSON that
// TestFeatures wrote to -results, and writes coverage.json, coverage.md,
// coverage.html, cucumber.json and junit.xml to -out, then prints a
// one-screen summary. It exits 1 when a scenario failed, the anchor guard
// found a problem, or -test-exit is not 0; 2 on bad input; 0 for -h.
//
// Usage: go run ./reports/cmd/report -results reports/tmp -out reports -seed N -test-exit N [-target NAME]
//
// "report watch" reads `go test -json ./features` on stdin while the run
// goes: a progress line per system, then each failing scenario's assertion
// and replay line once (make report).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"anchorage/reports/catalog"
	"anchorage/reports/coverage"
	"anchorage/sim/seed"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "watch" {
		os.Exit(watch(os.Args[2:], os.Stdin, os.Stdout, os.Stderr, time.Now))
	}
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fl := flag.NewFlagSet("report", flag.ContinueOnError)
	root := fl.String("root", ".", "project root (holds features/)")
	results := fl.String("results", "reports/tmp", "directory with the cucumber-*.json of the run")
	out := fl.String("out", "reports", "where to write the report")
	seedFlag := fl.String("seed", "", "master seed of the run (default: $ANCHORAGE_SEED, else the fixed default)")
	mutation := fl.String("mutation", "reports/mutation.json", "mutation report to read per-anchor strength from (absent: no strength figures)")
	testExit := fl.Int("test-exit", 0, "exit status of the go test run that produced -results")
	target := fl.String("target", "reference", "the implementation this run judged (coverage.json names it; see reports/cmd/matrix)")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}

	seeds, err := seed.Resolve(*seedFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		return 2
	}
	cat, problems, err := catalog.Load(os.DirFS(*root), "features")
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		return 2
	}
	problems = append(problems, cat.Check()...)
	problems = append(problems, cat.Missing()...)
	res, cukeJSON, err := coverage.ReadResults(*results)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		return 2
	}
	details, err := coverage.ReadDetails(os.DirFS(*root), cat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		return 2
	}
	junit, err := coverage.JUnit(cat, res, details, seeds.Master())
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		return 2
	}
	rep := coverage.BuildDetailed(cat, problems, res, details, seeds.Master())
	rep.Target, rep.Drivers = *target, coverage.DriversFromEnv()
	if data, err := os.ReadFile(*mutation); err == nil {
		if err := rep.ApplyMutation(cat, data); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			return 2
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintln(os.Stderr, "report:", err)
		return 2
	}

	js, err := rep.JSON()
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		return 2
	}
	var html bytes.Buffer
	if err := rep.HTML(&html); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		return 2
	}
	files := map[string][]byte{
		"coverage.json": js,
		"coverage.md":   []byte(rep.Markdown()),
		"coverage.html": html.Bytes(),
		"cucumber.json": append(cukeJSON, '\n'),
		"junit.xml":     junit,
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			return 2
		}
	}
	rep.Summary(os.Stdout)
	fmt.Printf("  wrote %s/coverage.{json,md,html}, cucumber.json, junit.xml\n", *out)
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "guard:", p)
	}
	if rep.Failed() || *testExit != 0 {
		if *testExit != 0 {
			fmt.Fprintf(os.Stderr, "report: the feature run exited %d (see reports/tmp/go-test.log)\n", *testExit)
		}
		return 1
	}
	return 0
}
