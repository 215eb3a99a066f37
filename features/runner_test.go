// Package features runs every feature of every system under spec through
// godog, as subtests of one go test entry point: TestFeatures/<system>/<scenario>.
//
// Flags (after -args): -seed N (else $ANCHORAGE_SEED, else the fixed default)
// roots every random stream; -feature features/<system>/<file>.feature[:line]
// runs one feature or scenario (the line of a scenario, or of one example
// row of an outline: only that row runs); -tags overrides the tag filter
// (default "~@wip"). With $ANCHORAGE_REPORT_DIR set, each system also writes
// its Cucumber JSON there for the coverage report (make report, which writes
// the JUnit XML from it).
//
// A scenario's seed depends only on its identity (kit.Identity), so the
// replay line a failure prints reruns it with the same streams. After a
// system's full run, TestFeatures/<system>/replay checks that: it reruns a
// sample of the scenarios (an outline row, a scenario whose name its file
// repeats, and others) through their own replay lines and compares their
// fingerprints — the seed, what the steps observed (kit.Scenario.Observe)
// and each step's status — with the full run's.
package features

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cucumber/godog"

	"anchorage/features/chatlog"
	"anchorage/features/deck"
	"anchorage/features/jace"
	"anchorage/features/kit"
	"anchorage/features/plurnk"
	"anchorage/reports/catalog"
	"anchorage/sim/seed"
)

var (
	seedFlag    = flag.String("seed", "", "master seed (default: $ANCHORAGE_SEED, else the fixed default)")
	featureFlag = flag.String("feature", "", "run only this feature, scenario or example row, as features/<system>/<file>.feature[:line]")
	tagsFlag    = flag.String("tags", "~@wip", "godog tag expression selecting the scenarios to run")
)

// systems lists each system with the function that registers its steps.
func systems() []struct {
	name string
	init func(*godog.ScenarioContext)
} {
	return []struct {
		name string
		init func(*godog.ScenarioContext)
	}{
		{"chatlog", chatlog.InitializeScenario},
		{"plurnk", plurnk.InitializeScenario},
		{"jace", jace.InitializeScenario},
		{"deck", deck.InitializeScenario},
	}
}

// selection is what -feature asks for: a godog path (relative to features/)
// and, for an outline row, the row's location (only that pickle runs).
type selection struct {
	system string
	path   string // for godog: <system>/<file>.feature[:scenario line]
	row    string // features/<system>/<file>.feature:<row line>, or ""
}

// parseSelection reads a -feature value. A line that is an example row of an
// outline becomes the outline's line for godog (which selects scenarios by
// their own line) plus the row to keep.
func parseSelection(cat *catalog.Catalog, value string) (selection, error) {
	p := strings.TrimPrefix(strings.TrimPrefix(filepath.ToSlash(value), "./"), "features/")
	sys, _, _ := strings.Cut(p, "/")
	sel := selection{system: sys, path: p}
	file := kit.StripLine(p)
	if file == p {
		return sel, nil
	}
	line, err := strconv.Atoi(p[len(file)+1:])
	if err != nil {
		return sel, fmt.Errorf("-feature %s: bad line: %w", value, err)
	}
	for _, sc := range cat.Scenarios {
		if sc.URI == "features/"+file && sc.Line == line {
			if sc.Decl != sc.Line { // an example row
				sel.path = file + ":" + strconv.Itoa(sc.Decl)
				sel.row = "features/" + p
			}
			return sel, nil
		}
	}
	return sel, nil // a scenario's own line, or nothing: godog decides
}

// fingerprints collects each run scenario's fingerprint by location.
type fingerprints struct {
	mu sync.Mutex
	m  map[string]string
}

func (f *fingerprints) put(loc, fp string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[loc] = fp
}

func (f *fingerprints) get() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.m)
}

func TestFeatures(t *testing.T) {
	seeds, err := seed.Resolve(*seedFlag)
	if err != nil {
		t.Fatal(err)
	}
	cat, problems, err := catalog.Load(os.DirFS(".."), "features")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("catalog: %s", p) // the anchor guard test says more
	}
	var only selection
	if *featureFlag != "" {
		if only, err = parseSelection(cat, *featureFlag); err != nil {
			t.Fatal(err)
		}
	}
	reportDir := os.Getenv("ANCHORAGE_REPORT_DIR")
	t.Logf("master seed %d", seeds.Master())

	for _, sys := range systems() {
		if only.system != "" && sys.name != only.system {
			continue
		}
		t.Run(sys.name, func(t *testing.T) {
			n := 0
			for _, sc := range cat.Scenarios {
				if sc.System == sys.name {
					n++
				}
			}
			if n == 0 {
				t.Skipf("no %s scenarios yet: its anchors are uncovered in the report", sys.name)
			}
			sel := selection{system: sys.name, path: sys.name}
			if only.system != "" {
				sel = only
			}
			format := "progress"
			if reportDir != "" {
				format += ",cucumber:" + filepath.Join(reportDir, "cucumber-"+sys.name+".json")
			}
			fps := &fingerprints{m: map[string]string{}}
			if runSuite(t, sys.name, sys.init, cat, seeds, sel, format, fps) != 0 {
				t.Errorf("%s features failed (master seed %d; each failing scenario logs its replay command)", sys.name, seeds.Master())
			}
			if only.system == "" && *tagsFlag == "~@wip" {
				t.Run("replay", func(t *testing.T) { checkReplay(t, sys.name, sys.init, cat, seeds, fps.get()) })
			}
		})
	}
}

// runSuite runs the scenarios sel selects, recording their fingerprints.
func runSuite(t *testing.T, system string, register func(*godog.ScenarioContext), cat *catalog.Catalog, seeds seed.Seeds, sel selection, format string, fps *fingerprints) int {
	opts := godog.Options{
		Format:   format,
		Paths:    []string{sel.path},
		Strict:   true,
		Tags:     *tagsFlag,
		NoColors: true,
		TestingT: t,
	}
	suite := godog.TestSuite{
		Name:                system,
		ScenarioInitializer: initializer(system, register, cat, seeds, sel.row, fps),
		Options:             &opts,
	}
	return suite.Run()
}

// checkReplay reruns a sample of the full run's scenarios through their own
// replay lines (as a person would paste them) and compares fingerprints: a
// seed that depended on the selection, or any other leak between scenarios,
// shows as a difference. The sample (drawn from the master seed) takes an
// outline row, a scenario whose name its file repeats, and others, among
// the scenarios that ran.
func checkReplay(t *testing.T, system string, register func(*godog.ScenarioContext), cat *catalog.Catalog, seeds seed.Seeds, full map[string]string) {
	var rows, repeated, rest []*catalog.Scenario
	names := map[string]int{}
	for _, sc := range cat.Scenarios {
		names[sc.URI+"\x00"+sc.Name]++
	}
	for _, sc := range cat.Scenarios {
		if sc.System != system || full[sc.Location()] == "" {
			continue
		}
		switch {
		case sc.Line != sc.Decl: // an outline's example row
			rows = append(rows, sc)
		case names[sc.URI+"\x00"+sc.Name] > 1:
			repeated = append(repeated, sc)
		default:
			rest = append(rest, sc)
		}
	}
	r := seeds.Rand("replay-sample/" + system)
	var sample []*catalog.Scenario
	pick := func(from []*catalog.Scenario, n int) {
		from = slices.Clone(from)
		for ; n > 0 && len(from) > 0; n-- {
			i := r.IntN(len(from))
			sample = append(sample, from[i])
			from = slices.Delete(from, i, i+1)
		}
	}
	pick(rows, 1)
	pick(repeated, 1)
	pick(rest, 4-len(sample))
	if len(sample) == 0 {
		t.Skipf("no %s scenario ran", system)
	}
	for _, sc := range sample {
		line := seeds.Replay("./features", "TestFeatures/"+system, "-feature="+sc.Location())
		_, arg, ok := strings.Cut(line, " -args -feature=")
		if !ok || !strings.HasPrefix(line, fmt.Sprintf("%s=%d ", seed.EnvVar, seeds.Master())) {
			t.Fatalf("replay line %q does not carry the master seed and the scenario", line)
		}
		sel, err := parseSelection(cat, arg)
		if err != nil {
			t.Fatalf("replay line %q: %v", line, err)
		}
		fps := &fingerprints{m: map[string]string{}}
		runSuite(t, system, register, cat, seeds, sel, "progress", fps)
		got := fps.get()
		if got[sc.Location()] != full[sc.Location()] {
			t.Errorf("%s (%s): the replay line\n  %s\nran it with fingerprint %.12s, the full run with %.12s", sc.Location(), sc.Name, line, got[sc.Location()], full[sc.Location()])
		}
		delete(got, sc.Location())
		if len(got) > 0 {
			t.Errorf("%s: the replay line also ran %v", sc.Location(), slices.Sorted(maps.Keys(got)))
		}
		t.Logf("replayed %s (%s): fingerprint %.12s as in the full run", sc.Location(), sc.Name, full[sc.Location()])
	}
}

// identify finds the catalog scenario of a pickle: same file, same name and
// same step texts; among identical ones (the same row twice), the k-th met.
// The returned index is its rank among the file's pickles with that name —
// the same whatever the run selected.
func identify(cat *catalog.Catalog, uri string, p *godog.Scenario, seen map[string]int) (*catalog.Scenario, int) {
	var same []*catalog.Scenario
	for _, c := range cat.Scenarios {
		if c.URI == uri && c.Name == p.Name {
			same = append(same, c)
		}
	}
	var texts []string
	for _, st := range p.Steps {
		texts = append(texts, st.Text)
	}
	key := uri + "\x00" + p.Name + "\x00" + strings.Join(texts, "\x00")
	k := seen[key]
	seen[key] = k + 1
	for i, c := range same {
		if !slices.EqualFunc(c.Steps, texts, func(st catalog.Step, text string) bool { return st.Text == text }) {
			continue
		}
		if k == 0 {
			return c, i
		}
		k--
	}
	return nil, 0
}

// initializer wraps a system's step registration with the hooks every
// scenario gets: its location and seed before, its fingerprint and (on
// failure) its replay line after. With row set, every other pickle is skipped.
func initializer(system string, register func(*godog.ScenarioContext), cat *catalog.Catalog, seeds seed.Seeds, row string, fps *fingerprints) func(*godog.ScenarioContext) {
	var mu sync.Mutex
	seen := map[string]int{}
	return func(sc *godog.ScenarioContext) {
		sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
			uri := "features/" + kit.StripLine(strings.TrimPrefix(filepath.ToSlash(p.Uri), "./"))
			mu.Lock()
			c, index := identify(cat, uri, p, seen)
			mu.Unlock()
			loc := uri
			if c != nil {
				loc = c.Location()
			}
			s := &kit.Scenario{
				System:   system,
				Name:     p.Name,
				Location: loc,
				Seeds:    kit.SeedsFor(seeds, uri, p.Name, index),
				Master:   seeds.Master(),
				Replay:   seeds.Replay("./features", "TestFeatures/"+system, "-feature="+loc),
			}
			ctx = kit.With(ctx, s)
			if row != "" && loc != row {
				return ctx, fmt.Errorf("not the selected row %s: %w", row, godog.ErrSkip)
			}
			return ctx, nil
		})
		register(sc)
		sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
			if s, kerr := kit.From(ctx); kerr == nil {
				s.Observe("step %q %s", st.Text, status)
			}
			return ctx, nil
		})
		sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
			s, kerr := kit.From(ctx)
			if kerr != nil || (row != "" && s.Location != row) {
				return ctx, nil
			}
			if err != nil {
				godog.Logf(ctx, "%s failed with master seed %d\nreplay: %s", s.Location, s.Master, s.Replay)
			}
			fps.put(s.Location, s.Fingerprint())
			return ctx, nil
		})
	}
}
