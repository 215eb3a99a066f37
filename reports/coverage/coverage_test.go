package coverage

import (
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

func TestBuildVerdicts(t *testing.T) {
	cat, problems, err := catalog.Load(fstest.MapFS{
		"features/demo/SPEC.md":   {Data: []byte(spec)},
		"features/demo/f.feature": {Data: []byte(feature)},
	}, "features")
	if err != nil || len(problems) > 0 {
		t.Fatalf("load: %v %v", err, problems)
	}
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
