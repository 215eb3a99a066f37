package features

// The go test entry point: TestFeatures/<system>/<scenario>.
//
// Flags (after -args): -seed N (else $ANCHORAGE_SEED, else the fixed default)
// roots every random stream; -feature features/<system>/<file>.feature[:line]
// runs one feature, scenario, outline or example row (several, comma-separated,
// of one system); -tags overrides the tag filter (default "~@wip"); -stop ends
// a system's run at its first failing scenario. With $ANCHORAGE_REPORT_DIR
// set, each system also writes Cucumber JSON and JUnit XML there for the
// coverage report (make report).

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cucumber/godog"

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
	t.Logf("master seed %d", seeds.Master())

	for _, sys := range Systems() {
		if sel.System != "" && sys.Name != sel.System {
			continue
		}
		t.Run(sys.Name, func(t *testing.T) {
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
				format += fmt.Sprintf(",cucumber:%s,junit:%s",
					filepath.Join(reportDir, "cucumber-"+sys.Name+".json"),
					filepath.Join(reportDir, "junit-"+sys.Name+".xml"))
			}
			opts := godog.Options{
				Format:        format,
				Paths:         paths,
				Strict:        true,
				Tags:          *tagsFlag,
				NoColors:      true,
				TestingT:      t,
				StopOnFailure: *stopFlag,
			}
			suite := godog.TestSuite{
				Name:                sys.Name,
				ScenarioInitializer: Initializer(sys.Name, sys.Init, cat, seeds, sel, nil),
				Options:             &opts,
			}
			if suite.Run() != 0 {
				t.Errorf("%s features failed (master seed %d; each failing scenario logs its replay command)", sys.Name, seeds.Master())
			}
		})
	}
}
