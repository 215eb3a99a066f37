// Package features runs every feature of every system under spec through
// godog. The go test entry point is TestFeatures/<system>/<scenario>
// (runner_test.go); features/cover runs the same suites as a plain program
// for the mutation tool's per-scenario coverage. What both share is here:
// the systems, the selection of scenarios, and the hooks every scenario gets.
//
// It may import godog, the step packages features/<system>, features/kit,
// reports/catalog and sim/seed.
package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"

	"anchorage/features/kit"
	"anchorage/reports/catalog"
	"anchorage/sim/seed"
)

// System is one system under spec with the function that registers its
// steps.
type System struct {
	Name string
	Init func(kit.Steps)
}

// targetVariables names the environment variables that point a system's
// scenarios at another implementation than the embedded reference.
func targetVariables(system string) []string {
	switch system {
	case "chatlog":
		return []string{"CHATLOG_SERVER", "CHATLOG_PARSE"}
	case "plurnk":
		return []string{"PLURNK_CMD"}
	case "jace":
		return []string{"JACE_URL"}
	case "deck":
		return []string{"DECK_CMD"}
	}
	return nil
}

// Decisions returns how a system's decided assertions are judged in this
// run. ANCHORAGE_DECISIONS says it outright (fail or record); without it a
// system judged against another target — a driver variable is set, or the
// reference runs with spec-permitted variations (ANCHORAGE_VARY) — records
// what differs from the reference's decisions, and the embedded reference
// fails on it.
func Decisions(system string, getenv func(string) string) (kit.DecisionMode, error) {
	switch v := getenv("ANCHORAGE_DECISIONS"); v {
	case "fail":
		return kit.DecisionsFail, nil
	case "record":
		return kit.DecisionsRecord, nil
	case "":
	default:
		return kit.DecisionsFail, fmt.Errorf("ANCHORAGE_DECISIONS=%q: want fail (the reference's default) or record (another target's)", v)
	}
	if getenv("ANCHORAGE_VARY") != "" {
		return kit.DecisionsRecord, nil
	}
	for _, name := range targetVariables(system) {
		if getenv(name) != "" {
			return kit.DecisionsRecord, nil
		}
	}
	return kit.DecisionsFail, nil
}

// Selection is what -feature chose: whole feature files or single scenarios
// (an outline's example row included), all of one system.
type Selection struct {
	System string
	Paths  []string        // godog paths, relative to features/: file or file:scenario-line
	Only   map[string]bool // scenario locations to run; empty: everything under Paths
}

// Select parses a comma-separated list of features/<system>/<file>.feature[:line].
// A line may be a scenario's, an outline's (all its rows) or one example
// row's. Selecting never changes a scenario's seed: godog is given the
// scenario's own line and the runner skips what was not asked for, so a
// scenario met through its replay line runs as in the full run.
func Select(cat *catalog.Catalog, list string) (Selection, error) {
	var sel Selection
	if strings.TrimSpace(list) == "" {
		return sel, nil
	}
	sel.Only = map[string]bool{}
	seenPath := map[string]bool{}
	addPath := func(p string) {
		if !seenPath[p] {
			seenPath[p] = true
			sel.Paths = append(sel.Paths, p)
		}
	}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(item)), "./")
		item = "features/" + strings.TrimPrefix(item, "features/")
		file, line := item, 0
		if i := strings.LastIndex(item, ":"); i > 0 {
			n, err := strconv.Atoi(item[i+1:])
			if err != nil {
				return sel, fmt.Errorf("-feature %s: the part after ':' must be a line number", item)
			}
			file, line = item[:i], n
		}
		sys, _, _ := strings.Cut(strings.TrimPrefix(file, "features/"), "/")
		if sel.System != "" && sys != sel.System {
			return sel, fmt.Errorf("-feature %s is not of system %s: one system per run", item, sel.System)
		}
		sel.System = sys
		path := strings.TrimPrefix(file, "features/")
		found := false
		for _, sc := range cat.Scenarios {
			if sc.URI != file || line != 0 && sc.Line != line && sc.Decl != line {
				continue
			}
			found = true
			sel.Only[sc.Location()] = true
			if line == 0 {
				addPath(path)
			} else {
				addPath(path + ":" + strconv.Itoa(sc.Decl))
			}
		}
		if !found {
			if line == 0 {
				return sel, fmt.Errorf("-feature %s: no such feature file", item)
			}
			return sel, fmt.Errorf("-feature %s: no scenario, outline or example row starts at that line", item)
		}
	}
	return sel, nil
}

// ScenarioHooks are optional extra callbacks around each scenario that runs
// (the mutation tool's coverage); nil does nothing.
type ScenarioHooks interface {
	Before() error
	After(location string) error
}

var lineSuffix = regexp.MustCompile(`:\d+$`)

// Initializer wraps a system's step registration with the hooks every
// scenario gets: its location, seed and decision mode before, each decided
// step's difference after it (attached to the step, logged, and printed on
// stderr as "anchorage: decision differs: LOCATION (§id): MESSAGE" for the
// mutation tool), its replay line on failure. Scenarios outside sel are
// skipped before any step runs.
func Initializer(system string, register func(kit.Steps), cat *catalog.Catalog, seeds seed.Seeds, sel Selection, mode kit.DecisionMode, hooks ScenarioHooks) func(*godog.ScenarioContext) {
	seen := map[string]int{} // uri, name and steps → pickles met so far
	return func(sc *godog.ScenarioContext) {
		sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
			// godog appends the selected line to the URI: the identity is the file.
			uri := "features/" + lineSuffix.ReplaceAllString(strings.TrimPrefix(filepath.ToSlash(p.Uri), "./"), "")
			c, k := identify(cat, uri, p, seen)
			loc := uri
			if c != nil {
				loc = c.Location()
			}
			s := &kit.Scenario{
				System:    system,
				Name:      p.Name,
				Location:  loc,
				Seeds:     seeds.Child(fmt.Sprintf("scenario:%s:%s:%d", uri, p.Name, k)),
				Master:    seeds.Master(),
				Replay:    seeds.Replay("./features", "TestFeatures/"+system, "-feature="+loc),
				Decisions: mode,
			}
			if len(sel.Only) > 0 && !sel.Only[loc] {
				// The systems' own Before and After hooks still run and expect
				// their scenario (plurnk's panic without one); no step does.
				s.Unselected = true
				return kit.With(ctx, s), godog.ErrSkip
			}
			if hooks != nil {
				if err := hooks.Before(); err != nil {
					return ctx, err
				}
			}
			return kit.With(ctx, s), nil
		})
		sc.StepContext().Before(func(ctx context.Context, st *godog.Step) (context.Context, error) {
			if s, err := kit.From(ctx); err == nil {
				s.BeginStep(st.Text)
			}
			return ctx, nil
		})
		sc.StepContext().After(recordDifference)
		register(kit.Steps{ScenarioContext: sc})
		sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
			s, kerr := kit.From(ctx)
			if kerr != nil || s.Unselected {
				return ctx, nil // skipped by the selection
			}
			if hooks != nil {
				if herr := hooks.After(s.Location); herr != nil {
					return ctx, herr
				}
			}
			// A scenario a step skipped partway (a target without the
			// surface it needs) did not fail.
			if err != nil && !errors.Is(err, godog.ErrSkip) {
				godog.Logf(ctx, "%s failed with master seed %d\nreplay: %s", s.Location, s.Master, s.Replay)
			}
			return ctx, nil
		})
	}
}

// recordDifference attaches a decided step's difference to the step (the
// Cucumber JSON carries it to the report), logs it and prints it on stderr.
func recordDifference(ctx context.Context, st *godog.Step, _ godog.StepResultStatus, _ error) (context.Context, error) {
	s, err := kit.From(ctx)
	if err != nil {
		return ctx, nil
	}
	d, ok := s.EndStep()
	if !ok {
		return ctx, nil
	}
	s.Observe("differs from %s", d.Decision)
	body, err := json.Marshal(d)
	if err != nil {
		return ctx, fmt.Errorf("decision difference: %w", err)
	}
	ctx = godog.Attach(ctx, godog.Attachment{Body: body, FileName: "decision-difference.json", MediaType: kit.DifferenceMediaType})
	godog.Logf(ctx, "differs from the reference's Decision (%s): %s", d.Decision, d.Message)
	first, _, _ := strings.Cut(d.Message, "\n")
	fmt.Fprintf(os.Stderr, "anchorage: decision differs: %s (%s): %s\n", s.Location, d.Decision, first)
	return ctx, nil
}

// identify finds the catalog's scenario for a pickle, by file, name and
// step texts (an outline's rows differ by their values), and its index among
// the scenarios of that file with that name — the same whatever was
// selected.
func identify(cat *catalog.Catalog, uri string, p *godog.Scenario, seen map[string]int) (*catalog.Scenario, int) {
	key := uri + "\x00" + p.Name + "\x00" + stepsKey(p.Steps)
	occurrence := seen[key]
	seen[key] = occurrence + 1
	idx, match := 0, 0
	for _, c := range cat.Scenarios {
		if c.URI != uri || c.Name != p.Name {
			continue
		}
		if sameSteps(c, p.Steps) {
			if match == occurrence {
				return c, idx
			}
			match++
		}
		idx++
	}
	return nil, occurrence
}

func stepsKey(steps []*messages.PickleStep) string {
	var b strings.Builder
	for _, st := range steps {
		b.WriteString(st.Text)
		b.WriteByte(0)
	}
	return b.String()
}

func sameSteps(c *catalog.Scenario, steps []*messages.PickleStep) bool {
	if len(c.Steps) != len(steps) {
		return false
	}
	for i, st := range steps {
		if c.Steps[i].Text != st.Text {
			return false
		}
	}
	return true
}
