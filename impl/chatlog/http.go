package chatlog

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"time"
)

// HTTPTransport serves the browser adapter over HTTP: GET / (a page that
// loads the adapter), GET /adapter.js, POST /api/register, GET /api/poll
// (long-poll), POST /api/result, POST /api/heartbeat. Nothing else is
// served; in particular no log and not the registry (§chatlog-local-only).
// Any page of an allowed origin can become a realm by loading
// http://<server>/adapter.js with a script tag or a bookmarklet:
//
//	javascript:(function(){var s=document.createElement("script");s.src="http://127.0.0.1:8302/adapter.js";document.head.appendChild(s)})()
type HTTPTransport struct {
	Server *Server
	// LongPoll is how long a poll waits for a job before answering 204,
	// 25 s by default. It is measured on the server's clock.
	LongPoll time.Duration
	// AllowOrigin says which other origins' pages may load the adapter and
	// use the API (CORS); nil allows the pages of this machine
	// (LoopbackOrigin).
	AllowOrigin func(origin string) bool
}

// Handler returns the transport's HTTP handler.
func (t *HTTPTransport) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(pageHTML))
	})
	mux.HandleFunc("GET /adapter.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write([]byte(PageScriptFor(t.Server.cfg.Vary)))
	})
	mux.HandleFunc("POST /api/register", t.cors(t.register))
	mux.HandleFunc("POST /api/heartbeat", t.cors(t.heartbeat))
	mux.HandleFunc("GET /api/poll", t.cors(t.poll))
	mux.HandleFunc("POST /api/result", t.cors(t.result))
	mux.HandleFunc("OPTIONS /api/{call}", t.cors(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	return mux
}

// LoopbackOrigin reports whether origin is a page served from this machine
// (http or https on localhost, 127.0.0.0/8 or [::1], any port): the
// default set of origins whose pages may be realms.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// cors lets a page of another allowed origin use the API: the realm is any
// tab of the browser, not only the page this server serves. A request that
// carries the Origin of a page that is neither this server nor allowed is
// refused with 403 before it does anything (a simple POST needs no
// preflight, so the browser alone would not stop its effect). Only the API
// answers cross-origin, without credentials, for GET and POST with a JSON
// body; a preflight may ask for private-network access (a public page
// reaching a loopback server), which is granted to allowed origins only.
func (t *HTTPTransport) cors(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || origin == "http://"+r.Host || origin == "https://"+r.Host {
			if r.Method == http.MethodOptions {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			h(w, r)
			return
		}
		allow := t.AllowOrigin
		if allow == nil {
			allow = LoopbackOrigin
		}
		if !allow(origin) {
			t.Server.mu.Lock()
			t.Server.logf("refused %s %s from origin %s (not an allowed origin)", r.Method, r.URL.Path, origin)
			t.Server.mu.Unlock()
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "chatlog: origin " + origin + " is not allowed"})
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
			w.Header().Set("Access-Control-Max-Age", "600")
			if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
				w.Header().Set("Access-Control-Allow-Private-Network", "true")
			}
		}
		h(w, r)
	}
}

type creds struct {
	ID    string `json:"id"`
	Token string `json:"token"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, err error) {
	code := http.StatusBadRequest
	if errors.Is(err, ErrUnknownInstance) {
		code = http.StatusForbidden
	} else if errors.Is(err, ErrUnknownJob) {
		code = http.StatusNotFound
	}
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

const maxBody = 8 << 20

func decode(r *http.Request, v any) error {
	return json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxBody)).Decode(v)
}

func (t *HTTPTransport) register(w http.ResponseWriter, r *http.Request) {
	// ID, when set, is the instance the page was before a server restart:
	// it rejoins with its log (Server.Rejoin).
	var req struct{ Name, URL, Lang, ID string }
	if err := decode(r, &req); err != nil {
		fail(w, err)
		return
	}
	reg, err := t.Server.Rejoin(req.ID, req.Name, req.URL, req.Lang)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, reg)
}

func (t *HTTPTransport) heartbeat(w http.ResponseWriter, r *http.Request) {
	var c creds
	if err := decode(r, &c); err != nil {
		fail(w, err)
		return
	}
	if err := t.Server.Heartbeat(c.ID, c.Token); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (t *HTTPTransport) poll(w http.ResponseWriter, r *http.Request) {
	id, token := r.URL.Query().Get("id"), r.URL.Query().Get("token")
	wait := t.LongPoll
	if wait <= 0 {
		wait = 25 * time.Second
		if t.Server.cfg.Vary.Has("limits") {
			wait = 20 * time.Second
		}
	}
	timer := t.Server.cfg.Clock.NewTimer(wait)
	defer timer.Stop()
	for {
		wake, err := t.Server.Wake(id, token)
		if err != nil {
			fail(w, err)
			return
		}
		task, err := t.Server.Poll(id, token)
		if err != nil {
			fail(w, err)
			return
		}
		if task != nil {
			writeJSON(w, http.StatusOK, task)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			// startedAt is when the response has gone out.
			_ = t.Server.Received(id, token, task.JobID)
			return
		}
		select {
		case <-wake:
		case <-timer.C():
			w.WriteHeader(http.StatusNoContent)
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (t *HTTPTransport) result(w http.ResponseWriter, r *http.Request) {
	var req struct {
		creds
		JobID string `json:"jobId"`
		Outcome
	}
	if err := decode(r, &req); err != nil {
		fail(w, err)
		return
	}
	if err := t.Server.Result(req.ID, req.Token, req.JobID, req.Outcome); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
