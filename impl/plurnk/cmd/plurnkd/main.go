// Command plurnkd serves the plurnk-service 0.56 daemon (features/plurnk/
// SPEC.md, the JSON-RPC methods and notifications sections) on a loopback
// WebSocket, over a workspace directory, with a model chosen the way the
// operator config chooses it.
//
// Usage:
//
//	plurnkd [-addr 127.0.0.1:0] [-root .] [-script turns.txt] [-sh] [-yolo] [-state DIR] [-vary LIST]
//
// Run plurnkd -h for every flag and configuration variable.
//
// # Choosing the model
//
// PLURNK_MODEL_<alias>=<provider>/<model-id> declares a model alias and
// PLURNK_MODEL=<alias> selects the default one; loop.run's alias picks
// another for one loop. The provider packages:
//
//   - openai: any server of the OpenAI-compatible chat-completions
//     protocol, at PLURNK_OPENAI_BASE_URL (default
//     https://api.openai.com/v1) with the key OPENAI_API_KEY;
//     PLURNK_OPENAI_STREAM=1 streams the replies, PLURNK_OPENAI_CONTEXT
//     gives the context window in tokens.
//   - scripted: the model id is the path of a script file of model turns,
//     played in process (-script FILE is short for
//     PLURNK_MODEL_script=scripted/FILE PLURNK_MODEL=script).
//
// Without a model, loop.run answers -32004 (provider unavailable). With
// PLURNK_PROVIDERS_GBNF set (not 0) the daemon first forces a trivial
// grammar on every declared alias and refuses to start unless exactly the
// text it allows comes back.
//
// # Script file
//
// One model turn after another, in the order the model gives them, across
// every run, loop and session; a line holding only "---" separates two
// turns. When the script runs out, the next generate call fails and its
// loop ends with 500. The same file played over HTTP by
// go run ./sim/llm/cmd/llmserve -script FILE lets plurnkd (or any other
// client of the protocol) talk to it through the openai provider:
//
//	go run ./sim/llm/cmd/llmserve -script turns.txt -addr 127.0.0.1:8400 &
//	PLURNK_MODEL_local=openai/scripted PLURNK_MODEL=local \
//	PLURNK_OPENAI_BASE_URL=http://127.0.0.1:8400/v1 \
//	go run ./impl/plurnk/cmd/plurnkd -root .
//
// # Sessions survive a restart
//
// A session is durable: every session, run, loop, log row and entry is
// saved to DIR/state.json before each notification and answer (written to
// state.json.tmp, synced, renamed), and loaded at the next start. DIR is
// -state, else PLURNK_STATE_DIR, else $HOME/.plurnk/state/<hash of the
// absolute -root>, so the same workspace finds its sessions again. SIGINT
// or SIGTERM ends every run first (loops close 499, commands are stopped);
// after a crash, a loop that was running ends 499 at the next start and a
// loop parked at 202 stays parked.
//
// # Membership
//
// The files of -root a session may write are its members: the files git
// tracks (the git binary on PATH, run as `git ls-files`; without it, or
// outside a repository, there are none) and what session.constrain picks,
// minus what it hides; view members are read-only. An EDIT of an existing
// file that is not a member, or of a view member, answers 403; every turn
// re-reads the members and shows the model, as plurnk-run EDIT rows, the
// ones changed on disk outside plurnk. session.members answers the
// resolved membership. PLURNK_GIT_ALLOWED=0 turns git membership off for
// every session (session.create's settings.git: true cannot turn it back
// on); settings.git: false turns it off for one session. The overlay and
// the switch are saved with the session under -state.
//
// # Spec-permitted variations
//
// -vary LIST (names, comma-separated, or all) makes some of the choices the
// seed leaves open otherwise than the reference decides them: notice kinds,
// parse-error and regex-error wording, reasons, the order and the extra
// members of JSON objects, stream/concluded's wake actions and summary, the
// errors section's pointers, the snippet's radius, generated session names,
// the budget headline's wording, the catalog rows' optional members
// (plurnkd -h lists them). A client that keeps to the seed works the same.
//
// Methods and notifications: call discover.
//
// It may import the standard library, afero, anchorage/sim/{clock,llm},
// anchorage/impl/vary and anchorage/impl/plurnk/{rpc,exec,provider,
// membership,config}.
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
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/rpc"
	"anchorage/impl/vary"
	"anchorage/sim/clock"
	"anchorage/sim/llm"

	"github.com/spf13/afero"
)

// usageError is a bad invocation: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	exec.KeepChildHangups() // a KILL's SIGHUP ends commands even under nohup
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Environ(), os.Stderr, nil)
	var ue usageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "plurnkd:", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "plurnkd:", err)
		os.Exit(1)
	}
}

// variables are the configuration variables -h documents.
func variables() [][2]string {
	return [][2]string{
		{"PLURNK_MODEL", "the default model alias (none: loop.run needs an alias, else -32004)"},
		{"PLURNK_MODEL_<alias>", "<provider>/<model-id>: declares an alias; providers: openai, scripted"},
		{"PLURNK_OPENAI_BASE_URL", "base URL of the OpenAI-compatible server (default " + provider.DefaultOpenAIBaseURL + ")"},
		{"OPENAI_API_KEY", "bearer key for the openai provider (never passed to EXEC)"},
		{"PLURNK_OPENAI_STREAM", "1: stream the chat completions"},
		{"PLURNK_OPENAI_CONTEXT", "the model's context window in tokens (default: unknown, no budget)"},
		{"PLURNK_OPENAI_CHARS_PER_TOKEN", "characters per token of the openai provider's token count, ceil(len/N) (default 4)"},
		{"PLURNK_PROVIDERS_GBNF", "set and not 0: verify grammar enforcement at boot, refuse to start otherwise"},
		{"PLURNK_RPC_TIMEOUT", "ms a method that is not longRunning may take before -32007 (default 30000; 0 or less: off)"},
		{"PLURNK_PROPOSAL_TIMEOUT_MS", "ms before an unresolved proposal is cancelled with outcome timeout (default 300000)"},
		{"PLURNK_SESSION_RUNS_MAX_ACTIVE", "active runs per session (default -1: no cap)"},
		{"PLURNK_MAX_TURNS", "ceiling on a loop's turns (default -1: none)"},
		{"PLURNK_MAX_STRIKES", "strikes that end a loop (default 3)"},
		{"PLURNK_MAX_COMMANDS", "ops per emission (default 99)"},
		{"PLURNK_BUDGET_CEILING", "narrows the context window used as the budget ceiling"},
		{"PLURNK_POLICY", "system policy file (default ~/.plurnk/AGENTS.md)"},
		{"PLURNK_PROJECT", "project policy file (default <root>/AGENTS.md)"},
		{"PLURNK_PACKET_INJECT", "operator notes file, re-read every turn"},
		{"PLURNK_MD_<ALIAS>", "a document materialized as plurnk:///<ALIAS>.md"},
		{"PLURNK_REQUIREMENTS", "the requirements section's default text"},
		{"PLURNK_MANIFEST_ITEMS", "catalog preview at turn 0: 0 none (default), -1 whole, N the first N rows per scheme"},
		{"PLURNK_EXEC_KILL_GRACE_MS", "ms between the polite signal and SIGKILL"},
		{"PLURNK_GIT_ALLOWED", "0: no git membership for any session (settings.git cannot override); default on"},
		{"PLURNK_GIT_AUTO", "0: no implicit repository at -root, only the ones session.constrain declares (repo)"},
		{"PLURNK_STATE_DIR", "state directory when -state is not given (default $HOME/.plurnk/state/<hash of -root>)"},
		{"PLURNK_YOLO", "set and not 0: as -yolo, accept every EXEC proposal without a loop.resolve"},
	}
}

func usage(fs *flag.FlagSet, w io.Writer) func() {
	return func() {
		fmt.Fprintln(w, "usage: plurnkd [-addr 127.0.0.1:0] [-root .] [-script turns.txt] [-sh] [-yolo] [-state DIR] [-vary LIST]")
		fmt.Fprintln(w, "\nServes the plurnk daemon (JSON-RPC 2.0 over WebSocket) on -addr; the address is printed")
		fmt.Fprintln(w, "on stderr as \"plurnkd: listening on ws://HOST:PORT/\". SIGINT or SIGTERM stops it.")
		fmt.Fprintln(w, "\nA session may write only its members: the files git tracks under -root (git on PATH)")
		fmt.Fprintln(w, "and what session.constrain picks; session.members lists them.")
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fmt.Fprintln(w, "\nEnvironment (EXEC gets it with <root>/.env layered over, minus *_API_KEY and PLURNK_*):")
		for _, v := range variables() {
			fmt.Fprintf(w, "  %-32s %s\n", v[0], v[1])
		}
	}
}

// run serves until ctx ends. ready, when not nil, receives the listening
// address once the server accepts connections.
func run(ctx context.Context, args, environ []string, stderr io.Writer, ready func(addr string)) error {
	fs := flag.NewFlagSet("plurnkd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (port 0 picks a free one)")
	script := fs.String("script", "", "script file of model turns, played in process (the scripted provider)")
	root := fs.String("root", ".", "workspace root: file entries, AGENTS.md, .env")
	sh := fs.Bool("sh", false, "register the real sh executor, so EXEC runs commands on this host")
	yolo := fs.Bool("yolo", false, "accept every EXEC proposal without a loop.resolve (PLURNK_YOLO)")
	varyList := fs.String("vary", "", vary.Usage(config.Variations()))
	debug := fs.Bool("debug", false, "offer the method debug.audit {id}: the breaches of the drain discipline among a session's runs (for conformance checks)")
	state := fs.String("state", "", "state directory: sessions are saved there (state.json, written crash-safely) and loaded at start (default PLURNK_STATE_DIR, else $HOME/.plurnk/state/<hash of -root>)")
	fs.Usage = usage(fs, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err // Parse has printed the usage
		}
		return usageError{err.Error() + " (plurnkd -h lists the flags)"}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q (plurnkd -h lists the flags)", fs.Arg(0))}
	}
	varied, err := vary.Parse(*varyList, config.Variations())
	if err != nil {
		return usageError{"-vary: " + err.Error()}
	}
	absRoot, err := filepath.Abs(*root)
	if err != nil {
		return usageError{fmt.Sprintf("-root %s: %v", *root, err)}
	}
	if st, err := os.Stat(absRoot); err != nil || !st.IsDir() {
		return usageError{fmt.Sprintf("-root %s: no such directory", *root)}
	}
	env := provider.LookupEnv(environ)
	if v := env["PLURNK_YOLO"]; v != "" && v != "0" {
		*yolo = true
	}
	if *script != "" {
		if err := checkScript(*script); err != nil {
			return err
		}
		env["PLURNK_MODEL_script"] = "scripted/" + *script
		env[provider.EnvModel] = "script"
	}
	sel, err := provider.NewSelector(env, map[string]provider.Factory{
		"openai":   provider.OpenAIFactory(env),
		"scripted": scriptedFactory,
	})
	if err != nil {
		return usageError{err.Error()}
	}
	timeout, err := rpcTimeout(env)
	if err != nil {
		return usageError{err.Error()}
	}
	dotenv, err := readDotEnv(absRoot)
	if err != nil {
		return err
	}
	cfg := rpc.OrchestratorConfig{Vary: varied, Clock: clock.Real(), FS: afero.NewOsFs(), Root: absRoot, Env: env,
		Provider: sel, Yolo: *yolo, Aliases: sel.Has, Providers: sel.Packages(), Members: true}
	cfg.Git = membership.GitCLI{}.Found() // nil without git: session.constrain's picks are the only members
	if *state == "" {
		*state = env["PLURNK_STATE_DIR"]
	}
	if *state == "" {
		home := env["HOME"]
		if home == "" {
			return usageError{"no state directory for the sessions: give -state DIR or PLURNK_STATE_DIR, or set HOME"}
		}
		*state = rpc.DefaultStateDir(home, absRoot)
	}
	dir, err := filepath.Abs(*state)
	if err != nil {
		return usageError{fmt.Sprintf("-state %s: %v", *state, err)}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	cfg.StateFS, cfg.StateDir = afero.NewOsFs(), dir
	if *sh {
		cfg.Executors = []exec.Executor{&exec.Shell{}}
		cfg.ExecEnv = exec.ScopeEnv(environ, dotenv)
	}
	backend, err := rpc.NewOrchestrator(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := rpc.NewServerWith(backend, rpc.ServerConfig{Vary: varied, Timeout: timeout, Logf: func(f string, a ...any) { fmt.Fprintf(stderr, "plurnkd: "+f+"\n", a...) }})
	if *debug {
		if err := srv.Register("debug.audit", rpc.AuditMethod(backend)); err != nil {
			return err
		}
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	pumpCtx, stopPump := context.WithCancel(ctx)
	defer stopPump()
	go backend.Serve(pumpCtx)
	models := strings.Join(aliasList(env), ", ")
	if models == "" {
		models = "none"
	}
	fmt.Fprintf(stderr, "plurnkd: listening on ws://%s/ (models: %s; default %q)\n", ln.Addr(), models, env[provider.EnvModel])
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
	// Every run ends with the daemon: its loops close 499 and its
	// commands are stopped (saved, with -state).
	backend.Shutdown()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// checkScript refuses a script file that is missing or not text.
func checkScript(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return usageError{fmt.Sprintf("-script %s: %v", path, err)}
	}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return usageError{fmt.Sprintf("-script %s: a binary file, not a script of model turns", path)}
	}
	if len(llm.ParseScript(string(b))) == 0 {
		return usageError{fmt.Sprintf("-script %s: no model turn in it", path)}
	}
	return nil
}

// scriptedFactory is the scripted provider package: the model id is the
// path of a script file, played in process.
func scriptedFactory(path string) (provider.Provider, error) {
	if err := checkScript(path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	return llm.New(llm.ParseScript(string(b))...), nil
}

func rpcTimeout(env map[string]string) (time.Duration, error) {
	v := strings.TrimSpace(env["PLURNK_RPC_TIMEOUT"])
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("PLURNK_RPC_TIMEOUT=%q: want milliseconds", v)
	}
	if n <= 0 {
		return -1, nil
	}
	return time.Duration(n) * time.Millisecond, nil
}

// readDotEnv reads <root>/.env, if any.
func readDotEnv(root string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, ".env"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read .env: %w", err)
	}
	out, err := exec.ParseDotEnv(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(root, ".env"), err)
	}
	return out, nil
}

func aliasList(env map[string]string) []string {
	as, _ := provider.ParseAliases(env)
	var out []string
	for _, a := range as {
		out = append(out, a.Name+"="+a.Package+"/"+a.Model)
	}
	return out
}
