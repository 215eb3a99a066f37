package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// fakeDaemon answers every call with {"echo": method}, a call of "fail"
// with error -32601, a frame that is not one JSON object with error -32700
// and a null id, no notification, and for "loop.run" sends a notification
// before its answer and "loop/terminated" after it.
func fakeDaemon(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ctx := r.Context()
		send := func(v any) {
			b, _ := json.Marshal(v)
			_ = ws.Write(ctx, websocket.MessageText, b)
		}
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				return
			}
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal(data, &req); err != nil {
				send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "parse error"}})
				continue
			}
			if req.ID == nil {
				continue // a notification
			}
			switch req.Method {
			case "fail":
				send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "no such method"}})
			case "loop.run":
				send(map[string]any{"jsonrpc": "2.0", "method": "log/entry", "params": map[string]any{"n": 1}})
				send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"finalStatus": 100, "params": req.Params}})
				time.Sleep(20 * time.Millisecond)
				send(map[string]any{"jsonrpc": "2.0", "method": "log/entry", "params": map[string]any{"n": 2}})
				send(map[string]any{"jsonrpc": "2.0", "method": "loop/terminated", "params": map[string]any{"finalStatus": 200}})
			default:
				send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"echo": req.Method, "params": req.Params}})
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/"
}

func TestCallsInOrderWithNotifications(t *testing.T) {
	url := fakeDaemon(t)
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-url", url, "-until", "loop/terminated", "-timeout", "5s",
		"session.create", `{"name": "demo"}`, "loop.run", `{"prompt":"hi"}`}, &out, &errb)
	if err != nil {
		t.Fatalf("run: %v (stderr %s)", err, errb.String())
	}
	want := `-> session.create {"echo":"session.create","params":{"name":"demo"}}
<- log/entry {"n":1}
-> loop.run {"finalStatus":100,"params":{"prompt":"hi"}}
<- log/entry {"n":2}
<- loop/terminated {"finalStatus":200}
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestFramesAsWritten(t *testing.T) {
	url := fakeDaemon(t)
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-url", url, "-timeout", "5s", "-frames",
		`{"jsonrpc":"2.0","id":"a","method":"session.runs"}`,
		`{"jsonrpc":"2.0","method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"fail"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"session.runs"}]`,
		`{"jsonrpc":"2.0","id":7,"method":"loop.run"}`}, &out, &errb)
	if err != nil {
		t.Fatalf("run: %v (stderr %s)", err, errb.String())
	}
	want := `-> {"id":"a","jsonrpc":"2.0","result":{"echo":"session.runs","params":null}}
-> {"error":{"code":-32601,"message":"no such method"},"id":null,"jsonrpc":"2.0"}
-> {"error":{"code":-32700,"message":"parse error"},"id":null,"jsonrpc":"2.0"}
<- log/entry {"n":1}
-> {"id":7,"jsonrpc":"2.0","result":{"finalStatus":100,"params":null}}
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestAnswerID(t *testing.T) {
	for _, tc := range []struct {
		frame    string
		id       string
		answered bool
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"m"}`, "7", true},
		{`{"jsonrpc":"2.0","id":"x","method":"m"}`, `"x"`, true},
		{`{"jsonrpc":"2.0","id":null,"method":"m"}`, "", true},
		{`{"jsonrpc":"2.0","method":"m"}`, "", false},
		{`{"jsonrpc":"2.0"}`, "", true},
		{`{"jsonrpc":"2.0","method":1}`, "", true},
		{`not json`, "", true},
		{`[]`, "", true},
		{`[{"jsonrpc":"2.0","method":"m"}]`, "", false},
		{`[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","id":1,"method":"m"}]`, "", true},
	} {
		if id, answered := answerID([]byte(tc.frame)); id != tc.id || answered != tc.answered {
			t.Errorf("%s: answerID = %q, %v, want %q, %v", tc.frame, id, answered, tc.id, tc.answered)
		}
	}
}

func TestErrorAnswerStops(t *testing.T) {
	url := fakeDaemon(t)
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-url", url, "fail", "session.runs"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "-32601") {
		t.Fatalf("run = %v, want the error answer", err)
	}
	if got := out.String(); got != "-> fail error -32601 no such method\n" {
		t.Errorf("output %q: the call after the error must not be made", got)
	}
}

func TestUntilTimesOut(t *testing.T) {
	url := fakeDaemon(t)
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-url", url, "-until", "never/sent", "-timeout", "300ms", "session.runs"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "no never/sent notification") {
		t.Fatalf("run = %v, want a timeout naming the notification", err)
	}
}

func TestUsageMistakes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no method to call"},
		{[]string{`{"a":1}`}, "follow no method"},
		{[]string{"session.create", `{"name":`}, "not valid JSON"},
		{[]string{"session create"}, "not a method name"},
		{[]string{"-nope"}, "flag provided but not defined"},
		{[]string{"-frames"}, "no frame to send"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), tc.args, &out, &errb)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &out, &errb); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
	for _, s := range []string{"usage: plurnk", "-until", "-url", "-frames", "exit status 1"} {
		if !strings.Contains(errb.String(), s) {
			t.Errorf("-h does not mention %q:\n%s", s, errb.String())
		}
	}
}
