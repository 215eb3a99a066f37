package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"anchorage/impl/plurnk/rpc"
	"anchorage/sim/llm"

	"github.com/tidwall/gjson"
)

const script = `<<PLAN:note the capital:PLAN
<<EDIT(known:///france.md):Paris:EDIT
<<SEND[102]:noted:SEND
---

<<PLAN:answer:PLAN
<<SEND[200]:Paris is the capital.:SEND
`

func TestParseScript(t *testing.T) {
	turns := llm.ParseScript(script)
	if len(turns) != 2 || !strings.HasPrefix(turns[1], "<<PLAN:answer") || !strings.HasSuffix(turns[0], ":SEND\n") {
		t.Fatalf("turns %q", turns)
	}
}

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startDaemon runs the daemon's server code over a script file in a temp
// directory and returns its address and a stop func that checks it shut
// down cleanly.
func startDaemon(t *testing.T, text string, extra ...string) (string, func()) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "turns.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-script", path, "-root", dir}, extra...), []string{"HOME=" + dir}, &stderr, func(a string) { addrs <- a })
	}()
	select {
	case addr := <-addrs:
		return addr, func() {
			stop()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("run returned %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("the daemon did not stop")
			}
		}
	case err := <-done:
		stop()
		t.Fatalf("run: %v", err)
	case <-time.After(5 * time.Second):
		stop()
		t.Fatal("the daemon did not start")
	}
	return "", nil
}

const multiScript = `<<PLAN:delegate the count:PLAN
<<EDIT(run://helper):count the files:EDIT
<<SEND[202]:waiting for the helper:SEND
---
<<PLAN:count:PLAN
<<SEND[200]:3 files:SEND
---
<<PLAN:report:PLAN
<<SEND[200]:the helper counted 3 files:SEND
`

// TestMultiRunEndToEnd drives a scripted session of two runs over a
// loopback WebSocket: the model spawns run://helper and parks; the helper
// concludes, which wakes the model's parked loop in place with the
// helper's collect delta; the model concludes; the client hears both
// runs' rows and ends, lists both runs and reads the delta.
func TestMultiRunEndToEnd(t *testing.T) {
	addr, stop := startDaemon(t, multiScript)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := rpc.Dial(ctx, "ws://"+addr+"/")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	call := func(method string, params any) gjson.Result {
		t.Helper()
		a, err := c.Call(ctx, method, params)
		if err != nil || a.Error != nil {
			t.Fatalf("%s: %v %v", method, err, a.Error)
		}
		return gjson.ParseBytes(a.Result)
	}
	call("session.create", map[string]any{"name": "count"})
	res := call("loop.run", map[string]any{"prompt": "How many files?"})
	model := res.Get("modelRunId").Int()
	if res.Get("finalStatus").Int() != 100 || model == 0 || res.Get("runId").Int() != model {
		t.Fatalf("loop.run %s, want the model run's loop accepted with 100", res.Raw)
	}
	ended := func(n rpc.Note) bool {
		return n.Method == "loop/terminated" && gjson.GetBytes(n.Params, "runId").Int() == model
	}
	end, err := waitNote(ctx, c, ended)
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(end.Params, "finalStatus").Int() != 200 || gjson.GetBytes(end.Params, "loopSeq").Int() != 1 {
		t.Fatalf("the model's loop/terminated %s, want loop 1 ended 200", end.Params)
	}
	runs := call("session.runs", nil)
	if runs.Get("runs.#.name").Raw != `["plurnk","client-1","model","helper"]` || runs.Get("runs.3.parent").String() != "model" {
		t.Fatalf("session.runs %s", runs.Raw)
	}
	helper := runs.Get("runs.3.id").Int()
	terminated, entries := map[int64]int{}, map[int64]int{}
	for _, n := range c.Notes() {
		switch n.Method {
		case "loop/terminated":
			terminated[gjson.GetBytes(n.Params, "runId").Int()]++
		case "log/entry":
			entries[gjson.GetBytes(n.Params, "entry.run_id").Int()]++
		}
	}
	if terminated[model] != 1 || terminated[helper] != 1 {
		t.Fatalf("loop/terminated by run %v, want one for the model (%d) and one for the helper (%d)", terminated, model, helper)
	}
	if entries[model] == 0 || entries[helper] == 0 {
		t.Fatalf("log/entry by run %v, want rows of both runs", entries)
	}
	delta := call("log.read", map[string]any{"runId": model, "loopSeq": 1, "turnSeq": 2, "sequence": 1}).Get("entries.0")
	if delta.Get("target").String() != "run://helper" || delta.Get("rx").String() != "3 files" || delta.Get("expanded").Bool() || delta.Get("origin").String() != "plurnk" {
		t.Fatalf("collect delta %s", delta.Raw)
	}
	hl := call("log.read", map[string]any{"runId": helper}).Get("entries.#.op").Raw
	if !strings.Contains(hl, `"SEND"`) {
		t.Fatalf("helper log ops %s", hl)
	}
}

// TestEndToEnd runs the daemon's server code against the scripted model
// served over the OpenAI-compatible protocol on loopback (streaming and
// not) and drives it over a loopback WebSocket: session.create, loop.run,
// the notifications, log.read, entry.read; then stops it.
func TestEndToEnd(t *testing.T) {
	for _, stream := range []string{"0", "1"} {
		t.Run("stream="+stream, func(t *testing.T) { endToEnd(t, stream) })
	}
}

func endToEnd(t *testing.T, stream string) {
	dir := t.TempDir()
	model := llm.NewServer(llm.New(llm.ParseScript(script)...))
	hs := model.Start()
	defer hs.Close()
	env := []string{"PLURNK_MODEL_local=openai/scripted-geo", "PLURNK_MODEL=local", "PLURNK_OPENAI_BASE_URL=" + hs.URL + "/v1", "PLURNK_OPENAI_STREAM=" + stream, "HOME=" + t.TempDir()}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addrs := make(chan string, 1)
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-root", dir}, env, &stderr, func(a string) { addrs <- a })
	}()
	var addr string
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("run: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the daemon did not start")
	}
	if !strings.Contains(stderr.String(), "listening on ws://"+addr) {
		t.Fatalf("stderr %q lacks the address", stderr.String())
	}

	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := rpc.Dial(cctx, "ws://"+addr+"/")
	if err != nil {
		t.Fatal(err)
	}
	call := func(method string, params any) gjson.Result {
		t.Helper()
		a, err := c.Call(cctx, method, params)
		if err != nil || a.Error != nil {
			t.Fatalf("%s: %v %v", method, err, a.Error)
		}
		return gjson.ParseBytes(a.Result)
	}
	sess := call("session.create", map[string]any{"name": "geo", "settings": map[string]any{"client": "e2e-test"}})
	res := call("loop.run", map[string]any{"prompt": "What is the capital of France?"})
	if res.Get("finalStatus").Int() != 100 || res.Get("modelRunId").Int() == 0 || res.Get("modelRunId").Int() == sess.Get("runId").Int() {
		t.Fatalf("loop.run %s", res.Raw)
	}
	end, err := waitNote(cctx, c, func(n rpc.Note) bool { return n.Method == "loop/terminated" })
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(end.Params, "finalStatus").Int() != 200 || gjson.GetBytes(end.Params, "usage.completionTokens").Int() == 0 {
		t.Fatalf("loop/terminated %s", end.Params)
	}
	methods := map[string]int{}
	for _, n := range c.Notes() {
		if n.Method == "log/entry" && gjson.GetBytes(n.Params, "runId").Int() != res.Get("modelRunId").Int() {
			continue // the plurnk run's (the scheme docs)
		}
		methods[n.Method]++
	}
	if methods["session/created"] != 1 || methods["log/entry"] != 4 || methods["loop/terminated"] != 1 {
		t.Fatalf("notifications %v", methods)
	}
	one := call("log.read", map[string]any{"runId": res.Get("modelRunId").Int(), "loopSeq": 1, "turnSeq": 1, "sequence": 1})
	if one.Get("entries.#").Int() != 1 || one.Get("entries.0.tx").String() != "<<EDIT(known:///france.md):Paris:EDIT" {
		t.Fatalf("log.read %s", one.Raw)
	}
	ent := call("entry.read", map[string]any{"target": "known:///france.md"})
	if ent.Get("status").Int() != 200 || ent.Get("entry.channels.body.content").String() != "Paris" {
		t.Fatalf("entry.read %s", ent.Raw)
	}
	calls := model.Calls()
	if len(calls) != 2 || calls[0].Model != "scripted-geo" || calls[0].Client != "e2e-test" || calls[0].Stream != (stream == "1") {
		t.Fatalf("the model server saw %+v", calls)
	}

	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon did not stop")
	}
	c.Close()
}

// TestHelp: -h documents every flag and variable and exits 0 (run
// returns flag.ErrHelp, which main turns into status 0).
func TestHelp(t *testing.T) {
	var out syncBuffer
	err := run(context.Background(), []string{"-h"}, nil, &out, nil)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("run -h: %v", err)
	}
	if n := strings.Count(out.String(), "usage: plurnkd"); n != 1 {
		t.Errorf("-h printed the usage %d times", n)
	}
	for _, want := range []string{"-addr", "-root", "-script", "-sh", "-yolo", "-state", "PLURNK_STATE_DIR", "PLURNK_GIT_ALLOWED", "PLURNK_GIT_AUTO", "session.members", "PLURNK_MODEL_<alias>", "PLURNK_OPENAI_BASE_URL", "PLURNK_PROVIDERS_GBNF", "PLURNK_RPC_TIMEOUT"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-h lacks %s:\n%s", want, out.String())
		}
	}
}

// TestRefusals: a nonexistent -root and a binary script are usage errors
// (exit 2) with a message naming the problem.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "turns.bin")
	if err := os.WriteFile(bin, []byte{0x7f, 'E', 'L', 'F', 0, 1, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-root", filepath.Join(dir, "missing")}, "no such directory"},
		{[]string{"-root", dir, "-script", bin}, "binary file"},
		{[]string{"-root", dir, "-script", filepath.Join(dir, "none.txt")}, "none.txt"},
		{[]string{"-bogus"}, "-bogus"},
	} {
		var out syncBuffer
		err := run(context.Background(), tc.args, nil, &out, nil)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run %v: %v, want a usage error mentioning %q", tc.args, err, tc.want)
		}
	}
}

// TestGrammarBootCheck: with PLURNK_PROVIDERS_GBNF the daemon starts
// against a server that enforces the trivial grammar and refuses one that
// ignores it; with the variable at 0 no check is made.
func TestGrammarBootCheck(t *testing.T) {
	for _, tc := range []struct {
		honour bool
		gbnf   string
		starts bool
		calls  int
	}{{true, "1", true, 1}, {false, "1", false, 1}, {false, "0", true, 0}} {
		srv := llm.NewServer(llm.New("<<PLAN:p:PLAN\n<<SEND[200]:not the probe:SEND\n"))
		srv.HonourGrammar = tc.honour
		hs := srv.Start()
		env := []string{"PLURNK_MODEL_m=openai/x", "PLURNK_MODEL=m", "PLURNK_OPENAI_BASE_URL=" + hs.URL + "/v1", "PLURNK_PROVIDERS_GBNF=" + tc.gbnf, "HOME=" + t.TempDir()}
		ctx, stop := context.WithCancel(context.Background())
		var out syncBuffer
		started := make(chan struct{}, 1)
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"-root", t.TempDir()}, env, &out, func(string) { started <- struct{}{} })
		}()
		select {
		case <-started:
			if !tc.starts {
				t.Errorf("%+v: started", tc)
			}
			stop()
			<-done
		case err := <-done:
			if tc.starts || err == nil || !strings.Contains(err.Error(), "does not enforce grammars") {
				t.Errorf("%+v: run %v", tc, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%+v: neither started nor refused", tc)
		}
		stop()
		if n := len(srv.Calls()); n != tc.calls {
			t.Errorf("%+v: %d calls to the model, want %d", tc, n, tc.calls)
		}
		hs.Close()
	}
}

// TestStateSurvivesRestart: with -state on a real directory, a session and
// its loop's rows outlive the daemon; the next daemon serves them from
// state.json and leaves no temporary file behind.
func TestStateSurvivesRestart(t *testing.T) {
	state := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(addr string) *rpc.Client { t.Helper(); return dialDaemon(t, ctx, addr) }
	call := func(c *rpc.Client, method string, params any) gjson.Result {
		t.Helper()
		return callOK(t, ctx, c, method, params)
	}

	addr, stop := startDaemon(t, script, "-state", state)
	c := dial(addr)
	sess := call(c, "session.create", map[string]any{"name": "kept"})
	model := call(c, "loop.run", map[string]any{"prompt": "What is the capital of France?"}).Get("modelRunId").Int()
	if _, err := waitNote(ctx, c, func(n rpc.Note) bool { return n.Method == "loop/terminated" }); err != nil {
		t.Fatal(err)
	}
	before := call(c, "log.read", map[string]any{"runId": model}).Get("entries").Raw
	c.Close()
	stop()

	addr, stop = startDaemon(t, script, "-state", state)
	defer stop()
	c = dial(addr)
	defer c.Close()
	got := call(c, "session.attach", map[string]any{"id": sess.Get("id").Int()})
	if got.Get("name").String() != "kept" {
		t.Fatalf("session.attach after the restart %s, want the session named kept", got.Raw)
	}
	after := call(c, "log.read", map[string]any{"runId": model}).Get("entries").Raw
	if after != before || !strings.Contains(after, "Paris") {
		t.Fatalf("the model run's log after the restart\n%s\nwant the one before it\n%s", after, before)
	}
	if entry := call(c, "entry.read", map[string]any{"target": "known:///france.md"}); entry.Get("entry.channels.body.content").String() != "Paris" {
		t.Fatalf("entry.read after the restart %s", entry.Raw)
	}
	names, err := filepath.Glob(filepath.Join(state, "*"))
	if err != nil || len(names) != 1 || filepath.Base(names[0]) != rpc.StateFile {
		t.Fatalf("the state directory holds %v (%v), want only %s", names, err, rpc.StateFile)
	}
}

// TestDebugAudit: with -debug the daemon offers debug.audit, which finds
// no breach of the drain discipline after a loop and answers -32001 for a
// session it does not hold; without -debug the method does not exist.
func TestDebugAudit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	addr, stop := startDaemon(t, script, "-debug")
	defer stop()
	c := dialDaemon(t, ctx, addr)
	defer c.Close()
	sess := callOK(t, ctx, c, "session.create", map[string]any{"name": "audited"}).Get("id").Int()
	callOK(t, ctx, c, "loop.run", map[string]any{"prompt": "What is the capital of France?"})
	if _, err := waitNote(ctx, c, func(n rpc.Note) bool { return n.Method == "loop/terminated" }); err != nil {
		t.Fatal(err)
	}
	if got := callOK(t, ctx, c, "debug.audit", map[string]any{"id": sess}).Get("breaches"); !got.IsArray() || len(got.Array()) != 0 {
		t.Fatalf("debug.audit after a loop: breaches %s, want []", got.Raw)
	}
	if a, err := c.Call(ctx, "debug.audit", map[string]any{"id": sess + 100}); err != nil || a.Error == nil || a.Error.Code != rpc.CodeSessionNotFound {
		t.Fatalf("debug.audit of an unknown session: %v %+v", err, a.Error)
	}

	plain, stopPlain := startDaemon(t, script)
	defer stopPlain()
	p := dialDaemon(t, ctx, plain)
	defer p.Close()
	if a, err := p.Call(ctx, "debug.audit", map[string]any{"id": 1}); err != nil || a.Error == nil || a.Error.Code != rpc.CodeMethodNotFound {
		t.Fatalf("debug.audit without -debug: %v %+v", err, a.Error)
	}
}

// dialDaemon connects to the daemon at addr, failing the test if it cannot.
func dialDaemon(t *testing.T, ctx context.Context, addr string) *rpc.Client {
	t.Helper()
	c, err := rpc.Dial(ctx, "ws://"+addr+"/")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// callOK calls method and returns its result, failing the test on a
// transport error or an error answer.
func callOK(t *testing.T, ctx context.Context, c *rpc.Client, method string, params any) gjson.Result {
	t.Helper()
	a, err := c.Call(ctx, method, params)
	if err != nil || a.Error != nil {
		t.Fatalf("%s: %v %v", method, err, a.Error)
	}
	return gjson.ParseBytes(a.Result)
}

// TestSessionsSurviveByDefault: without -state or PLURNK_STATE_DIR the
// sessions of a workspace are kept under $HOME and found again by the next
// daemon on the same root; without HOME either, plurnkd refuses to start
// rather than keep nothing.
func TestSessionsSurviveByDefault(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	path := filepath.Join(root, "turns.txt")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	start := func(env []string) (string, func(), error) {
		ctx, stop := context.WithCancel(context.Background())
		addrs := make(chan string, 1)
		done := make(chan error, 1)
		var stderr syncBuffer
		go func() {
			done <- run(ctx, []string{"-script", path, "-root", root}, env, &stderr, func(a string) { addrs <- a })
		}()
		select {
		case a := <-addrs:
			return a, func() { stop(); <-done }, nil
		case err := <-done:
			stop()
			return "", nil, err
		case <-time.After(10 * time.Second):
			stop()
			return "", nil, fmt.Errorf("plurnkd neither started nor refused: %s", stderr.String())
		}
	}
	if _, _, err := start(nil); err == nil || !strings.Contains(err.Error(), "HOME") {
		t.Fatalf("without HOME or a state directory: %v, want a refusal naming HOME", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	addr, stop, err := start([]string{"HOME=" + home})
	if err != nil {
		t.Fatal(err)
	}
	c := dialDaemon(t, ctx, addr)
	sess := callOK(t, ctx, c, "session.create", map[string]any{"name": "kept"})
	c.Close()
	stop()
	addr, stop, err = start([]string{"HOME=" + home})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c = dialDaemon(t, ctx, addr)
	defer c.Close()
	if got := callOK(t, ctx, c, "session.attach", map[string]any{"id": sess.Get("id").Int()}); got.Get("name").String() != "kept" {
		t.Fatalf("session.attach after the restart %s, want the session named kept", got.Raw)
	}
	if _, err := os.Stat(filepath.Join(rpc.DefaultStateDir(home, root), rpc.StateFile)); err != nil {
		t.Fatalf("the default state directory: %v", err)
	}
}

// waitNote waits until a notification satisfying ok has arrived on c and
// returns the first such.
func waitNote(ctx context.Context, c *rpc.Client, ok func(rpc.Note) bool) (rpc.Note, error) {
	for seen := 0; ; seen++ {
		if err := c.WaitCount(ctx, seen+1); err != nil {
			return rpc.Note{}, err
		}
		if n := c.Notes()[seen]; ok(n) {
			return n, nil
		}
	}
}

// TestStopsAfterPeerLeavesMidFrame closes a connection while the daemon is
// still answering a large batch sent on it: the answer has nowhere to go,
// yet the daemon must drop it and stop when told to, not hang on the
// connection it already closed.
func TestStopsAfterPeerLeavesMidFrame(t *testing.T) {
	addr, stop := startDaemon(t, script)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := rpc.Dial(ctx, "ws://"+addr+"/")
	if err != nil {
		t.Fatal(err)
	}
	var batch strings.Builder
	batch.WriteString("[")
	for i := range 2000 {
		if i > 0 {
			batch.WriteString(",")
		}
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"discover"}`, i)
	}
	batch.WriteString("]")
	if _, err := c.Send(ctx, []byte(batch.String()), false); err != nil {
		t.Fatal(err)
	}
	c.Close()
	stop()
}
