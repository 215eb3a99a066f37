package vary

import "testing"

func TestParse(t *testing.T) {
	known := []Variation{{Name: "messages"}, {Name: "codes"}}
	s, err := Parse("all", known)
	if err != nil || !s.Has("messages") || !s.Has("codes") || s.String() != "codes,messages" {
		t.Fatalf("all: %v %v", s, err)
	}
	s, err = Parse(" codes ,", known)
	if err != nil || s.Has("messages") || !s.Has("codes") {
		t.Fatalf("codes: %v %v", s, err)
	}
	if s, err := Parse("", known); err != nil || s.Has("codes") || s.String() != "" {
		t.Fatalf("empty: %v %v", s, err)
	}
	if _, err := Parse("wording", known); err == nil || err.Error() != `no variation "wording": want all or some of messages,codes` {
		t.Fatalf("unknown: %v", err)
	}
	var zero Set
	if zero.Has("codes") {
		t.Fatal("the zero set has a variation")
	}
}

func TestChooseAndApply(t *testing.T) {
	s, _ := Parse("codes", []Variation{{Name: "messages"}, {Name: "codes"}})
	if got := Choose(s, "codes", "BAD_JSON", "X_BAD_JSON"); got != "X_BAD_JSON" {
		t.Errorf("Choose on: %q", got)
	}
	if got := Choose(s, "messages", "ref", "alt"); got != "ref" {
		t.Errorf("Choose off: %q", got)
	}
	double := func(n int) int { return 2 * n }
	if Apply(s, "codes", 3, double) != 6 || Apply(s, "messages", 3, double) != 3 {
		t.Error("Apply")
	}
}
