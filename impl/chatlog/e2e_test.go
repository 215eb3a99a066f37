//go:build e2e

package chatlog_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/afero"

	"anchorage/impl/chatlog"
	"anchorage/sim/clock"
)

// syncBuffer is the server console, written by the server's timer goroutine
// and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// chromiumPath finds a Chromium binary. In CI a missing browser is a failure,
// never a skip: the end-to-end test is part of what CI promises to run.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium found (install Debian's chromium, or set CHROMIUM): CI must run the browser end-to-end test")
	}
	t.Skip("no Chromium found; install Debian's chromium (or set CHROMIUM) to run the browser end-to-end test")
	return ""
}

// TestE2EBrowser runs the real server on a real directory with the wall
// clock, serves the adapter over HTTP on loopback, and lets a headless
// Chromium tab be the realm: a request appended to the tab's log is answered
// with the value and a duration, and a throwing request with an ERROR reply
// carrying the stack.
func TestE2EBrowser(t *testing.T) {
	browser := chromiumPath(t)
	dir := t.TempDir()
	console := &syncBuffer{}
	srv, err := chatlog.New(chatlog.Config{
		Fs:      afero.NewBasePathFs(afero.NewOsFs(), dir),
		Clock:   clock.Real(),
		Console: console,
		Seed:    1,
		Timeout: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	tr := &chatlog.HTTPTransport{Server: srv, LongPoll: 2 * time.Second}
	hs := httptest.NewServer(tr.Handler())
	defer hs.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	profile := t.TempDir()
	var chromeOut syncBuffer
	cmd := exec.CommandContext(ctx, browser,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--remote-debugging-port=0",
		"--user-data-dir="+profile, hs.URL+"/")
	cmd.Stdout, cmd.Stderr = &chromeOut, &chromeOut
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", browser, err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()

	// The tab registers itself when the adapter loads.
	var inst chatlog.Instance
	waitFor(t, 45*time.Second, func() bool {
		for _, in := range srv.Instances() {
			inst = in
			return true
		}
		return false
	}, func() string {
		return "the Chromium tab never registered\nconsole:\n" + console.String() + "\nchromium:\n" + chromeOut.String()
	})
	logPath := filepath.Join(dir, filepath.FromSlash(inst.Path))
	t.Logf("tab %q registered as %s, log %s", inst.Name, inst.Stem, inst.Path)

	appendTo := func(code string) {
		at := time.Now().Format("15:04:05")
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := fmt.Fprintf(f, "**agent** to %s at %s\n```JS\n%s\n```\n", inst.Stem, at, code); err != nil {
			t.Fatal(err)
		}
	}
	readLog := func() string {
		b, _ := os.ReadFile(logPath)
		return string(b)
	}

	appendTo("12+13")
	ok := regexp.MustCompile(`(?m)^\*\*` + regexp.QuoteMeta(inst.Stem) + `\*\* to agent at \d\d:\d\d:\d\d \(\d+ms\)\n` + "```JSON\n25\n```")
	waitFor(t, 30*time.Second, func() bool { return ok.MatchString(readLog()) }, func() string {
		return "no reply 25 with a duration\nlog:\n" + readLog() + "\nconsole:\n" + console.String()
	})

	appendTo(`throw new Error("boom from the tab")`)
	bad := regexp.MustCompile(`(?m)^\*\*` + regexp.QuoteMeta(inst.Stem) + `\*\* to agent at \d\d:\d\d:\d\d \(\*\*ERROR\*\* after \d+ms\)\n` +
		"```Error\nError: boom from the tab\n\\s+at ")
	waitFor(t, 30*time.Second, func() bool { return bad.MatchString(readLog()) }, func() string {
		return "no ERROR reply with the stack\nlog:\n" + readLog() + "\nconsole:\n" + console.String()
	})
	if !strings.Contains(readLog(), "executing ...") {
		t.Errorf("the log has no executing placeholder:\n%s", readLog())
	}
	t.Logf("final log:\n%s", readLog())
}

func waitFor(t *testing.T, limit time.Duration, cond func() bool, why func() string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", limit, why())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
