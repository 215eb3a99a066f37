package jace

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// genView draws JSON views with presentation members and audience marks.
func genView(t *rapid.T, depth int) any {
	kind := rapid.IntRange(0, 4).Draw(t, "kind")
	if depth > 3 {
		kind = 0
	}
	switch kind {
	case 0:
		return rapid.SampledFrom([]any{"x", 1.5, true, nil, "a\"b", "human", 0}).Draw(t, "scalar")
	case 1, 2:
		n := rapid.IntRange(0, 4).Draw(t, "len")
		a := make([]any, n)
		for i := range a {
			a[i] = genView(t, depth+1)
		}
		return a
	default:
		o := map[string]any{}
		n := rapid.IntRange(0, 4).Draw(t, "members")
		for i := 0; i < n; i++ {
			k := rapid.SampledFrom([]string{"type", "audience", "presentation", "children", "value", "pres\u0065ntation"}).Draw(t, "key")
			if k == "audience" {
				o[k] = rapid.SampledFrom([]any{"human", "agent", "both", 1}).Draw(t, "aud")
			} else {
				o[k] = genView(t, depth+1)
			}
		}
		return o
	}
}

func TestFilterViewMatchesTreeFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		raw, err := json.Marshal(genView(t, 0))
		if err != nil {
			t.Fatal(err)
		}
		for _, aud := range []string{AudienceAgent, AudienceHuman} {
			fast, err1 := FilterView(raw, aud)
			slow, err2 := filterTree(raw, aud)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: errors %v / %v", raw, err1, err2)
			}
			if string(fast) != string(slow) {
				t.Fatalf("%s for %s:\nscanner %s\ntree    %s", raw, aud, fast, slow)
			}
		}
	})
}
