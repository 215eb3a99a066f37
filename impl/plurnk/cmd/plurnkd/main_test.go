package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"anchorage/impl/plurnk/rpc"

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
	turns := ParseScript(script)
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

// TestEndToEnd runs the daemon's server code with a scripted session and
// drives it over a loopback WebSocket: session.create, loop.run, the
// notifications, log.read, entry.read; then stops it.
func TestEndToEnd(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "turns.txt")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addrs := make(chan string, 1)
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-script", path, "-root", dir}, nil, &stderr, func(a string) { addrs <- a })
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
	sess := call("session.create", map[string]any{"name": "geo"})
	res := call("loop.run", map[string]any{"prompt": "What is the capital of France?"})
	if res.Get("finalStatus").Int() != 200 || res.Get("modelRunId").Int() != sess.Get("runId").Int() {
		t.Fatalf("loop.run %s", res.Raw)
	}
	methods := map[string]int{}
	for _, n := range c.Notes() {
		methods[n.Method]++
	}
	if methods["session/created"] != 1 || methods["log/entry"] != 4 || methods["loop/terminated"] != 1 {
		t.Fatalf("notifications %v", methods)
	}
	one := call("log.read", map[string]any{"loopSeq": 1, "turnSeq": 1, "sequence": 1})
	if one.Get("entries.#").Int() != 1 || one.Get("entries.0.tx").String() != "<<EDIT(known:///france.md):Paris:EDIT" {
		t.Fatalf("log.read %s", one.Raw)
	}
	ent := call("entry.read", map[string]any{"target": "known:///france.md"})
	if ent.Get("status").Int() != 200 || ent.Get("entry.channels.body.content").String() != "Paris" {
		t.Fatalf("entry.read %s", ent.Raw)
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
