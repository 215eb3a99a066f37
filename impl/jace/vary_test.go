package jace

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"anchorage/impl/vary"
)

// transcript runs a fixed tour of the API, one that reaches every
// variation, and writes down everything a client sees: statuses, headers
// that vary, bodies and one relayed event.
func transcript(t *testing.T, variations vary.Set) string {
	t.Helper()
	cfg := simConfig()
	cfg.MaxOutput = 0 // the default, which a variation moves
	cfg.Fuel = 3
	cfg.Vary = variations
	h := newHarness(t, cfg)
	var b strings.Builder
	note := func(label string, r reply) {
		fmt.Fprintf(&b, "%s: %d %q %q %q\n%s\n", label, r.status, r.header.Get("Content-Type"), r.header.Get("Vary"), r.header.Get(ReplayedHeader), r.body)
	}
	events, cancel := h.srv.Runtime().Subscribe("", false)
	defer cancel()
	const module = `globalThis.jace = {manifest:{name:"tour",version:"1"}, init(){return {n:0}}, view(s){return {type:"tour", n:s.n, note:"1 < 2"}},
	  actions:{quiet(s){return {state:{n:s.n+1}, events:[{kind:"x"}]}}, clock(s){return {state:s, result:Date.now()}},
	  count(s,p){let x=0; for(let i=0;i<p.n;i++) x+=1; return {state:s, result:x}}}};`
	note("load", h.post("/load", string(mustJSON(map[string]string{"source": module}))))
	note("bad json", h.post("/actions", `{"action":`))
	note("schema", h.post("/actions", `{"action":"quiet","dryrun":true}`))
	note("unknown", h.post("/actions", `{"action":"nope"}`))
	note("media", h.do("POST", "/press", `{"action":"quiet"}`, "Content-Type", "text/plain"))
	note("quiet", h.post("/actions", `{"action":"quiet","session_id":"s"}`, IdempotencyHeader, "k"))
	note("replay", h.post("/actions", `{"action":"quiet","session_id":"s"}`, IdempotencyHeader, "k"))
	note("clock", h.post("/actions", `{"action":"clock"}`))
	note("count", h.post("/actions", `{"action":"count","params":{"n":22500}}`))
	note("long", h.post("/actions", `{"action":"`+strings.Repeat("a", 300)+`"}`))
	note("big", h.post("/actions", `{"action":"quiet"}`+strings.Repeat(" ", DefaultMaxBody)))
	note("any", h.post("/view", `{}`, "Accept", "*/*"))
	note("html", h.post("/view", `{"audience":"human"}`))
	note("json", h.post("/view", `{"audience":"agent"}`, "Accept", "application/json"))
	select {
	case ev := <-events:
		fmt.Fprintf(&b, "event: %s\n", ev)
	case <-time.After(5 * time.Second):
		t.Fatal("no event relayed")
	}
	return b.String()
}

// TestEveryVariationShows checks that each variation changes what a client
// sees, and that the zero Set is the reference.
func TestEveryVariationShows(t *testing.T) {
	base := transcript(t, vary.Set{})
	if again := transcript(t, vary.Set{}); again != base {
		t.Fatalf("the tour is not deterministic:\n%s\n---\n%s", base, again)
	}
	for _, v := range Variations() {
		set, err := vary.Parse(v.Name, Variations())
		if err != nil {
			t.Fatal(err)
		}
		if got := transcript(t, set); got == base {
			t.Errorf("variation %s changes nothing a client sees", v.Name)
		}
	}
}

// TestWireKeepsFamilyCodesWithTheirStatus checks that no combination of
// the code and status variations sends a family code with another status,
// or a runtime error with a family status under another code.
func TestWireKeepsFamilyCodesWithTheirStatus(t *testing.T) {
	for _, list := range []string{"", VaryCodes, VaryStatuses, VaryCodes + "," + VaryStatuses} {
		set, err := vary.Parse(list, Variations())
		if err != nil {
			t.Fatal(err)
		}
		for k := kindBadJSON; k <= kindInternal; k++ {
			e := wire(newError(k, "m"), set)
			if st, ok := FamilyStatus(e.Code); ok && st != e.Status {
				t.Errorf("vary %q, kind %d: %s with status %d", list, k, e.Code, e.Status)
			}
			if code, ok := familyCode(e.Status); ok && code != e.Code {
				t.Errorf("vary %q, kind %d: status %d with %s, not the family's %s", list, k, e.Status, e.Code, code)
			}
			if e.Status < 400 || e.Status > 599 {
				t.Errorf("vary %q, kind %d: status %d is not an error", list, k, e.Status)
			}
		}
	}
}

// TestStatusesMoveOnlyModuleCodesThatNameNone checks the statuses
// variation on module errors: a code that names no status moves from 400
// to 500, one that names a status keeps it.
func TestStatusesMoveOnlyModuleCodesThatNameNone(t *testing.T) {
	set, err := vary.Parse(VaryStatuses, Variations())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		code, declared string
		ref, varied    int
	}{
		{"ODD", ``, 400, 500}, {"ODD", `418`, 418, 418}, {"timeout", ``, 504, 504}, {"CONFLICT", `400`, 409, 409},
	} {
		e := moduleErr(moduleError{Code: c.code, Status: json.RawMessage(c.declared)})
		if e.Status != c.ref || wire(e, set).Status != c.varied || wire(e, vary.Set{}).Status != c.ref {
			t.Errorf("%s (status %s): %d, varied %d; want %d, %d", c.code, c.declared, e.Status, wire(e, set).Status, c.ref, c.varied)
		}
	}
}
