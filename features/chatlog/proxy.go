package chatlog

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// pageProxy stands between one tab and the server under test: the tab
// loads the adapter from it, so every call of that tab's adapter goes
// through it and is forwarded unchanged. It is how the harness makes a real
// tab slow or hung without touching the page: a result reaches the server d
// late (the page takes d to run each job), or is kept until the page
// recovers, while the tab goes on polling as a page whose job is still
// running does. A result is what the tab posts to a path ending in
// /result (the contract says so). A frozen tab reaches the server no more:
// every call is held and the calls under way are cut.
type pageProxy struct {
	srv    *httptest.Server
	server string // the server's base URL

	mu     sync.Mutex
	delay  time.Duration
	hung   bool
	held   []heldCall // results kept while hung, in order
	frozen bool
	calls  map[int]context.CancelFunc // the calls under way
	next   int
	quit   chan struct{} // closed when the scenario ends
}

// heldCall is a result call kept while the page hangs.
type heldCall struct {
	path   string
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
	p := &pageProxy{server: server, quit: make(chan struct{}), calls: map[int]context.CancelFunc{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, done, ok := p.enter(r)
		if !ok {
			return
		}
		defer done()
		r = r.WithContext(ctx)
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/result") {
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

// enter lets a call through, one that freeze can cut; a call of a frozen
// tab is held until it gives up or the scenario ends, and never forwarded.
func (p *pageProxy) enter(r *http.Request) (context.Context, func(), bool) {
	p.mu.Lock()
	if p.frozen {
		p.mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-p.quit:
		}
		return nil, nil, false
	}
	ctx, cancel := context.WithCancel(r.Context())
	id := p.next
	p.next++
	p.calls[id] = cancel
	p.mu.Unlock()
	return ctx, func() {
		p.mu.Lock()
		delete(p.calls, id)
		p.mu.Unlock()
		cancel()
	}, true
}

// freeze cuts the calls under way and holds every later one.
func (p *pageProxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frozen = true
	for _, cancel := range p.calls {
		cancel()
	}
}

// keep keeps a result while the page hangs.
func (p *pageProxy) keep(r *http.Request, body []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.hung {
		return false
	}
	p.held = append(p.held, heldCall{path: r.URL.RequestURI(), header: r.Header.Clone(), body: body})
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
		req, err := http.NewRequest(http.MethodPost, p.server+h.path, bytes.NewReader(h.body))
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
