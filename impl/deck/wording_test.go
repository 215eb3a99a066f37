package deck

import (
	"strings"
	"testing"

	"anchorage/impl/vary"
)

// TestEveryVariationShows pins that each variation changes what the deck
// shows: from power on (a graduated deck with "" as the script's first
// token) the same script ends on another screen or another result than the
// reference's.
func TestEveryVariationShows(t *testing.T) {
	scripts := map[string]string{
		"status":         "",
		"banner":         "EVAL",
		"stage":          "new EVAL",
		"exit-prompt":    "EVAL PICK:() PICK:car EVAL BACK BACK",
		"refusals":       "INSERT:big:48",
		"watchdog":       "EVAL PICK:() PICK:while PICK:t EVAL",
		"watchdog-error": "EVAL PICK:() PICK:while PICK:t EVAL",
		"history-entry":  "EVAL PICK:() PICK:car EVAL PICK:() PICK:car PICK:*history* EVAL",
		"readouts":       "EVAL PICK:() PICK:car EVAL",
		"fe-errors":      "EVAL PICK:() PICK:car PICK:t EVAL",
		"narration":      "new EVAL WAIT:3000",
		"docs":           "EVAL PICK:() PICK:describe PICK:() PICK:quote PICK:car EVAL",
		"gated-messages": "EVAL PICK:() TYPE:gfx-clear EVAL",
		"glyphs":         "EVAL PICK:() PICK:car",
		"screens":        "CDR EVAL",
		"first-run-row":  "new",
	}
	for _, v := range Variations() {
		script, ok := scripts[v.Name]
		if !ok {
			t.Errorf("variation %s has no script that shows it", v.Name)
			continue
		}
		set, err := vary.Parse(v.Name, Variations())
		if err != nil {
			t.Fatal(err)
		}
		ref, varied := showAfter(t, vary.Set{}, script), showAfter(t, set, script)
		if ref == varied {
			t.Errorf("variation %s: %q shows the same as the reference:\n%s", v.Name, script, ref)
		}
		if v.What == "" || v.Permit == "" {
			t.Errorf("variation %s: what it changes and the seed's permission must be given", v.Name)
		}
	}
}

// showAfter powers a deck on (graduated, unless the script starts with
// "new"), runs the script and returns the screen and the last result.
func showAfter(t *testing.T, set vary.Set, script string) string {
	t.Helper()
	d, err := New(Config{Vary: set})
	if err != nil {
		t.Fatal(err)
	}
	if rest, ok := strings.CutPrefix(script, "new"); ok {
		script = rest
	} else {
		st := d.State()
		st.Tutorial = TutFirstBoot | TutCarCdr | TutQuoteEval | TutLambda | TutGraduated
		if err := d.SetState(st); err != nil {
			t.Fatal(err)
		}
	}
	_ = RunScript(d, script) // a refused token is part of what the deck shows
	return d.Dump() + "\n" + d.Last().Result
}

// TestNarrationPages pins the pages row 22 shows a stage's Cipher line in,
// with every variation: together they are the seed's line, and each fits
// the readout (RuleText columns), cut at a sentence end in the reference.
func TestNarrationPages(t *testing.T) {
	for _, set := range []vary.Set{{}, mustParse(t, "all")} {
		w := wordingFor(set)
		for i, st := range Stages() {
			pages := w.pages[i]
			if got := strings.Join(pages, " "); got != st.Narration {
				t.Errorf("stage %d (%s): pages %q are not the Cipher line %q", i+1, set, pages, st.Narration)
			}
			for _, p := range pages {
				if len(p) > RuleText {
					t.Errorf("stage %d (%s): page %q is wider than row 22's %d columns", i+1, set, p, RuleText)
				}
			}
		}
	}
	for i, p := range wordingFor(vary.Set{}).pages {
		for _, page := range p[:len(p)-1] {
			if !strings.HasSuffix(page, ".") {
				t.Errorf("stage %d: the reference cuts %q inside a sentence", i+1, page)
			}
		}
	}
}

func mustParse(t *testing.T, list string) vary.Set {
	t.Helper()
	s, err := vary.Parse(list, Variations())
	if err != nil {
		t.Fatal(err)
	}
	return s
}
