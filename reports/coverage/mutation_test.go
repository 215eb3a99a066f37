package coverage

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// mutation is a two-mutant report: the first killed by the "ok" scenario
// (line 4, §d-pass), the second survived "bad" (line 7, §d-fail and §d-pass).
const mutation = `{"schemaVersion":"2","thresholds":{"high":90,"low":80},"files":{
 "impl/demo/a.go":{"language":"go","source":"package a\n\nfunc f(x int) bool { return x < 3 }\n","mutants":[
  {"id":"impl/demo/a.go:3:31:ConditionalBoundary","mutatorName":"ConditionalBoundary","replacement":"<=","status":"Killed",
   "location":{"start":{"line":3,"column":31},"end":{"line":3,"column":32}},"coveredBy":["features/demo/f.feature:4"],"killedBy":["features/demo/f.feature:4"]},
  {"id":"impl/demo/a.go:3:29:ArithmeticOperator","mutatorName":"X","replacement":"y","status":"Survived",
   "location":{"start":{"line":3,"column":29},"end":{"line":3,"column":30}},"coveredBy":["features/demo/f.feature:7"]},
  {"id":"impl/demo/a.go:3:1:RemoveStatement","mutatorName":"X","replacement":"","status":"CompileError",
   "location":{"start":{"line":3,"column":1},"end":{"line":3,"column":2}},"coveredBy":["features/demo/f.feature:7"]}]}}}`

func TestApplyMutation(t *testing.T) {
	cat := demoCatalog(t)
	rep := Build(cat, nil, map[string]Result{}, 7)
	if err := rep.ApplyMutation(cat, []byte(mutation)); err != nil {
		t.Fatal(err)
	}
	got := map[string]*MutationStats{}
	for _, a := range rep.Systems[0].Anchors {
		got[a.ID] = a.Mutation
	}
	survivor := Survivor{ID: "impl/demo/a.go:3:29:ArithmeticOperator", File: "impl/demo/a.go", Line: 3, Original: "x", Mutated: "y"}
	want := map[string]*MutationStats{
		"d-pass": {Killed: 1, Survived: 1, Survivors: []Survivor{survivor}},
		"d-fail": {Survived: 1, Survivors: []Survivor{survivor}},
		"d-wip":  {},
		"d-none": {},
		"d-old":  nil, // retired: not measured
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("per-anchor mutation (-want +got):\n%s", d)
	}
	if s := got["d-pass"].Strength(); s != "50%" {
		t.Errorf("d-pass strength %q, want 50%%", s)
	}
	if s := got["d-none"].Strength(); s != "–" {
		t.Errorf("an anchor without mutants has strength %q, want –", s)
	}
	md := rep.Markdown()
	for _, want := range []string{
		"| `§d-pass` | 50% | 1 | 0 | 1 | 0 | impl/demo/a.go:3 `x` → `y` |",
		"| `§d-none` | – | 0 | 0 | 0 | 0 |  |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("coverage.md lacks %q", want)
		}
	}
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if r := gjson.GetBytes(js, "systems.0.killRate").Float(); r != 0.5 {
		t.Errorf("system kill rate %v, want 0.5 (the compile error does not count)", r)
	}
	if k := gjson.GetBytes(js, `systems.0.anchors.#(id=="d-pass").mutation.killed`).Int(); k != 1 {
		t.Errorf("coverage.json d-pass mutation.killed = %d, want 1", k)
	}
}
