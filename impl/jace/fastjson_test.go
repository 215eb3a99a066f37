package jace

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"anchorage/impl/vary"
)

// The hand-written encoders and scanners of fastjson.go (and the fast
// paths using them) must agree byte for byte with the encoding/json code
// they stand in for. These tests compare them over hand-picked awkward
// values and a deterministic random corpus.

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
			Action: randString(r), SessionID: randString(r), DryRun: r.IntN(2) == 0, Intent: randString(r),
			State: randRaw(r), Result: randRaw(r), AuditPreview: randString(r), Status: 200,
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

func TestAppendAuditRecordMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		rec := AuditRecord{
			TS: randString(r), Via: randString(r), Action: randString(r), Params: randRaw(r),
			AuditPreview: randString(r), SessionID: randString(r), IdempotencyKey: randString(r),
			DryRun: r.IntN(2) == 0, Intent: randString(r), Outcome: randString(r), Status: r.IntN(600) - 50,
			ErrorCode: randString(r),
		}
		want := string(mustJSON(rec))
		if got := appendAuditRecord(nil, &rec); string(got) != want {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func TestFastActionsRequestMatchesGeneralDecode(t *testing.T) {
	d, err := NewDecoder(DefaultMaxBody, vary.Set{})
	if err != nil {
		t.Fatal(err)
	}
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
	for i, c := range cases[:5] {
		if _, ok := fastActionsRequest([]byte(c), defaultLimits()); !ok {
			t.Errorf("case %d %s: fast path not taken", i, c)
		}
	}
	for _, c := range cases {
		want, werr := d.decodeGeneral(EndpointActions, sch, []byte(c))
		got, gerr := d.Decode(EndpointActions, []byte(c))
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gerr, werr) {
			t.Errorf("%s:\n got %#v %v\nwant %#v %v", c, got, gerr, want, werr)
		}
	}
}

func TestEnvJSONFastPath(t *testing.T) {
	rt, err := New(simConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	envs := []Env{nil, {}, {"session_id": json.RawMessage(`"x"`)}, {"dry_run": json.RawMessage(`true`), "intent": json.RawMessage(`"i"`)},
		{"now": json.RawMessage(`"2026-01-01T00:00:00Z"`)}}
	for _, modEnv := range envs {
		for _, env := range envs {
			for _, sid := range awkwardStrings {
				for _, intent := range []string{"", "why", "é\n"} {
					for _, dry := range []bool{false, true} {
						mod := &module{env: modEnv}
						if got, want := rt.envJSON(mod, env, sid, dry, intent), envJSONMerged(mod, env, sid, dry, intent); got != want {
							t.Fatalf("envJSON(%v, %v, %q, %v, %q) = %s, want %s", modEnv, env, sid, dry, intent, got, want)
						}
					}
				}
			}
		}
	}
}
