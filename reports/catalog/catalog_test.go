package catalog

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

const fixtureSpec = `# demo — spec digest

Intro text with no anchor.

## Registry

{§demo-one} **MUST** The registry is one file.

- {§demo-two} **SHOULD** (tier 3) Lines stay short,
  even when wrapped.

Decision (§demo-one): the file is named ` + "`reg.md`" + `.

` + "```" + `
{§not-an-anchor} inside a fence
` + "```" + `

## History

Alias §old-one → §demo-one

Retired §demo-gone → §demo-two: folded into demo-two.
`

const fixtureFeature = `@demo
Feature: registry

  @§demo-one @decision
  Scenario: one file
    Given a registry
    Then it is one file per Decision (§demo-one)

  @§old-one @wip
  Scenario Outline: by alias
    Given <n> lines
    Examples:
      | n |
      | 1 |
      | 2 |
`

func fixture(extra map[string]string) fstest.MapFS {
	fs := fstest.MapFS{
		"features/demo/SPEC.md":          {Data: []byte(fixtureSpec)},
		"features/demo/registry.feature": {Data: []byte(fixtureFeature)},
	}
	for k, v := range extra {
		fs[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return fs
}

func TestDigestParse(t *testing.T) {
	c, problems, err := Load(fixture(nil), "features")
	if err != nil || len(problems) > 0 {
		t.Fatalf("load: %v %v", err, problems)
	}
	d := c.Digests["demo"]
	type row struct {
		ID, Section, Strength, Text string
		Tier                        int
		Aliases                     []string
	}
	var got []row
	for _, a := range d.Anchors {
		got = append(got, row{a.ID, a.Section, a.Strength, a.Text, a.Tier, a.Aliases})
	}
	want := []row{
		{"demo-one", "Registry", "MUST", "The registry is one file.", 0, []string{"old-one"}},
		{"demo-two", "Registry", "SHOULD", "Lines stay short, even when wrapped.", 3, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("anchors (-want +got):\n%s", diff)
	}
	if len(d.Decisions) != 1 || d.Decisions[0].Anchor != "demo-one" || d.Decisions[0].Text != "the file is named `reg.md`." {
		t.Fatalf("decisions: %+v", d.Decisions)
	}
	if len(d.Retired) != 1 || d.Retired[0].Successor != "demo-two" {
		t.Fatalf("retired: %+v", d.Retired)
	}
}

func TestFeatureParse(t *testing.T) {
	c, _, err := Load(fixture(nil), "features")
	if err != nil {
		t.Fatal(err)
	}
	var locs []string
	for _, sc := range c.Scenarios {
		locs = append(locs, sc.Location()+" "+strings.Join(sc.Cites(), ","))
	}
	want := []string{
		"features/demo/registry.feature:5 demo-one",
		"features/demo/registry.feature:14 old-one", // outline rows carry their own line
		"features/demo/registry.feature:15 old-one",
	}
	if diff := cmp.Diff(want, locs); diff != "" {
		t.Fatalf("scenarios (-want +got):\n%s", diff)
	}
	if got := c.Scenarios[0].Steps; len(got) != 2 || got[1] != (Step{Keyword: "Then", Text: "it is one file per Decision (§demo-one)", Type: "Outcome", Line: 7}) {
		t.Fatalf("steps: %+v", got)
	}
	if n := len(c.Citing(c.Digests["demo"].Anchors[0])); n != 3 {
		t.Fatalf("demo-one is cited by %d scenarios (alias included), want 3", n)
	}
	if problems := c.Check(); len(problems) != 0 {
		t.Fatalf("a clean fixture has problems: %v", problems)
	}
}

// TestGuardRefuses plants one defect at a time and expects the guard to name it.
func TestGuardRefuses(t *testing.T) {
	cases := []struct {
		name, kind, where string
		extra             map[string]string
	}{
		{"orphaned tag", "orphan", "features/demo/bad.feature:3", map[string]string{
			"features/demo/bad.feature": "@demo\nFeature: x\n  @§demo-nope\n  Scenario: s\n    Given a\n"}},
		{"unknown tag", "unknown-tag", "features/demo/bad.feature:3", map[string]string{
			"features/demo/bad.feature": "@demo\nFeature: x\n  @flaky\n  Scenario: s\n    Given a\n"}},
		{"retired id cited", "retired", "features/demo/bad.feature:3", map[string]string{
			"features/demo/bad.feature": "@demo\nFeature: x\n  @§demo-gone\n  Scenario: s\n    Given a\n"}},
		{"missing system tag", "unknown-tag", "features/demo/bad.feature:1", map[string]string{
			"features/demo/bad.feature": "Feature: x\n  Scenario: s\n    Given a\n"}},
		{"declared twice", "duplicate", "features/other/SPEC.md:3", map[string]string{
			"features/other/SPEC.md": "# other\n## S\n{§demo-one} **MAY** again.\n"}},
		{"foreign anchor", "wrong-system", "features/other/x.feature:3", map[string]string{
			"features/other/SPEC.md":   "# other\n## S\n{§other-one} **MAY** x.\n",
			"features/other/x.feature": "@other\nFeature: x\n  @§demo-one\n  Scenario: s\n    Given a\n"}},
		{"no strength", "digest", "features/other/SPEC.md:3", map[string]string{
			"features/other/SPEC.md": "# other\n## S\n{§other-one} promised softly.\n"}},
		{"unpinned decision", "unpinned-decision", "features/other/SPEC.md:5", map[string]string{
			"features/other/SPEC.md": "# other\n## S\n{§other-one} **MAY** x.\n\nDecision (§other-one): we chose.\n"}},
		{"decided Given", "decided-step", "features/other/x.feature:5", map[string]string{
			"features/other/SPEC.md":   "# other\n## S\n{§other-one} **MAY** x.\n\nDecision (§other-one): we chose.\n",
			"features/other/x.feature": "@other\nFeature: x\n  @§other-one\n  Scenario: s\n    Given a per Decision (§other-one)\n    Then b per Decision (§other-one)\n"}},
		{"decided step, no decision", "unrecorded-decision", "features/other/x.feature:7", map[string]string{
			"features/other/SPEC.md":   "# other\n## S\n{§other-one} **MAY** x.\n\n{§other-two} **MAY** y.\n\nDecision (§other-one): we chose.\n",
			"features/other/x.feature": "@other\nFeature: x\n  @§other-one\n  Scenario: s\n    Given a\n    Then b per Decision (§other-one)\n    And c per Decision (§other-two)\n"}},
		{"decided step, no anchor", "orphan", "features/other/x.feature:6", map[string]string{
			"features/other/SPEC.md":   "# other\n## S\n{§other-one} **MAY** x.\n\nDecision (§other-one): we chose.\n",
			"features/other/x.feature": "@other\nFeature: x\n  @§other-one\n  Scenario: s\n    Given a\n    Then b per Decision (§other-nope)\n"}},
		{"@decision without a decided step", "undecided-pin", "features/other/x.feature:4", map[string]string{
			"features/other/SPEC.md":   "# other\n## S\n{§other-one} **MAY** x.\n\nDecision (§other-one): we chose.\n",
			"features/other/x.feature": "@other\nFeature: x\n  @§other-one @decision\n  Scenario: s\n    Given a\n    Then b is \"x\"\n"}},
		{"unrecorded decision", "unrecorded-decision", "features/other/x.feature:3", map[string]string{
			"features/other/SPEC.md":   "# other\n## S\n{§other-one} **MAY** x.\n",
			"features/other/x.feature": "@other\nFeature: x\n  @§other-one @decision\n  Scenario: s\n    Given a\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, problems, err := Load(fixture(tc.extra), "features")
			if err != nil {
				t.Fatal(err)
			}
			problems = append(problems, c.Check()...)
			for _, p := range problems {
				if p.Kind == tc.kind {
					if !strings.HasPrefix(p.Location, tc.where) {
						t.Fatalf("%s reported at %s, want %s", tc.kind, p.Location, tc.where)
					}
					return
				}
			}
			t.Fatalf("guard did not report %s; it said %v", tc.kind, problems)
		})
	}
	t.Run("a decided step pins its decision", func(t *testing.T) {
		c, problems, _ := Load(fixture(map[string]string{
			"features/other/SPEC.md":   "# other\n## S\n{§other-one} **MAY** x.\n\nDecision (§other-one): we chose.\n",
			"features/other/x.feature": "@other\nFeature: x\n  @§other-one\n  Scenario: s\n    Given a\n    Then b is \"x\" per Decision (§other-one)\n"}), "features")
		if problems = append(problems, c.Check()...); len(problems) != 0 {
			t.Fatalf("problems: %v", problems)
		}
	})
	t.Run("orphan wording names the digest", func(t *testing.T) {
		c, _, _ := Load(fixture(map[string]string{"features/demo/bad.feature": "@demo\nFeature: x\n  @§demo-nope\n  Scenario: s\n    Given a\n"}), "features")
		if diff := cmp.Diff([]string{"demo-nope"}, c.Orphans()); diff != "" {
			t.Fatalf("orphans (-want +got):\n%s", diff)
		}
	})
}

// TestAnchorGuard runs the guard over the project's own features tree.
func TestAnchorGuard(t *testing.T) {
	c, problems, err := Load(os.DirFS("../.."), "features")
	if err != nil {
		t.Fatal(err)
	}
	problems = append(problems, c.Check()...)
	problems = append(problems, c.Missing()...)
	for _, p := range problems {
		t.Error(p)
	}
}

func TestDecidedStep(t *testing.T) {
	for _, tc := range []struct{ text, assertion, anchor string }{
		{`the code is "BAD_JSON" per Decision (§jace-errors)`, `the code is "BAD_JSON"`, "jace-errors"},
		{`the code is "BAD_JSON"`, `the code is "BAD_JSON"`, ""},
		{`per Decision (§x) is not at the end`, `per Decision (§x) is not at the end`, ""},
	} {
		a, id, ok := DecidedStep(tc.text)
		if a != tc.assertion || id != tc.anchor || ok != (tc.anchor != "") {
			t.Errorf("DecidedStep(%q) = %q, %q, %v", tc.text, a, id, ok)
		}
	}
}

func TestLiteralsToReview(t *testing.T) {
	c, _, err := Load(fixture(map[string]string{
		"features/other/SPEC.md": "# other\n## S\n{§other-one} **MAY** a line reads `ok`.\n\nDecision (§other-one): we chose.\n",
		"features/other/x.feature": "@other\nFeature: x\n  @§other-one\n  Scenario: s\n    Given \"z\"\n" +
			"    Then it reads \"ok\"\n    And it says \"fine\"\n    And it says \"nice\" per Decision (§other-one)\n"}), "features")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range c.LiteralsToReview() {
		if strings.HasPrefix(r.Location, "features/other/") {
			got = append(got, r.Literal)
		}
	}
	if diff := cmp.Diff([]string{"fine"}, got); diff != "" {
		t.Fatalf("review (-want +got):\n%s", diff)
	}
}
