package jace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"anchorage/features/kit"
	impl "anchorage/impl/jace"
	"anchorage/impl/jace/sandbox"
	"anchorage/impl/vary"
	"anchorage/sim/clock"
)

// EnvURL names the environment variable that points the steps at an
// external runtime instead of a fresh embedded reference server.
const EnvURL = "JACE_URL"

// response is one HTTP answer as the steps see it.
type response struct {
	status int
	header http.Header
	body   string
}

// driver speaks HTTP to the runtime under test: an external one at
// $JACE_URL, or an embedded reference server created lazily (so that Given
// steps can still adjust its configuration) on loopback.
type driver struct {
	external string // base URL of the external runtime, "" for embedded

	cfg   impl.Config
	audit *kit.SyncBuffer
	log   *kit.SyncBuffer // the embedded reference's operational log
	srv   *impl.Server
	ts    *httptest.Server

	client *http.Client
}

// EnvVary names the environment variable listing the spec-permitted
// variations (impl/jace Variations, "all" or names) the embedded reference
// runs with.
const EnvVary = "ANCHORAGE_VARY"

// newDriver prepares a driver; seed feeds Math.random of the embedded
// server, variations are the embedded server's spec-permitted variations.
func newDriver(seed int64, variations vary.Set) *driver {
	d := &driver{
		external: strings.TrimRight(os.Getenv(EnvURL), "/"),
		audit:    &kit.SyncBuffer{},
		log:      &kit.SyncBuffer{},
		client:   &http.Client{Timeout: 30 * time.Second},
	}
	d.cfg = impl.Config{
		Clock:    clock.NewSim(clock.Epoch()),
		Seed:     seed,
		AuditLog: d.audit,
		Logger:   slog.New(slog.NewTextHandler(d.log, nil)),
		// The deterministic form of the 2 s limit: a fuel budget standing
		// for it instead of a wall-clock watchdog.
		TimeoutFuel: sandbox.DefaultTimeoutFuel,
		Vary:        variations,
		// The reference serves the seed's demo until a module is loaded,
		// as the jace command started without a module file does.
		Module:     impl.CalculatorModule(),
		ModuleName: "calculator.js (embedded)",
	}
	return d
}

// embedded reports whether the driver runs its own reference server.
func (d *driver) embedded() bool { return d.external == "" }

// configurable returns the config of the embedded server for a Given step
// to adjust. A server already running is stopped: the next request starts
// a fresh one from the adjusted config (with its default module loaded).
func (d *driver) configurable() (*impl.Config, error) {
	if !d.embedded() {
		return nil, fmt.Errorf("the runtime at %s is external: its configuration cannot be changed", d.external)
	}
	d.close()
	d.srv, d.ts = nil, nil
	return &d.cfg, nil
}

// base starts the embedded server on first use and returns the base URL.
func (d *driver) base() (string, error) {
	if !d.embedded() {
		return d.external, nil
	}
	if d.ts == nil {
		srv, err := impl.NewServer(d.cfg)
		if err != nil {
			return "", fmt.Errorf("starting the embedded reference runtime: %w", err)
		}
		d.srv = srv
		d.ts = httptest.NewServer(srv)
	}
	return d.ts.URL, nil
}

// do sends one request and reads the whole answer.
func (d *driver) do(ctx context.Context, method, path string, body []byte, headers map[string]string) (response, error) {
	base, err := d.base()
	if err != nil {
		return response{}, err
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return response{}, fmt.Errorf("building %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k) // an empty value asks for no such header
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, fmt.Errorf("reading the answer to %s %s: %w", method, path, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}, nil
}

// doChunked posts a JSON body without a Content-Length: the reader's type
// hides the length, so the client sends the body chunked.
func (d *driver) doChunked(ctx context.Context, path string, body []byte) (response, error) {
	base, err := d.base()
	if err != nil {
		return response{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, io.MultiReader(bytes.NewReader(body)))
	if err != nil {
		return response{}, fmt.Errorf("building POST %s: %w", path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		return response{}, fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, fmt.Errorf("reading the answer to POST %s: %w", path, err)
	}
	if resp.Request != nil && resp.Request.ContentLength > 0 {
		return response{}, fmt.Errorf("POST %s was sent with a Content-Length", path)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}, nil
}

// stream is an open Server-Sent Events subscription.
type stream struct {
	path   string
	cancel context.CancelFunc
	events chan sseEvent // the dispatched events, in order
	header http.Header
	status int
	err    error      // why the stream ended (read after events is closed)
	seen   []sseEvent // the events next has returned, in order
}

// listen opens path as an event stream; it returns once the server has
// answered, which is when the subscription exists.
func (d *driver) listen(path string) (*stream, error) {
	base, err := d.base()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("building GET %s: %w", path, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	s := &stream{path: path, cancel: cancel, events: make(chan sseEvent, 64), header: resp.Header, status: resp.StatusCode}
	go func() {
		defer resp.Body.Close()
		defer close(s.events)
		rd := newSSEReader(resp.Body)
		for {
			ev, err := rd.next()
			if err != nil {
				s.err = err
				return
			}
			s.events <- ev
		}
	}()
	return s, nil
}

// next waits (in real time, bounded) for the stream's next event, of any
// type; the steps judge its type and data.
func (s *stream) next(wait time.Duration) (sseEvent, error) {
	select {
	case ev, ok := <-s.events:
		if !ok {
			return sseEvent{}, fmt.Errorf("the stream %s ended without another event: %v", s.path, s.err)
		}
		s.seen = append(s.seen, ev)
		return ev, nil
	case <-time.After(wait):
		return sseEvent{}, fmt.Errorf("no event on %s within %s", s.path, wait)
	}
}

// close ends the driver's servers.
func (d *driver) close() {
	if d.srv != nil {
		d.srv.Close() // ends the event streams first
	}
	if d.ts != nil {
		d.ts.Close()
	}
}
