// Command llmserve serves a script of model turns over the
// OpenAI-compatible chat-completions protocol on loopback (package
// anchorage/sim/llm, Server): each POST /v1/chat/completions, streaming or
// not, answers the next turn of the script. Point any client of the
// protocol at it, plurnkd's openai provider for one:
//
//	go run ./sim/llm/cmd/llmserve -script turns.txt -addr 127.0.0.1:8400
//	PLURNK_MODEL_local=openai/scripted PLURNK_MODEL=local \
//	PLURNK_OPENAI_BASE_URL=http://127.0.0.1:8400/v1 go run ./impl/plurnk/cmd/plurnkd
//
// The script file: model turns separated by lines holding only "---".
// When it runs out, requests are answered 500. -grammar makes the server
// enforce the trivial grammar of plurnkd's PLURNK_PROVIDERS_GBNF boot
// check. SIGINT or SIGTERM stops it.
//
// It may import the standard library and anchorage/sim/llm.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
	"unicode/utf8"

	"anchorage/sim/llm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stderr, nil)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil:
		fmt.Fprintln(os.Stderr, "llmserve:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer, ready func(addr string)) error {
	fs := flag.NewFlagSet("llmserve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	script := fs.String("script", "", "script file of model turns (required)")
	addr := fs.String("addr", "127.0.0.1:0", "listen address (port 0 picks a free one)")
	grammar := fs.Bool("grammar", false, `enforce the trivial grammar root ::= "text"`)
	tokens := fs.Int("chars-per-token", 4, "the tokenizer estimate behind the reported usage")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: llmserve -script turns.txt [-addr 127.0.0.1:0] [-grammar] [-chars-per-token 4]

Serves a script of model turns over the OpenAI-compatible chat-completions protocol
(POST /v1/chat/completions, streaming or not): each request is answered with the
next turn, whatever it asks; when the script runs out, requests are answered 500.
The listening address is printed on stderr. SIGINT or SIGTERM stops it.

The script file: the model's turns, separated by lines holding only "---". A plurnk
turn is DSL text, e.g.

  <<PLAN:read the notes:PLAN
  <<READ(file:///notes.md)::READ
  <<SEND[102]:reading:SEND
  ---
  <<PLAN:answer:PLAN
  <<SEND[200]:the notes hold one heading:SEND

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *script == "" {
		return errors.New("-script is required (llmserve -h)")
	}
	b, err := os.ReadFile(*script)
	if err != nil {
		return fmt.Errorf("-script: %w", err)
	}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return fmt.Errorf("-script %s: a binary file, not a script of model turns", *script)
	}
	turns := llm.ParseScript(string(b))
	m := llm.New(turns...)
	m.CharsPerToken = *tokens
	srv := llm.NewServer(m)
	srv.HonourGrammar = *grammar
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "llmserve: listening on http://%s/v1 (%d scripted turns)\n", ln.Addr(), len(turns))
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
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
