package coverage

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"anchorage/reports/catalog"
	"anchorage/reports/mutate"
)

// MutationStats is how sharply an anchor's scenarios (or a system's features)
// reject wrong implementations: the mutants of the reference implementation
// on lines those scenarios execute, by outcome. Timeouts count as detected (a
// harness with time limits rejects a mutant that hangs); equivalent mutants
// (reports/equivalent.txt) count neither way in the net rate and as
// survivors in the raw one. DecidedOnly counts the killed mutants that only
// a decided assertion (one of our Decisions, not the spec) rejected: the
// normative rate counts them as survivors.
type MutationStats struct {
	Killed      int `json:"killed"`
	Survived    int `json:"survived"`
	Timeout     int `json:"timeout"`
	Equivalent  int `json:"equivalent"`
	DecidedOnly int `json:"decidedOnly"`
	// The rates as fractions, absent when nothing was measured (see
	// mutate.Tally): net leaves the equivalent mutants out, raw counts them
	// as survivors, normative counts only a spec assertion's kill.
	NetRate       *float64   `json:"netRate,omitempty"`
	RawRate       *float64   `json:"rawRate,omitempty"`
	NormativeRate *float64   `json:"normativeRate,omitempty"`
	Survivors     []Survivor `json:"survivors,omitempty"`
	// NormativeSurvivors are the mutants only a decided assertion rejected.
	NormativeSurvivors []Survivor `json:"normativeSurvivors,omitempty"`
}

// Survivor is one mutant no scenario rejected: where it is, and what it
// changed.
type Survivor struct {
	ID       string `json:"id"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Original string `json:"original"`
	Mutated  string `json:"mutated"`
}

func (m *MutationStats) tally() mutate.Tally {
	return mutate.Tally{Killed: m.Killed, Survived: m.Survived, Timeout: m.Timeout, Equivalent: m.Equivalent, DecidedOnly: m.DecidedOnly}
}

// Rate returns the net share of detected mutants, (killed+timeout) over
// (killed+timeout+survived), and false when none was measured.
func (m *MutationStats) Rate() (float64, bool) {
	if m == nil {
		return 0, false
	}
	return m.tally().Net()
}

// Strength renders Rate as a percentage, or "–" when nothing was measured.
func (m *MutationStats) Strength() string { return m.render(mutate.Tally.Net) }

// RawStrength renders the raw rate: the equivalent mutants counted as survivors.
func (m *MutationStats) RawStrength() string { return m.render(mutate.Tally.Raw) }

// NormativeStrength renders the normative rate: a mutant only a decided
// assertion rejected counted as a survivor.
func (m *MutationStats) NormativeStrength() string { return m.render(mutate.Tally.Normative) }

func (m *MutationStats) render(rate func(mutate.Tally) (float64, bool)) string {
	if m == nil {
		return "–"
	}
	r, ok := rate(m.tally())
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*r)
}

func (m *MutationStats) add(status, normative string, s Survivor) {
	t := m.tally()
	t.Add(status, normative)
	m.Killed, m.Survived, m.Timeout, m.Equivalent, m.DecidedOnly = t.Killed, t.Survived, t.Timeout, t.Equivalent, t.DecidedOnly
	switch {
	case status == mutate.Survived:
		m.Survivors = append(m.Survivors, s)
	case status == mutate.Killed && normative == mutate.Survived:
		m.NormativeSurvivors = append(m.NormativeSurvivors, s)
	}
}

// setRates fills the rate fields from the counts.
func (m *MutationStats) setRates() {
	t := m.tally()
	m.NetRate, m.RawRate, m.NormativeRate = ratePtr(t.Net), ratePtr(t.Raw), ratePtr(t.Normative)
}

func ratePtr(rate func() (float64, bool)) *float64 {
	if r, ok := rate(); ok {
		return &r
	}
	return nil
}

// strykerReport mirrors the parts of a mutation-testing-report-schema
// (version 2) document that the coverage report reads.
type strykerReport struct {
	Files map[string]struct {
		Source  string `json:"source"`
		Mutants []struct {
			ID          string `json:"id"`
			Replacement string `json:"replacement"`
			Status      string `json:"status"`
			Normative   string `json:"normativeStatus"`
			Location    struct {
				Start struct{ Line, Column int } `json:"start"`
				End   struct{ Line, Column int } `json:"end"`
			} `json:"location"`
			CoveredBy []string `json:"coveredBy"`
		} `json:"mutants"`
	} `json:"files"`
}

// SystemOfFile names the system whose reference implementation holds a
// module-relative Go file: impl/<system>/…, with the Fe VM counted as deck's.
func SystemOfFile(file string) string { return mutate.SystemOfFile(file) }

// ApplyMutation reads a mutation report (reports/mutation.json) and gives
// every anchor the mutants on lines its scenarios execute, and every system
// its totals. A mutant counts for each anchor cited by a scenario that covered
// it. Systems the report does not measure are left without figures.
func (r *Report) ApplyMutation(cat *catalog.Catalog, data []byte) error {
	var sr strykerReport
	if err := json.Unmarshal(data, &sr); err != nil {
		return fmt.Errorf("mutation report: %w", err)
	}
	byLoc := map[string]*catalog.Scenario{}
	for _, sc := range cat.Scenarios {
		byLoc[sc.Location()] = sc
	}
	perSystem := map[string]*MutationStats{}
	perAnchor := map[string]map[string]*MutationStats{} // system → id → stats
	files := make([]string, 0, len(sr.Files))
	for f := range sr.Files {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		fr := sr.Files[f]
		sys := SystemOfFile(f)
		if sys == "" {
			continue
		}
		if perSystem[sys] == nil {
			perSystem[sys] = &MutationStats{}
			perAnchor[sys] = map[string]*MutationStats{}
		}
		lines := strings.Split(fr.Source, "\n")
		for _, m := range fr.Mutants {
			if m.Status != "Killed" && m.Status != "Survived" && m.Status != "Timeout" && m.Status != "Ignored" {
				continue // no coverage, compile errors: not a verdict on the features
			}
			s := Survivor{ID: m.ID, File: f, Line: m.Location.Start.Line, Mutated: m.Replacement,
				Original: sliceSource(lines, m.Location.Start.Line, m.Location.Start.Column, m.Location.End.Line, m.Location.End.Column)}
			perSystem[sys].add(m.Status, m.Normative, s)
			d := cat.Digests[sys]
			seen := map[string]bool{}
			for _, loc := range m.CoveredBy {
				sc := byLoc[loc]
				if sc == nil || d == nil {
					continue
				}
				for _, id := range sc.Cites() {
					a, ok := d.Resolve(id)
					if !ok || seen[a.ID] {
						continue
					}
					seen[a.ID] = true
					st := perAnchor[sys][a.ID]
					if st == nil {
						st = &MutationStats{}
						perAnchor[sys][a.ID] = st
					}
					st.add(m.Status, m.Normative, s)
				}
			}
		}
	}
	for i := range r.Systems {
		sys := &r.Systems[i]
		if perSystem[sys.System] == nil {
			continue
		}
		sys.Mutation = perSystem[sys.System]
		sys.Mutation.setRates()
		sys.KillRate, sys.RawKillRate, sys.NormativeKillRate = sys.Mutation.NetRate, sys.Mutation.RawRate, sys.Mutation.NormativeRate
		for j := range sys.Anchors {
			a := &sys.Anchors[j]
			if a.Status == RetiredSt {
				continue
			}
			if st := perAnchor[sys.System][a.ID]; st != nil {
				a.Mutation = st
			} else {
				a.Mutation = &MutationStats{}
			}
			a.Mutation.setRates()
		}
	}
	return nil
}

// sliceSource returns the text between two 1-based (line, column) positions,
// columns counted in bytes as go/token does.
func sliceSource(lines []string, sl, sc, el, ec int) string {
	if sl < 1 || el > len(lines) || sl > el {
		return ""
	}
	if sl == el {
		l := lines[sl-1]
		if sc < 1 || ec-1 > len(l) || sc > ec {
			return ""
		}
		return l[sc-1 : ec-1]
	}
	var b strings.Builder
	b.WriteString(lines[sl-1][min(max(sc-1, 0), len(lines[sl-1])):])
	for l := sl + 1; l < el; l++ {
		b.WriteString("\n" + lines[l-1])
	}
	last := lines[el-1]
	b.WriteString("\n" + last[:min(max(ec-1, 0), len(last))])
	return b.String()
}
