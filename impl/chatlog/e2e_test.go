//go:build e2e

package chatlog_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
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

// swapHandler serves with the transport of the server running now, so that
// the server can restart behind the same address.
type swapHandler struct {
	mu sync.Mutex
	h  http.Handler
}

func (s *swapHandler) set(h http.Handler) { s.mu.Lock(); s.h = h; s.mu.Unlock() }

func (s *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	h := s.h
	s.mu.Unlock()
	h.ServeHTTP(w, r)
}

// browser runs a headless Chromium on url until the test ends.
func browser(t *testing.T, ctx context.Context, path, url string) *syncBuffer {
	t.Helper()
	out := &syncBuffer{}
	cmd := exec.CommandContext(ctx, path,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--remote-debugging-port=0",
		"--user-data-dir="+t.TempDir(), url)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return out
}

// TestE2EBrowser runs the real server on a real directory with the wall
// clock, serves the adapter over HTTP on loopback, and lets headless
// Chromium tabs be realms: the server's own page, and an application's page
// served from another origin that loads the adapter with an absolute URL.
// It checks a value with its duration, an ERROR reply with the stack, the
// seed's "await …;" example, errors raised outside any request (a timer's
// throw and an unhandled rejection) written below the next result, and
// tabs that rejoin by themselves after a server restart and keep their logs.
func TestE2EBrowser(t *testing.T) {
	chromium := chromiumPath(t)
	dir := t.TempDir()
	console := &syncBuffer{}
	fs := afero.NewBasePathFs(afero.NewOsFs(), dir)
	newServer := func(seed uint64) *chatlog.Server {
		srv := chatlog.New(chatlog.Config{Fs: fs, Clock: clock.Real(), Console: console, Seed: seed, Timeout: 30 * time.Second})
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		return srv
	}
	srv := newServer(1)
	defer func() { srv.Stop() }()
	sw := &swapHandler{}
	sw.set((&chatlog.HTTPTransport{Server: srv, LongPoll: 2 * time.Second}).Handler())
	hs := httptest.NewServer(sw)
	defer hs.Close()

	// The application's page: another origin (localhost, not 127.0.0.1,
	// and another port) that loads the adapter from the REPL server.
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>Foreign App</title></head><body><p>app</p>"+
			"<script>window.appState = {answer: 42};</script><script src=%q></script></body></html>", hs.URL+"/adapter.js")
	}))
	defer app.Close()
	appURL := strings.Replace(app.URL, "127.0.0.1", "localhost", 1) + "/app.html"

	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	own := browser(t, ctx, chromium, hs.URL+"/")
	foreign := browser(t, ctx, chromium, appURL)

	// find reads the registry for the page whose sanitized name is name:
	// its instance line and its log's pointer.
	find := func(name string) (chatlog.Instance, bool) {
		reg, _ := os.ReadFile(filepath.Join(dir, chatlog.RegistryFile))
		in := chatlog.Instance{Name: name}
		for _, l := range strings.Split(string(reg), "\n") {
			if m := regexp.MustCompile(`^\* (\S+) \((\S+)\) last `).FindStringSubmatch(l); m != nil && m[1] == name {
				in.URL = m[2]
			}
			if m := regexp.MustCompile(`^\* (\S+): (debug/\S+)$`).FindStringSubmatch(l); m != nil && chatlog.BaseName(m[1]) == name {
				in.Stem, in.Path = m[1], m[2]
			}
		}
		return in, in.URL != "" && in.Stem != ""
	}
	var inst, appInst chatlog.Instance
	waitFor(t, 45*time.Second, func() bool {
		var ok1, ok2 bool
		inst, ok1 = find("chatlog-page")
		appInst, ok2 = find("foreign-app")
		return ok1 && ok2
	}, func() string {
		return "the Chromium tabs never both registered\nconsole:\n" + console.String() +
			"\nchromium (own page):\n" + own.String() + "\nchromium (foreign page):\n" + foreign.String()
	})
	if appInst.URL != appURL {
		t.Errorf("the foreign page registered with URL %q, want %q", appInst.URL, appURL)
	}
	t.Logf("tab %q registered as %s; foreign tab as %s (%s)", inst.Name, inst.Stem, appInst.Stem, appInst.URL)

	logOf := func(in chatlog.Instance) string { return filepath.Join(dir, filepath.FromSlash(in.Path)) }
	appendTo := func(in chatlog.Instance, code string) {
		at := time.Now().Format("15:04:05")
		f, err := os.OpenFile(logOf(in), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := fmt.Fprintf(f, "**agent** to %s at %s\n```JS\n%s\n```\n", in.Stem, at, code); err != nil {
			t.Fatal(err)
		}
	}
	readLog := func(in chatlog.Instance) string {
		b, _ := os.ReadFile(logOf(in))
		return string(b)
	}
	expect := func(in chatlog.Instance, what string, re *regexp.Regexp) {
		t.Helper()
		waitFor(t, 30*time.Second, func() bool { return re.MatchString(readLog(in)) }, func() string {
			return what + "\nlog:\n" + readLog(in) + "\nconsole:\n" + console.String()
		})
	}
	reply := func(in chatlog.Instance, fence, body string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\*\*` + regexp.QuoteMeta(in.Stem) + `\*\* to agent at \d\d:\d\d:\d\d \(\d+ms\)\n` +
			"```" + fence + "\n" + body + "\n```")
	}

	appendTo(inst, "12+13")
	expect(inst, "no reply 25 with a duration", reply(inst, "JSON", "25"))

	appendTo(inst, `throw new Error("boom from the tab")`)
	expect(inst, "no ERROR reply with the stack", regexp.MustCompile(`(?m)^\*\*`+regexp.QuoteMeta(inst.Stem)+
		`\*\* to agent at \d\d:\d\d:\d\d \(\*\*ERROR\*\* after \d+ms\)\n`+"```Error\nError: boom from the tab\n\\s+at "))
	if !strings.Contains(readLog(inst), "executing ...") {
		t.Errorf("the log has no executing placeholder:\n%s", readLog(inst))
	}

	// The seed's own example: an awaited call with a trailing semicolon.
	appendTo(inst, "window._psys = {loadSystem: async () => ({status: \"loaded\"})}; 0")
	expect(inst, "no reply 0", reply(inst, "JSON", "0"))
	appendTo(inst, "await window._psys.loadSystem();")
	expect(inst, "the seed's await example did not answer its value", reply(inst, "JSON", `\{"status":"loaded"\}`))

	// Errors raised outside any request: the browser dispatches them to the
	// adapter's listeners, and they follow the next result.
	appendTo(inst, `setTimeout(() => { throw new TypeError("thrown by a timer") }, 0); Promise.reject(new RangeError("nobody caught me")); "scheduled"`)
	expect(inst, "no reply to the scheduling request", reply(inst, "JSON", `"scheduled"`))
	time.Sleep(300 * time.Millisecond)
	appendTo(inst, "6*7")
	expect(inst, "the background errors are not below the next result", regexp.MustCompile(
		"```JSON\n42\n```\n\n```\n/\\*\n(?s:.*)TypeError: thrown by a timer(?s:.*)\n---\n(?s:.*)Unhandled rejection: RangeError: nobody caught me(?s:.*)\\*/\n```"))

	// The foreign page runs code in its own realm.
	appendTo(appInst, "({title: document.title, origin: location.origin, answer: window.appState.answer})")
	expect(appInst, "the foreign page did not answer", reply(appInst, "JSON",
		regexp.QuoteMeta(fmt.Sprintf(`{"title":"Foreign App","origin":%q,"answer":42}`, strings.TrimSuffix(appURL, "/app.html")))))

	// A server restart: both tabs rejoin by themselves and keep their logs.
	srv.Stop()
	srv = newServer(2)
	sw.set((&chatlog.HTTPTransport{Server: srv, LongPoll: 2 * time.Second}).Handler())
	waitFor(t, 30*time.Second, func() bool {
		_, ok1 := find("chatlog-page")
		_, ok2 := find("foreign-app")
		return ok1 && ok2
	}, func() string { return "the tabs did not rejoin after the restart\nconsole:\n" + console.String() })
	for _, in := range []chatlog.Instance{inst, appInst} {
		again, _ := find(in.Name)
		if again.Stem != in.Stem || again.Path != in.Path {
			t.Fatalf("%q came back as %s (%s), was %s (%s)", in.Name, again.Stem, again.Path, in.Stem, in.Path)
		}
	}
	appendTo(appInst, "window.appState.answer + 1")
	expect(appInst, "no answer after the restart", reply(appInst, "JSON", "43"))
	if !strings.Contains(console.String(), "rejoined after a server restart") {
		t.Errorf("the console does not say the tabs rejoined:\n%s", console.String())
	}
	t.Logf("final log:\n%s\nforeign log:\n%s", readLog(inst), readLog(appInst))
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
