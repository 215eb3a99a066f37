package coverage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// mutation is a report of five mutants: the first killed by the "ok"
// scenario (line 4, §d-pass), the second survived "bad" (line 7, §d-fail and
// §d-pass), the third killed by "ok" only through a decided assertion, the
// fourth listed as equivalent, the last a compile error.
const mutation = `{"schemaVersion":"2","thresholds":{"high":90,"low":80},"files":{
 "impl/demo/a.go":{"language":"go","source":"package a\n\nfunc f(x int) bool { return x < 3 }\n","mutants":[
  {"id":"impl/demo/a.go:3:31:ConditionalBoundary","mutatorName":"ConditionalBoundary","replacement":"<=","status":"Killed",
   "location":{"start":{"line":3,"column":31},"end":{"line":3,"column":32}},"coveredBy":["features/demo/f.feature:4"],"killedBy":["features/demo/f.feature:4"]},
  {"id":"impl/demo/a.go:3:29:ArithmeticOperator","mutatorName":"X","replacement":"y","status":"Survived",
   "location":{"start":{"line":3,"column":29},"end":{"line":3,"column":30}},"coveredBy":["features/demo/f.feature:7"]},
  {"id":"impl/demo/a.go:3:22:ArithmeticOperator","mutatorName":"X","replacement":"z","status":"Killed","normativeStatus":"Survived",
   "location":{"start":{"line":3,"column":22},"end":{"line":3,"column":23}},"coveredBy":["features/demo/f.feature:4"],"killedBy":["features/demo/f.feature:4"],
   "decisionsDiffered":["features/demo/f.feature:4 (§d-pass): code: want \"A\", got \"B\""]},
  {"id":"impl/demo/a.go:3:8:BooleanLiteral","mutatorName":"X","replacement":"w","status":"Ignored",
   "location":{"start":{"line":3,"column":8},"end":{"line":3,"column":9}},"coveredBy":["features/demo/f.feature:4"]},
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
	decided := Survivor{ID: "impl/demo/a.go:3:22:ArithmeticOperator", File: "impl/demo/a.go", Line: 3, Original: "r", Mutated: "z"}
	rate := func(r float64) *float64 { return &r }
	want := map[string]*MutationStats{
		"d-pass": {Killed: 2, Survived: 1, Equivalent: 1, DecidedOnly: 1, NetRate: rate(2.0 / 3), RawRate: rate(2.0 / 4), NormativeRate: rate(1.0 / 3),
			Survivors: []Survivor{survivor}, NormativeSurvivors: []Survivor{decided}},
		"d-fail": {Survived: 1, NetRate: rate(0), RawRate: rate(0), NormativeRate: rate(0), Survivors: []Survivor{survivor}},
		"d-wip":  {},
		"d-none": {},
		"d-old":  nil, // retired: not measured
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("per-anchor mutation (-want +got):\n%s", d)
	}
	for name, c := range map[string][2]string{
		"d-pass strength": {got["d-pass"].Strength(), "67%"}, "d-pass raw": {got["d-pass"].RawStrength(), "50%"},
		"d-pass normative": {got["d-pass"].NormativeStrength(), "33%"}, "d-none strength": {got["d-none"].Strength(), "–"},
		"d-none normative": {got["d-none"].NormativeStrength(), "–"},
	} {
		if c[0] != c[1] {
			t.Errorf("%s %q, want %q", name, c[0], c[1])
		}
	}
	md := rep.Markdown()
	for _, want := range []string{
		"| mutation strength | raw | normative |",
		"| `§d-pass` | 67% | 33% | 2 | 0 | 1 | 1 | impl/demo/a.go:3 `x` → `y`<br>impl/demo/a.go:3 `r` → `z` (only a decision rejects it) |",
		"| `§d-none` | – | – | 0 | 0 | 0 | 0 |  |",
		"raw 50% with the equivalent counted as survived; normative 33%, with the 1 killed only by a decided assertion",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("coverage.md lacks %q", want)
		}
	}
	var html strings.Builder
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"normative 33%", "raw 50% with 1 equivalent", "only a decided assertion rejects it"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("coverage.html lacks %q", want)
		}
	}
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]float64{"systems.0.killRate": 2.0 / 3, "systems.0.rawKillRate": 0.5, "systems.0.normativeKillRate": 1.0 / 3,
		`systems.0.anchors.#(id=="d-pass").mutation.normativeRate`: 1.0 / 3, "systems.0.mutation.decidedOnly": 1} {
		if r := gjson.GetBytes(js, path).Float(); fmt.Sprintf("%.4f", r) != fmt.Sprintf("%.4f", want) {
			t.Errorf("coverage.json %s = %v, want %v (the compile error does not count)", path, r, want)
		}
	}
	if k := gjson.GetBytes(js, `systems.0.anchors.#(id=="d-pass").mutation.killed`).Int(); k != 2 {
		t.Errorf("coverage.json d-pass mutation.killed = %d, want 2", k)
	}
}
