package coverage

import (
	"bytes"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"

	"anchorage/reports/catalog"
)

// Step is one step of a scenario as the report shows it: as written (with
// its doc string or data table) and what the run said of it.
type Step struct {
	Keyword   string     `json:"keyword"`
	Text      string     `json:"text"`
	DocString string     `json:"doc_string,omitempty"`
	Table     [][]string `json:"table,omitempty"`
	Status    string     `json:"status,omitempty"` // passed, failed, skipped, undefined, pending; empty when it did not run
	Error     string     `json:"error,omitempty"`
	Differs   string     `json:"differs,omitempty"` // a decided step the target did not keep: what it expected and got
}

// Detail is what the feature files say of one scenario beyond the catalog:
// its steps' arguments, and for an example row of an outline, the row's
// values by column ("n=3, unit=ms").
type Detail struct {
	Feature string
	Label   string
	Steps   []Step
}

// ReadDetails parses every feature file the catalog read (from fsys, as the
// catalog did) and returns each scenario's detail by location.
func ReadDetails(fsys fs.FS, cat *catalog.Catalog) (map[string]Detail, error) {
	var uris []string
	seen := map[string]bool{}
	for _, sc := range cat.Scenarios {
		if !seen[sc.URI] {
			seen[sc.URI] = true
			uris = append(uris, sc.URI)
		}
	}
	sort.Strings(uris)
	out := map[string]Detail{}
	for _, uri := range uris {
		if err := readDetail(fsys, uri, out); err != nil {
			return nil, fmt.Errorf("details: %s: %w", uri, err)
		}
	}
	return out, nil
}

func readDetail(fsys fs.FS, uri string, out map[string]Detail) error {
	b, err := fs.ReadFile(fsys, uri)
	if err != nil {
		return err
	}
	ids := &messages.Incrementing{}
	doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(b), ids.NewId)
	if err != nil {
		return err
	}
	if doc.Feature == nil {
		return nil
	}
	lines := map[string]int{}       // scenario or example row id → line
	labels := map[string]string{}   // example row id → "col=value, …"
	keywords := map[string]string{} // step id → keyword
	addSteps := func(steps []*messages.Step) {
		for _, st := range steps {
			keywords[st.Id] = strings.TrimSpace(st.Keyword)
		}
	}
	addScenario := func(s *messages.Scenario) {
		lines[s.Id] = int(s.Location.Line)
		addSteps(s.Steps)
		for _, ex := range s.Examples {
			for _, row := range ex.TableBody {
				lines[row.Id] = int(row.Location.Line)
				var parts []string
				for i, c := range row.Cells {
					name := ""
					if ex.TableHeader != nil && i < len(ex.TableHeader.Cells) {
						name = ex.TableHeader.Cells[i].Value
					}
					parts = append(parts, name+"="+c.Value)
				}
				labels[row.Id] = strings.Join(parts, ", ")
			}
		}
	}
	for _, ch := range doc.Feature.Children {
		switch {
		case ch.Background != nil:
			addSteps(ch.Background.Steps)
		case ch.Scenario != nil:
			addScenario(ch.Scenario)
		case ch.Rule != nil:
			for _, rc := range ch.Rule.Children {
				if rc.Background != nil {
					addSteps(rc.Background.Steps)
				}
				if rc.Scenario != nil {
					addScenario(rc.Scenario)
				}
			}
		}
	}
	for _, pk := range gherkin.Pickles(*doc, uri, ids.NewId) {
		last := pk.AstNodeIds[len(pk.AstNodeIds)-1]
		d := Detail{Feature: doc.Feature.Name, Label: labels[last]}
		for _, st := range pk.Steps {
			s := Step{Keyword: keywords[st.AstNodeIds[0]], Text: st.Text}
			if st.Argument != nil {
				if ds := st.Argument.DocString; ds != nil {
					s.DocString = ds.Content
				}
				if dt := st.Argument.DataTable; dt != nil {
					for _, row := range dt.Rows {
						var cells []string
						for _, c := range row.Cells {
							cells = append(cells, c.Value)
						}
						s.Table = append(s.Table, cells)
					}
				}
			}
			d.Steps = append(d.Steps, s)
		}
		out[fmt.Sprintf("%s:%d", uri, lines[last])] = d
	}
	return nil
}
