package main

import (
	"bytes"
	"strings"
	"testing"

	"anchorage/golden"
)

// TestScriptDumpGoldens runs `deck -script KEYS -dump` for every reviewed
// screen golden of golden/deck and compares the output byte for byte.
func TestScriptDumpGoldens(t *testing.T) {
	cases := map[string]string{
		"home-first-run.txt":            "",
		"tutorial-stage1.txt":           "EVAL EVAL",
		"tutorial-stage4-narration.txt": "EVAL EVAL EVAL EVAL EVAL EVAL EVAL EVAL WAIT:3000 EVAL",
		"graduated-credits.txt":         "EVAL BACK BACK EVAL PICK:() PICK:get-credits EVAL",
		"gated-credit-add.txt":          "EVAL BACK BACK EVAL PICK:() TYPE:credit-add TYPE:100 EVAL",
		"palette-open.txt":              "EVAL BACK BACK EVAL PICK:() CONS CDR CDR",
		"literal-entry.txt":             "EVAL BACK BACK EVAL PICK:() LAMBDA 4 4 3 3 8",
		"cart-prompt.txt":               "EVAL BACK BACK EVAL INSERT:null:32",
	}
	for name, script := range cases {
		var out, errs bytes.Buffer
		if code := run([]string{"-script", script, "-dump"}, strings.NewReader(""), &out, &errs); code != 0 {
			t.Fatalf("%s: deck -script %q -dump exited %d: %s", name, script, code, errs.String())
		}
		if err := golden.Check("deck/"+name, out.Bytes()); err != nil {
			t.Error(err)
		}
	}
}

func TestBadKeyIsAnErrorNotACrash(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-script", "EVAL FLY", "-dump"}, strings.NewReader(""), &out, &errs); code != 1 || !strings.Contains(errs.String(), "deck:") {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
}

func TestLineModeReadsKeysFromStdin(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run(nil, strings.NewReader("EVAL\nEVAL\n"), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if n := strings.Count(out.String(), "\n"); n < 3*25 {
		t.Fatalf("expected three screens, got %d lines:\n%s", n, out.String())
	}
}
