package main

import (
	"bytes"
	"strings"
	"testing"

	"anchorage/impl/vary"
	"anchorage/reports/coverage"
)

// TestSystemNamesTheVariationBehindAFalseRejection runs the logic on a fake
// features run: with all variations on, one scenario fails (a false
// rejection), one differs on a decision, one keeps the spec; alone, only
// "codes" fails it.
func TestSystemNamesTheVariationBehindAFalseRejection(t *testing.T) {
	var out bytes.Buffer
	r := &runner{stdout: &out}
	var calls []string
	r.run = func(sys, list string, locs []string) (map[string]coverage.Result, error) {
		calls = append(calls, list+" "+strings.Join(locs, ","))
		fail := coverage.Result{Status: coverage.Failed, Error: "status: want 400, got 422\nmore"}
		if list == "all" {
			return map[string]coverage.Result{
				"f.feature:3":  fail,
				"f.feature:9":  {Status: coverage.Passed, Differences: []coverage.Difference{{Decision: "§d-a", Message: "x"}}},
				"f.feature:12": {Status: coverage.Passed},
			}, nil
		}
		if list == "codes" {
			return map[string]coverage.Result{"f.feature:3": fail}, nil
		}
		return map[string]coverage.Result{"f.feature:3": {Status: coverage.Passed}}, nil
	}
	vs := []vary.Variation{{Name: "messages"}, {Name: "codes"}}
	ok, err := r.system("demo", vs, 2)
	if err != nil || ok {
		t.Fatalf("system = %v, %v; want a failure for the false rejection", ok, err)
	}
	for _, want := range []string{
		"demo: 2 variations: messages, codes\n",
		"3 scenarios in 0 s: 1 keep the spec, 1 keep it but differ on decisions (1 decisions), 0 pending, 1 fail the spec",
		"  false rejections: 1\n    f.feature:3 [codes]: status: want 400, got 422\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if got := strings.Join(calls, ";"); got != "all ;messages f.feature:3;codes f.feature:3" {
		t.Errorf("runs %q", got)
	}
	out.Reset()
	if ok, _ := r.system("demo", vs, 3); ok {
		t.Error("a system below -min passed")
	}
	if !strings.Contains(out.String(), "too few variations: 2, want at least 3") {
		t.Errorf("output lacks the minimum:\n%s", out.String())
	}
}

func TestBadFlags(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-system", "nope"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), `-system "nope": want one or more of chatlog,plurnk,jace,deck`) {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if code := run([]string{"stray"}, &out, &errs); code != 2 {
		t.Fatalf("a stray argument: exit %d", code)
	}
}
