package mutate

import "strings"

// Tally counts mutants by outcome, the way the kill rates read them.
// Timeouts count as detected (a harness with time limits rejects a mutant
// that hangs); compile errors count neither way.
type Tally struct {
	Killed     int `json:"killed"`
	Survived   int `json:"survived"`
	Timeout    int `json:"timeout"`
	Equivalent int `json:"equivalent"`
	// DecidedOnly counts the killed mutants that only a decided assertion
	// (one of our own Decisions, not the spec) rejected.
	DecidedOnly int `json:"decidedOnly"`
}

// Add counts one mutant's status and normative status (empty: the same as
// status, as in reports written before normative verdicts).
func (t *Tally) Add(status, normative string) {
	switch status {
	case Killed:
		t.Killed++
		if normative == Survived {
			t.DecidedOnly++
		}
	case Timeout:
		t.Timeout++
	case Survived:
		t.Survived++
	case Ignored:
		t.Equivalent++
	}
}

// Net is the kill rate with equivalent mutants left out:
// (killed+timeout) / (killed+timeout+survived); false when nothing was measured.
func (t Tally) Net() (float64, bool) {
	return ratio(t.Killed+t.Timeout, t.Killed+t.Timeout+t.Survived)
}

// Raw is the kill rate with the mutants listed as equivalent counted as
// survivors: (killed+timeout) / (killed+timeout+survived+equivalent).
func (t Tally) Raw() (float64, bool) {
	return ratio(t.Killed+t.Timeout, t.Killed+t.Timeout+t.Survived+t.Equivalent)
}

// Normative is the net rate counting as killed only the mutants a normative
// assertion (what the spec states) or a timeout rejected: the strength
// another implementation's team gets from the features.
func (t Tally) Normative() (float64, bool) {
	return ratio(t.Killed-t.DecidedOnly+t.Timeout, t.Killed+t.Timeout+t.Survived)
}

func ratio(a, b int) (float64, bool) {
	if b == 0 {
		return 0, false
	}
	return float64(a) / float64(b), true
}

// SystemOfFile names the system whose reference implementation holds a
// module-relative Go file: impl/<system>/…, with the Fe VM counted as deck's;
// "" for a file outside impl/.
func SystemOfFile(file string) string {
	rest, ok := strings.CutPrefix(file, "impl/")
	if !ok {
		return ""
	}
	first, _, _ := strings.Cut(rest, "/")
	if first == "fe" {
		return "deck"
	}
	return first
}

// Tallies counts the report's mutants per system.
func (r *Report) Tallies() map[string]*Tally {
	out := map[string]*Tally{}
	for f, fr := range r.Files {
		sys := SystemOfFile(f)
		if sys == "" {
			continue
		}
		if out[sys] == nil {
			out[sys] = &Tally{}
		}
		for _, m := range fr.Mutants {
			out[sys].Add(m.Status, m.NormativeStatus)
		}
	}
	return out
}
