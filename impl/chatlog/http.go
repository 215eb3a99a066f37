package chatlog

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// HTTPTransport serves the browser adapter over HTTP: GET / (a page that
// loads the adapter), GET /adapter.js, POST /api/register, GET /api/poll
// (long-poll), POST /api/result, POST /api/heartbeat. Nothing else is
// served; in particular no log and not the registry (§chatlog-local-only).
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
		_, _ = w.Write([]byte(PageScript))
	})
	mux.HandleFunc("POST /api/register", t.register)
	mux.HandleFunc("POST /api/heartbeat", t.heartbeat)
	mux.HandleFunc("GET /api/poll", t.poll)
	mux.HandleFunc("POST /api/result", t.result)
	return mux
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
	var req struct{ Name, URL, Lang string }
	if err := decode(r, &req); err != nil {
		fail(w, err)
		return
	}
	reg, err := t.Server.Register(req.Name, req.URL, req.Lang)
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
