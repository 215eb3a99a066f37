package features

// The go test entry point: TestFeatures/<system>/<scenario>.
//
// Flags (after -args): -seed N (else $ANCHORAGE_SEED, else the fixed default)
// roots every random stream; -feature features/<system>/<file>.feature[:line]
// runs one feature, scenario, outline or example row (several, comma-separated,
// of one system); -tags overrides the tag filter (default "~@wip";
// with go test -short, "~@wip && ~@slow"); -stop ends
// a system's run at its first failing scenario. With $ANCHORAGE_REPORT_DIR
// set, each system also writes its Cucumber JSON there for the coverage
// report (make report, which writes the JUnit XML from it).
//
// After a system's full run, TestFeatures/<system>/replay checks that a
// replay line reproduces: it reruns a sample of that run's scenarios (an
// outline row, a scenario whose name its file repeats, and others) through
// their own replay lines and compares their fingerprints — the scenario's
// seed, what its steps observed (kit.Scenario.Observe) and each step's
// status — with the full run's.

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cucumber/godog"

	"anchorage/features/kit"
	plexec "anchorage/impl/plurnk/exec"
	"anchorage/reports/catalog"
	"anchorage/sim/seed"
)

var (
	seedFlag    = flag.String("seed", "", "master seed (default: $ANCHORAGE_SEED, else the fixed default)")
	featureFlag = flag.String("feature", "", "run only this feature, scenario or example row, as features/<system>/<file>.feature[:line]; several, comma-separated, of one system")
	tagsFlag    = flag.String("tags", "~@wip", "godog tag expression selecting the scenarios to run")
	stopFlag    = flag.Bool("stop", false, "stop a system's run at its first failing scenario (the mutation tool's bail)")
)

func TestFeatures(t *testing.T) {
	// plurnk's scenarios end real shell commands with a KILL's SIGHUP, which
	// a test run started under nohup would otherwise pass on as ignored.
	plexec.KeepChildHangups()
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
	sel, err := Select(cat, *featureFlag)
	if err != nil {
		t.Fatal(err)
	}
	reportDir := os.Getenv("ANCHORAGE_REPORT_DIR")
	if reportDir != "" {
		if err := os.MkdirAll(reportDir, 0o755); err != nil {
			t.Fatalf("ANCHORAGE_REPORT_DIR: %v", err)
		}
	}
	t.Logf("master seed %d", seeds.Master())

	for _, sys := range Systems() {
		if sel.System != "" && sys.Name != sel.System {
			continue
		}
		t.Run(sys.Name, func(t *testing.T) {
			mode, err := Decisions(sys.Name, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, sc := range cat.Scenarios {
				if sc.System == sys.Name {
					n++
				}
			}
			if n == 0 {
				t.Skipf("no %s scenarios yet: its anchors are uncovered in the report", sys.Name)
			}
			paths := []string{sys.Name}
			if sel.Paths != nil {
				paths = sel.Paths
			}
			format := "progress"
			if reportDir != "" {
				format += ",cucumber:" + filepath.Join(reportDir, "cucumber-"+sys.Name+".json")
			}
			full := &fingerprints{m: map[string]string{}}
			diffs := &differences{}
			opts := godog.Options{
				Format:        format,
				Paths:         paths,
				Strict:        true,
				Tags:          tagFilter(),
				NoColors:      true,
				TestingT:      t,
				StopOnFailure: *stopFlag,
			}
			suite := godog.TestSuite{
				Name:                sys.Name,
				ScenarioInitializer: tallied(fingerprinted(Initializer(sys.Name, sys.Init, cat, seeds, sel, mode, nil), full), diffs),
				Options:             &opts,
			}
			failed := suite.Run() != 0
			diffs.log(t, sys.Name)
			if failed {
				t.Errorf("%s features failed (master seed %d; each failing scenario logs its replay command)", sys.Name, seeds.Master())
			}
			if sel.System == "" && *tagsFlag == "~@wip" && !*stopFlag {
				t.Run("replay", func(t *testing.T) { checkReplay(t, sys, cat, seeds, full.get(), mode) })
			}
		})
	}
}

// fingerprints collects each run scenario's fingerprint by location.
type fingerprints struct {
	mu sync.Mutex
	m  map[string]string
}

func (f *fingerprints) get() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.m)
}

// differences collects what each scenario recorded as differing from the
// reference's decisions (a run against another target).
type differences struct {
	mu sync.Mutex
	m  map[string][]kit.Difference // scenario location → its differences
}

// tallied adds to a scenario initializer the hook that collects each
// scenario's differences.
func tallied(init func(*godog.ScenarioContext), diffs *differences) func(*godog.ScenarioContext) {
	return func(sc *godog.ScenarioContext) {
		init(sc)
		sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
			if s, kerr := kit.From(ctx); kerr == nil && len(s.Differences()) > 0 {
				diffs.mu.Lock()
				if diffs.m == nil {
					diffs.m = map[string][]kit.Difference{}
				}
				diffs.m[s.Location] = s.Differences()
				diffs.mu.Unlock()
			}
			return ctx, nil
		})
	}
}

// log prints the run's decision differences apart from its failures: per
// decision, how many scenarios differ on it and the first message.
func (d *differences) log(t *testing.T, system string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.m) == 0 {
		return
	}
	type tally struct {
		scenarios []string
		first     string
	}
	by := map[string]*tally{}
	total := 0
	for _, loc := range slices.Sorted(maps.Keys(d.m)) {
		for _, diff := range d.m[loc] {
			total++
			tl := by[diff.Decision]
			if tl == nil {
				tl = &tally{first: diff.Message}
				by[diff.Decision] = tl
			}
			if !slices.Contains(tl.scenarios, loc) {
				tl.scenarios = append(tl.scenarios, loc)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d scenarios keep the spec but differ from the reference's decisions (%d differences, on %d decisions); these are not failures:\n",
		system, len(d.m), total, len(by))
	for _, dec := range slices.Sorted(maps.Keys(by)) {
		tl := by[dec]
		first, _, _ := strings.Cut(tl.first, "\n")
		fmt.Fprintf(&b, "  Decision (%s): %d scenarios, e.g. %s: %s\n", dec, len(tl.scenarios), tl.scenarios[0], first)
	}
	t.Log(b.String())
}

// fingerprinted adds to a scenario initializer the hooks that record each
// run scenario's fingerprint: every step's status, then the whole.
func fingerprinted(init func(*godog.ScenarioContext), fps *fingerprints) func(*godog.ScenarioContext) {
	return func(sc *godog.ScenarioContext) {
		init(sc)
		sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
			if s, kerr := kit.From(ctx); kerr == nil {
				s.Observe("step %q %s", st.Text, status)
			}
			return ctx, nil
		})
		sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
			if s, kerr := kit.From(ctx); kerr == nil && !s.Unselected {
				fps.mu.Lock()
				fps.m[s.Location] = s.Fingerprint()
				fps.mu.Unlock()
			}
			return ctx, nil
		})
	}
}

// checkReplay reruns a sample of the full run's scenarios through their own
// replay lines (as a person would paste them) and compares fingerprints: a
// seed that depended on the selection, or any other leak between scenarios,
// shows as a difference. The sample (drawn from the master seed) takes an
// outline row, a scenario whose name its file repeats, and others, among
// the scenarios that ran.
func checkReplay(t *testing.T, sys System, cat *catalog.Catalog, seeds seed.Seeds, full map[string]string, mode kit.DecisionMode) {
	var rows, repeated, rest []*catalog.Scenario
	names := map[string]int{}
	for _, sc := range cat.Scenarios {
		names[sc.URI+"\x00"+sc.Name]++
	}
	for _, sc := range cat.Scenarios {
		if sc.System != sys.Name || full[sc.Location()] == "" {
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
	r := seeds.Rand("replay-sample/" + sys.Name)
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
		t.Skipf("no %s scenario ran", sys.Name)
	}
	for _, sc := range sample {
		line := seeds.Replay("./features", "TestFeatures/"+sys.Name, "-feature="+sc.Location())
		_, arg, ok := strings.Cut(line, " -args -feature=")
		if !ok || !strings.HasPrefix(line, fmt.Sprintf("%s=%d ", seed.EnvVar, seeds.Master())) {
			t.Fatalf("replay line %q does not carry the master seed and the scenario", line)
		}
		sel, err := Select(cat, arg)
		if err != nil {
			t.Fatalf("replay line %q: %v", line, err)
		}
		got := &fingerprints{m: map[string]string{}}
		suite := godog.TestSuite{
			Name:                sys.Name,
			ScenarioInitializer: fingerprinted(Initializer(sys.Name, sys.Init, cat, seeds, sel, mode, nil), got),
			Options:             &godog.Options{Format: "progress", Paths: sel.Paths, Strict: true, Tags: *tagsFlag, NoColors: true, TestingT: t},
		}
		suite.Run()
		fp := got.get()
		if fp[sc.Location()] != full[sc.Location()] {
			t.Errorf("%s (%s): the replay line\n  %s\nran it with fingerprint %.12s, the full run with %.12s", sc.Location(), sc.Name, line, fp[sc.Location()], full[sc.Location()])
		}
		delete(fp, sc.Location())
		if len(fp) > 0 {
			t.Errorf("%s: the replay line also ran %v", sc.Location(), slices.Sorted(maps.Keys(fp)))
		}
		t.Logf("replayed %s (%s): fingerprint %.12s as in the full run", sc.Location(), sc.Name, full[sc.Location()])
	}
}

// tagFilter is -tags, with the @slow scenarios left out of a go test -short
// run unless -tags was given.
func tagFilter() string {
	tags := *tagsFlag
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "tags" })
	if testing.Short() && !set {
		tags += " && ~@slow"
	}
	return tags
}
