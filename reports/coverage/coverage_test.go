package coverage

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"anchorage/reports/catalog"
)

const spec = `# demo — digest

## One

{§d-pass} **MUST** passes.

{§d-fail} **MUST** fails.

{§d-wip} **SHOULD** is work in progress.

{§d-none} **MAY** nobody checks it.

Decision (§d-pass): chosen.

## Old

Retired §d-old → §d-pass: merged.
`

const feature = `@demo
Feature: f
  @§d-pass @decision
  Scenario: ok
    Given x
  @§d-fail @§d-pass
  Scenario: bad
    Given y
  @§d-wip @wip
  Scenario: later
    Given z
`

// cucumber is what godog writes for the run: "ok" passed, "bad" failed on
// its only step, "later" (@wip) never ran.
const cucumber = `[{"uri":"demo/f.feature","elements":[
 {"line":4,"steps":[{"result":{"status":"passed"}}]},
 {"line":7,"steps":[{"result":{"status":"failed","error_message":"want 1 got 2"}}]},
 {"line":10,"steps":[{"result":{"status":"passed"}},{"result":{"status":"skipped"}}]}]}]`

// demoCatalog loads the demo digest and feature above.
func demoCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, problems, err := catalog.Load(fstest.MapFS{
		"features/demo/SPEC.md":   {Data: []byte(spec)},
		"features/demo/f.feature": {Data: []byte(feature)},
	}, "features")
	if err != nil || len(problems) > 0 {
		t.Fatalf("load: %v %v", err, problems)
	}
	return cat
}

func TestBuildVerdicts(t *testing.T) {
	cat := demoCatalog(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cucumber-demo.json"), []byte(cucumber), 0o644); err != nil {
		t.Fatal(err)
	}
	res, merged, err := ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !gjson.ValidBytes(merged) || gjson.GetBytes(merged, "#").Int() != 1 {
		t.Fatalf("merged cucumber JSON: %s", merged)
	}
	if got := res["features/demo/f.feature:10"].Status; got != Skipped {
		t.Fatalf("a scenario a step skipped reads as %q, want skipped", got)
	}
	rep := Build(cat, nil, res, 7)
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	gjson.GetBytes(js, "systems.0.anchors").ForEach(func(_, a gjson.Result) bool {
		got[a.Get("id").String()] = a.Get("status").String()
		return true
	})
	want := map[string]string{"d-pass": "fail", "d-fail": "fail", "d-wip": "pending", "d-none": "uncovered", "d-old": "retired"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("anchor statuses (-want +got):\n%s", diff)
	}
	for _, path := range []string{"seed", "systems.0.system", "systems.0.anchors.0.section", "systems.0.anchors.0.strength",
		"systems.0.anchors.0.aliases", "systems.0.anchors.0.scenarios.0.location", "orphans", "ambiguities.0.decision"} {
		if !gjson.GetBytes(js, path).Exists() {
			t.Errorf("coverage.json lacks %s", path)
		}
	}
	if loc := gjson.GetBytes(js, `systems.0.anchors.#(id=="d-fail").scenarios.0.location`).String(); loc != "features/demo/f.feature:7" {
		t.Errorf("scenario location %q", loc)
	}
	if !rep.Failed() {
		t.Error("a report with a failed scenario does not say it failed")
	}
	md := rep.Markdown()
	for _, s := range []string{"| demo | 4 | 0 | 2 | 1 | 1 | 1 |", "`§d-none` (MAY, One) — **uncovered**", "| demo | `§d-pass` | chosen. | features/demo/f.feature:4 |"} {
		if !strings.Contains(md, s) {
			t.Errorf("coverage.md lacks %q:\n%s", s, md)
		}
	}
	var html strings.Builder
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html.String(), "http://") || strings.Contains(html.String(), "https://") || !strings.Contains(html.String(), "want 1 got 2") {
		t.Error("coverage.html must be self-contained and show failure messages")
	}
}

func TestInlineCode(t *testing.T) {
	got := string(inlineCode("file `debug.md` <b> and `odd"))
	want := "file <code>debug.md</code> &lt;b&gt; and `odd"
	if got != want {
		t.Fatalf("inlineCode = %q, want %q", got, want)
	}
}

func TestJUnit(t *testing.T) {
	cat, _, err := catalog.Load(fstest.MapFS{
		"features/demo/SPEC.md":   {Data: []byte(spec)},
		"features/demo/f.feature": {Data: []byte(feature)},
	}, "features")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cucumber-demo.json"), []byte(cucumber), 0o644); err != nil {
		t.Fatal(err)
	}
	res, _, err := ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := JUnit(cat, res, nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Skipped  int    `xml:"skipped,attr"`
			Cases    []struct {
				Classname string `xml:"classname,attr"`
				Name      string `xml:"name,attr"`
				Failure   *struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
				Error   *struct{} `xml:"error"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, b)
	}
	if len(doc.Suites) != 1 || doc.Suites[0].Name != "demo" {
		t.Fatalf("want one testsuite named for the system:\n%s", b)
	}
	s := doc.Suites[0]
	if s.Tests != 3 || s.Failures != 1 || s.Errors != 0 || s.Skipped != 1 {
		t.Errorf("suite counts tests=%d failures=%d errors=%d skipped=%d, want 3 1 0 1:\n%s", s.Tests, s.Failures, s.Errors, s.Skipped, b)
	}
	kinds := map[string]string{}
	for _, c := range s.Cases {
		if c.Classname != "demo/f" {
			t.Errorf("classname %q, want system/feature demo/f", c.Classname)
		}
		switch {
		case c.Failure != nil:
			kinds[c.Name] = "failure"
			for _, want := range []string{"want 1 got 2", "replay: ANCHORAGE_SEED=7 go test ./features -run 'TestFeatures/demo' -args -feature=features/demo/f.feature:7"} {
				if !strings.Contains(c.Failure.Text, want) {
					t.Errorf("the failure's text lacks %q:\n%s", want, c.Failure.Text)
				}
			}
		case c.Error != nil:
			kinds[c.Name] = "error"
		case c.Skipped != nil:
			kinds[c.Name] = "skipped"
		default:
			kinds[c.Name] = "passed"
		}
	}
	if diff := cmp.Diff(map[string]string{"ok": "passed", "bad": "failure", "later": "skipped"}, kinds); diff != "" {
		t.Errorf("testcase kinds (-want +got):\n%s", diff)
	}
}

const detailFeature = `@demo
Feature: f
  @§d-pass @decision
  Scenario: ok
    Given the page says:
      """
      <b>bold</b> & more
      """
    And these rows:
      | key | value |
      | a   | 1     |
  @§d-fail
  Scenario Outline: bad <n>
    Given y <n>

    Examples:
      | n |
      | 1 |
      | 2 |
`

func TestHTMLDetail(t *testing.T) {
	fsys := fstest.MapFS{
		"features/demo/SPEC.md":   {Data: []byte(spec)},
		"features/demo/f.feature": {Data: []byte(detailFeature)},
	}
	cat, _, err := catalog.Load(fsys, "features")
	if err != nil {
		t.Fatal(err)
	}
	details, err := ReadDetails(fsys, cat)
	if err != nil {
		t.Fatal(err)
	}
	if d := details["features/demo/f.feature:18"]; d.Label != "n=1" || len(d.Steps) != 1 || d.Steps[0].Text != "y 1" {
		t.Fatalf("outline row detail %+v", d)
	}
	results := map[string]Result{
		"features/demo/f.feature:4":  {Status: Passed, Steps: []StepResult{{Status: "passed"}, {Status: "passed"}}},
		"features/demo/f.feature:18": {Status: Failed, Error: "want 1 got 2", Steps: []StepResult{{Status: "failed", Error: "want 1 got 2"}}},
		"features/demo/f.feature:19": {Status: Passed, Steps: []StepResult{{Status: "passed"}}},
	}
	rep := BuildDetailed(cat, nil, results, details, 7)
	var b strings.Builder
	if err := rep.HTML(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		`id="§d-fail"`, `id="§d-pass"`,
		`<pre class="doc">&lt;b&gt;bold&lt;/b&gt; &amp; more</pre>`,
		`<td>key</td><td>value</td>`,
		`<span class="label">n=1</span>`,
		`<li class="st-failed" title="failed">`,
		`<div class="err">want 1 got 2</div>`,
		`-args -feature=features/demo/f.feature:18</div>`,
		`<div class="decision"><span class="meta">Decision</span><p>chosen.</p>`,
		`details class="scenario" id="§d-fail/features/demo/f.feature:18" open`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("coverage.html lacks %s", want)
		}
	}
	if strings.Contains(html, `<b>bold</b>`) {
		t.Error("a doc string's markup reaches the page unescaped")
	}
	js, _ := rep.JSON()
	if got := gjson.GetBytes(js, `systems.0.anchors.#(id=="d-fail").scenarios.0`); got.Get("label").String() != "n=1" || !strings.Contains(got.Get("replay").String(), "-feature=features/demo/f.feature:18") {
		t.Errorf("coverage.json scenario lacks its label or replay line: %s", got.Raw)
	}
}

// TestDecisionDifferences reads a target's run in which a decided step did
// not hold: the scenario passed with a difference attached to the step
// (base64 JSON, as godog writes attachments).
func TestDecisionDifferences(t *testing.T) {
	fsys := fstest.MapFS{
		"features/demo/SPEC.md": {Data: []byte(spec)},
		"features/demo/f.feature": {Data: []byte(`@demo
Feature: f
  @§d-pass
  Scenario: ok
    Given x
    Then the code is "BAD" per Decision (§d-pass)
  @§d-fail
  Scenario: plain
    Given y
`)},
	}
	cat, problems, err := catalog.Load(fsys, "features")
	if err != nil || len(problems) > 0 {
		t.Fatalf("load: %v %v", err, problems)
	}
	// {"decision":"§d-pass","step":"the code is \"BAD\" per Decision (§d-pass)","message":"want BAD, got X_BAD"}
	data := "eyJkZWNpc2lvbiI6IsKnZC1wYXNzIiwic3RlcCI6InRoZSBjb2RlIGlzIFwiQkFEXCIgcGVyIERlY2lzaW9uICjCp2QtcGFzcykiLCJtZXNzYWdlIjoid2FudCBCQUQsIGdvdCBYX0JBRCJ9"
	run := `[{"uri":"demo/f.feature","elements":[
 {"line":4,"steps":[{"result":{"status":"passed"}},{"result":{"status":"passed"},"embeddings":[{"mime_type":"` + differenceMediaType + `","data":"` + data + `","name":"decision-difference.json"}]}]},
 {"line":8,"steps":[{"result":{"status":"passed"}}]}]}]`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cucumber-demo.json"), []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	res, _, err := ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	details, err := ReadDetails(fsys, cat)
	if err != nil {
		t.Fatal(err)
	}
	rep := BuildDetailed(cat, nil, res, details, 7)
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		`systems.0.anchors.#(id=="d-pass").status`:                            "pass",
		`systems.0.anchors.#(id=="d-pass").verdict`:                           "differs",
		`systems.0.anchors.#(id=="d-pass").differsOn.0`:                       "§d-pass",
		`systems.0.anchors.#(id=="d-pass").scenarios.0.verdict`:               "differs",
		`systems.0.anchors.#(id=="d-pass").scenarios.0.differences.0.message`: "want BAD, got X_BAD",
		`systems.0.anchors.#(id=="d-fail").verdict`:                           "keeps",
		`systems.0.anchors.#(id=="d-wip").verdict`:                            "uncovered",
	} {
		if got := gjson.GetBytes(js, path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if rep.Failed() {
		t.Error("a decision difference failed the report")
	}
	md := rep.Markdown()
	for _, s := range []string{"| demo | 4 | 2 | 0 | 0 | 2 | 1 | 1 |", "- Decision (`§d-pass`): 1 scenarios, e.g. `features/demo/f.feature:4`: want BAD, got X_BAD"} {
		if !strings.Contains(md, s) {
			t.Errorf("coverage.md lacks %q:\n%s", s, md)
		}
	}
	var html strings.Builder
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"differs on 1 decision(s)", "differs from the reference's decision §d-pass: want BAD, got X_BAD"} {
		if !strings.Contains(html.String(), s) {
			t.Errorf("coverage.html lacks %q", s)
		}
	}
}
