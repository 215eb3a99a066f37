package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWatch(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("features/demo/SPEC.md", "# demo\n\n## One\n\n{§d-a} **MUST** a.\n")
	write("features/demo/f.feature", "@demo\nFeature: f\n  @§d-a\n  Scenario: ok\n    Given x\n  @§d-a\n  Scenario: bad\n    Given y\n  @§d-a @wip\n  Scenario: later\n    Given z\n")
	var in bytes.Buffer
	ev := func(action, test, output string) {
		b, _ := json.Marshal(event{Action: action, Package: "anchorage/features", Test: test, Output: output})
		in.Write(append(b, '\n'))
	}
	ev("start", "", "")
	ev("run", "TestFeatures", "")
	ev("run", "TestFeatures/demo", "")
	ev("run", "TestFeatures/demo/ok", "")
	ev("output", "TestFeatures/demo/ok", "=== RUN   TestFeatures/demo/ok\n")
	ev("pass", "TestFeatures/demo/ok", "")
	ev("run", "TestFeatures/demo/bad", "")
	ev("output", "TestFeatures/demo/bad", ".F    testingt.go:120: features/demo/f.feature:7 failed with master seed 1\n")
	ev("output", "TestFeatures/demo/bad", "        replay: ANCHORAGE_SEED=1 go test ./features -args -feature=features/demo/f.feature:7\n")
	ev("output", "TestFeatures/demo/bad", "    suite.go:640: want 1 got 2\n")
	ev("output", "TestFeatures/demo/bad", "    suite.go:640: want 1 got 2\n")
	ev("output", "TestFeatures/demo/bad", "--- FAIL: TestFeatures/demo/bad (0.00s)\n")
	ev("fail", "TestFeatures/demo/bad", "")
	ev("output", "TestFeatures/demo", "--- Failed steps:\n  Given y # f.feature:8\n    Error: want 1 got 2\n")
	ev("output", "TestFeatures/demo", "    runner_test.go:170: demo: 1 scenarios keep the spec but differ from the reference's decisions (1 differences, on 1 decisions); these are not failures:\n")
	ev("output", "TestFeatures/demo", "          Decision (§d-a): 1 scenarios, e.g. features/demo/f.feature:4: want A, got B\n")
	ev("run", "TestFeatures/demo/replay", "")
	ev("pass", "TestFeatures/demo/replay", "")
	ev("fail", "TestFeatures/demo", "")
	ev("fail", "TestFeatures", "")
	ev("fail", "", "")
	var out, errs bytes.Buffer
	logPath := filepath.Join(t.TempDir(), "go-test.log")
	code := watch([]string{"-root", root, "-log", logPath}, &in, &out, &errs, time.Now)
	if code != 1 {
		t.Errorf("exit %d for a failed run, want 1", code)
	}
	got := out.String()
	for _, want := range []string{"demo        2/2    scenarios  1 failed", "FAIL TestFeatures/demo/bad", "replay: ANCHORAGE_SEED=1", "\n  want 1 got 2\n", "features/demo/f.feature:7 failed with master seed 1",
		"decision differences (the target keeps the spec there; not failures):\n  demo: 1 scenarios keep the spec but differ", "\n  Decision (§d-a): 1 scenarios, e.g. features/demo/f.feature:4: want A, got B\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("watch output lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "want 1 got 2"); n != 1 {
		t.Errorf("the assertion is printed %d times, want once:\n%s", n, got)
	}
	if log, _ := os.ReadFile(logPath); !strings.Contains(string(log), "--- Failed steps:") {
		t.Errorf("the log lacks the run's text:\n%s", log)
	}

	in.Reset()
	ev("start", "", "")
	ev("pass", "", "")
	out.Reset()
	if code := watch([]string{"-root", root, "-log", logPath}, &in, &out, &errs, time.Now); code != 0 {
		t.Errorf("exit %d for a passing run", code)
	}
	in.Reset()
	in.WriteString("features/x.go:3:1: syntax error\n")
	errs.Reset()
	if code := watch([]string{"-root", root, "-log", logPath}, &in, &out, &errs, time.Now); code != 1 || !strings.Contains(errs.String(), "syntax error") {
		t.Errorf("a build failure: exit %d, stderr %q", code, errs.String())
	}
}
