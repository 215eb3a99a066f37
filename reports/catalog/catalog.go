package catalog

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// Systems returns the systems under spec, in report order.
func Systems() []string { return []string{"chatlog", "plurnk", "jace", "deck"} }

// ControlTags are the tags that are neither anchors nor systems.
//   - @wip: not built yet; skipped by make test, pending in the report.
//   - @decision: pins a decision of the ambiguity register.
//   - @slow: takes seconds rather than milliseconds.
//   - @e2e: needs something outside the process (a browser, a binary).
func ControlTags() []string { return []string{"@wip", "@decision", "@slow", "@e2e"} }

// Step is one step of a scenario as written.
type Step struct {
	Keyword string
	Text    string
	Type    string // the pickle's step type: Context, Action or Outcome (a Then, and an And or But after it)
	Line    int    // the line of the step in its feature file
}

// Tag is a tag with the line that wrote it.
type Tag struct {
	Name string
	Line int
}

// Scenario is one pickle: a scenario, or one example row of an outline.
type Scenario struct {
	System  string
	URI     string // project-relative, e.g. features/chatlog/registry.feature
	Line    int    // the scenario's line, or the example row's for an outline
	Decl    int    // the line of the Scenario (Outline) keyword itself
	Name    string
	Feature string
	Tags    []Tag // feature, rule, scenario and examples tags, inherited
	Steps   []Step
}

// Location returns URI:Line.
func (s *Scenario) Location() string { return s.URI + ":" + strconv.Itoa(s.Line) }

// Has reports whether the scenario carries tag (with its @).
func (s *Scenario) Has(tag string) bool {
	for _, t := range s.Tags {
		if t.Name == tag {
			return true
		}
	}
	return false
}

// Cites returns the anchor ids the scenario's tags cite, without the §.
func (s *Scenario) Cites() []string {
	var ids []string
	for _, t := range s.Tags {
		if id, ok := strings.CutPrefix(t.Name, "@§"); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// Catalog is everything read from the features tree.
type Catalog struct {
	Root      string // the features directory inside the fs, e.g. "features"
	Digests   map[string]*Digest
	Scenarios []*Scenario
	Systems   []string // systems with a digest, report order first
}

// Problem is one thing the anchor guard refuses.
type Problem struct {
	Kind     string // digest, duplicate, orphan, retired, unknown-tag, wrong-system, unpinned-decision, unrecorded-decision, decided-step, feature
	Location string
	Message  string
}

func (p Problem) String() string { return p.Location + ": " + p.Kind + ": " + p.Message }

// Load reads every features/<system>/SPEC.md and features/<system>/*.feature
// (recursively) under root in fsys. Parse failures come back as problems, not
// errors, so the guard can list them all; the error is for an unreadable tree.
func Load(fsys fs.FS, root string) (*Catalog, []Problem, error) {
	c := &Catalog{Root: root, Digests: map[string]*Digest{}}
	var problems []Problem
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: %w", err)
	}
	var found []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		spec := path.Join(root, e.Name(), "SPEC.md")
		if _, err := fs.Stat(fsys, spec); err != nil {
			continue
		}
		found = append(found, e.Name())
		d, err := ParseDigest(fsys, spec, e.Name())
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				loc, msg, _ := strings.Cut(line, ": ")
				problems = append(problems, Problem{Kind: "digest", Location: loc, Message: msg})
			}
		}
		if d != nil {
			c.Digests[e.Name()] = d
		}
	}
	c.Systems = orderSystems(found)

	err = fs.WalkDir(fsys, root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.IsDir() || !strings.HasSuffix(p, ".feature") {
			return nil
		}
		rel := strings.TrimPrefix(p, root+"/")
		system, _, nested := strings.Cut(rel, "/")
		if !nested || c.Digests[system] == nil {
			problems = append(problems, Problem{Kind: "feature", Location: p, Message: "a feature must live under features/<system>/ beside that system's SPEC.md"})
			return nil
		}
		scs, perr := parseFeature(fsys, p, system)
		if perr != nil {
			problems = append(problems, Problem{Kind: "feature", Location: p, Message: perr.Error()})
			return nil
		}
		c.Scenarios = append(c.Scenarios, scs...)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: walk %s: %w", root, err)
	}
	return c, problems, nil
}

func orderSystems(found []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range Systems() {
		for _, f := range found {
			if f == s {
				out = append(out, s)
				seen[s] = true
			}
		}
	}
	var rest []string
	for _, f := range found {
		if !seen[f] {
			rest = append(rest, f)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func parseFeature(fsys fs.FS, p, system string) ([]*Scenario, error) {
	b, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, err
	}
	ids := &messages.Incrementing{}
	doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(b), ids.NewId)
	if err != nil {
		return nil, err
	}
	if doc.Feature == nil {
		return nil, fmt.Errorf("no Feature in the file")
	}
	lines := map[string]int{}       // AST node id → line
	tagLines := map[string]int{}    // tag node id → line
	keywords := map[string]string{} // step node id → keyword
	addSteps := func(steps []*messages.Step) {
		for _, st := range steps {
			keywords[st.Id] = st.Keyword
			lines[st.Id] = int(st.Location.Line)
		}
	}
	addTags := func(tags []*messages.Tag) {
		for _, t := range tags {
			tagLines[t.Id] = int(t.Location.Line)
		}
	}
	addTags(doc.Feature.Tags)
	var addScenario func(s *messages.Scenario)
	addScenario = func(s *messages.Scenario) {
		lines[s.Id] = int(s.Location.Line)
		addTags(s.Tags)
		addSteps(s.Steps)
		for _, ex := range s.Examples {
			addTags(ex.Tags)
			for _, row := range ex.TableBody {
				lines[row.Id] = int(row.Location.Line)
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
			addTags(ch.Rule.Tags)
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
	var out []*Scenario
	for _, pk := range gherkin.Pickles(*doc, p, ids.NewId) {
		sc := &Scenario{System: system, URI: p, Name: pk.Name, Feature: doc.Feature.Name}
		sc.Line = lines[pk.AstNodeIds[len(pk.AstNodeIds)-1]]
		sc.Decl = lines[pk.AstNodeIds[0]]
		for _, t := range pk.Tags {
			sc.Tags = append(sc.Tags, Tag{Name: t.Name, Line: tagLines[t.AstNodeId]})
		}
		for _, st := range pk.Steps {
			sc.Steps = append(sc.Steps, Step{Keyword: strings.TrimSpace(keywords[st.AstNodeIds[0]]), Text: st.Text,
				Type: string(st.Type), Line: lines[st.AstNodeIds[0]]})
		}
		out = append(out, sc)
	}
	return out, nil
}

// Anchors returns every anchor of every digest, in report order.
func (c *Catalog) Anchors() []*Anchor {
	var out []*Anchor
	for _, s := range c.Systems {
		out = append(out, c.Digests[s].Anchors...)
	}
	return out
}

// Citing returns the scenarios that cite anchor a (directly or by an alias).
func (c *Catalog) Citing(a *Anchor) []*Scenario {
	var out []*Scenario
	for _, sc := range c.Scenarios {
		if sc.System != a.System {
			continue
		}
		for _, id := range sc.Cites() {
			if got, ok := c.Digests[sc.System].Resolve(id); ok && got == a {
				out = append(out, sc)
				break
			}
		}
	}
	return out
}
