package jace

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"anchorage/impl/vary"
)

// The hand-written Action Result writer must agree byte for byte with
// encoding/json, and the /actions decoder with the endpoint's schema. These
// tests compare them over hand-picked awkward values and a deterministic
// random corpus.

var awkwardStrings = []string{
	"", "calc.input", "bench", "a b", `quote " inside`, `back\slash`, "tab\there", "nl\n", "ctl\x01\x1f",
	"<html>&amp;", "é ünïcödé", "emoji 😀", "line\u2028sep\u2029", "bad utf8 \xff\xfe", "del\x7f",
}

// Raw values as the runtime has them: compact JSON (from JSON.stringify or
// canonical()), with whitespace only inside strings.
var awkwardRaws = []string{
	`null`, `0`, `-1.5e+10`, `"s"`, `"é"`, `{"a":1,"b":[true,false,null]}`, `{"a":" : "}`, `["\n",2]`, "\"a\u2028b\u2029\"", "{\"\u2029\":[\"\u2028\"]}",
	`{"display":"7","acc":null,"op":null,"fresh":false}`, `"a\"b"`, `{"k":"v w"}`, `{"k":"a\" b","l":"\\"}`, `["\\\\",1]`, `[]`, `{}`,
}

func randString(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return awkwardStrings[r.IntN(len(awkwardStrings))]
	}
	const alpha = "abcXYZ_-.09 \"\\<>&é\n"
	n := r.IntN(8)
	var b strings.Builder
	for range n {
		b.WriteString(string([]rune(alpha)[r.IntN(len([]rune(alpha)))]))
	}
	return b.String()
}

func randRaw(r *rand.Rand) json.RawMessage {
	if r.IntN(4) == 0 {
		return nil
	}
	return json.RawMessage(awkwardRaws[r.IntN(len(awkwardRaws))])
}

// actionsResult is the /actions body as a struct for encoding/json: the
// oracle appendActionsBody is checked against (its field order and
// omitempty rules).
func actionsResult(o *Outcome, e *Error) any {
	type result struct {
		OK           bool              `json:"ok"`
		DryRun       bool              `json:"dry_run"`
		State        json.RawMessage   `json:"state,omitempty"`
		Result       json.RawMessage   `json:"result,omitempty"`
		AuditPreview string            `json:"audit_preview"`
		Events       []json.RawMessage `json:"events,omitempty"`
		Error        *Error            `json:"error,omitempty"`
	}
	return result{
		OK: e == nil, DryRun: o.DryRun, State: o.State, Result: o.Result, AuditPreview: o.AuditPreview, Events: o.Events, Error: e,
	}
}

func TestAppendActionsBodyMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		o := &Outcome{
			DryRun: r.IntN(2) == 0,
			State:  randRaw(r), Result: randRaw(r), AuditPreview: randString(r), Status: 200,
		}
		for range r.IntN(3) {
			o.Events = append(o.Events, randRaw(r))
		}
		var e *Error
		switch r.IntN(4) {
		case 0:
			e = &Error{Status: 422, Code: randString(r), Message: randString(r)}
		case 1:
			e = &Error{Status: 400, Code: randString(r), Message: randString(r), Hints: []string{randString(r)}, Details: json.RawMessage(`{"a":1}`)}
		}
		want := string(mustJSON(actionsResult(o, e)))
		if got := appendActionsBody(nil, o, e); string(got) != want {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestDecodeActionsAgreesWithTheSchema checks the /actions decoder against
// the endpoint's JSON Schema, which judges every other endpoint's body.
func TestDecodeActionsAgreesWithTheSchema(t *testing.T) {
	d := NewDecoder(DefaultMaxBody, vary.Set{})
	sch := d.schemas[EndpointActions]
	long := strings.Repeat("x", 257)
	cases := []string{
		`{"action":"calc.input","params":{"digit":7},"session_id":"bench"}`,
		`{"action":"calc.clear","session_id":"bench"}`,
		` { "action" : "a" , "params" : { "x" : [1, 2] } , "dry_run" : true } `,
		`{"action":"a","dry_run":false,"intent":"","params":{}}`,
		`{"action":"a","intent":"why not"}`,
		`{"action":""}`, `{"action":"` + long + `"}`, `{"action":"a","session_id":""}`,
		`{"action":"a","session_id":"` + long + `"}`, `{"action":"a","action":"b"}`, `{"action":"a",}`,
		`{"action":"a","params":{"x":1}}x`, `{"action":"a","params":{"x":}}`, `{"action":"a","params":tru}`,
		`{"action":"a","dry_run":"true"}`, `{"action":"a","dry_run":truex}`, `{"action":"a","other":1}`,
		`{"action":"a","env":{"now":"2026-01-01T00:00:00Z"}}`, `{"act\u0069on":"a"}`, `{"action":"\u0061"}`,
		`{"action":"é"}`, `{"action":1}`, `{}`, ``, `  `, `[]`, `{"action":"a"`, `{"action":"a"}}`,
		`{"params":{"a":"}"},"action":"b"}`, `{"action":"a","params":"x\"y"}`, `{"action":"a","params":1.5e3}`,
		`{"action":"a","params":{"deep":[[[{"a":null}]]]}}`, `{"action":"a","dry_run":true,"dry_run":false}`,
		`{"action":"a","params":null}`, `{"action":"a","params":[1]}`, `{"action":"a","params":`,
		"{\"action\":\"a\"}\n", `{"action":"a", "intent":"` + strings.Repeat("y", 4097) + `"}`,
	}
	for _, c := range cases {
		want, werr := d.decodeGeneral(EndpointActions, sch, []byte(c))
		got, gerr := d.Decode(EndpointActions, []byte(c))
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gerr, werr) {
			t.Errorf("%s:\n got %#v %v\nwant %#v %v", c, got, gerr, want, werr)
		}
	}
}
