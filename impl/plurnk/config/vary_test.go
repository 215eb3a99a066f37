package config

import (
	"strings"
	"testing"

	"anchorage/impl/vary"
)

// TestVariations: at least ten, each named once, each saying what it
// changes and which seed sentence leaves it open; all of them parse.
func TestVariations(t *testing.T) {
	vs := Variations()
	if len(vs) < 10 {
		t.Fatalf("%d variations, want at least 10", len(vs))
	}
	seen := map[string]bool{}
	for _, v := range vs {
		if seen[v.Name] || v.Name != strings.ToLower(v.Name) || strings.ContainsAny(v.Name, " ,") {
			t.Errorf("variation name %q: repeated, or not a lower-case word", v.Name)
		}
		seen[v.Name] = true
		if v.What == "" || v.Permit == "" {
			t.Errorf("variation %q says nothing of what it changes or of what permits it", v.Name)
		}
	}
	s, err := vary.Parse("all", vs)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if !s.Has(v.Name) {
			t.Errorf("all does not switch %q on", v.Name)
		}
	}
}
