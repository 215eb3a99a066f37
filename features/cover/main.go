// Command cover runs one system's features as a plain program, writing the
// coverage counters of each scenario on its own, for the mutation tool
// (reports/cmd/mutate). Built with
//
//	go build -cover -covermode=atomic -coverpkg=anchorage/impl/...,anchorage/features/cover -o cover ./features/cover
//
// (the main package must be instrumented too: its init is what hands the
// runtime the coverage meta data) and run from the features directory as
// `cover -system chatlog -dir DIR`, it clears the counters before each
// scenario and writes them after it into DIR/NNNN/, beside a file "scenario"
// holding the scenario's location and wall time. A go test binary cannot do
// this: it writes its meta data only when it exits. It exits 1 when a
// scenario fails.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/coverage"
	"time"

	"github.com/cucumber/godog"

	"anchorage/features"
	"anchorage/reports/catalog"
	"anchorage/sim/seed"
)

func main() {
	os.Exit(run())
}

func run() int {
	system := flag.String("system", "", "the system whose features to run")
	dir := flag.String("dir", "", "where to write each scenario's counters")
	seedFlag := flag.String("seed", "", "master seed (default: $ANCHORAGE_SEED, else the fixed default)")
	tags := flag.String("tags", "~@wip", "godog tag expression selecting the scenarios to run")
	flag.Parse()
	if *system == "" || *dir == "" {
		fmt.Fprintln(os.Stderr, "cover: -system and -dir are required (see -h)")
		return 2
	}
	seeds, err := seed.Resolve(*seedFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cover:", err)
		return 2
	}
	cat, problems, err := catalog.Load(os.DirFS(".."), "features")
	if err != nil || len(problems) > 0 {
		fmt.Fprintln(os.Stderr, "cover: run from the features directory; the catalog does not load:", err, problems)
		return 2
	}
	var sys *features.System
	for _, s := range features.Systems() {
		if s.Name == *system {
			sys = &s
		}
	}
	if sys == nil {
		fmt.Fprintf(os.Stderr, "cover: no system %q\n", *system)
		return 2
	}
	hooks, err := newHooks(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cover:", err)
		return 2
	}
	mode, err := features.Decisions(sys.Name, os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cover:", err)
		return 2
	}
	suite := godog.TestSuite{
		Name:                sys.Name,
		ScenarioInitializer: features.Initializer(sys.Name, sys.Init, cat, seeds, features.Selection{}, mode, hooks),
		Options:             &godog.Options{Format: "progress", Paths: []string{sys.Name}, Strict: true, Tags: *tags, NoColors: true},
	}
	if suite.Run() != 0 {
		return 1
	}
	return 0
}

// hooks writes each scenario's counters into a directory of its own.
type hooks struct {
	dir   string
	n     int
	start time.Time
}

func newHooks(dir string) (*hooks, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := coverage.ClearCounters(); err != nil {
		return nil, fmt.Errorf("build with -cover -covermode=atomic: %w", err)
	}
	return &hooks{dir: dir}, nil
}

func (h *hooks) Before() error {
	h.start = time.Now()
	return coverage.ClearCounters()
}

func (h *hooks) After(location string) error {
	secs := time.Since(h.start).Seconds()
	d := filepath.Join(h.dir, fmt.Sprintf("%04d", h.n))
	h.n++
	if err := os.MkdirAll(d, 0o755); err != nil {
		return fmt.Errorf("scenario coverage: %w", err)
	}
	if err := coverage.WriteMetaDir(d); err != nil {
		return fmt.Errorf("scenario coverage of %s: %w", location, err)
	}
	if err := coverage.WriteCountersDir(d); err != nil {
		return fmt.Errorf("scenario coverage of %s: %w", location, err)
	}
	return os.WriteFile(filepath.Join(d, "scenario"), []byte(fmt.Sprintf("%s %.3f\n", location, secs)), 0o644)
}
