package jace

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"anchorage/impl/jace/sandbox"
)

// The two benchmarks below are meant to be read together: the HTTP round
// trip over loopback against the direct in-process VM call, both running
// the calculator's calc.input commit with its view.

// BenchmarkActionsHTTP: committed /actions round trips over loopback.
func BenchmarkActionsHTTP(b *testing.B) {
	srv, err := NewServer(Config{Clock: simConfig().Clock, TimeoutFuel: sandbox.DefaultTimeoutFuel, Module: CalculatorModule()})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	client := ts.Client()
	body := []byte(`{"action":"calc.input","params":{"digit":7},"session_id":"bench"}`)
	// Keep the display short: clear every 8 digits.
	clear := []byte(`{"action":"calc.clear","session_id":"bench"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		payload := body
		if i%8 == 7 {
			payload = clear
		}
		resp, err := client.Post(ts.URL+"/actions", "application/json", bytes.NewReader(payload))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

// BenchmarkActionDirect: the same commits through Runtime.Do, no HTTP.
func BenchmarkActionDirect(b *testing.B) {
	rt, err := New(Config{Clock: simConfig().Clock, TimeoutFuel: sandbox.DefaultTimeoutFuel, Module: CalculatorModule()})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	params := json.RawMessage(`{"digit":7}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := ActionRequest{Action: "calc.input", Params: params, SessionID: "bench"}
		if i%8 == 7 {
			req = ActionRequest{Action: "calc.clear", SessionID: "bench"}
		}
		if o := rt.Do(req); o.Status != http.StatusOK {
			b.Fatalf("status %d: %+v", o.Status, o.Error)
		}
	}
}
