package features

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cucumber/godog"

	"anchorage/features/kit"
	"anchorage/reports/catalog"
	"anchorage/sim/seed"
)

// demoFeature has a normative step, a decided one and one whose pattern
// would swallow the suffix, against a system whose "code" is X_BAD_JSON.
const demoFeature = `@demo
Feature: levels

  Scenario: decided differs
    When the demo answers
    Then the status is 400
    And the code is "BAD_JSON" per Decision (§demo-errors)
    And the status is 400

  Scenario: normative fails
    When the demo answers
    Then the code is "X_BAD_JSON" per Decision (§demo-errors)
    And the status is 404

  Scenario: greedy
    When the demo answers
    Then the message says anything per Decision (§demo-errors)
`

func demoSteps(sc kit.Steps) {
	sc.Step(`^the demo answers$`, func(ctx context.Context) error { return nil })
	sc.Step(`^the status is (\d+)$`, func(ctx context.Context, n int) error {
		if n != 400 {
			return fmt.Errorf("status: want %d, got 400", n)
		}
		return nil
	})
	sc.Step(`^the code is "([^"]*)"$`, func(ctx context.Context, code string) (context.Context, error) {
		if code != "X_BAD_JSON" {
			return ctx, fmt.Errorf("code: want %q, got %q", code, "X_BAD_JSON")
		}
		return ctx, nil
	})
	sc.Step(`^the message says (.*)$`, func(ctx context.Context, what string) error { return nil })
}

// runDemo runs the demo feature in a mode and returns godog's status, the
// Cucumber JSON and each scenario's differences.
func runDemo(t *testing.T, mode kit.DecisionMode) (int, []byte, map[string][]kit.Difference) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "cucumber.json")
	diffs := &differences{}
	suite := godog.TestSuite{
		Name:                "demo",
		ScenarioInitializer: tallied(Initializer("demo", demoSteps, &catalog.Catalog{}, seed.New(1), Selection{}, mode, nil), diffs),
		Options: &godog.Options{Format: "cucumber:" + out, Strict: true, NoColors: true, Output: &bytes.Buffer{},
			FeatureContents: []godog.Feature{{Name: "features/demo/levels.feature", Contents: []byte(demoFeature)}}},
	}
	status := suite.Run()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return status, b, diffs.m
}

func TestDecidedStepFailsTheReference(t *testing.T) {
	status, cucumber, diffs := runDemo(t, kit.DecisionsFail)
	if status == 0 {
		t.Fatal("the reference's run passed a decided step that does not hold")
	}
	if !strings.Contains(string(cucumber), `decided per Decision (§demo-errors): code: want \"BAD_JSON\", got \"X_BAD_JSON\"`) {
		t.Fatalf("the failure does not name the decision:\n%s", cucumber)
	}
	if len(diffs) != 0 {
		t.Fatalf("the reference recorded differences: %v", diffs)
	}
}

func TestDecidedStepIsRecordedForATarget(t *testing.T) {
	status, cucumber, diffs := runDemo(t, kit.DecisionsRecord)
	if status == 0 {
		t.Fatal("a normative failure passed")
	}
	var features []struct {
		Elements []struct {
			Name  string
			Steps []struct {
				Name       string
				Result     struct{ Status string }
				Embeddings []struct {
					MimeType string `json:"mime_type"`
					Data     []byte `json:"data"`
				}
			}
		}
	}
	if err := json.Unmarshal(cucumber, &features); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, el := range features[0].Elements {
		for _, st := range el.Steps {
			line := st.Result.Status
			for _, e := range st.Embeddings {
				if e.MimeType == kit.DifferenceMediaType {
					line += " " + string(e.Data)
				}
			}
			got[el.Name] = append(got[el.Name], line)
		}
	}
	want := map[string][]string{
		"decided differs": {"passed", "passed",
			`passed {"decision":"§demo-errors","step":"the code is \"BAD_JSON\" per Decision (§demo-errors)","message":"code: want \"BAD_JSON\", got \"X_BAD_JSON\""}`,
			"passed"},
		"normative fails": {"passed", "passed", "failed"},
		"greedy":          {"passed", "failed"},
	}
	for name, steps := range want {
		if strings.Join(got[name], "\n") != strings.Join(steps, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", name, got[name], steps)
		}
	}
	if n := len(diffs); n != 1 {
		t.Errorf("%d scenarios recorded differences, want 1: %v", n, diffs)
	}
}

func TestDecisionsMode(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		system string
		env    []string
		want   kit.DecisionMode
	}{
		{"jace", nil, kit.DecisionsFail},
		{"jace", []string{"JACE_URL", "http://x"}, kit.DecisionsRecord},
		{"chatlog", []string{"JACE_URL", "http://x"}, kit.DecisionsFail},
		{"chatlog", []string{"CHATLOG_PARSE", "p {file}"}, kit.DecisionsRecord},
		{"deck", []string{"ANCHORAGE_VARY", "all"}, kit.DecisionsRecord},
		{"plurnk", []string{"PLURNK_CMD", "x", "ANCHORAGE_DECISIONS", "fail"}, kit.DecisionsFail},
		{"deck", []string{"ANCHORAGE_DECISIONS", "record"}, kit.DecisionsRecord},
	} {
		got, err := Decisions(tc.system, env(tc.env...))
		if err != nil || got != tc.want {
			t.Errorf("%s %v: got %v, %v; want %v", tc.system, tc.env, got, err, tc.want)
		}
	}
	if _, err := Decisions("jace", env("ANCHORAGE_DECISIONS", "lenient")); err == nil || !strings.Contains(err.Error(), "want fail") {
		t.Errorf("a bad ANCHORAGE_DECISIONS: %v", err)
	}
}
