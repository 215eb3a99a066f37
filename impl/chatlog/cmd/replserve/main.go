// Command replserve runs the file-based REPL server of seed
// 000_8e263a46ca5a55fb (package anchorage/impl/chatlog) on a real directory
// with the wall clock, serving the browser adapter over HTTP.
//
//	replserve [-dir DIR] [-addr 127.0.0.1:8302] [-timeout 60s]
//	replserve parse FILE
//
// "parse" prints what the parser reads in a chat log as one JSON object and
// exits 2, with a message on stderr, on input that is not a text chat log.
//
// It may import the standard library, anchorage/impl/chatlog,
// anchorage/sim/clock and afero.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"anchorage/impl/chatlog"
	"anchorage/sim/clock"

	"github.com/spf13/afero"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// maxParseInput bounds what `parse` reads; maxLine bounds a line.
const (
	maxParseInput = 256 << 20
	maxLine       = 4 << 20
)

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "parse" {
		return parseCmd(args[1:], stdout, stderr)
	}
	return serve(args, stderr)
}

func parseCmd(args []string, stdout, stderr io.Writer) int {
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

func serve(args []string, stderr io.Writer) int {
	fl := flag.NewFlagSet("replserve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("dir", ".", "workspace root holding debug.md and debug/")
	addr := fl.String("addr", "127.0.0.1:8302", "listen address (keep it on loopback)")
	timeout := fl.Duration("timeout", 60*time.Second, "job timeout")
	seed := fl.Uint64("seed", uint64(time.Now().UnixNano()), "seed of the short-id generator")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	srv, err := chatlog.New(chatlog.Config{Fs: afero.NewBasePathFs(afero.NewOsFs(), *dir), Clock: clock.Real(),
		Console: stderr, Seed: *seed, Timeout: *timeout})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if err := srv.Start(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer srv.Stop()
	tr := &chatlog.HTTPTransport{Server: srv}
	fmt.Fprintf(stderr, "replserve: serving %s on http://%s/\n", *dir, *addr)
	hs := &http.Server{Addr: *addr, Handler: tr.Handler(), ReadHeaderTimeout: 10 * time.Second}
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
