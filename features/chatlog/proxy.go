package chatlog

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// pageProxy stands between one tab and the server under test: the tab
// loads the adapter from it, so every call of that tab's adapter goes
// through it and is forwarded unchanged. It is how the harness makes a real
// tab slow or hung without touching the page: a result reaches the server d
// late (the page takes d to run each job), or is kept until the page
// recovers, while the tab goes on polling as a page whose job is still
// running does.
type pageProxy struct {
	srv    *httptest.Server
	server string // the server's base URL

	mu    sync.Mutex
	delay time.Duration
	hung  bool
	held  []heldCall    // results kept while hung, in order
	quit  chan struct{} // closed when the scenario ends
}

// heldCall is a result call kept while the page hangs.
type heldCall struct {
	header http.Header
	body   []byte
}

func newPageProxy(server string) (*pageProxy, error) {
	target, err := url.Parse(server)
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = log.New(io.Discard, "", 0) // a long poll cut by the scenario's end is no news
	p := &pageProxy{server: server, quit: make(chan struct{})}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/result" {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if p.keep(r, body) {
				// The tab is told its post went through; the server sees no
				// result until the page recovers.
				w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
				w.WriteHeader(http.StatusNoContent)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			if !p.late(r) {
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	return p, nil
}

// keep keeps a result while the page hangs.
func (p *pageProxy) keep(r *http.Request, body []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.hung {
		return false
	}
	p.held = append(p.held, heldCall{header: r.Header.Clone(), body: body})
	return true
}

// late waits the page's time per job; false when the scenario ended first.
func (p *pageProxy) late(r *http.Request) bool {
	p.mu.Lock()
	d := p.delay
	p.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-p.quit:
	}
	return false
}

func (p *pageProxy) setDelay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

func (p *pageProxy) hang() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hung = true
}

// release posts the kept results to the server, one after another in the
// order the page produced them, and stops hanging.
func (p *pageProxy) release() error {
	p.mu.Lock()
	held := p.held
	p.held, p.hung = nil, false
	p.mu.Unlock()
	for _, h := range held {
		req, err := http.NewRequest(http.MethodPost, p.server+"/api/result", bytes.NewReader(h.body))
		if err != nil {
			return err
		}
		req.Header = h.header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
	}
	return nil
}

func (p *pageProxy) close() {
	close(p.quit)
	p.srv.CloseClientConnections()
	p.srv.Close()
}
