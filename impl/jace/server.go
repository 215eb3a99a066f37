package jace

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"anchorage/impl/vary"
)

// Server is the JACE HTTP API as an http.Handler.
//
//	GET  /healthz                    {"ok":true}
//	GET  /manifest                   {"name","version","actions"} (the reference's own)
//	POST /load       {source,name?,env?}  {"ok":true}
//	POST /load-file  {path,env?}          {"ok":true}
//	POST /init       {env?}               {"state"}
//	POST /view[?format=jace|html]  {state?,audience?,session_id?}  {"jace"} or HTML
//	POST /press      {action,params?,env?}            {state,jace,result?,audit_preview,events?} / {state,error,audit_preview}
//	POST /actions    {action,params?,dry_run?,intent?,session_id?}  Action Result
//	GET  /agent/events, /events [?session_id=]   text/event-stream
//
// Every error is {"error":{"code","message"}} with a 4xx/5xx status.
type Server struct {
	rt  *Runtime
	dec *Decoder
	v   vary.Set
}

// NewServer makes a Runtime from cfg and wraps it.
func NewServer(cfg Config) (*Server, error) {
	rt, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &Server{rt: rt, dec: NewDecoder(rt.cfg.MaxBody, rt.cfg.Vary), v: rt.cfg.Vary}, nil
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
			s.writeJSON(w, 200, map[string]bool{"ok": true})
		}
	case "/manifest":
		if s.method(w, r, http.MethodGet) {
			s.writeJSON(w, 200, s.rt.Manifest())
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
			s.writeError(w, e)
			return
		}
		s.dispatch(w, r, req)
	default:
		s.writeError(w, newError(kindRoute, "no endpoint %s", r.URL.Path))
	}
}

func (s *Server) method(w http.ResponseWriter, r *http.Request, want string) bool {
	if r.Method == want || (want == http.MethodGet && r.Method == http.MethodHead) {
		return true
	}
	setHeaders(w.Header(), headerField{"Allow", want})
	s.writeError(w, newError(kindMethod, "%s %s: use %s", r.Method, r.URL.Path, want))
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
			s.writeError(w, failureError(err, "load"))
			return
		}
		s.writeJSON(w, 200, map[string]bool{"ok": true})
	case *LoadFileRequest:
		if _, err := s.rt.LoadFile(q.Path, q.Env); err != nil {
			s.writeError(w, failureError(err, "load-file"))
			return
		}
		s.writeJSON(w, 200, map[string]bool{"ok": true})
	case *InitRequest:
		st, err := s.rt.Init(q.Env)
		if err != nil {
			s.writeError(w, failureError(err, "init"))
			return
		}
		s.writeJSON(w, 200, struct {
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
			View:           true,
		})
		e := s.wire(o.Error)
		s.writeOutcome(w, o, e, pressBody(o, e))
	case *ActionsRequest:
		o := s.rt.Do(ActionRequest{
			Action:         q.Action,
			Params:         q.Params,
			SessionID:      q.SessionID,
			DryRun:         q.DryRun,
			Intent:         q.Intent,
			IdempotencyKey: r.Header.Get(IdempotencyHeader),
			Via:            EndpointActions,
		})
		s.writeActions(w, o)
	}
}

// wire is e as this server sends it (nil stays nil).
func (s *Server) wire(e *Error) *Error {
	if e == nil {
		return nil
	}
	return wire(e, s.v)
}

// view answers /view in the form the family's precedence picks:
// ?format=jace|html, then the audience, then the Accept header, and by
// default HTML. The audience filters the view; without one the HTML form
// is filtered for humans and the JSON form is the module's view as it is.
func (s *Server) view(w http.ResponseWriter, r *http.Request, q *ViewRequest) {
	asHTML, mt, e := s.viewForm(r, q.Audience)
	if e != nil {
		s.writeError(w, e)
		return
	}
	view, err := s.rt.View(q.SessionID, q.State)
	if err != nil {
		s.writeError(w, failureError(err, "view"))
		return
	}
	audience := q.Audience
	if audience == "" && asHTML {
		audience = AudienceHuman
	}
	if audience != "" {
		view = FilterView(view, audience)
	}
	setHeaders(w.Header(), headerField{"Vary", s.headerValue("Accept")})
	if asHTML {
		s.writeBody(w, 200, TypeHTML, vary.Choose(s.v, VaryHTML, RenderHTML, renderHTMLPlain)(s.rt.Manifest(), view))
		return
	}
	s.writeTyped(w, 200, mt, struct {
		JACE json.RawMessage `json:"jace"`
	}{view})
}

// viewForm returns whether the view goes as HTML, the media type of the
// JSON form, or the error of a ?format= the family does not name.
func (s *Server) viewForm(r *http.Request, audience string) (bool, string, *Error) {
	accept := r.Header.Get("Accept")
	jsonType := s.jsonViewType(accept)
	if f, ok := r.URL.Query()["format"]; ok {
		switch v := strings.Join(f, ","); v {
		case "jace":
			return false, jsonType, nil
		case "html":
			return true, TypeHTML, nil
		default:
			return false, "", newError(kindFormat, "format %q: want jace or html", v)
		}
	}
	switch audience {
	case AudienceAgent:
		return false, jsonType, nil
	case AudienceHuman:
		return true, TypeHTML, nil
	}
	prefer := vary.Choose(s.v, VaryNegotiation, []string{TypeHTML, TypeJACE, TypeJSON}, []string{TypeJACE, TypeJSON, TypeHTML})
	mt, ok := Negotiate(accept, prefer)
	if !ok || mt == TypeHTML {
		return true, TypeHTML, nil // the family's default
	}
	if mt == TypeJSON {
		return false, jsonType, nil
	}
	return false, TypeJACE, nil
}

// jsonViewType is the media type of the view's JSON form:
// application/jace+json, or application/json for a client whose Accept
// header rates that above it (under the negotiation variation, always
// application/jace+json).
func (s *Server) jsonViewType(accept string) string {
	return vary.Choose(s.v, VaryNegotiation, negotiatedJSONType, alwaysJACE)(accept)
}

func negotiatedJSONType(accept string) string {
	if mt, ok := Negotiate(accept, []string{TypeJACE, TypeJSON}); ok {
		return mt
	}
	return TypeJACE
}

func alwaysJACE(string) string { return TypeJACE }

// pressBody is /press's minimal shape, e being o's error as sent.
func pressBody(o *Outcome, e *Error) any {
	if e != nil {
		return struct {
			State        json.RawMessage `json:"state,omitempty"`
			Error        *Error          `json:"error"`
			AuditPreview string          `json:"audit_preview"`
		}{o.State, e, o.AuditPreview}
	}
	return struct {
		State        json.RawMessage   `json:"state"`
		JACE         json.RawMessage   `json:"jace"`
		Result       json.RawMessage   `json:"result,omitempty"`
		AuditPreview string            `json:"audit_preview"`
		Events       []json.RawMessage `json:"events,omitempty"`
	}{o.State, o.View, o.Result, o.AuditPreview, o.Events}
}

// writeActions writes the /actions response, the Action Result written by
// appendActionsBody (see fastjson.go).
func (s *Server) writeActions(w http.ResponseWriter, o *Outcome) {
	e := s.wire(o.Error)
	body := vary.Apply(s.v, VaryJSONLayout, escapeSeparators(append(appendActionsBody(make([]byte, 0, 2048), o, e), '\n')), relayout)
	s.writeBody(w, outcomeStatus(o, e), TypeJSON, body, s.replayMark(o)...)
}

// outcomeStatus is the status of an outcome whose error goes as e.
func outcomeStatus(o *Outcome, e *Error) int {
	switch {
	case e != nil:
		return e.Status
	case o.Status == 0:
		return 500
	}
	return o.Status
}

// replayMark is the header that marks an answer replayed for its
// Idempotency-Key: none on a first answer, nor under the replay-header
// variation. writeBody sets it with the Content-Type, so that no statement
// of its own can be left out.
func (s *Server) replayMark(o *Outcome) []headerField {
	if !o.Replayed {
		return nil
	}
	return vary.Choose(s.v, VaryReplayHeader, []headerField{{ReplayedHeader, "true"}}, nil)
}

func (s *Server) writeOutcome(w http.ResponseWriter, o *Outcome, e *Error, body any) {
	s.writeTyped(w, outcomeStatus(o, e), TypeJSON, body, s.replayMark(o)...)
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
	setHeaders(w.Header(), headerField{"Content-Type", s.contentType("text/event-stream")},
		headerField{"Cache-Control", s.headerValue("no-cache")}, headerField{"X-Accel-Buffering", "no"})
	if err := rc.Flush(); err != nil { // sends the headers, with status 200
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
			if _, err := w.Write(s.sseMessage(msg)); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
}

// sseMessage frames one event as an SSE message: a data line per line of
// its JSON (one, unless the JSON is laid out over several).
func (s *Server) sseMessage(msg []byte) []byte {
	var b bytes.Buffer
	for _, line := range bytes.Split(vary.Apply(s.v, VaryJSONLayout, msg, relayoutEvent), []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// contentType is the Content-Type of a media type: text/html with its
// charset, the others without parameters; with media-params, a charset on
// JSON and event streams and the family's profile on
// application/jace+json; with header-case, the media type in capitals.
func (s *Server) contentType(mt string) string {
	params := vary.Choose(s.v, VaryMediaParams, mediaParams, variedMediaParams)()
	return vary.Apply(s.v, VaryHeaderCase, mt, strings.ToUpper) + params[mt]
}

func mediaParams() map[string]string { return map[string]string{TypeHTML: "; charset=utf-8"} }

// headerValue is a header value HTTP compares without case, recased under
// header-case.
func (s *Server) headerValue(v string) string {
	return vary.Apply(s.v, VaryHeaderCase, v, recase)
}

func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	s.writeTyped(w, status, TypeJSON, v)
}

func (s *Server) writeTyped(w http.ResponseWriter, status int, mt string, v any, extra ...headerField) {
	s.writeBody(w, status, mt, vary.Apply(s.v, VaryJSONLayout, escapeSeparators(append(mustJSON(v), '\n')), relayout), extra...)
}

// headerField is one header of an answer.
type headerField struct{ name, value string }

// setHeaders sets the headers of an answer. Every header the server
// writes is set here, in one statement.
func setHeaders(h http.Header, fields ...headerField) {
	for _, f := range fields {
		h.Set(f.name, f.value)
	}
}

// writeBody answers with status and a body of media type mt, and the extra
// headers.
func (s *Server) writeBody(w http.ResponseWriter, status int, mt string, body []byte, extra ...headerField) {
	setHeaders(w.Header(), append([]headerField{{"Content-Type", s.contentType(mt)}}, extra...)...)
	w.WriteHeader(status)
	w.Write(body)
}

func (s *Server) writeError(w http.ResponseWriter, e *Error) {
	e = s.wire(e)
	s.writeJSON(w, e.Status, struct {
		Error *Error `json:"error"`
	}{e})
}

// escapeSeparators writes the line and paragraph separators U+2028 and
// U+2029 of a JSON text as \u2028 and \u2029, so that the text is also
// valid JavaScript source (the values a module returned keep them as its
// JSON.stringify wrote them). In valid JSON they can only stand inside a
// string, where the escape means the same character.
func escapeSeparators(b []byte) []byte {
	const lineSep, paraSep = "\u2028", "\u2029"
	if !bytes.Contains(b, []byte(lineSep)) && !bytes.Contains(b, []byte(paraSep)) {
		return b
	}
	b = bytes.ReplaceAll(b, []byte(lineSep), []byte(`\u2028`))
	return bytes.ReplaceAll(b, []byte(paraSep), []byte(`\u2029`))
}
