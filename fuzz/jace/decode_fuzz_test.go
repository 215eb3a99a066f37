package jace

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"anchorage/impl/jace"
	"anchorage/impl/vary"
)

var endpoints = []string{
	jace.EndpointLoad, jace.EndpointLoadFile, jace.EndpointInit,
	jace.EndpointView, jace.EndpointPress, jace.EndpointActions,
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `"x"`, `{"action":"calc.input","params":{"digit":7}}`,
		`{"action":"calc.equals","dry_run":true,"session_id":"sess_1","intent":"check"}`,
		`{"source":"globalThis.jace={}","env":{"now":"2026-01-01T00:00:00Z"}}`,
		`{"path":"/m.js"}`, `{"state":{"a":[1,2,{"b":null}]},"audience":"agent"}`,
		`{"env":{"session_id":"","dry_run":"yes"}}`, `{"action":1e999}`, `{"action":"a"} trailing`,
		"{\"action\":\"\xff\xfe\"}", `{"a":` + string(make([]byte, 64)) + `}`, `{"action":"a","action":"b"}`,
		`{"params":{"deep":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}`,
	} {
		f.Add([]byte(s))
	}
	dec := jace.NewDecoder(jace.DefaultMaxBody, vary.Set{})
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, ep := range endpoints {
			req, e := dec.Decode(ep, body)
			if e != nil {
				if e.Status < 400 || e.Status > 499 || e.Code == "" || e.Message == "" {
					t.Fatalf("%s: refusal %+v is not a 4xx error with code and message", ep, e)
				}
				if req != nil {
					t.Fatalf("%s: both a request and an error", ep)
				}
				continue
			}
			again, err := json.Marshal(req)
			if err != nil {
				t.Fatalf("%s: accepted request does not re-encode: %v", ep, err)
			}
			req2, e2 := dec.Decode(ep, again)
			if e2 != nil {
				t.Fatalf("%s: re-encoded request %s refused: %v", ep, again, e2)
			}
			if diff := cmp.Diff(normal(t, req), normal(t, req2)); diff != "" {
				t.Fatalf("%s: round trip changed the request (-first +second):\n%s", ep, diff)
			}
		}
	})
}

// normal compares requests by their JSON, so raw fields that differ only
// in spacing compare equal.
func normal(t *testing.T, v any) any {
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
