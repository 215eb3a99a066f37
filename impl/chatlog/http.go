package chatlog

import (
	"cmp"
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
		switch {
		case origin == "" || origin == "http://"+r.Host || origin == "https://"+r.Host:
		case !LoopbackOrigin(origin):
			t.Server.mu.Lock()
			t.Server.logf("refused %s %s from origin %s (not an allowed origin)", r.Method, r.URL.Path, origin)
			t.Server.mu.Unlock()
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "chatlog: origin " + origin + " is not allowed"})
			return
		case r.Method == http.MethodOptions:
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
			w.Header().Set("Access-Control-Max-Age", "600")
			w.Header().Set("Access-Control-Allow-Private-Network", "true")
			fallthrough
		default:
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Add("Vary", "Origin")
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

// answer answers a call with v, or with the error's status and
// {"error": …} when it failed.
func answer(w http.ResponseWriter, v any, err error) {
	if err != nil {
		writeJSON(w, statusOf(err), map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// done answers a call that has nothing to send back: 204, or as answer
// does when it failed.
func done(w http.ResponseWriter, err error) {
	if err != nil {
		answer(w, nil, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// statusOf is the status of a failed call: 403 for an unknown instance or
// a wrong token, 404 for an unknown job, 400 for anything else (a
// malformed body, a refused registration).
func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrUnknownInstance):
		return http.StatusForbidden
	case errors.Is(err, ErrUnknownJob):
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

const maxBody = 8 << 20

func decode(r *http.Request, v any) error {
	return json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxBody)).Decode(v)
}

func (t *HTTPTransport) register(w http.ResponseWriter, r *http.Request) {
	// ID, when set, is the instance the page was before a server restart:
	// it rejoins with its log (Server.Rejoin).
	var req struct{ Name, URL, Lang, ID string }
	var reg Registration
	err := decode(r, &req)
	if err == nil {
		reg, err = t.Server.Rejoin(req.ID, req.Name, req.URL, req.Lang)
	}
	answer(w, reg, err)
}

func (t *HTTPTransport) heartbeat(w http.ResponseWriter, r *http.Request) {
	var c creds
	err := decode(r, &c)
	if err == nil {
		err = t.Server.Heartbeat(c.ID, c.Token)
	}
	done(w, err)
}

func (t *HTTPTransport) poll(w http.ResponseWriter, r *http.Request) {
	id, token := r.URL.Query().Get("id"), r.URL.Query().Get("token")
	timer := t.Server.cfg.Clock.NewTimer(cmp.Or(t.LongPoll, t.Server.lim.longPoll))
	defer timer.Stop()
	for {
		task, wake, err := t.Server.Poll(id, token)
		if err != nil {
			answer(w, nil, err)
			return
		}
		if task != nil {
			answer(w, task, nil)
			// startedAt is when the answer has gone out (§chatlog-job-times).
			_ = http.NewResponseController(w).Flush()
			t.Server.Received(task)
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
	err := decode(r, &req)
	if err == nil {
		err = t.Server.Result(req.ID, req.Token, req.JobID, req.Outcome)
	}
	done(w, err)
}
