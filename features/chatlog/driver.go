package chatlog

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/chatlog"
	"anchorage/sim/clock"

	"github.com/cucumber/godog"
)

// The environment variables that run the chatlog features against a chatlog
// server started as a process (the protocol of features/README.md) instead
// of the embedded reference server.
const (
	EnvServer = "CHATLOG_SERVER" // a command line with {dir} and {port} (and optionally {timeout})
	EnvParse  = "CHATLOG_PARSE"  // a command line with {file} printing the parse report as JSON
	// EnvVary runs the embedded reference with spec-permitted variations
	// (chatlog.Variations: a comma-separated list, or all).
	EnvVary = "ANCHORAGE_VARY"
)

// driver is how the steps reach the chatlog implementation under test. It
// is chosen once per scenario (registerDriver): the embedded reference
// server on a simulated clock and disk, or a server process on a real
// directory with headless Chromium tabs as its realms. A step the driver
// cannot express returns an error wrapping godog.ErrSkip, which the runner
// counts pending for the target, never passed.
type driver interface {
	// start starts a server on the world's workspace with w.cfg's timeout
	// and mode; restart stops it and starts a new one on the same workspace.
	start() error
	restart() error
	// connect opens a page titled title as a realm; name is how the steps
	// call it. quiet makes a page named name whose log no realm polls.
	connect(name, title string) error
	quiet(name string) error
	// register registers a realm that never polls (the embedded server's
	// call, or the realm protocol of the contract); located notes where
	// the log of a realm registered so is.
	register(name, url string) (chatlog.Registration, error)
	located(name, url string, reg chatlog.Registration) error
	// connectLisp connects the harness's tiny Lisp realm (world.go) as an
	// adapter of another language.
	connectLisp(name string) error
	// registration is how the page's realm is registered now.
	registration(name string) (chatlog.Registration, error)
	// pace makes the page take d to run each job.
	pace(name string, d time.Duration) error
	// hang makes the page keep its results; release makes it post them.
	hang(name string) error
	release(name string) error
	// throwInBackground and rejectInBackground run code in the page outside
	// any request: a throw from a timer, a promise nobody handles.
	throwInBackground(name, code string) error
	rejectInBackground(name, code string) error
	// clock is the time agents and editors stamp their writes with; pass
	// lets d go by.
	clock() clock.Clock
	pass(d time.Duration) error
	// console is what the server has said on its console so far.
	console() string
	// transport serves the adapter transport over HTTP and returns its base
	// URL; longPoll 0 means the server's own.
	transport(longPoll time.Duration) (string, error)
	// serverURL is where the server answers HTTP, whatever its transport.
	serverURL() (string, error)
	// parse reads a log as the server's parser does.
	parse(text string) (chatlog.ParseReport, error)
	// jobs is the server's job table, oldest first: the jobs of the page
	// with this stem, or all for "". Only their ids, instances, request
	// times of day, code and the states they went through are known.
	jobs(stem string) ([]chatlog.Job, error)
	// internal refuses, for a driver that cannot, a step that needs the
	// server's internals: its jobs, its disk, its clock.
	internal(what string) error
	// pattern turns an expected text into the regular expression a target
	// on the wall clock must match, or "" when the text is exact.
	pattern(want string) string
	// level is how the driver compares text at the seed's level.
	level() seedLevel
	// regexp turns a regular expression the steps expect into the one the
	// target must match (the same for the embedded server).
	regexp(re string) string
	close()
}

// registerDriver picks the scenario's driver after the world is made.
func registerDriver(sc kit.Steps) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		w := get(ctx)
		server, parse := os.Getenv(EnvServer), os.Getenv(EnvParse)
		if server == "" && parse == "" {
			w.d = &embedded{w: w}
			return ctx, nil
		}
		p, err := newProcess(w, server, parse, stepLog(ctx))
		if err != nil {
			return ctx, err
		}
		w.d = p
		return ctx, nil
	})
}

// holds reports whether got relates to want as how says: "prefix",
// "suffix", "contains" or "equal", exactly or, for a target on the wall
// clock, as the driver's pattern.
func (w *world) holds(got, want, how string) bool {
	pat := w.d.pattern(want)
	if pat == "" {
		switch how {
		case "prefix":
			return strings.HasPrefix(got, want)
		case "suffix":
			return strings.HasSuffix(got, want)
		case "contains":
			return strings.Contains(got, want)
		}
		return got == want
	}
	return matchAs(pat, got, how)
}

// matchAs reports whether got matches the regular expression pat as how
// says: anchored at its start ("prefix"), its end ("suffix"), both
// ("equal"), or anywhere ("contains").
func matchAs(pat, got, how string) bool {
	switch how {
	case "prefix":
		pat = `\A` + pat
	case "suffix":
		pat = pat + `\z`
	case "equal":
		pat = `\A` + pat + `\z`
	}
	return mustMatch(pat, got)
}

// stepLog is where a step logs: the scenario's test log.
func stepLog(ctx context.Context) func(string, ...any) {
	if t := godog.T(ctx); t != nil {
		return t.Logf
	}
	return func(string, ...any) {}
}

// skip is the error of a step the driver cannot express, logged as the
// runner's report expects.
func skip(logf func(string, ...any), format string, args ...any) error {
	err := fmt.Errorf("%w: "+format, append([]any{godog.ErrSkip}, args...)...)
	logf("SKIPPED (%v)", err)
	return err
}

// isSkip reports whether err skips the step.
func isSkip(err error) bool { return errors.Is(err, godog.ErrSkip) }

// embedded drives the reference server in the process, on the simulated
// clock and memory disk of the world.
type embedded struct{ w *world }

func (e *embedded) start() error   { return e.w.start() }
func (e *embedded) restart() error { return e.w.restart() }
func (e *embedded) connect(name, title string) error {
	return e.w.connect(name, title)
}
func (e *embedded) register(name, url string) (chatlog.Registration, error) {
	if e.w.srv == nil {
		return chatlog.Registration{}, fmt.Errorf("no server")
	}
	return e.w.srv.Rejoin("", name, url, "JS")
}
func (e *embedded) quiet(name string) error {
	reg, err := e.register(name, "http://localhost:8302/")
	if err != nil {
		return err
	}
	return e.located(name, "http://localhost:8302/", reg)
}
func (e *embedded) located(name, _ string, reg chatlog.Registration) error {
	e.w.regs[name] = reg
	return nil
}
func (e *embedded) connectLisp(name string) error { return e.w.connectLisp(name) }
func (e *embedded) registration(name string) (chatlog.Registration, error) {
	p, err := e.w.page(name)
	if err != nil {
		return chatlog.Registration{}, err
	}
	return p.Registration(), nil
}
func (e *embedded) pace(name string, d time.Duration) error {
	if _, err := e.w.page(name); err != nil {
		return err
	}
	e.w.work[name] = d
	return nil
}
func (e *embedded) hang(name string) error {
	p, err := e.w.page(name)
	if err == nil {
		p.Hang()
	}
	return err
}
func (e *embedded) release(name string) error {
	p, err := e.w.page(name)
	if err == nil {
		p.Release()
	}
	return err
}
func (e *embedded) throwInBackground(name, code string) error {
	p, err := e.w.page(name)
	if err == nil {
		p.ThrowInBackground(code)
	}
	return err
}
func (e *embedded) rejectInBackground(name, code string) error {
	p, err := e.w.page(name)
	if err == nil {
		p.RejectInBackground(code)
	}
	return err
}
func (e *embedded) clock() clock.Clock { return e.w.clk }
func (e *embedded) pass(d time.Duration) error {
	e.w.clk.Advance(d)
	return nil
}
func (e *embedded) console() string { return e.w.con.String() }
func (e *embedded) transport(longPoll time.Duration) (string, error) {
	if longPoll == 0 {
		longPoll = time.Millisecond
	}
	tr := &chatlog.HTTPTransport{Server: e.w.srv, LongPoll: longPoll}
	e.w.http = httptest.NewServer(tr.Handler())
	return e.w.http.URL, nil
}
func (e *embedded) serverURL() (string, error) {
	if e.w.http == nil {
		return e.transport(0)
	}
	return e.w.http.URL, nil
}
func (e *embedded) parse(text string) (chatlog.ParseReport, error) {
	return chatlog.Report(chatlog.Parse([]byte(text)), time.Time{}), nil
}
func (e *embedded) jobs(stem string) ([]chatlog.Job, error) {
	if e.w.srv == nil {
		return nil, fmt.Errorf("no server")
	}
	return e.w.srv.Jobs(stem), nil
}
func (e *embedded) internal(string) error   { return nil }
func (e *embedded) pattern(string) string   { return "" }
func (e *embedded) level() seedLevel        { return seedLevel{} }
func (e *embedded) regexp(re string) string { return re }
func (e *embedded) close() {
	w := e.w
	for _, p := range w.pages {
		p.Close()
	}
	if w.srv != nil {
		w.srv.Stop()
	}
	if w.http != nil {
		w.http.CloseClientConnections() // ends long polls still waiting
		w.http.Close()
	}
}
