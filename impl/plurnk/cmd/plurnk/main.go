// Command plurnk is a small client of the plurnk daemon (JSON-RPC 2.0 over
// WebSocket, seed 001's client protocol): it calls the methods named on its
// command line in order on one connection, prints each answer and every
// notification as it was received, and can wait for a notification before
// it hangs up — enough to drive a session by hand or from a shell script:
//
//	plurnk -url ws://127.0.0.1:8500/ -until loop/terminated \
//	    session.create '{"name":"demo"}' loop.run '{"prompt":"count the files"}'
//
// It may import the standard library and anchorage/impl/plurnk/rpc.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"anchorage/impl/plurnk/rpc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var ue usageError
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "plurnk:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "plurnk:", err)
		os.Exit(1)
	}
}

// usageError is a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// call is one method of the command line and its parameters.
type call struct {
	method string
	params json.RawMessage // nil: none
}

const usageText = `usage: plurnk [-url ws://HOST:PORT/] [-until NOTIFICATION] [-timeout 60s] METHOD [PARAMS] ...

Calls each METHOD on one connection to the plurnk daemon, in order, each with the
JSON object or array PARAMS that follows it (none when the next argument is a
method). Prints one line per message, in the order the daemon sent them:

  -> METHOD RESULT         the answer to a call
  <- NOTIFICATION PARAMS   a notification

An error answer is printed as "-> METHOD error CODE MESSAGE" and ends the run with
exit status 1; the calls after it are not made. With -until, after the last answer
plurnk waits for a notification of that method (e.g. loop/terminated) before it
hangs up. Exit status 2: a mistake on the command line.

Flags:
`

func parseArgs(args []string, stderr io.Writer) (url, until string, timeout time.Duration, calls []call, err error) {
	fs := flag.NewFlagSet("plurnk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&url, "url", "ws://127.0.0.1:8500/", "the daemon's address, as plurnkd prints it")
	fs.StringVar(&until, "until", "", "after the last answer, wait for a notification of this method")
	fs.DurationVar(&timeout, "timeout", 60*time.Second, "give up after this long (the whole run)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", "", 0, nil, err
		}
		return "", "", 0, nil, usageError{err.Error() + " (plurnk -h)"}
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return "", "", 0, nil, usageError{"no method to call (plurnk -h)"}
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if isJSON(a) {
			return "", "", 0, nil, usageError{fmt.Sprintf("argument %d: parameters %s follow no method", i+1, a)}
		}
		if a == "" || strings.ContainsAny(a, " \t\n") {
			return "", "", 0, nil, usageError{fmt.Sprintf("argument %d: %q is not a method name", i+1, a)}
		}
		c := call{method: a}
		if i+1 < len(rest) && isJSON(rest[i+1]) {
			p := []byte(rest[i+1])
			if !json.Valid(p) {
				return "", "", 0, nil, usageError{fmt.Sprintf("argument %d: the parameters of %s are not valid JSON: %s", i+2, a, rest[i+1])}
			}
			c.params = p
			i++
		}
		calls = append(calls, c)
	}
	return url, until, timeout, calls, nil
}

// isJSON reports whether an argument is meant as parameters: a JSON object
// or array.
func isJSON(a string) bool {
	t := strings.TrimSpace(a)
	return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	url, until, timeout, calls, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := rpc.Dial(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close()
	printed := 0
	flush := func(upto int) {
		notes := c.Notes()
		if upto > len(notes) {
			upto = len(notes)
		}
		for ; printed < upto; printed++ {
			fmt.Fprintf(stdout, "<- %s %s\n", notes[printed].Method, compact(notes[printed].Params))
		}
	}
	for _, cl := range calls {
		var params any
		if cl.params != nil {
			params = cl.params
		}
		a, err := c.Call(ctx, cl.method, params)
		if err != nil {
			flush(len(c.Notes()))
			return fmt.Errorf("%s: %w", cl.method, err)
		}
		flush(a.Heard)
		if a.Error != nil {
			fmt.Fprintf(stdout, "-> %s error %d %s\n", cl.method, a.Error.Code, a.Error.Message)
			return fmt.Errorf("%s answered error %d: %s", cl.method, a.Error.Code, a.Error.Message)
		}
		fmt.Fprintf(stdout, "-> %s %s\n", cl.method, compact(a.Result))
	}
	if until == "" {
		return nil
	}
	for {
		notes := c.Notes()
		for printed < len(notes) {
			n := notes[printed]
			flush(printed + 1)
			if n.Method == until {
				return nil
			}
		}
		if err := c.WaitCount(ctx, printed+1); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("no %s notification within -timeout %s", until, timeout)
			}
			return err
		}
	}
}

// compact prints a JSON value on one line.
func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
