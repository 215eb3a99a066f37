// Package coverage joins the spec digests and features (package catalog)
// with the results of a run (godog's Cucumber JSON) into the spec-coverage
// report: for every anchor of every system, the scenarios that verify it and
// whether they passed. It renders the report as coverage.json (read by checks
// outside the project: its shape is fixed), coverage.md and a self-contained
// coverage.html, and merges the per-system Cucumber JSON and JUnit XML.
//
// It may import the standard library, anchorage/reports/catalog,
// anchorage/reports/mutate (for its code snippets),
// anchorage/sim/seed (for replay lines), the Gherkin parser (for doc strings,
// tables and outline rows) and goldmark (for promise text).
package coverage

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"anchorage/reports/catalog"
	"anchorage/sim/seed"
)

// Scenario statuses.
const (
	Passed  = "passed"
	Failed  = "failed"
	Pending = "pending"
	Skipped = "skipped"
)

// Anchor statuses.
const (
	Pass      = "pass"
	Fail      = "fail"
	Pend      = "pending"
	Uncovered = "uncovered"
	RetiredSt = "retired"
)

// Verdicts of a scenario and of an anchor against a target: what the two
// levels of assertion say (a step ending "per Decision (§id)" is decided,
// every other step normative). Against the reference a decided step that
// does not hold fails the scenario, so the reference's verdicts are keeps,
// fails or pending; against another target it is a Difference instead.
const (
	Keeps   = "keeps"   // keeps the spec: every assertion held
	Differs = "differs" // keeps the spec, differs from the reference on some decisions
	Fails   = "fails"   // fails the spec: a normative assertion did not hold
	// Pending (as for statuses): not judged for this target (skipped, @wip).
)

// Difference is a decided assertion the target did not keep: the step as
// written, the Decision it cites and what it expected and got.
type Difference struct {
	Decision string `json:"decision"`
	Step     string `json:"step"`
	Message  string `json:"message"`
}

// differenceMediaType marks a step's attachment that records a Difference
// (features/kit.DifferenceMediaType; the report does not import features).
const differenceMediaType = "application/vnd.anchorage.decision-difference+json"

// Report is the whole coverage report; its JSON form is coverage.json.
type Report struct {
	Seed        uint64      `json:"seed"`
	Systems     []System    `json:"systems"`
	Orphans     []string    `json:"orphans"`
	Ambiguities []Ambiguity `json:"ambiguities"`
	Problems    []string    `json:"problems"`

	// Target names the implementation the run judged ("reference", or
	// make report's TARGET) and Drivers each system's driver in that run
	// (matrix.go puts several runs side by side).
	Target  string            `json:"target"`
	Drivers map[string]string `json:"drivers,omitempty"`

	// Review lists what coverage.md asks a person to look at (not in
	// coverage.json): normative steps quoting a literal the digest's
	// wording of their anchors does not hold, and @decision scenarios
	// none of whose steps is decided.
	Review        []catalog.Review `json:"-"`
	UndecidedPins []string         `json:"-"`
}

// System is one system's anchors.
type System struct {
	System  string   `json:"system"`
	Title   string   `json:"title"`
	Anchors []Anchor `json:"anchors"`
	// Mutation and KillRate are present when reports/mutation.json measured
	// this system (see ApplyMutation).
	Mutation *MutationStats `json:"mutation,omitempty"`
	KillRate *float64       `json:"killRate,omitempty"` // the net rate
	// RawKillRate counts the equivalent mutants as survivors;
	// NormativeKillRate counts only a spec assertion's kill (see MutationStats).
	RawKillRate       *float64 `json:"rawKillRate,omitempty"`
	NormativeKillRate *float64 `json:"normativeKillRate,omitempty"`
}

// Anchor is one anchor's verdict.
type Anchor struct {
	ID        string     `json:"id"`
	Section   string     `json:"section"`
	Strength  string     `json:"strength"`
	Tier      int        `json:"tier,omitempty"`
	Status    string     `json:"status"`
	Aliases   []string   `json:"aliases"`
	Promise   string     `json:"promise,omitempty"`
	Successor string     `json:"successor,omitempty"`
	Reason    string     `json:"reason,omitempty"`
	Scenarios []Scenario `json:"scenarios"`
	Decisions []string   `json:"decisions,omitempty"` // the digest's Decision paragraphs for this anchor
	// Mutation is present when reports/mutation.json measured the anchor's
	// system: the mutants on lines its scenarios execute.
	Mutation *MutationStats `json:"mutation,omitempty"`
	// Verdict is the anchor's verdict for the run's target (Keeps, Differs,
	// Fails, Pending; or Uncovered, RetiredSt), and DiffersOn the decisions
	// (§ids) its scenarios differ on.
	Verdict   string   `json:"verdict"`
	DiffersOn []string `json:"differsOn,omitempty"`
}

// Scenario is one scenario citing an anchor.
type Scenario struct {
	Name     string   `json:"name"`
	Location string   `json:"location"`
	Status   string   `json:"status"`
	Steps    []string `json:"steps,omitempty"`
	Error    string   `json:"error,omitempty"`
	Label    string   `json:"label,omitempty"`   // an outline row's example values
	Feature  string   `json:"feature,omitempty"` // the feature's title
	Detail   []Step   `json:"-"`                 // the steps with arguments and per-step status (coverage.html only: it would triple coverage.json)
	Replay   string   `json:"replay,omitempty"`  // on a failure: the command that reruns it
	// Verdict is Keeps, Differs, Fails or Pending; Differences lists the
	// decided assertions the target did not keep (Differs).
	Verdict     string       `json:"verdict"`
	Differences []Difference `json:"differences,omitempty"`
}

// Ambiguity is one entry of the ambiguity register.
type Ambiguity struct {
	System    string   `json:"system"`
	Anchor    string   `json:"anchor"`
	Decision  string   `json:"decision"`
	Where     string   `json:"where"`
	Scenarios []string `json:"scenarios"`
}

// Result is what a run said of one scenario.
type Result struct {
	Status      string
	Error       string
	Steps       []StepResult // in the order of the pickle's steps (background first)
	Duration    float64      // seconds, summed over the steps
	Differences []Difference // decided steps the target did not keep (they passed)
}

// StepResult is what a run said of one step.
type StepResult struct {
	Status string
	Error  string
}

// cuke mirrors the parts of godog's Cucumber JSON the report reads.
type cuke struct {
	URI      string `json:"uri"`
	Elements []struct {
		Line  int `json:"line"`
		Steps []struct {
			Result struct {
				Status   string `json:"status"`
				Error    string `json:"error_message"`
				Duration int64  `json:"duration"`
			} `json:"result"`
			Embeddings []struct {
				MimeType string `json:"mime_type"`
				Data     []byte `json:"data"` // base64 in the JSON
			} `json:"embeddings"`
		} `json:"steps"`
	} `json:"elements"`
}

// ReadResults reads every cucumber-*.json in dir and returns the result of
// each scenario keyed by its location (features/<system>/<file>.feature:line),
// with the merged Cucumber JSON of all systems.
func ReadResults(dir string) (map[string]Result, []byte, error) {
	files, err := filepath.Glob(filepath.Join(dir, "cucumber-*.json"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(files)
	results := map[string]Result{}
	var merged []json.RawMessage
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("results: %w", err)
		}
		if len(strings.TrimSpace(string(b))) == 0 {
			continue // a suite that ran nothing writes nothing
		}
		var feats []cuke
		if err := json.Unmarshal(b, &feats); err != nil {
			return nil, nil, fmt.Errorf("results: %s is not Cucumber JSON: %w", f, err)
		}
		var raw []json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, nil, fmt.Errorf("results: %s: %w", f, err)
		}
		merged = append(merged, raw...)
		for _, feat := range feats {
			uri := "features/" + strings.TrimPrefix(filepath.ToSlash(feat.URI), "./")
			for _, el := range feat.Elements {
				r := Result{Status: Passed}
				skipped := false
				var steps []StepResult
				var diffs []Difference
				var ns int64
				for _, st := range el.Steps {
					steps = append(steps, StepResult{Status: st.Result.Status, Error: st.Result.Error})
					ns += st.Result.Duration
					for _, e := range st.Embeddings {
						if e.MimeType != differenceMediaType {
							continue
						}
						var d Difference
						if err := json.Unmarshal(e.Data, &d); err != nil {
							return nil, nil, fmt.Errorf("results: %s: a decision difference of %s:%d: %w", f, uri, el.Line, err)
						}
						diffs = append(diffs, d)
					}
				}
				for _, st := range el.Steps {
					switch st.Result.Status {
					case "passed":
					case "failed", "ambiguous":
						r = Result{Status: Failed, Error: st.Result.Error}
					case "undefined", "pending":
						if r.Status != Failed {
							r = Result{Status: Pending, Error: st.Result.Status + " step"}
						}
					case "skipped":
						// after a failure or pending step the verdict is already
						// set; otherwise a step skipped the scenario (godog.ErrSkip)
						skipped = true
					}
				}
				if skipped && r.Status == Passed {
					r = Result{Status: Skipped, Error: "skipped by a step"}
				}
				if len(el.Steps) == 0 {
					r = Result{Status: Pending, Error: "no steps"}
				}
				r.Steps, r.Duration, r.Differences = steps, float64(ns)/1e9, diffs
				results[uri+":"+strconv.Itoa(el.Line)] = r
			}
		}
	}
	if merged == nil {
		merged = []json.RawMessage{}
	}
	out, err := json.MarshalIndent(merged, "", "  ")
	return results, out, err
}

// Build joins the catalog with the run's results.
func Build(cat *catalog.Catalog, problems []catalog.Problem, results map[string]Result, seed uint64) *Report {
	return BuildDetailed(cat, problems, results, nil, seed)
}

// BuildDetailed is Build with each scenario's detail (ReadDetails): its
// steps with their doc strings, tables and per-step status, an outline row's
// label, and the replay line of a failure; and each anchor's decisions.
func BuildDetailed(cat *catalog.Catalog, problems []catalog.Problem, results map[string]Result, details map[string]Detail, seed uint64) *Report {
	r := &Report{Seed: seed, Orphans: cat.Orphans(), Ambiguities: []Ambiguity{}, Problems: []string{}, Review: cat.LiteralsToReview()}
	for _, sc := range cat.UndecidedPins() {
		r.UndecidedPins = append(r.UndecidedPins, sc.Location())
	}
	if r.Orphans == nil {
		r.Orphans = []string{}
	}
	for _, p := range problems {
		r.Problems = append(r.Problems, p.String())
	}
	for _, name := range cat.Systems {
		d := cat.Digests[name]
		sys := System{System: name, Title: d.Title, Anchors: []Anchor{}}
		for _, a := range d.Anchors {
			an := Anchor{ID: a.ID, Section: a.Section, Strength: a.Strength, Tier: a.Tier, Aliases: a.Aliases, Promise: a.Text, Scenarios: []Scenario{}}
			if an.Aliases == nil {
				an.Aliases = []string{}
			}
			for _, sc := range cat.Citing(a) {
				an.Scenarios = append(an.Scenarios, scenarioResult(sc, results, details, seed))
			}
			for _, dec := range d.Decisions {
				if got, ok := d.Resolve(dec.Anchor); ok && got == a {
					an.Decisions = append(an.Decisions, dec.Text)
				}
			}
			an.Status = verdict(an.Scenarios)
			an.Verdict, an.DiffersOn = anchorVerdict(an.Status, an.Scenarios)
			sys.Anchors = append(sys.Anchors, an)
		}
		for _, rt := range d.Retired {
			sys.Anchors = append(sys.Anchors, Anchor{ID: rt.ID, Section: "Retired", Status: RetiredSt, Verdict: RetiredSt, Aliases: []string{}, Successor: rt.Successor, Reason: rt.Reason, Scenarios: []Scenario{}})
		}
		for _, dec := range d.Decisions {
			amb := Ambiguity{System: name, Anchor: dec.Anchor, Decision: dec.Text, Where: dec.Location, Scenarios: []string{}}
			if a, ok := d.Resolve(dec.Anchor); ok {
				for _, sc := range cat.Pinning(a) {
					amb.Scenarios = append(amb.Scenarios, sc.Location())
				}
			}
			r.Ambiguities = append(r.Ambiguities, amb)
		}
		r.Systems = append(r.Systems, sys)
	}
	return r
}

func scenarioResult(sc *catalog.Scenario, results map[string]Result, details map[string]Detail, master uint64) Scenario {
	out := Scenario{Name: sc.Name, Location: sc.Location()}
	for _, st := range sc.Steps {
		out.Steps = append(out.Steps, st.Keyword+" "+st.Text)
	}
	res, ran := results[sc.Location()]
	switch {
	case sc.Has("@wip"):
		out.Status = Pending // work in progress never counts, whatever it did
	case ran:
		out.Status, out.Error = res.Status, res.Error
	default:
		out.Status = Skipped
	}
	if d, ok := details[sc.Location()]; ok {
		out.Label, out.Feature = d.Label, d.Feature
		out.Detail = append([]Step(nil), d.Steps...)
		if ran && !sc.Has("@wip") && len(res.Steps) == len(out.Detail) {
			for i, st := range res.Steps {
				out.Detail[i].Status, out.Detail[i].Error = st.Status, st.Error
			}
			for _, d := range res.Differences {
				for i := range out.Detail {
					if out.Detail[i].Text == d.Step && out.Detail[i].Differs == "" {
						out.Detail[i].Differs = d.Decision + ": " + d.Message
						break
					}
				}
			}
		}
	}
	if out.Status == Failed {
		out.Replay = ReplayLine(master, sc.System, sc.Location())
	}
	out.Verdict = Pending
	switch out.Status {
	case Failed:
		out.Verdict = Fails
	case Passed:
		out.Verdict = Keeps
		if ran && len(res.Differences) > 0 {
			out.Verdict, out.Differences = Differs, res.Differences
		}
	}
	return out
}

// anchorVerdict: an anchor fails the spec when a scenario does; it keeps
// the spec when its status passes, differing on the decisions its
// scenarios differ on; otherwise its status says why it was not judged.
func anchorVerdict(status string, scs []Scenario) (string, []string) {
	switch status {
	case Fail:
		return Fails, nil
	case Pass:
	case Pend:
		return Pending, nil
	default:
		return status, nil
	}
	var on []string
	for _, sc := range scs {
		for _, d := range sc.Differences {
			if !containsString(on, d.Decision) {
				on = append(on, d.Decision)
			}
		}
	}
	if len(on) == 0 {
		return Keeps, nil
	}
	sort.Strings(on)
	return Differs, on
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// VerdictText is a verdict in words, as the reports print it.
func VerdictText(verdict string, differsOn int) string {
	switch verdict {
	case Keeps:
		return "keeps the spec"
	case Differs:
		if differsOn == 1 {
			return "keeps the spec, differs on 1 decision"
		}
		return fmt.Sprintf("keeps the spec, differs on %d decisions", differsOn)
	case Fails:
		return "fails the spec"
	}
	return verdict
}

// ReplayLine is the command that reruns one scenario, as the feature runner
// prints it on a failure.
func ReplayLine(master uint64, system, location string) string {
	return seed.New(master).Replay("./features", "TestFeatures/"+system, "-feature="+location)
}

// verdict: pass needs at least one scenario and all passed; any failure
// fails; no scenario is uncovered; anything else is pending.
func verdict(scs []Scenario) string {
	if len(scs) == 0 {
		return Uncovered
	}
	all := true
	for _, s := range scs {
		if s.Status == Failed {
			return Fail
		}
		all = all && s.Status == Passed
	}
	if all {
		return Pass
	}
	return Pend
}

// Counts tallies anchor statuses; Differs counts the passing anchors whose
// scenarios differ from the reference's decisions.
type Counts struct {
	Total, Pass, Fail, Pending, Uncovered, Retired int
	Differs                                        int
}

func (c *Counts) add(status string) {
	switch status {
	case RetiredSt:
		c.Retired++
		return
	case Pass:
		c.Pass++
	case Fail:
		c.Fail++
	case Pend:
		c.Pending++
	case Uncovered:
		c.Uncovered++
	}
	c.Total++
}

// Count tallies the anchors of a system (retired ids apart).
func (s System) Count() Counts {
	var c Counts
	for _, a := range s.Anchors {
		c.add(a.Status)
		if a.Verdict == Differs {
			c.Differs++
		}
	}
	return c
}

// Failed reports whether any scenario failed or any guard problem stands.
func (r *Report) Failed() bool {
	if len(r.Problems) > 0 || len(r.Orphans) > 0 {
		return true
	}
	for _, s := range r.Systems {
		if s.Count().Fail > 0 {
			return true
		}
	}
	return false
}
