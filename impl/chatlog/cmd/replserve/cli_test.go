package main

import (
	"bytes"
	"context"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is stderr written by the serving goroutine, read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCommandLine pins each bad command line: its exit status and message.
func TestCommandLine(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		out  string // in stdout
		err  string // in stderr ("" for -h: nothing at all)
	}{
		{"help", []string{"-h"}, 0, "usage: replserve", ""},
		{"help of parse", []string{"parse", "-h"}, 0, "usage: replserve parse FILE", ""},
		{"unknown flag", []string{"-port", "1"}, 2, "", "flag provided but not defined: -port"},
		{"bad duration", []string{"-timeout", "soon"}, 2, "", `invalid value "soon" for flag -timeout`},
		{"stray argument", []string{"serve"}, 2, "", `replserve: unexpected argument "serve"`},
		{"missing dir", []string{"-dir", "/nonexistent/anchorage", "-addr", "127.0.0.1:0"}, 2, "", "replserve: -dir /nonexistent/anchorage: not a directory"},
		{"parse without file", []string{"parse"}, 2, "", "usage: replserve parse FILE"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(context.Background(), c.args, &out, &errb)
		errOK := strings.Contains(errb.String(), c.err) && (c.err != "" || errb.Len() == 0)
		if code != c.code || !strings.Contains(out.String(), c.out) || !errOK {
			t.Errorf("%s: replserve %q exited %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", c.name, c.args, code, c.code, out.String(), c.out, errb.String(), c.err)
		}
	}
}

func TestTakenPortIsAnError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"-dir", t.TempDir(), "-addr", ln.Addr().String()}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "replserve: cannot listen on "+ln.Addr().String()) || strings.Contains(errb.String(), "serving") {
		t.Fatalf("on a taken port: exit %d, stderr %q; want exit 1, \"cannot listen on\", no \"serving\"", code, errb.String())
	}
}

func TestPrintsTheRealPort(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errb := &lockedBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"-dir", t.TempDir(), "-addr", "127.0.0.1:0"}, &bytes.Buffer{}, errb) }()
	re := regexp.MustCompile(`serving \S+ on http://127\.0\.0\.1:(\d+)/`)
	deadline := time.Now().Add(10 * time.Second)
	var port string
	for port == "" && time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(errb.String()); m != nil {
			port = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if port == "" || port == "0" {
		t.Fatalf("no real port in %q", errb.String())
	}
	c, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatalf("the printed port %s does not answer: %v", port, err)
	}
	c.Close()
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d after the signal: %s", code, errb.String())
	}
}
