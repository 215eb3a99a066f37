package chatlog

import (
	"bufio"
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"anchorage/features/kit"
)

// chromiumPath finds a Chromium binary: $CHROMIUM, then the usual names.
func chromiumPath() (string, error) {
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium found: install Debian's chromium or set CHROMIUM (the realm of %s is a real browser tab)", EnvServer)
}

// browser is one headless Chromium for a scenario, whose tabs are the
// realms, and the loopback site their pages come from: each page has the
// scenario's title and loads the adapter from the server under test, as an
// application's page of another origin on this machine does. The harness
// plays the page's own code (a throw from a timer) by handing it commands
// the page fetches from the site.
type browser struct {
	cmd     *exec.Cmd
	profile string // the --user-data-dir, made with MkdirTemp
	devtool string // http://127.0.0.1:PORT of the DevTools endpoint
	site    *httptest.Server

	mu    sync.Mutex
	pages map[string]sitePage // page path → what the page is
	cmds  map[string][]string // page path → scripts not yet fetched
	ran   map[string]int      // page path → scripts the page has run
	out   strings.Builder     // Chromium's console, for failures
}

const profilePrefix = "chatlog-chromium-"

// sitePage is one page of the site: its title, and the origin it loads the
// adapter from (the server under test, or a proxy in front of it).
type sitePage struct{ title, adapter string }

// newBrowser starts Chromium and the pages' site.
func newBrowser() (*browser, error) {
	path, err := chromiumPath()
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", profilePrefix)
	if err != nil {
		return nil, fmt.Errorf("chromium profile: %w", err)
	}
	b := &browser{profile: profile, pages: map[string]sitePage{}, cmds: map[string][]string{}, ran: map[string]int{}}
	b.site = httptest.NewServer(http.HandlerFunc(b.serve))
	b.cmd = exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
		"--disable-backgrounding-occluded-windows", "--remote-debugging-port=0",
		"--user-data-dir="+profile, "about:blank")
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers end with it (close)
	stderr, err := b.cmd.StderrPipe()
	if err != nil {
		b.close()
		return nil, err
	}
	if err := b.cmd.Start(); err != nil {
		b.cmd = nil
		b.close()
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`DevTools listening on ws://([0-9.:]+)/`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
			b.mu.Lock()
			b.out.WriteString(sc.Text() + "\n")
			b.mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case addr := <-found:
		b.devtool = "http://" + addr
	case <-time.After(30 * time.Second):
		b.mu.Lock()
		out := b.out.String()
		b.mu.Unlock()
		b.close()
		return nil, fmt.Errorf("chromium did not open its DevTools endpoint within 30 s:\n%s", out)
	}
	return b, nil
}

// serve answers the pages' site: /p/N is a page, /cmd/N its next command.
func (b *browser) serve(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case strings.HasPrefix(r.URL.Path, "/p/"):
		pg, ok := b.pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><meta charset="utf-8"><title>%s</title></head><body><p>a page of the chatlog conformance run</p>
<script>
setInterval(function () {
  fetch("/cmd/%s").then(function (r) { return r.status === 200 ? r.text() : ""; }).then(function (src) {
    if (src) { setTimeout(function () { try { (0, eval)(src); } finally { fetch("/ran/%[2]s", {method: "POST"}); } }, 0); }
  }, function () {});
}, 100);
</script>
<script src="%s/adapter.js"></script></body></html>`, html.EscapeString(pg.title), strings.TrimPrefix(r.URL.Path, "/p/"), pg.adapter)
	case strings.HasPrefix(r.URL.Path, "/ran/"):
		b.ran["/p/"+strings.TrimPrefix(r.URL.Path, "/ran/")]++
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(r.URL.Path, "/cmd/"):
		page := "/p/" + strings.TrimPrefix(r.URL.Path, "/cmd/")
		q := b.cmds[page]
		if len(q) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		b.cmds[page] = q[1:]
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, q[0])
	default:
		http.NotFound(w, r)
	}
}

// open opens a tab on a new page titled title that loads the adapter from
// adapter, and returns the page's URL (as the tab reports it to the server:
// on localhost, another origin than the server's 127.0.0.1).
func (b *browser) open(title, adapter string) (string, error) {
	b.mu.Lock()
	path := fmt.Sprintf("/p/%d", len(b.pages)+1)
	b.pages[path] = sitePage{title: title, adapter: adapter}
	b.mu.Unlock()
	page := strings.Replace(b.site.URL, "127.0.0.1", "localhost", 1) + path
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPut, b.devtool+"/json/new?"+url.PathEscape(page), nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("open a Chromium tab on %s: %w", page, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("open a Chromium tab on %s: %d %s", page, resp.StatusCode, body)
	}
	return page, nil
}

// run hands the page at pageURL a script to run from a timer, and returns
// once the page says it ran it (and the events it raised were dispatched).
func (b *browser) run(pageURL, src string) error {
	u, err := url.Parse(pageURL)
	if err != nil {
		return err
	}
	b.mu.Lock()
	if _, ok := b.pages[u.Path]; !ok {
		b.mu.Unlock()
		return fmt.Errorf("no page %s", pageURL)
	}
	b.cmds[u.Path] = append(b.cmds[u.Path], src)
	want := b.ran[u.Path] + len(b.cmds[u.Path])
	b.mu.Unlock()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b.mu.Lock()
		n := b.ran[u.Path]
		b.mu.Unlock()
		if n >= want {
			time.Sleep(100 * time.Millisecond) // an unhandled rejection is reported a task later
			return nil
		}
	}
	return fmt.Errorf("the page %s did not run %q within 20 s", pageURL, src)
}

// console is what Chromium printed, for a failure's message.
func (b *browser) console() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.out.String()
}

// close ends Chromium and its helper processes (the process group it
// leads), the site, and removes the profile.
func (b *browser) close() {
	if b.cmd != nil && b.cmd.Process != nil {
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		_ = b.cmd.Wait()
	}
	if b.site != nil {
		b.site.CloseClientConnections()
		b.site.Close()
	}
	// A helper may still be writing the profile as it dies: try again.
	for i := 0; i < 10; i++ {
		if kit.RemoveTemp(b.profile, profilePrefix) == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
