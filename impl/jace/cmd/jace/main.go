// Command jace serves the JACE sandbox runtime (seed
// 003_fd13fde4b5172d4e.txt) over HTTP: §jace-default-port,
// §jace-calc-demo, §jace-external-module.
//
//	jace [-addr 127.0.0.1:3323] [-seed N] [-fuel N] [-timeout 2s] [-max-body BYTES] [-vary LIST] [MODULE.js]
//
// Without MODULE.js it serves the embedded calculator. A module that cannot
// be read, is empty or does not load is refused as POST /load refuses it,
// with a message and exit status 2 (as for a bad flag); -h prints the usage
// on stdout and exits 0; an address it cannot listen on exits 1. -vary
// switches on spec-permitted variations (jace.Variations): choices the seed
// leaves open made differently from the reference's, to check that a
// harness accepts every runtime that keeps the spec. It logs to stderr,
// writes the audit log as JSON lines to stderr too, and exits cleanly on
// SIGINT or SIGTERM. TZ is set to UTC before the first VM exists, so dates
// inside modules render in UTC.
//
// It may import the standard library, anchorage/impl/jace, anchorage/impl/vary
// and anchorage/sim/clock.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"anchorage/impl/jace"
	"anchorage/impl/vary"
	"anchorage/sim/clock"
)

func main() {
	os.Exit(exitCode(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// usageError is bad input on the command line or in the module: exit 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// exitCode maps run's error to the exit status, printing it.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintln(stderr, "jace:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "jace:", err)
		return 1
	}
}

const usageLine = "usage: jace [-addr 127.0.0.1:3323] [-seed N] [-fuel N] [-timeout 2s] [-max-body BYTES] [-vary LIST] [MODULE.js]"

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("jace", flag.ContinueOnError)
	var flagOut bytes.Buffer // the usage goes to stdout for -h, to stderr for a mistake
	fs.SetOutput(&flagOut)
	addr := fs.String("addr", jace.DefaultAddr, "listen address")
	seed := fs.Int64("seed", jace.DefaultSeed, "seed of Math.random inside the VM")
	fuel := fs.Int64("fuel", 0, "fuel units per call (1 unit = 10,000 QuickJS ticks); 0 = no fuel guard")
	timeout := fs.Duration("timeout", jace.DefaultTimeout, "wall-clock limit of one action (0 or less: 2s)")
	maxBody := fs.Int64("max-body", 0, "maximum request body in bytes (0: 1 MiB)")
	varyList := fs.String("vary", "", vary.Usage(jace.Variations()))
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), usageLine)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			stdout.Write(flagOut.Bytes())
			return err
		}
		stderr.Write(flagOut.Bytes())
		return usageError{err}
	}
	variations, err := vary.Parse(*varyList, jace.Variations())
	if err != nil {
		return usageError{fmt.Errorf("-vary: %w", err)}
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, usageLine)
		return usageError{fmt.Errorf("at most one module file, got %d", fs.NArg())}
	}
	if err := os.Setenv("TZ", "UTC"); err != nil {
		return fmt.Errorf("setting TZ=UTC: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	cfg := jace.Config{
		Clock:    clock.Real(),
		Seed:     *seed,
		Fuel:     *fuel,
		Timeout:  *timeout,
		MaxBody:  *maxBody,
		AuditLog: stderr,
		Logger:   logger,
		Vary:     variations,
		// Without a module file, the seed's embedded demo.
		Module:     jace.CalculatorModule(),
		ModuleName: "calculator.js (embedded)",
	}
	if fs.NArg() == 1 {
		path := fs.Arg(0)
		src, err := os.ReadFile(path)
		if err != nil {
			return usageError{fmt.Errorf("reading module: %w", err)}
		}
		if len(src) == 0 {
			// POST /load refuses an empty source (400); so does the command,
			// rather than serving the calculator in its place.
			return usageError{fmt.Errorf("module %s is empty: refused (run jace without MODULE.js for the calculator)", path)}
		}
		cfg.Module, cfg.ModuleName = string(src), path
	}
	srv, err := jace.NewServer(cfg)
	if err != nil {
		if fs.NArg() == 1 {
			return usageError{fmt.Errorf("module %s refused: %w", fs.Arg(0), err)}
		}
		return err
	}
	defer srv.Close()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *addr, err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	hs.RegisterOnShutdown(func() { srv.Close() }) // ends SSE streams
	man := srv.Runtime().Manifest()
	logger.Info("jace listening", "addr", ln.Addr().String(), "module", man.Name, "version", man.Version)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serving: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}
