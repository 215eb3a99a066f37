package jace

import (
	"encoding/json"
	"reflect"
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

// TestFilterViewMatchesGenericFilter checks FilterView against the same
// rules applied to encoding/json's generic values (which lose member
// order, so the two are compared as values).
func TestFilterViewMatchesGenericFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genView(t, 0)
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, aud := range []string{AudienceAgent, AudienceHuman} {
			var got any
			if err := json.Unmarshal(FilterView(raw, aud), &got); err != nil {
				t.Fatalf("%s for %s: %v", raw, aud, err)
			}
			want, kept := filterGeneric(v, aud)
			if !kept {
				want = nil
			}
			if !reflect.DeepEqual(normalJSON(t, want), got) {
				t.Fatalf("%s for %s:\n got %v\nwant %v", raw, aud, got, want)
			}
		}
	})
}

func filterGeneric(v any, audience string) (any, bool) {
	drop := map[string]string{AudienceAgent: AudienceHuman, AudienceHuman: AudienceAgent}[audience]
	switch v := v.(type) {
	case map[string]any:
		if v["audience"] == drop {
			return nil, false
		}
		out := map[string]any{}
		for k, x := range v {
			if k == "presentation" && audience == AudienceAgent {
				continue
			}
			if f, ok := filterGeneric(x, audience); ok {
				out[k] = f
			}
		}
		return out, true
	case []any:
		out := []any{}
		for _, x := range v {
			if f, ok := filterGeneric(x, audience); ok {
				out = append(out, f)
			}
		}
		return out, true
	}
	return v, true
}

// normalJSON is v as encoding/json reads it back.
func normalJSON(t *rapid.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
