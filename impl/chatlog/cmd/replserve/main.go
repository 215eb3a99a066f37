// Command replserve runs the file-based REPL server of seed
// 000_8e263a46ca5a55fb (package anchorage/impl/chatlog) on a real directory
// with the wall clock, serving the browser adapter over HTTP.
//
//	replserve [-dir DIR] [-addr 127.0.0.1:8302] [-timeout 60s] [-seed N] [-debug-jobs] [-vary LIST]
//	replserve parse FILE
//
// "parse" prints what the parser reads in a chat log as one JSON object and
// exits 2, with a message on stderr, on input that is not a text chat log.
//
// Serving, it listens first and prints the address it really listens on
// (with -addr 127.0.0.1:0, the port the system chose); an address it cannot
// listen on (a port already taken) is an error, exit 1. -h prints the usage
// on stdout and exits 0; a bad flag, a stray argument or a -dir that is not
// a directory exits 2. It stops cleanly on SIGINT or SIGTERM. -vary runs the
// server with spec-permitted variations (chatlog.Variations, or all): other
// choices where the seed leaves one open.
//
// It may import the standard library, anchorage/impl/chatlog,
// anchorage/impl/vary, anchorage/sim/clock and afero.
package main

import (
	"bytes"
	"context"
	"encoding/json"
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

	"anchorage/impl/chatlog"
	"anchorage/impl/vary"
	"anchorage/sim/clock"

	"github.com/spf13/afero"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// maxParseInput bounds what `parse` reads; maxLine bounds a line.
const (
	maxParseInput = 256 << 20
	maxLine       = 4 << 20
)

const usage = `usage: replserve [-dir DIR] [-addr 127.0.0.1:8302] [-timeout 60s] [-seed N] [-debug-jobs] [-vary LIST]
       replserve parse FILE`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "parse" {
		return parseCmd(args[1:], stdout, stderr)
	}
	return serve(ctx, args, stdout, stderr)
}

func parseCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprintln(stdout, "usage: replserve parse FILE\n\nprints what the parser reads in a chat log as one JSON object")
		return 0
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: replserve parse FILE")
		return 2
	}
	name := args[0]
	fi, err := os.Stat(name)
	if err != nil {
		fmt.Fprintf(stderr, "replserve parse: %v\n", err)
		return 2
	}
	if fi.IsDir() {
		fmt.Fprintf(stderr, "replserve parse: %s: is a directory, expected a chat-log file\n", name)
		return 2
	}
	if fi.Size() > maxParseInput {
		fmt.Fprintf(stderr, "replserve parse: %s: %d bytes, more than the %d this command reads\n", name, fi.Size(), maxParseInput)
		return 2
	}
	data, err := os.ReadFile(name)
	if err != nil {
		fmt.Fprintf(stderr, "replserve parse: %v\n", err)
		return 2
	}
	if err := checkInput(data); err != nil {
		fmt.Fprintf(stderr, "replserve parse: %s: %v\n", name, err)
		return 2
	}
	rep := chatlog.Report(chatlog.Parse(data), fi.ModTime())
	fmt.Fprintf(stdout, "%s\n", rep.JSON())
	return 0
}

// checkInput refuses binary data, invalid UTF-8 and huge lines.
func checkInput(data []byte) error {
	if err := chatlog.ValidateText(data); err != nil {
		return err
	}
	line, start := 1, 0
	for i, c := range data {
		if c == '\n' {
			if i-start > maxLine {
				return fmt.Errorf("line %d: %d bytes long, expected lines under %d bytes", line, i-start, maxLine)
			}
			line++
			start = i + 1
		}
	}
	if len(data)-start > maxLine {
		return fmt.Errorf("line %d: %d bytes long, expected lines under %d bytes", line, len(data)-start, maxLine)
	}
	return nil
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("replserve", flag.ContinueOnError)
	var flagOut bytes.Buffer // the usage goes to stdout for -h, to stderr for a mistake
	fl.SetOutput(&flagOut)
	dir := fl.String("dir", ".", "workspace root holding debug.md and debug/")
	addr := fl.String("addr", "127.0.0.1:8302", "listen address (keep it on loopback; port 0 picks a free one)")
	timeout := fl.Duration("timeout", 60*time.Second, "job timeout")
	seed := fl.Uint64("seed", uint64(time.Now().UnixNano()), "seed of the short-id generator")
	debugJobs := fl.Bool("debug-jobs", false, "serve the job table at GET /conformance/jobs (a debug port for conformance runs: it shows the code of every job)")
	varyList := fl.String("vary", "", vary.Usage(chatlog.Variations()))
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), usage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			stdout.Write(flagOut.Bytes())
			return 0
		}
		stderr.Write(flagOut.Bytes())
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "replserve: unexpected argument %q\n%s\n", fl.Arg(0), usage)
		return 2
	}
	variations, err := chatlog.ParseVary(*varyList)
	if err != nil {
		fmt.Fprintf(stderr, "replserve: -vary: %v\n", err)
		return 2
	}
	if *timeout <= 0 {
		fmt.Fprintf(stderr, "replserve: -timeout %v: want a positive duration\n", *timeout)
		return 2
	}
	if fi, err := os.Stat(*dir); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "replserve: -dir %s: not a directory\n", *dir)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "replserve: cannot listen on %s: %v\n", *addr, err)
		return 1
	}
	defer ln.Close()
	srv := chatlog.New(chatlog.Config{Fs: afero.NewBasePathFs(afero.NewOsFs(), *dir), Clock: clock.Real(),
		Console: stderr, Seed: *seed, Timeout: *timeout, Vary: variations})
	if err := srv.Start(); err != nil {
		fmt.Fprintln(stderr, "replserve:", err)
		return 1
	}
	defer srv.Stop()
	tr := &chatlog.HTTPTransport{Server: srv}
	handler := tr.Handler()
	if *debugJobs {
		handler = withJobs(handler, srv)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "replserve: serving %s on http://%s/\n", *dir, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(stderr, "replserve:", err)
			return 1
		}
		return 0
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		fmt.Fprintln(stderr, "replserve: shutting down:", err)
		return 1
	}
	return 0
}

// jobView is one job as GET /conformance/jobs shows it (features/README.md,
// CHATLOG_SERVER): the states it went through, in order.
type jobView struct {
	ID       string             `json:"id"`
	Instance string             `json:"instance"`
	Agent    string             `json:"agent"`
	At       string             `json:"at"`
	Lang     string             `json:"lang"`
	Code     string             `json:"code"`
	History  []chatlog.JobState `json:"history"`
}

// withJobs adds GET /conformance/jobs[?instance=STEM] to h: the job table
// as a JSON array, oldest first. No Access-Control header is sent, so no
// page of another origin can read it.
func withJobs(h http.Handler, srv *chatlog.Server) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("GET /conformance/jobs", func(w http.ResponseWriter, r *http.Request) {
		out := []jobView{}
		for _, j := range srv.Jobs(r.URL.Query().Get("instance")) {
			out = append(out, jobView{ID: j.ID, Instance: j.Instance, Agent: j.Agent, At: j.At, Lang: j.Lang, Code: j.Code, History: j.History})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
	return mux
}
