// Package features runs every feature of every system under spec through
// godog, as subtests of one go test entry point: TestFeatures/<system>/<scenario>.
//
// Flags (after -args): -seed N (else $ANCHORAGE_SEED, else the fixed default)
// roots every random stream; -feature features/<system>/<file>.feature[:line]
// runs one feature or scenario; -tags overrides the tag filter (default
// "~@wip"; with go test -short, "~@wip && ~@slow"). With $ANCHORAGE_REPORT_DIR set, each system also writes Cucumber
// JSON and JUnit XML there for the coverage report (make report).
package features

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	featureFlag = flag.String("feature", "", "run only this feature, as features/<system>/<file>.feature[:line]")
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
	onlySystem, onlyPath := "", ""
	if *featureFlag != "" {
		onlyPath = strings.TrimPrefix(filepath.ToSlash(*featureFlag), "features/")
		onlySystem, _, _ = strings.Cut(onlyPath, "/")
	}
	reportDir := os.Getenv("ANCHORAGE_REPORT_DIR")
	t.Logf("master seed %d", seeds.Master())

	for _, sys := range systems() {
		if onlySystem != "" && sys.name != onlySystem {
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
			paths := []string{sys.name}
			if onlyPath != "" {
				paths = []string{onlyPath}
			}
			format := "progress"
			if reportDir != "" {
				format += fmt.Sprintf(",cucumber:%s,junit:%s",
					filepath.Join(reportDir, "cucumber-"+sys.name+".json"),
					filepath.Join(reportDir, "junit-"+sys.name+".xml"))
			}
			opts := godog.Options{
				Format:   format,
				Paths:    paths,
				Strict:   true,
				Tags:     tagFilter(),
				NoColors: true,
				TestingT: t,
			}
			suite := godog.TestSuite{
				Name:                sys.name,
				ScenarioInitializer: initializer(sys.name, sys.init, cat, seeds),
				Options:             &opts,
			}
			if suite.Run() != 0 {
				t.Errorf("%s features failed (master seed %d; each failing scenario logs its replay command)", sys.name, seeds.Master())
			}
		})
	}
}

// initializer wraps a system's step registration with the hooks every
// scenario gets: its location and seed before, its replay line on failure.
func initializer(system string, register func(*godog.ScenarioContext), cat *catalog.Catalog, seeds seed.Seeds) func(*godog.ScenarioContext) {
	seen := map[string]int{} // uri+name → pickles met so far, to find outline rows
	return func(sc *godog.ScenarioContext) {
		sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
			uri := "features/" + strings.TrimPrefix(filepath.ToSlash(p.Uri), "./")
			k := seen[uri+"\x00"+p.Name]
			seen[uri+"\x00"+p.Name] = k + 1
			loc := uri
			i := 0
			for _, c := range cat.Scenarios {
				if c.URI == uri && c.Name == p.Name {
					if i == k {
						loc = c.Location()
						break
					}
					i++
				}
			}
			s := &kit.Scenario{
				System:   system,
				Name:     p.Name,
				Location: loc,
				Seeds:    seeds.Child(fmt.Sprintf("scenario:%s:%s:%d", uri, p.Name, k)),
				Master:   seeds.Master(),
				Replay:   seeds.Replay("./features", "TestFeatures/"+system, "-feature="+loc),
			}
			return kit.With(ctx, s), nil
		})
		register(sc)
		sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
			if err != nil {
				if s, kerr := kit.From(ctx); kerr == nil {
					godog.Logf(ctx, "%s failed with master seed %d\nreplay: %s", s.Location, s.Master, s.Replay)
				}
			}
			return ctx, nil
		})
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
