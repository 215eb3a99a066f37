package jace

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"anchorage/sim/clock"
)

// simConfig is a deterministic configuration: simulated clock, timeout as
// a fuel budget.
func simConfig() Config {
	return Config{
		Clock:       clock.NewSim(time.Time{}),
		Seed:        7,
		TimeoutFuel: 300,
		MemoryLimit: 16 << 20,
		MaxOutput:   1 << 20,
		Module:      CalculatorModule(),
		ModuleName:  "calculator.js",
	}
}

type harness struct {
	t   *testing.T
	srv *Server
	ts  *httptest.Server
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return &harness{t: t, srv: srv, ts: ts}
}

type reply struct {
	status int
	header http.Header
	body   string
}

func (r reply) get(path string) gjson.Result { return gjson.Get(r.body, path) }

func (h *harness) do(method, path, body string, headers ...string) reply {
	h.t.Helper()
	req, err := http.NewRequest(method, h.ts.URL+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.ts.Client().Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func (h *harness) post(path, body string, headers ...string) reply {
	h.t.Helper()
	return h.do(http.MethodPost, path, body, headers...)
}

// expect checks status and, for errors, the error code.
func (h *harness) expect(r reply, status int, code string) {
	h.t.Helper()
	if r.status != status {
		h.t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	if code != "" {
		if got := r.get("error.code").String(); got != code {
			h.t.Fatalf("error.code %q, want %q; body %s", got, code, r.body)
		}
	}
}

func (h *harness) load(file string) {
	h.t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		h.t.Fatal(err)
	}
	r := h.post("/load", string(mustJSON(map[string]string{"source": string(src), "name": file})))
	h.expect(r, 200, "")
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("not JSON: %v: %s", err, s)
	}
	return b.String()
}
