package jace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Server is the JACE HTTP API as an http.Handler.
//
//	GET  /healthz                    {"ok":true}
//	GET  /manifest                   {"name","version","actions"}
//	POST /load       {source,name?,env?}  {"ok":true}
//	POST /load-file  {path,env?}          {"ok":true}
//	POST /init       {env?}               {"state"}
//	POST /view       {state?,audience?,session_id?}  {"jace"} or HTML
//	POST /press      {action,params?,env?}            {state,jace,result?,audit_preview,events?} / {state,error,audit_preview}
//	POST /actions    {action,params?,dry_run?,intent?,session_id?,env?}  Action Result
//	GET  /agent/events, /events [?session_id=]   text/event-stream
//
// Every error is {"error":{"code","message"}} with a 4xx/5xx status.
type Server struct {
	rt  *Runtime
	dec *Decoder
}

// NewServer makes a Runtime from cfg and wraps it.
func NewServer(cfg Config) (*Server, error) {
	rt, err := New(cfg)
	if err != nil {
		return nil, err
	}
	dec, err := NewDecoder(rt.cfg.MaxBody)
	if err != nil {
		rt.Close()
		return nil, fmt.Errorf("jace: %w", err)
	}
	return &Server{rt: rt, dec: dec}, nil
}

// Runtime returns the runtime behind the server.
func (s *Server) Runtime() *Runtime { return s.rt }

// Close closes the runtime: VMs are released and event streams end.
func (s *Server) Close() error { return s.rt.Close() }

// IdempotencyHeader is the request header carrying the de-duplication key;
// ReplayedHeader is set to "true" on a response replayed for it.
const (
	IdempotencyHeader = "Idempotency-Key"
	ReplayedHeader    = "Idempotent-Replayed"
)

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/healthz":
		if s.method(w, r, http.MethodGet) {
			writeJSON(w, 200, map[string]bool{"ok": true})
		}
	case "/manifest":
		if s.method(w, r, http.MethodGet) {
			writeJSON(w, 200, s.rt.Manifest())
		}
	case "/agent/events", "/events":
		if s.method(w, r, http.MethodGet) {
			s.events(w, r)
		}
	case EndpointLoad, EndpointLoadFile, EndpointInit, EndpointView, EndpointPress, EndpointActions:
		if !s.method(w, r, http.MethodPost) {
			return
		}
		req, e := s.decode(r)
		if e != nil {
			writeError(w, e)
			return
		}
		s.dispatch(w, r, req)
	default:
		writeError(w, errorf(404, "NOT_FOUND", "no endpoint %s", r.URL.Path))
	}
}

func (s *Server) method(w http.ResponseWriter, r *http.Request, want string) bool {
	if r.Method == want || (want == http.MethodGet && r.Method == http.MethodHead) {
		return true
	}
	w.Header().Set("Allow", want)
	writeError(w, errorf(405, "METHOD_NOT_ALLOWED", "%s %s: use %s", r.Method, r.URL.Path, want))
	return false
}

// decode enforces the body limit before anything is parsed, then the
// content type, JSON syntax and the endpoint's schema.
func (s *Server) decode(r *http.Request) (any, *Error) {
	body, e := s.dec.ReadBody(r.Body, r.ContentLength)
	if e != nil {
		return nil, e
	}
	if e := CheckContentType(r.Header.Get("Content-Type")); e != nil {
		return nil, e
	}
	return s.dec.Decode(r.URL.Path, body)
}

func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, req any) {
	switch q := req.(type) {
	case *LoadRequest:
		name := q.Name
		if name == "" {
			name = "module.js"
		}
		if _, err := s.rt.Load(q.Source, name, q.Env); err != nil {
			writeError(w, failureError(err, "load"))
			return
		}
		writeJSON(w, 200, map[string]bool{"ok": true})
	case *LoadFileRequest:
		if _, err := s.rt.LoadFile(q.Path, q.Env); err != nil {
			writeError(w, failureError(err, "load-file"))
			return
		}
		writeJSON(w, 200, map[string]bool{"ok": true})
	case *InitRequest:
		st, err := s.rt.Init(q.Env)
		if err != nil {
			writeError(w, failureError(err, "init"))
			return
		}
		writeJSON(w, 200, struct {
			State json.RawMessage `json:"state"`
		}{st})
	case *ViewRequest:
		s.view(w, r, q)
	case *PressRequest:
		o := s.rt.Do(ActionRequest{
			Action:         q.Action,
			Params:         q.Params,
			SessionID:      q.Env.str("session_id"),
			DryRun:         q.Env.flag("dry_run"),
			Intent:         q.Env.str("intent"),
			Env:            q.Env,
			IdempotencyKey: r.Header.Get(IdempotencyHeader),
			Via:            EndpointPress,
		})
		writeOutcome(w, o, pressBody(o))
	case *ActionsRequest:
		env := q.Env
		dry := q.DryRun || env.flag("dry_run")
		sid := q.SessionID
		if sid == "" {
			sid = env.str("session_id")
		}
		intent := q.Intent
		if intent == "" {
			intent = env.str("intent")
		}
		o := s.rt.Do(ActionRequest{
			Action:         q.Action,
			Params:         q.Params,
			SessionID:      sid,
			DryRun:         dry,
			Intent:         intent,
			Env:            env,
			IdempotencyKey: r.Header.Get(IdempotencyHeader),
			Via:            EndpointActions,
		})
		s.writeActions(w, o)
	}
}

func (s *Server) view(w http.ResponseWriter, r *http.Request, q *ViewRequest) {
	mt, explicit, ok := Negotiate(r.Header.Get("Accept"))
	audience := q.Audience
	asHTML := false
	switch audience {
	case AudienceAgent:
		if mt != TypeJACE {
			mt = TypeJSON
		}
	case AudienceHuman:
		asHTML = !(ok && explicit && mt != TypeHTML)
	default:
		if !ok {
			writeError(w, errorf(406, "NOT_ACCEPTABLE", "Accept %q: the view is offered as %s, %s or %s", r.Header.Get("Accept"), TypeJACE, TypeJSON, TypeHTML))
			return
		}
		if mt == TypeHTML {
			asHTML = true
			audience = AudienceHuman
		}
	}
	view, err := s.rt.View(q.SessionID, q.State)
	if err != nil {
		writeError(w, failureError(err, "view"))
		return
	}
	if audience != "" {
		if view, err = FilterView(view, audience); err != nil {
			writeError(w, errorf(500, "BAD_RESULT", "view: %v", err))
			return
		}
	}
	if asHTML {
		var b bytes.Buffer
		if err := RenderHTML(&b, s.rt.Manifest(), view); err != nil {
			writeError(w, errorf(500, "BAD_RESULT", "view: %v", err))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Vary", "Accept")
		w.WriteHeader(200)
		w.Write(b.Bytes())
		return
	}
	w.Header().Set("Vary", "Accept")
	writeTyped(w, 200, mt, struct {
		JACE json.RawMessage `json:"jace"`
	}{view})
}

// pressBody is /press's minimal shape.
func pressBody(o *Outcome) any {
	if o.Error != nil {
		return struct {
			State        json.RawMessage `json:"state,omitempty"`
			Error        *Error          `json:"error"`
			AuditPreview string          `json:"audit_preview"`
		}{o.State, o.Error, o.AuditPreview}
	}
	return struct {
		State        json.RawMessage   `json:"state"`
		JACE         json.RawMessage   `json:"jace"`
		Result       json.RawMessage   `json:"result,omitempty"`
		AuditPreview string            `json:"audit_preview"`
		Events       []json.RawMessage `json:"events,omitempty"`
	}{o.State, o.View, o.Result, o.AuditPreview, o.Events}
}

// writeActions writes the /actions response: writeOutcome(w, o,
// actionsBody(o)), with the body written by appendActionsBody instead of
// encoding/json (byte-identical; see fastjson.go).
func (s *Server) writeActions(w http.ResponseWriter, o *Outcome) {
	view := agentView(o)
	body := append(appendActionsBody(make([]byte, 0, 2048), o, view), '\n')
	if o.Replayed {
		w.Header().Set(ReplayedHeader, "true")
	}
	status := o.Status
	if status == 0 {
		status = 500
	}
	w.Header()["Content-Type"] = []string{"application/json"}
	w.WriteHeader(status)
	w.Write(body)
}

// agentView is the view /actions returns: the outcome's view filtered for
// agents (unfiltered if it does not filter), or nil on error.
func agentView(o *Outcome) json.RawMessage {
	if o.Error != nil || o.View == nil {
		return nil
	}
	v, err := FilterView(o.View, AudienceAgent)
	if err != nil {
		return o.View
	}
	return v
}

func writeOutcome(w http.ResponseWriter, o *Outcome, body any) {
	if o.Replayed {
		w.Header().Set(ReplayedHeader, "true")
	}
	status := o.Status
	if status == 0 {
		status = 500
	}
	writeJSON(w, status, body)
}

// events streams committed events as Server-Sent Events.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	sid, filter := "", false
	if v, ok := r.URL.Query()["session_id"]; ok {
		sid, filter = strings.Join(v, ""), true
	}
	ch, cancel := s.rt.Subscribe(sid, filter)
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(200)
	if err := rc.Flush(); err != nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case msg, ok := <-ch:
			if !ok {
				return
			}
			if _, err := fmt.Fprintf(w, "data: %s\n\n", msg); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	writeTyped(w, status, "application/json", v)
}

func writeTyped(w http.ResponseWriter, status int, mt string, v any) {
	b := mustJSON(v)
	w.Header().Set("Content-Type", mt)
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, e *Error) {
	writeJSON(w, e.Status, struct {
		Error *Error `json:"error"`
	}{e})
}
