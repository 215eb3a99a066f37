package rpc

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"anchorage/sim/clock"
	"anchorage/sim/llm"

	"github.com/spf13/afero"
	"github.com/tidwall/gjson"
)

// daemon starts an Orchestrator backend over replies behind a loopback
// WebSocket server and returns a connected client.
func daemon(t *testing.T, replies ...string) (*Orchestrator, *Client, string) {
	t.Helper()
	l, err := NewOrchestrator(OrchestratorConfig{Clock: clock.NewSim(time.Time{}), FS: afero.NewMemMapFs(), Root: "/work", Provider: llm.New(replies...)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewServerWith(l, ServerConfig{}))
	t.Cleanup(srv.Close)
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	return l, dial(t, url), url
}

func dial(t *testing.T, url string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func call(t *testing.T, c *Client, method string, params any) gjson.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a, err := c.Call(ctx, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if a.Error != nil {
		t.Fatalf("%s: %v", method, a.Error)
	}
	return gjson.ParseBytes(a.Result)
}

func TestMalformedFrames(t *testing.T) {
	_, c, _ := daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cases := []struct {
		frame string
		code  int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, CodeParseError},
		{`[]`, CodeInvalidRequest},
		{`42`, CodeInvalidRequest},
		{`{"jsonrpc":"1.0","id":null,"method":"log.read"}`, CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":null,"method":"no.such"}`, CodeMethodNotFound},
		{`{"jsonrpc":"2.0","id":null,"method":"session.attach","params":{"id":"seven"}}`, CodeInvalidParams},
		{`{"jsonrpc":"2.0","id":null,"method":"entry.read","params":"x"}`, CodeInvalidRequest},
	}
	for _, tc := range cases {
		a, err := c.Send(ctx, []byte(tc.frame), true)
		if err != nil {
			t.Fatalf("%s: %v", tc.frame, err)
		}
		if got := gjson.GetBytes(a.Raw, "error.code").Int(); got != int64(tc.code) {
			t.Errorf("%s: code %d, want %d (%s)", tc.frame, got, tc.code, a.Raw)
		}
	}
	// The connection survives every malformed frame.
	call(t, c, "session.create", map[string]any{"name": "after"})
}

func TestBatch(t *testing.T) {
	_, c, _ := daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a, err := c.Send(ctx, []byte(`[{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"name":"b"}},
		{"jsonrpc":"2.0","method":"session.runs"},
		{"jsonrpc":"2.0","id":2,"method":"nope"},
		{"x":1}]`), true)
	if err != nil {
		t.Fatal(err)
	}
	arr := gjson.ParseBytes(a.Raw).Array()
	if len(arr) != 3 {
		t.Fatalf("batch answer %s: want 3 items", a.Raw)
	}
	codes := map[int64]bool{}
	for _, it := range arr {
		codes[it.Get("error.code").Int()] = true
	}
	if !codes[0] || !codes[CodeMethodNotFound] || !codes[CodeInvalidRequest] {
		t.Fatalf("batch answer %s", a.Raw)
	}
}

func TestNotAttached(t *testing.T) {
	_, c, _ := daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a, err := c.Call(ctx, "loop.resolve", map[string]any{"logEntryId": 1, "decision": "accept"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Error == nil || a.Error.Code != CodeNotAttached {
		t.Fatalf("answer %s, want not attached", a.Raw)
	}
	// log.read makes the auto envelope instead.
	a, err = c.Call(ctx, "log.read", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Error != nil || gjson.GetBytes(a.Result, "entries").Raw != "[]" {
		t.Fatalf("answer %s, want an empty log of a new client run", a.Raw)
	}
}

// TestSessionEndToEnd drives session.create, loop.run, the notifications,
// log.read and entry.read over the socket.
func TestSessionEndToEnd(t *testing.T) {
	_, c, url := daemon(t,
		"<<PLAN:note it:PLAN\n<<EDIT(known:///france.md):Paris:EDIT\n<<SEND[102]:noted:SEND\n",
		"<<PLAN:finish:PLAN\n<<SEND[200]:Paris is the capital.:SEND\n")
	other := dial(t, url)
	sess := call(t, c, "session.create", map[string]any{"name": "geo"})
	if sess.Get("name").String() != "geo" || sess.Get("runId").Int() == 0 {
		t.Fatalf("session.create %s", sess.Raw)
	}
	res := call(t, c, "loop.run", map[string]any{"prompt": "What is the capital of France?"})
	// The model run is allocated by this first use, apart from the client run.
	if res.Get("finalStatus").Int() != 100 || res.Get("modelRunId").Int() == 0 || res.Get("modelRunId").Int() == sess.Get("runId").Int() || res.Get("action").String() != "enqueued_new_loop" {
		t.Fatalf("loop.run %s", res.Raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	end, err := waitNote(c, ctx, func(n Note) bool { return n.Method == "loop/terminated" })
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(end.Params, "finalStatus").Int() != 200 || gjson.GetBytes(end.Params, "meta").Raw != "{}" {
		t.Fatalf("loop/terminated %s", end.Params)
	}
	notes := c.Notes()
	var entries []gjson.Result
	terminated := 0
	for _, n := range notes {
		switch n.Method {
		case "log/entry":
			// The model run's rows (the plurnk run writes the scheme docs).
			if gjson.GetBytes(n.Params, "runId").Int() == res.Get("modelRunId").Int() {
				entries = append(entries, gjson.GetBytes(n.Params, "entry"))
			}
		case "loop/terminated":
			terminated++
		}
	}
	if terminated != 1 {
		t.Fatalf("%d loop/terminated, want 1", terminated)
	}
	model := map[string]any{"runId": res.Get("modelRunId").Int()}
	log := call(t, c, "log.read", model).Get("entries").Array()
	if len(log) == 0 || len(log) != len(entries) {
		t.Fatalf("log.read %d entries, log/entry %d", len(log), len(entries))
	}
	for i := range log {
		if log[i].Raw != entries[i].Raw {
			t.Errorf("entry %d: log.read %s, log/entry %s", i, log[i].Raw, entries[i].Raw)
		}
		for _, k := range []string{"loop_id", "turn_id", "loop_seq", "turn_seq"} {
			if !log[i].Get(k).Exists() {
				t.Errorf("entry %d lacks %s", i, k)
			}
		}
	}
	one := call(t, c, "log.read", map[string]any{"runId": res.Get("modelRunId").Int(), "loopSeq": 1, "turnSeq": 1, "sequence": 1}).Get("entries").Array()
	if len(one) != 1 || one[0].Get("op").String() != "EDIT" || !strings.Contains(one[0].Get("tx").String(), "france") {
		t.Fatalf("coordinate read %v", one)
	}
	ent := call(t, c, "entry.read", map[string]any{"target": "known:///france.md"})
	if ent.Get("status").Int() != 200 || ent.Get("entry.channels.body.content").String() != "Paris" {
		t.Fatalf("entry.read %s", ent.Raw)
	}
	if n := len(call(t, c, "log.read", model).Get("entries").Array()); n != len(log) {
		t.Fatalf("entry.read wrote a row: %d entries, was %d", n, len(log))
	}
	// A connection of no session hears nothing of this one but session/created.
	for _, n := range other.Notes() {
		if n.Method != "session/created" {
			t.Fatalf("unattached connection got %s", n.Method)
		}
	}
	runs := call(t, c, "session.runs", nil).Get("runs.#.name").Raw
	if runs != `["plurnk","client-1","model"]` { // in creation order: the model run at its first use
		t.Fatalf("session.runs names %s", runs)
	}
}

// waitNote waits until a notification satisfying ok has arrived on c
// and returns it.
func waitNote(c *Client, ctx context.Context, ok func(Note) bool) (Note, error) {
	var found Note
	err := c.wait(ctx, func(notes []Note) bool {
		for _, n := range notes {
			if ok(n) {
				found = n
				return true
			}
		}
		return false
	})
	return found, err
}
