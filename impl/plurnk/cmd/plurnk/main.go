// Command plurnk is a small client of the plurnk daemon (JSON-RPC 2.0 over
// WebSocket, seed 001's client protocol): it calls the methods named on its
// command line in order on one connection, prints each answer and every
// notification as it was received, and can wait for a notification before
// it hangs up — enough to drive a session by hand or from a shell script:
//
//	plurnk -url ws://127.0.0.1:8500/ -until loop/terminated \
//	    session.create '{"name":"demo"}' loop.run '{"prompt":"count the files"}'
//
// With -frames it sends whole JSON-RPC messages as written instead (a
// batch, a null id, a malformed frame), to see how the daemon answers them.
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

// options are what the command line asks for: calls, or with -frames the
// frames to send as they are.
type options struct {
	url, until string
	timeout    time.Duration
	calls      []call
	frames     []string
}

const usageText = `usage: plurnk [-url ws://HOST:PORT/] [-until NOTIFICATION] [-timeout 60s] METHOD [PARAMS] ...
       plurnk [-url ws://HOST:PORT/] [-until NOTIFICATION] [-timeout 60s] -frames FRAME ...

Calls each METHOD on one connection to the plurnk daemon, in order, each with the
JSON object or array PARAMS that follows it (none when the next argument is a
method). Prints one line per message, in the order the daemon sent them:

  -> METHOD RESULT         the answer to a call
  <- NOTIFICATION PARAMS   a notification

An error answer is printed as "-> METHOD error CODE MESSAGE" and ends the run with
exit status 1; the calls after it are not made. With -until, after the last answer
plurnk waits for a notification of that method (e.g. loop/terminated) before it
hangs up. Exit status 2: a mistake on the command line.

With -frames, each argument is a whole JSON-RPC message sent as it is written,
valid or not, and each answer is printed whole, in the order received:

  -> ANSWER                the answer to a frame (an error answer does not stop)

A request waits for the answer with its id; a batch, a request with a null id or a
frame that is not a request waits for the next answer no request claims; a
notification (a batch of them) waits for none.

Flags:
`

func parseArgs(args []string, stderr io.Writer) (options, error) {
	var o options
	var frames bool
	fs := flag.NewFlagSet("plurnk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.url, "url", "ws://127.0.0.1:8500/", "the daemon's address, as plurnkd prints it")
	fs.StringVar(&o.until, "until", "", "after the last answer, wait for a notification of this method")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "give up after this long (the whole run)")
	fs.BoolVar(&frames, "frames", false, "send each argument as a whole JSON-RPC message, as written")
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return options{}, err
		}
		return options{}, usageError{err.Error() + " (plurnk -h)"}
	}
	rest := fs.Args()
	if frames {
		if len(rest) == 0 {
			return options{}, usageError{"no frame to send (plurnk -h)"}
		}
		o.frames = rest
		return o, nil
	}
	if len(rest) == 0 {
		return options{}, usageError{"no method to call (plurnk -h)"}
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if isJSON(a) {
			return options{}, usageError{fmt.Sprintf("argument %d: parameters %s follow no method", i+1, a)}
		}
		if a == "" || strings.ContainsAny(a, " \t\n") {
			return options{}, usageError{fmt.Sprintf("argument %d: %q is not a method name", i+1, a)}
		}
		c := call{method: a}
		if i+1 < len(rest) && isJSON(rest[i+1]) {
			p := []byte(rest[i+1])
			if !json.Valid(p) {
				return options{}, usageError{fmt.Sprintf("argument %d: the parameters of %s are not valid JSON: %s", i+2, a, rest[i+1])}
			}
			c.params = p
			i++
		}
		o.calls = append(o.calls, c)
	}
	return o, nil
}

// isJSON reports whether an argument is meant as parameters: a JSON object
// or array.
func isJSON(a string) bool {
	t := strings.TrimSpace(a)
	return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	until, timeout := o.until, o.timeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := rpc.Dial(ctx, o.url)
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
	for _, f := range o.frames {
		a, answered, err := send(ctx, c, []byte(f))
		if err != nil {
			flush(len(c.Notes()))
			return fmt.Errorf("frame %s: %w", f, err)
		}
		if answered {
			flush(a.Heard)
			fmt.Fprintf(stdout, "-> %s\n", compact(a.Raw))
		}
	}
	for _, cl := range o.calls {
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

// send writes frame as it is and waits for its answer, as answerID says
// the daemon gives it; answered is false for a frame the daemon does not
// answer.
func send(ctx context.Context, c *rpc.Client, frame []byte) (a rpc.Answer, answered bool, err error) {
	id, answered := answerID(frame)
	switch {
	case !answered:
		_, err = c.Send(ctx, frame, false)
	case id != "":
		a, err = c.SendFor(ctx, frame, id)
	default:
		a, err = c.Send(ctx, frame, true)
	}
	return a, answered, err
}

// answerID says how the daemon answers a frame (JSON-RPC 2.0): a request
// by its id (the id's JSON text); a batch, a request with a null id and a
// frame that is no request by an answer with no id of its own (""); a
// notification, or a batch of nothing but notifications, not at all
// (answered false).
func answerID(frame []byte) (id string, answered bool) {
	var batch []json.RawMessage
	if json.Unmarshal(frame, &batch) == nil {
		for _, m := range batch {
			if !isNotification(m) {
				return "", true
			}
		}
		return "", len(batch) == 0
	}
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(frame, &req) != nil || len(req.ID) == 0 || string(req.ID) == "null" {
		return "", !isNotification(frame)
	}
	return string(req.ID), true
}

// isNotification reports whether m is a JSON-RPC notification: an object
// with a method name and no id.
func isNotification(m json.RawMessage) bool {
	var n struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	return json.Unmarshal(m, &n) == nil && n.ID == nil && n.Method != nil
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
