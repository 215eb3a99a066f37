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
