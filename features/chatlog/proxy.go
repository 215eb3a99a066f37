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
// tab slow or hung without touching the page: a result is posted d late
// (the page takes d to run each job), or held until the page recovers.
type pageProxy struct {
	srv *httptest.Server

	mu    sync.Mutex
	delay time.Duration
	hung  bool
	held  []chan struct{} // results waiting for the page to recover, in order
	quit  chan struct{}   // closed when the scenario ends
}

func newPageProxy(server string) (*pageProxy, error) {
	target, err := url.Parse(server)
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = log.New(io.Discard, "", 0) // a long poll cut by the scenario's end is no news
	p := &pageProxy{quit: make(chan struct{})}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/result" {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			p.wait(r)
		}
		rp.ServeHTTP(w, r)
	}))
	return p, nil
}

// wait holds a result as the page's state says: d late, or until release.
func (p *pageProxy) wait(r *http.Request) {
	p.mu.Lock()
	d, hung := p.delay, p.hung
	var turn chan struct{}
	if hung {
		turn = make(chan struct{})
		p.held = append(p.held, turn)
	}
	p.mu.Unlock()
	var late <-chan time.Time // nil while hung: only release, the end or the tab's leaving ends the wait
	if !hung {
		t := time.NewTimer(d)
		defer t.Stop()
		late = t.C
	}
	select {
	case <-turn:
	case <-late:
	case <-r.Context().Done():
	case <-p.quit:
	}
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

// release lets the held results go, one after another, and stops hanging.
func (p *pageProxy) release() {
	p.mu.Lock()
	held := p.held
	p.held, p.hung = nil, false
	p.mu.Unlock()
	for _, t := range held {
		close(t)
		time.Sleep(50 * time.Millisecond) // in the order the page produced them
	}
}

func (p *pageProxy) close() {
	close(p.quit)
	p.srv.CloseClientConnections()
	p.srv.Close()
}
