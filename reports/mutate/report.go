package mutate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"anchorage/reports/catalog"
)

// Mutant statuses of the mutation-testing-report-schema.
const (
	Killed       = "Killed"
	Survived     = "Survived"
	NoCoverage   = "NoCoverage"
	CompileError = "CompileError"
	Timeout      = "Timeout"
	Ignored      = "Ignored"
)

// Result is the outcome of one mutant.
type Result struct {
	Mutant    Mutant
	Status    string
	Reason    string   // why: the failing scenario's message, the compiler's, the equivalence note
	CoveredBy []string // scenario locations that execute the mutant's line
	KilledBy  []string // the scenario that failed first
	Ran       int      // scenarios completed
	Millis    float64  // wall time of the run
	// Normative is the status when only normative assertions count (see
	// Verdict); empty where the mutant never ran (equivalent, compile error).
	Normative string
	// Differences are the decided assertions that did not hold, as
	// Difference.String writes them.
	Differences []string
}

// Report is a mutation-testing-report-schema document (schema version 2).
type Report struct {
	SchemaVersion string                  `json:"schemaVersion"`
	Thresholds    Thresholds              `json:"thresholds"`
	ProjectRoot   string                  `json:"projectRoot,omitempty"`
	Files         map[string]*FileResult  `json:"files"`
	TestFiles     map[string]*TestFileDef `json:"testFiles,omitempty"`
	Framework     *Framework              `json:"framework,omitempty"`
	Config        map[string]any          `json:"config,omitempty"`
}

// Thresholds are the score limits a viewer colours by.
type Thresholds struct {
	High int `json:"high"`
	Low  int `json:"low"`
}

// FileResult is one mutated file.
type FileResult struct {
	Language string         `json:"language"`
	Source   string         `json:"source"`
	Mutants  []MutantResult `json:"mutants"`
}

// MutantResult is one mutant as the schema writes it.
type MutantResult struct {
	ID             string   `json:"id"`
	MutatorName    string   `json:"mutatorName"`
	Replacement    string   `json:"replacement"`
	Description    string   `json:"description,omitempty"`
	Location       Location `json:"location"`
	Status         string   `json:"status"`
	StatusReason   string   `json:"statusReason,omitempty"`
	CoveredBy      []string `json:"coveredBy"`
	KilledBy       []string `json:"killedBy"`
	TestsCompleted int      `json:"testsCompleted,omitempty"`
	Duration       float64  `json:"duration"`
	// NormativeStatus and DecisionsDiffered are anchorage's own fields (the
	// schema allows more): the status when only normative assertions count,
	// and the decided assertions that did not hold. Reports written before
	// them have neither: the normative status is then the status.
	NormativeStatus   string   `json:"normativeStatus,omitempty"`
	DecisionsDiffered []string `json:"decisionsDiffered,omitempty"`
}

// Location is a range of 1-based positions (end exclusive).
type Location struct {
	Start SchemaPos `json:"start"`
	End   SchemaPos `json:"end"`
}

// SchemaPos is a position as the schema writes it.
type SchemaPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// TestFileDef lists the scenarios of one feature file.
type TestFileDef struct {
	Tests []TestDef `json:"tests"`
}

// TestDef is one scenario, identified by its location.
type TestDef struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Location struct {
		Start SchemaPos `json:"start"`
	} `json:"location"`
}

// Framework names the tool that wrote the report.
type Framework struct {
	Name string `json:"name"`
}

// NewReport returns an empty report.
func NewReport() *Report {
	return &Report{
		SchemaVersion: "2",
		Thresholds:    Thresholds{High: 90, Low: 80},
		ProjectRoot:   ".",
		Files:         map[string]*FileResult{},
		TestFiles:     map[string]*TestFileDef{},
		Framework:     &Framework{Name: "anchorage mutate (reports/cmd/mutate)"},
		Config:        map[string]any{},
	}
}

// ReadReport parses a report written by Write.
func ReadReport(r io.Reader) (*Report, error) {
	rep := NewReport()
	dec := json.NewDecoder(r)
	dec.UseNumber() // the config's seeds are 64-bit: a float64 would round them
	if err := dec.Decode(rep); err != nil {
		return nil, fmt.Errorf("mutation report: %w", err)
	}
	if rep.Files == nil {
		rep.Files = map[string]*FileResult{}
	}
	if rep.Config == nil {
		rep.Config = map[string]any{}
	}
	return rep, nil
}

// DropFiles removes the results of every file for which drop says yes, so a
// new run can replace them.
func (r *Report) DropFiles(drop func(file string) bool) {
	for f := range r.Files {
		if drop(f) {
			delete(r.Files, f)
		}
	}
}

// Add records a mutant's result; source is its file's original text.
func (r *Report) Add(res Result, source []byte) {
	fr := r.Files[res.Mutant.File]
	if fr == nil {
		fr = &FileResult{Language: "go", Source: string(source)}
		r.Files[res.Mutant.File] = fr
	}
	m := res.Mutant
	covered, killed := res.CoveredBy, res.KilledBy
	if covered == nil {
		covered = []string{}
	}
	if killed == nil {
		killed = []string{}
	}
	fr.Mutants = append(fr.Mutants, MutantResult{
		ID: m.ID, MutatorName: m.Mutator, Replacement: m.Replacement,
		Description:       fmt.Sprintf("%s → %s", quoteCode(m.Original), quoteCode(m.Replacement)),
		Location:          Location{Start: SchemaPos{m.Start.Line, m.Start.Col}, End: SchemaPos{m.End.Line, m.End.Col}},
		Status:            res.Status,
		StatusReason:      res.Reason,
		CoveredBy:         covered,
		KilledBy:          killed,
		TestsCompleted:    res.Ran,
		Duration:          res.Millis,
		NormativeStatus:   res.Normative,
		DecisionsDiffered: res.Differences,
	})
	sortMutants(fr.Mutants)
}

// Remove drops one mutant's result, reporting whether it was there.
func (r *Report) Remove(file, id string) bool {
	fr := r.Files[file]
	if fr == nil {
		return false
	}
	for i := range fr.Mutants {
		if fr.Mutants[i].ID == id {
			fr.Mutants = append(fr.Mutants[:i], fr.Mutants[i+1:]...)
			return true
		}
	}
	return false
}

// Snippet shows a piece of code on one line for reports and logs: newlines
// become ⏎, code longer than max runes is cut with …, and deleted code (the
// empty string) reads "(deleted)".
func Snippet(s string, max int) string {
	if s == "" {
		return "(deleted)"
	}
	s = strings.ReplaceAll(s, "\n", "⏎")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

// quoteCode is Snippet in backticks, as the schema's descriptions are Markdown.
func quoteCode(s string) string {
	if s == "" {
		return Snippet(s, 80)
	}
	return "`" + Snippet(s, 80) + "`"
}

// SetTests lists every scenario of the catalog as a test, so coveredBy and
// killedBy ids resolve to names and lines.
func (r *Report) SetTests(cat *catalog.Catalog) {
	r.TestFiles = map[string]*TestFileDef{}
	for _, sc := range cat.Scenarios {
		tf := r.TestFiles[sc.URI]
		if tf == nil {
			tf = &TestFileDef{Tests: []TestDef{}}
			r.TestFiles[sc.URI] = tf
		}
		td := TestDef{ID: sc.Location(), Name: sc.Name}
		td.Location.Start = SchemaPos{Line: sc.Line, Column: 1}
		tf.Tests = append(tf.Tests, td)
	}
}

// Write encodes the report, indented and with sorted keys (deterministic for
// the same results).
func (r *Report) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// Equivalent is one entry of the reviewed list of equivalent mutants.
type Equivalent struct {
	ID          string // file:line:col:mutator where the entry was last seen
	Fingerprint string // the mutant's Fingerprint; empty in entries written before fingerprints
	Reason      string
	Line        int // line in the list, for messages
}

// EquivalentList is the reviewed list of equivalent mutants.
type EquivalentList struct {
	Entries []Equivalent
	byID    map[string]int
	byFP    map[string]int // file + "|" + fingerprint
}

// ReadEquivalents reads the reviewed list: one mutant per line, its id, an
// optional ~fingerprint, and the reason no observable behaviour can tell it
// from the original. Blank lines and lines starting with # are comments. A
// line without a reason is an error: the list must stay honest. An entry
// with a fingerprint follows its code when lines above it move.
func ReadEquivalents(r io.Reader) (*EquivalentList, error) {
	l := &EquivalentList{byID: map[string]int{}, byFP: map[string]int{}}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, _ := strings.Cut(line, " ")
		reason = strings.TrimSpace(reason)
		if strings.Count(id, ":") < 3 {
			return nil, fmt.Errorf("equivalent mutants, line %d: %q is not a mutant id (file:line:col:mutator)", n, id)
		}
		e := Equivalent{ID: id, Line: n}
		if strings.HasPrefix(reason, "~") {
			fp, rest, _ := strings.Cut(reason, " ")
			e.Fingerprint, reason = fp[1:], strings.TrimSpace(rest)
			if len(e.Fingerprint) != 10 {
				return nil, fmt.Errorf("equivalent mutants, line %d: %q is not a fingerprint (~ and 10 hex digits, as -fix-equivalent writes)", n, fp)
			}
		}
		if reason == "" {
			return nil, fmt.Errorf("equivalent mutants, line %d: %s has no reason (want: <mutant id> [~fingerprint] <why no behaviour tells it apart>)", n, id)
		}
		e.Reason = reason
		l.add(e)
	}
	return l, sc.Err()
}

func (l *EquivalentList) add(e Equivalent) {
	l.Entries = append(l.Entries, e)
	if e.Fingerprint != "" {
		l.byFP[IDFile(e.ID)+"|"+e.Fingerprint] = len(l.Entries) - 1
	} else {
		l.byID[e.ID] = len(l.Entries) - 1
	}
}

// IDFile is the file part of a mutant id.
func IDFile(id string) string {
	parts := strings.Split(id, ":")
	return strings.Join(parts[:len(parts)-3], ":")
}

// Lookup finds the entry for m: by fingerprint where the entry has one,
// else by id. It returns the entry's index, or -1.
func (l *EquivalentList) Lookup(m Mutant) int {
	if l == nil {
		return -1
	}
	if i, ok := l.byFP[m.File+"|"+m.Fingerprint()]; ok {
		return i
	}
	if i, ok := l.byID[m.ID]; ok {
		return i
	}
	return -1
}
