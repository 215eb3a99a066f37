// Command plurnkd serves the plurnk-service 0.56 daemon (features/plurnk/
// SPEC.md, the JSON-RPC methods and notifications sections) on a loopback
// WebSocket, with a scripted model: every reply the model gives is read in
// advance from a script file.
//
// Usage:
//
//	plurnkd -script turns.txt [-addr 127.0.0.1:0] [-root .] [-sh] [-yolo]
//
//	-script  the script of model turns (required)
//	-addr    where to listen; the default 127.0.0.1:0 picks a free port.
//	         The address is printed on stderr as "plurnkd: listening on ws://HOST:PORT/".
//	-root    the workspace root for file entries (default: the current directory)
//	-sh      register the real sh executor, so EXEC runs commands on this host
//	-yolo    accept every EXEC proposal without a loop.resolve
//
// Configuration variables (PLURNK_MAX_TURNS, PLURNK_POLICY, …) are read from
// the environment. SIGINT or SIGTERM stops the server cleanly.
//
// # Script file
//
// One model turn after another, in the order the model gives them, across
// every run, loop and session: the daemon runs each session's loops through
// the runs orchestration (anchorage/impl/plurnk/runs), so a turn that
// spawns a sister with EDIT(run://<name>):prompt and parks with SEND[202]
// is followed by the sister's turns, and the sister's conclusion resumes
// the parked loop with the next turn of the script. A line holding only "---" separates two turns;
// blank lines at the start and end of a turn are dropped. When the script
// runs out, the next generate call fails and its loop ends with 500. Example:
//
//	<<PLAN:note the capital:PLAN
//	<<EDIT(known:///france.md):Paris:EDIT
//	<<SEND[102]:noted:SEND
//	---
//	<<PLAN:answer:PLAN
//	<<SEND[200]:Paris is the capital.:SEND
//
// # Example session
//
// With that script, a client (websocat, wscat, a browser) sends one JSON-RPC
// request per frame; lines marked <- are what comes back, notifications
// included (ids as a fresh daemon numbers them; "…" elides fields; the
// encoder writes < as \u003c, shown here as <):
//
//	-> {"jsonrpc":"2.0","id":1,"method":"session.create","params":{"name":"geo"}}
//	<- {"jsonrpc":"2.0","method":"session/created","params":{"id":1,"name":"geo","projectRoot":null}}
//	<- {"jsonrpc":"2.0","id":1,"result":{"id":1,"name":"geo","runId":2,"runName":"model","projectRoot":null}}
//	-> {"jsonrpc":"2.0","id":2,"method":"loop.run","params":{"prompt":"What is the capital of France?"}}
//	<- {"jsonrpc":"2.0","method":"log/entry","params":{"entry":{"id":7,"run_id":2,"loop_id":4,"turn_id":5,"loop_seq":1,"turn_seq":0,"sequence":1,"path":"log:///1/0/1/EDIT","op":"EDIT","origin":"plurnk","target":"plurnk:///prompt/1",…}}}
//	<- {"jsonrpc":"2.0","method":"log/entry","params":{"entry":{…,"path":"log:///1/1/1/EDIT","op":"EDIT","target":"known:///france.md","status":201,…}}}
//	<- … (the SEND rows of turns 1 and 2)
//	<- {"jsonrpc":"2.0","method":"loop/terminated","params":{"loopId":4,"loopSeq":1,"modelRunId":2,"runId":2,"finalStatus":200,"hitMaxTurns":false,"reason":"SEND[200]","turns":2,"usage":{…},"costPico":0,"meta":{}}}
//	<- {"jsonrpc":"2.0","id":2,"result":{"loopId":4,…,"finalStatus":200,…,"meta":{}}}
//	-> {"jsonrpc":"2.0","id":3,"method":"log.read","params":{"loopSeq":1,"turnSeq":1,"sequence":1}}
//	<- {"jsonrpc":"2.0","id":3,"result":{"entries":[{…,"op":"EDIT","tx":"<<EDIT(known:///france.md):Paris:EDIT",…}]}}
//	-> {"jsonrpc":"2.0","id":4,"method":"entry.read","params":{"target":"known:///france.md"}}
//	<- {"jsonrpc":"2.0","id":4,"result":{"status":200,"entry":{"id":…,"target":"known:///france.md","scheme":"known","path":"/france.md","channels":{"body":{"content":"Paris",…}},"tags":[],"metadata":{…}}}}
//
// Methods: session.create, session.attach, session.runs, loop.run,
// loop.inject, loop.cancel, loop.resolve, entry.read, log.read (package
// anchorage/impl/plurnk/rpc documents their params and results).
//
// It may import the standard library, afero, anchorage/sim/{clock,llm} and
// anchorage/impl/plurnk/{rpc,exec}.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/rpc"
	"anchorage/sim/clock"
	"anchorage/sim/llm"

	"github.com/spf13/afero"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Environ(), os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "plurnkd:", err)
		os.Exit(1)
	}
}

// ParseScript splits a script file into model turns.
func ParseScript(text string) []string {
	var turns []string
	var cur []string
	emit := func() {
		t := strings.Trim(strings.Join(cur, "\n"), "\n")
		if strings.TrimSpace(t) != "" {
			turns = append(turns, t+"\n")
		}
		cur = nil
	}
	for _, ln := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(ln) == "---" {
			emit()
			continue
		}
		cur = append(cur, ln)
	}
	emit()
	return turns
}

// run serves until ctx ends. ready, when not nil, receives the listening
// address once the server accepts connections.
func run(ctx context.Context, args, environ []string, stderr io.Writer, ready func(addr string)) error {
	fs := flag.NewFlagSet("plurnkd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	script := fs.String("script", "", "script file of model turns (required)")
	root := fs.String("root", ".", "workspace root")
	sh := fs.Bool("sh", false, "register the real sh executor")
	yolo := fs.Bool("yolo", false, "accept every EXEC proposal at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *script == "" {
		return errors.New("-script is required")
	}
	text, err := os.ReadFile(*script)
	if err != nil {
		return fmt.Errorf("read script: %w", err)
	}
	turns := ParseScript(string(text))
	absRoot, err := filepath.Abs(*root)
	if err != nil {
		return fmt.Errorf("workspace root: %w", err)
	}
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	cfg := rpc.OrchestratorConfig{Clock: clock.Real(), FS: afero.NewOsFs(), Root: absRoot, Env: env,
		Provider: llm.New(turns...), Yolo: *yolo}
	if *sh {
		cfg.Executors = []exec.Executor{&exec.Shell{}}
		cfg.ExecEnv = exec.ScopeEnv(environ, nil)
	}
	backend, err := rpc.NewOrchestrator(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := rpc.NewServer(backend)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	pumpCtx, stopPump := context.WithCancel(ctx)
	defer stopPump()
	go backend.Serve(pumpCtx)
	fmt.Fprintf(stderr, "plurnkd: listening on ws://%s/ (%d scripted turns)\n", ln.Addr(), len(turns))
	if ready != nil {
		ready(ln.Addr().String())
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "plurnkd: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = hs.Shutdown(sctx)
	// Shutdown does not track hijacked WebSocket connections: drop them.
	srv.Close()
	srv.Wait()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
