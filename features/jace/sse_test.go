package jace

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readAll dispatches every event of stream and returns them with the error
// that ended it.
func readAll(stream string) ([]sseEvent, error) {
	rd := newSSEReader(strings.NewReader(stream))
	var out []sseEvent
	for {
		ev, err := rd.next()
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

// The cases follow the HTML standard's event-stream interpretation and the
// examples it gives.
func TestSSEReader(t *testing.T) {
	big := strings.Repeat("x", 300<<10) // over bufio.Scanner's 64 KiB default
	for _, tc := range []struct {
		name, stream string
		want         []sseEvent
	}{
		{"data with and without the space", "data: a\n\ndata:b\n\n", []sseEvent{{Type: "message", Data: "a"}, {Type: "message", Data: "b"}}},
		{"only one space is dropped", "data:  two\n\n", []sseEvent{{Type: "message", Data: " two"}}},
		{"multi-line data joined with LF", "data: YHOO\ndata: +2\ndata: 10\n\n", []sseEvent{{Type: "message", Data: "YHOO\n+2\n10"}}},
		{"comments are skipped", ": hello\n:\ndata: x\n: between\n\n", []sseEvent{{Type: "message", Data: "x"}}},
		{"event names the type, reset after dispatch", "event: add\ndata: 73857293\n\ndata: plain\n\n",
			[]sseEvent{{Type: "add", Data: "73857293"}, {Type: "message", Data: "plain"}}},
		{"id persists and can be cleared", "id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
			[]sseEvent{{Type: "message", Data: "a", ID: "1"}, {Type: "message", Data: "b", ID: "1"}, {Type: "message", Data: "c"}}},
		{"an id with NUL is ignored", "id: 7\n\nid: a\x00b\ndata: x\n\n", []sseEvent{{Type: "message", Data: "x", ID: "7"}}},
		{"retry takes digits only", "retry: 3000\ndata: a\n\nretry: 1.5\ndata: b\n\nretry: x1\ndata: c\n\n",
			[]sseEvent{{Type: "message", Data: "a", Retry: 3 * time.Second}, {Type: "message", Data: "b", Retry: 3 * time.Second}, {Type: "message", Data: "c", Retry: 3 * time.Second}}},
		{"CRLF and CR end lines too", "data: a\r\ndata: b\r\n\r\ndata: c\rdata: d\r\r", []sseEvent{{Type: "message", Data: "a\nb"}, {Type: "message", Data: "c\nd"}}},
		{"a field without a colon has an empty value", "data\n\ndata\ndata\n\n", []sseEvent{{Type: "message", Data: ""}, {Type: "message", Data: "\n"}}},
		{"no data, no event", "event: ping\n\nid: 3\n\n\n\ndata: z\n\n", []sseEvent{{Type: "message", Data: "z", ID: "3"}}},
		{"unknown fields are ignored", "foo: bar\ndata: y\nDATA: no\n\n", []sseEvent{{Type: "message", Data: "y"}}},
		{"a leading BOM is skipped", "\xEF\xBB\xBFdata: bom\n\n", []sseEvent{{Type: "message", Data: "bom"}}},
		{"an event over 64 KiB", "data: " + big + "\n\n", []sseEvent{{Type: "message", Data: big}}},
		{"an event the stream ends before dispatching is dropped", "data: done\n\ndata: cut", []sseEvent{{Type: "message", Data: "done"}}},
		{"nor one without its blank line", "data: done\n\ndata: cut\n", []sseEvent{{Type: "message", Data: "done"}}},
		{"colons in the value stay", "data: {\"a\":1}\n\n", []sseEvent{{Type: "message", Data: `{"a":1}`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(tc.stream)
			if !errors.Is(err, io.EOF) {
				t.Errorf("ended with %v, want io.EOF", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events differ (-want +got):\n%s", diff)
			}
		})
	}
}

// An event ended by CR is dispatched at once, without waiting for a byte
// that might be its LF; a broken connection is reported, not taken for an
// end.
func TestSSEReaderLive(t *testing.T) {
	pr, pw := io.Pipe()
	rd := newSSEReader(pr)
	go func() { _, _ = pw.Write([]byte("data: now\r\r")) }()
	done := make(chan sseEvent)
	go func() {
		ev, _ := rd.next()
		done <- ev
	}()
	select {
	case ev := <-done:
		if ev.Data != "now" {
			t.Fatalf("got %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the CR-ended event was not dispatched")
	}
	boom := errors.New("connection reset")
	go func() { _, _ = pw.Write([]byte("\ndata: x\n")); pw.CloseWithError(boom) }()
	if _, err := rd.next(); !errors.Is(err, boom) {
		t.Fatalf("ended with %v, want %v", err, boom)
	}
}
