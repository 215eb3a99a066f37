package jace

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
	"github.com/tidwall/gjson"
)

func TestCalculatorPressFlow(t *testing.T) {
	h := newHarness(t, simConfig())
	h.expect(h.do(http.MethodGet, "/healthz", ""), 200, "")
	if got := h.do(http.MethodGet, "/healthz", "").body; compactJSON(t, got) != `{"ok":true}` {
		t.Fatalf("healthz body %s", got)
	}
	steps := []struct{ body, preview, display string }{
		{`{"action":"calc.input","params":{"digit":7}}`, "INPUT 7", "7"},
		{`{"action":"calc.op","params":{"op":"divide"}}`, "OP divide", "7"},
		{`{"action":"calc.input","params":{"digit":2}}`, "INPUT 2", "2"},
		{`{"action":"calc.equals"}`, "EQUALS 7 / 2 -> 3.5", "3.5"},
	}
	for _, s := range steps {
		r := h.post("/press", s.body)
		h.expect(r, 200, "")
		if got := r.get("audit_preview").String(); got != s.preview {
			t.Errorf("%s: audit_preview %q, want %q", s.body, got, s.preview)
		}
		if got := r.get("state.display").String(); got != s.display {
			t.Errorf("%s: display %q, want %q", s.body, got, s.display)
		}
		if !r.get("jace.children").IsArray() {
			t.Errorf("%s: no view in %s", s.body, r.body)
		}
	}
	r := h.post("/view", `{"audience":"agent"}`)
	if got := r.get(`jace.children.#(type=="display").value`).String(); got != "3.5" {
		t.Fatalf("view after equals shows %q: %s", got, r.body)
	}
}

func TestDryRunCommitAndEnvelope(t *testing.T) {
	h := newHarness(t, simConfig())
	dry := h.post("/actions", `{"action":"calc.input","params":{"digit":7},"dry_run":true,"intent":"enter digit","session_id":"s1"}`)
	h.expect(dry, 200, "")
	if !dry.get("ok").Bool() || !dry.get("dry_run").Bool() || dry.get("state.display").String() != "7" {
		t.Fatalf("dry run result %s", dry.body)
	}
	if v := h.post("/view", `{"session_id":"s1","audience":"agent"}`); v.get(`jace.children.#(type=="display").value`).String() != "0" {
		t.Fatalf("dry run persisted: %s", v.body)
	}
	// env.dry_run on /press is a dry run too.
	h.expect(h.post("/press", `{"action":"calc.input","params":{"digit":5},"env":{"dry_run":true,"session_id":"s1"}}`), 200, "")
	commit := h.post("/actions", `{"action":"calc.input","params":{"digit":7},"intent":"enter digit","session_id":"s1"}`)
	h.expect(commit, 200, "")
	if commit.get("dry_run").Bool() {
		t.Fatal("commit reported as dry run")
	}
	if v := h.post("/view", `{"session_id":"s1","audience":"agent"}`); v.get(`jace.children.#(type=="display").value`).String() != "7" {
		t.Fatalf("commit not persisted: %s", v.body)
	}
	// An Action Result has only the members the family's schema allows.
	commit.get("@this").ForEach(func(k, _ gjson.Result) bool {
		switch k.String() {
		case "ok", "dry_run", "state", "result", "audit_preview", "events", "error":
		default:
			t.Errorf("/actions answer has member %q: %s", k.String(), commit.body)
		}
		return true
	})
}

func TestIdempotency(t *testing.T) {
	h := newHarness(t, simConfig())
	body := `{"action":"calc.input","params":{"digit":4},"session_id":"a"}`
	first := h.post("/actions", body, IdempotencyHeader, "k1")
	h.expect(first, 200, "")
	again := h.post("/actions", body, IdempotencyHeader, "k1")
	h.expect(again, 200, "")
	if again.body != first.body || again.header.Get(ReplayedHeader) != "true" {
		t.Fatalf("replay differs or unmarked:\n%s\n%s", first.body, again.body)
	}
	if got := h.post("/view", `{"session_id":"a","audience":"agent"}`).get(`jace.children.#(type=="display").value`).String(); got != "4" {
		t.Fatalf("key applied twice: display %q", got)
	}
	h.expect(h.post("/actions", `{"action":"calc.input","params":{"digit":5},"session_id":"a"}`, IdempotencyHeader, "k1"), 422, "IDEMPOTENCY_KEY_REUSED")
	// Same key in another session is a different key.
	h.expect(h.post("/actions", `{"action":"calc.input","params":{"digit":5},"session_id":"b"}`, IdempotencyHeader, "k1"), 200, "")
	// A dry run neither consumes nor replays a key.
	h.expect(h.post("/actions", `{"action":"calc.input","params":{"digit":9},"session_id":"a","dry_run":true}`, IdempotencyHeader, "k2"), 200, "")
	r := h.post("/actions", `{"action":"calc.input","params":{"digit":9},"session_id":"a"}`, IdempotencyHeader, "k2")
	h.expect(r, 200, "")
	if r.header.Get(ReplayedHeader) != "" || r.get("state.display").String() != "49" {
		t.Fatalf("dry run consumed the key: %s", r.body)
	}
}

func TestRememberForgetsTheOldestKeys(t *testing.T) {
	s := &session{keys: map[string]*keyEntry{}}
	for _, k := range []string{"a", "b", "c"} {
		s.remember(k, "fp-"+k, &Outcome{Status: 200, ran: true}, 2)
	}
	if _, ok := s.keys["a"]; ok || len(s.keys) != 2 || s.keys["c"].fingerprint != "fp-c" {
		t.Fatalf("keys %v, order %v", s.keys, s.keyOrder)
	}
}

func TestViewAudiencesAndNegotiation(t *testing.T) {
	h := newHarness(t, simConfig())
	agent := h.post("/view", `{"audience":"agent"}`)
	h.expect(agent, 200, "")
	if strings.Contains(agent.body, "presentation") || strings.Contains(agent.body, `"keypad"`) || !strings.Contains(agent.body, `"hint"`) {
		t.Fatalf("agent view: %s", agent.body)
	}
	humanJSON := h.post("/view?format=jace", `{"audience":"human"}`)
	h.expect(humanJSON, 200, "")
	if humanJSON.header.Get("Content-Type") != TypeJACE || !strings.Contains(humanJSON.body, "presentation") ||
		!strings.Contains(humanJSON.body, `"keypad"`) || strings.Contains(humanJSON.body, `"hint"`) {
		t.Fatalf("human JSON view (%s): %s", humanJSON.header.Get("Content-Type"), humanJSON.body)
	}
	humanHTML := h.post("/view", `{"audience":"human"}`)
	if !strings.HasPrefix(humanHTML.header.Get("Content-Type"), "text/html") || !strings.Contains(humanHTML.body, "<html") {
		t.Fatalf("human view without Accept is not HTML: %s", humanHTML.body)
	}
	byAccept := h.post("/view", `{}`, "Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
	if !strings.Contains(byAccept.body, "<dl><dt>type</dt><dd>app</dd><dt>id</dt><dd>calculator</dd>") || strings.Contains(byAccept.body, "agent-hint") {
		t.Fatalf("HTML view by Accept: %s", byAccept.body)
	}
	full := h.post("/view", `{}`, "Accept", TypeJACE)
	if full.header.Get("Content-Type") != TypeJACE || !strings.Contains(full.body, `"keypad"`) || !strings.Contains(full.body, `"hint"`) {
		t.Fatalf("unfiltered JACE view: %s", full.body)
	}
	if r := h.post("/view", `{}`, "Accept", "image/png"); !strings.HasPrefix(r.header.Get("Content-Type"), TypeHTML) || r.header.Get("Vary") != "Accept" {
		t.Fatalf("an unsatisfiable Accept is not answered with the default HTML: %v %s", r.header, r.body)
	}
	if r := h.post("/view", `{}`); !strings.HasPrefix(r.header.Get("Content-Type"), TypeHTML) {
		t.Fatalf("a view without Accept is not HTML: %v", r.header)
	}
	if r := h.post("/view?format=html", `{"audience":"agent"}`, "Accept", TypeJACE); !strings.HasPrefix(r.header.Get("Content-Type"), TypeHTML) || strings.Contains(r.body, "keypad") {
		t.Fatalf("?format=html does not come first, or the agent view is not filtered: %v %s", r.header, r.body)
	}
	h.expect(h.post("/view?format=xml", `{}`), 400, "INVALID_PARAMS")
	given := h.post("/view", `{"state":{"display":"42","acc":null,"op":null,"fresh":true},"audience":"agent"}`)
	if given.get(`jace.children.#(type=="display").value`).String() != "42" {
		t.Fatalf("view of a given state: %s", given.body)
	}
}

func TestNegotiate(t *testing.T) {
	offers := []string{TypeHTML, TypeJACE, TypeJSON}
	cases := []struct {
		accept, mt string
		ok         bool
	}{
		{"", "", false},
		{"*/*", TypeHTML, true},
		{"application/jace+json", TypeJACE, true},
		{"text/html", TypeHTML, true},
		{"text/html;q=0.5, application/jace+json", TypeJACE, true},
		{"text/*", TypeHTML, true},
		{"image/png", "", false},
		{"application/json;q=0, */*;q=0.1", TypeHTML, true},
		{"*/*;q=0.5, application/json", TypeJSON, true},
		{"application/jace+json, application/jace+json;q=0", TypeJACE, true},
		{"application/jace+json;q=0, application/jace+json", "", false},
	}
	for _, c := range cases {
		mt, ok := Negotiate(c.accept, offers)
		if mt != c.mt || ok != c.ok {
			t.Errorf("Negotiate(%q) = %q %v, want %q %v", c.accept, mt, ok, c.mt, c.ok)
		}
	}
}

func TestRequestErrors(t *testing.T) {
	cfg := simConfig()
	cfg.MaxBody = 256
	h := newHarness(t, cfg)
	cases := []struct {
		name, method, path, body string
		headers                  []string
		status                   int
		code, msg                string
	}{
		{"bad json", "POST", "/press", "{\"action\":\n  nope}", nil, 400, "INVALID_PARAMS", "line 2, column 4"},
		{"two values", "POST", "/press", `{"action":"a"} {}`, nil, 400, "INVALID_PARAMS", "extra data"},
		{"missing action", "POST", "/actions", `{"params":{}}`, nil, 400, "INVALID_PARAMS", "missing property 'action'"},
		{"wrong type", "POST", "/actions", `{"action":"calc.clear","dry_run":"yes"}`, nil, 400, "INVALID_PARAMS", "at '/dry_run'"},
		{"unknown field", "POST", "/actions", `{"action":"calc.clear","dryrun":true}`, nil, 400, "INVALID_PARAMS", "dryrun"},
		{"bad env.now", "POST", "/press", `{"action":"calc.clear","env":{"now":"yesterday"}}`, nil, 400, "INVALID_PARAMS", "at '/env/now'"},
		{"bad audience", "POST", "/view", `{"audience":"robot"}`, nil, 400, "INVALID_PARAMS", "at '/audience'"},
		{"too large", "POST", "/load", `{"source":"` + strings.Repeat("x", 300) + `"}`, nil, 413, "PAYLOAD_TOO_LARGE", "256 bytes"},
		{"not json", "POST", "/press", `{"action":"calc.clear"}`, []string{"Content-Type", "text/plain"}, 415, "UNSUPPORTED_MEDIA_TYPE", "text/plain"},
		{"method", "GET", "/press", "", nil, 405, "METHOD_NOT_ALLOWED", "use POST"},
		{"path", "GET", "/nope", "", nil, 404, "NOT_FOUND", "/nope"},
		{"unknown action", "POST", "/press", `{"action":"calc.sqrt"}`, nil, 404, "NOT_FOUND", `"calc.sqrt"`},
		{"env on /actions", "POST", "/actions", `{"action":"calc.clear","env":{}}`, nil, 400, "INVALID_PARAMS", "env"},
		{"params not an object", "POST", "/actions", `{"action":"calc.clear","params":[1]}`, nil, 400, "INVALID_PARAMS", "/params"},
		{"module error", "POST", "/press", `{"action":"calc.input","params":{"digit":"x"}}`, nil, 400, "INVALID_PARAMS", "digit"},
		{"load incomplete", "POST", "/load", `{"source":"globalThis.jace = {manifest:{name:'x',version:'1'}, init(){}}"}`, nil, 400, "INVALID_PARAMS", "view (a function), actions (an object of functions)"},
		{"load-file missing", "POST", "/load-file", `{"path":"/nope.js"}`, nil, 404, "NOT_FOUND", "/nope.js"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(c.method, c.path, c.body, c.headers...)
			h.expect(r, c.status, c.code)
			if msg := r.get("error.message").String(); !strings.Contains(msg, c.msg) {
				t.Fatalf("message %q lacks %q", msg, c.msg)
			}
			if r.header.Get("Content-Type") != "application/json" {
				t.Fatalf("error Content-Type %q", r.header.Get("Content-Type"))
			}
		})
	}
}

func TestModuleErrorLeavesStateAndCarriesPreview(t *testing.T) {
	h := newHarness(t, simConfig())
	for _, b := range []string{`{"action":"calc.input","params":{"digit":8}}`, `{"action":"calc.op","params":{"op":"divide"}}`, `{"action":"calc.input","params":{"digit":0}}`} {
		h.expect(h.post("/press", b), 200, "")
	}
	before := h.srv.Runtime().State("")
	r := h.post("/actions", `{"action":"calc.equals"}`)
	h.expect(r, 400, "DIVIDE_BY_ZERO")
	if r.get("ok").Bool() || r.get("audit_preview").String() != "EQUALS 8 / 0" || r.get("error.message").String() != "cannot divide by zero" {
		t.Fatalf("error result %s", r.body)
	}
	if diff := cmp.Diff(string(before), string(h.srv.Runtime().State(""))); diff != "" {
		t.Fatalf("state changed by a failed action (-before +after):\n%s", diff)
	}
}

func TestLoadAndLoadFile(t *testing.T) {
	cfg := simConfig()
	fs := afero.NewMemMapFs()
	src := `globalThis.jace = {manifest:{name:"counter",version:"2"}, init(env){return {c: env.start || 0}}, view(s){return {c:s.c}},
	  actions:{inc(s, p, env){return {state:{c:s.c+1}, result: env.cap}}}};`
	if err := afero.WriteFile(fs, "/mods/counter.js", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.FS = fs
	h := newHarness(t, cfg)
	h.expect(h.post("/load-file", `{"path":"/mods/counter.js","env":{"cap":"kv"}}`), 200, "")
	if m := h.do("GET", "/manifest", ""); m.get("name").String() != "counter" || m.get("actions.0").String() != "inc" {
		t.Fatalf("manifest %s", m.body)
	}
	r := h.post("/press", `{"action":"inc"}`)
	h.expect(r, 200, "")
	if r.get("state.c").Int() != 1 || r.get("result").String() != "kv" || r.get("audit_preview").String() != "inc {}" {
		t.Fatalf("counter press %s", r.body)
	}
	init := h.post("/init", `{"env":{"start":10}}`)
	if compactJSON(t, init.body) != `{"state":{"c":10}}` {
		t.Fatalf("init %s", init.body)
	}
	if r := h.post("/press", `{"action":"inc"}`); r.get("state.c").Int() != 11 {
		t.Fatalf("state after init %s", r.body)
	}
	// Loading replaces every session's state.
	h.expect(h.post("/load", `{"source":`+string(mustJSON(src))+`}`), 200, "")
	if r := h.post("/press", `{"action":"inc"}`); r.get("state.c").Int() != 1 {
		t.Fatalf("state survived a load %s", r.body)
	}
}

func TestEventsAreRelayedAsSSE(t *testing.T) {
	h := newHarness(t, simConfig())
	for _, path := range []string{"/agent/events", "/events"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", h.ts.URL+path+"?session_id=calc", nil)
		resp, err := h.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("%s Content-Type %q", path, resp.Header.Get("Content-Type"))
		}
		for _, b := range []string{`{"action":"calc.input","params":{"digit":6},"session_id":"calc"}`, `{"action":"calc.op","params":{"op":"add"},"session_id":"calc"}`,
			`{"action":"calc.input","params":{"digit":0},"session_id":"calc"}`, `{"action":"calc.equals","dry_run":true,"session_id":"calc"}`,
			`{"action":"calc.input","params":{"digit":1},"session_id":"other"}`, `{"action":"calc.op","params":{"op":"add"},"session_id":"other"}`,
			`{"action":"calc.equals","session_id":"other"}`, `{"action":"calc.equals","session_id":"calc"}`} {
			h.expect(h.post("/actions", b), 200, "")
		}
		br := bufio.NewReader(resp.Body)
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		blank, _ := br.ReadString('\n')
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || blank != "\n" {
			t.Fatalf("%s: SSE framing %q %q", path, line, blank)
		}
		ev := gjson.Parse(data)
		if ev.Get("type").String() != "calc.result" || ev.Get("entity").String() != "calculator" || ev.Get("changes.display").String() != "6" ||
			!ev.Get("id").Exists() || ev.Get("ts").String() != "2026-01-01T09:00:00.000Z" {
			t.Fatalf("%s: event %s", path, data)
		}
		var keys []string
		ev.ForEach(func(k, _ gjson.Result) bool { keys = append(keys, k.String()); return true })
		if diff := cmp.Diff([]string{"type", "id", "ts", "entity", "changes"}, keys); diff != "" {
			t.Fatalf("event keys (-want +got):\n%s", diff)
		}
		cancel()
		resp.Body.Close()
	}
}

func TestAuditLog(t *testing.T) {
	var buf bytes.Buffer
	cfg := simConfig()
	cfg.AuditLog = &buf
	h := newHarness(t, cfg)
	h.post("/actions", `{"action":"calc.input","params":{"digit":3},"session_id":"s","intent":"type 3"}`, IdempotencyHeader, "key-1")
	h.post("/actions", `{"action":"calc.input","params":{"digit":3},"session_id":"s","intent":"type 3"}`, IdempotencyHeader, "key-1")
	h.post("/press", `{"action":"calc.nope"}`)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 audit lines, got %d: %s", len(lines), buf.String())
	}
	first := gjson.Parse(lines[0])
	want := map[string]string{"action": "calc.input", "params": `{"digit":3}`, "audit_preview": "INPUT 3", "session_id": "s", "idempotency_key": "key-1", "outcome": "committed", "via": "/actions"}
	for k, v := range want {
		got := first.Get(k)
		s := got.String()
		if got.IsObject() {
			s = got.Raw
		}
		if s != v {
			t.Errorf("audit %s = %q, want %q (%s)", k, s, v, lines[0])
		}
	}
	if gjson.Get(lines[1], "outcome").String() != "replayed" || gjson.Get(lines[2], "error_code").String() != "NOT_FOUND" {
		t.Fatalf("audit lines %s", buf.String())
	}
}

func TestDeterministicResponses(t *testing.T) {
	src := `globalThis.jace = {manifest:{name:"dice",version:"1"},
	  init(env){ return {rolls: [], at: new Date().toISOString()}; },
	  view(s){ return {type:"dice", rolls: s.rolls, presentation:{color:"red"}}; },
	  actions:{ roll(s, p, env){ const r = Math.floor(Math.random()*6)+1; return {state:{...s, rolls:[...s.rolls, r], at: Date()}, result:{r, now: Date.now()}, audit_preview:"ROLL "+r, events:[{type:"rolled", changes:{r}}]}; } }};`
	run := func() []string {
		h := newHarness(t, simConfig())
		var out []string
		reqs := []struct{ path, body, key string }{
			{"/load", `{"source":` + string(mustJSON(src)) + `}`, ""},
			{"/actions", `{"action":"roll","session_id":"a"}`, "k1"},
			{"/actions", `{"action":"roll","session_id":"a","dry_run":true}`, ""},
			{"/actions", `{"action":"roll","session_id":"b"}`, ""},
			{"/actions", `{"action":"roll","session_id":"a"}`, "k1"},
			{"/press", `{"action":"roll","env":{"now":"2030-05-06T07:08:09Z"}}`, ""},
			{"/view", `{"session_id":"a","audience":"agent"}`, ""},
			{"/init", `{"env":{"session_id":"b"}}`, ""},
			{"/actions", `{"action":"roll","session_id":"b"}`, ""},
		}
		for _, q := range reqs {
			var r reply
			if q.key != "" {
				r = h.post(q.path, q.body, IdempotencyHeader, q.key)
			} else {
				r = h.post(q.path, q.body)
			}
			out = append(out, r.body)
		}
		return out
	}
	a, b := run(), run()
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two runs differ (-first +second):\n%s", diff)
	}
	if !strings.Contains(a[5], `"now":1904281689000`) || a[1] != a[4] {
		t.Fatalf("env.now override or replay failed: %s / %s", a[5], a[4])
	}
}
