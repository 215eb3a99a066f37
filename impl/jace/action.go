package jace

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"anchorage/impl/jace/sandbox"
	"anchorage/impl/vary"
)

// ActionRequest is one action call, from /press, /actions or in-process.
type ActionRequest struct {
	Action         string
	Params         json.RawMessage // nil means {}
	SessionID      string          // "" is the default session
	DryRun         bool
	Intent         string
	Env            Env    // extra env keys (now, capabilities)
	IdempotencyKey string // honoured on commits only
	Via            string // endpoint, for the audit log
	// View asks for the module's view of the new state in the Outcome
	// (/press answers with it; an Action Result has no view).
	View bool
}

// Outcome is the result of an action call. Error is set when it failed,
// and Status is the HTTP status either way.
type Outcome struct {
	DryRun       bool
	State        json.RawMessage   // the new state; the unchanged one on error
	View         json.RawMessage   // the module's view of State (success only)
	Result       json.RawMessage   // ActionResult.result, if any
	AuditPreview string            // the module's, or derived
	Events       []json.RawMessage // ActionResult.events as returned
	Error        *Error
	Status       int
	Replayed     bool // an Idempotency-Key replay of an earlier outcome
	// ran is true when the module ran to completion (success or a domain
	// error); only such outcomes are kept for Idempotency-Key replays.
	ran bool
}

// actionResult is the ABI's ActionResult as the host reads it.
type actionResult struct {
	State        json.RawMessage `json:"state"`
	Result       json.RawMessage `json:"result"`
	AuditPreview json.RawMessage `json:"audit_preview"`
	Events       json.RawMessage `json:"events"`
	Error        json.RawMessage `json:"error"`
}

type moduleError struct {
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Hints   []string        `json:"hints"` // of another shape, the error is refused
	Details json.RawMessage `json:"details"`
	Status  json.RawMessage `json:"status"`
}

// moduleErr makes the Error a module's error member stands for: its code,
// message and hints, its details when they have the family's shape (an
// object), nothing else.
func moduleErr(me moduleError) *Error {
	msg := me.Message
	if msg == "" {
		msg = me.Code
	}
	e := &Error{Status: cmp.Or(moduleStatus(me.Code, me.Status), 400), Code: me.Code, Message: msg, Hints: me.Hints, kind: kindModule, declared: me.Status}
	if t := strings.TrimSpace(string(me.Details)); strings.HasPrefix(t, "{") {
		e.Details = json.RawMessage(canonical(me.Details))
	}
	return e
}

// derivedPreview is the audit_preview the runtime writes when the module
// gave none: the action name and its canonical params, "calc.sqrt {}"
// (with the preview variation "calc.sqrt({})").
func derivedPreview(action, canonParams string, v vary.Set) string {
	return vary.Choose(v, VaryPreview, spacedPreview, calledPreview)(action, canonParams)
}

func spacedPreview(action, canonParams string) string { return action + " " + canonParams }

// fingerprint identifies the payload an Idempotency-Key was first used with.
func fingerprint(req ActionRequest) string {
	env := map[string]json.RawMessage{}
	for k, v := range req.Env {
		env[k] = json.RawMessage(canonical(v))
	}
	body := struct {
		Action string                     `json:"action"`
		Params json.RawMessage            `json:"params"`
		Intent string                     `json:"intent"`
		Env    map[string]json.RawMessage `json:"env"`
	}{req.Action, json.RawMessage(canonical(req.Params)), req.Intent, env}
	sum := sha256.Sum256(mustJSON(body))
	return hex.EncodeToString(sum[:])
}

// Do runs an action: idempotency check, state lookup, the module's action,
// its view, and (unless dry-run or error) persisting state and relaying
// events.
func (r *Runtime) Do(req ActionRequest) *Outcome {
	if req.Params == nil {
		req.Params = json.RawMessage("{}")
	}
	// The canonical params serve both the derived audit_preview and the
	// audit record; compute them once.
	canon := canonical(req.Params)
	o := r.do(req, canon)
	r.audit.write(r.cfg.Clock.Now(), req, o, canon)
	return o
}

func (r *Runtime) do(req ActionRequest, canonParams string) *Outcome {
	o := &Outcome{
		DryRun:       req.DryRun,
		AuditPreview: derivedPreview(req.Action, canonParams, r.cfg.Vary),
	}
	nowMS, e := r.nowMS(req.Env)
	if e != nil {
		return o.fail(e)
	}

	s, err := r.lock(req.SessionID)
	if err != nil {
		return o.fail(failureError(err, "session"))
	}
	events, out := r.runKeyed(s, req, o, nowMS)
	s.mu.Unlock()

	r.events.publish(req.SessionID, events, eventDefaults{ // none: nothing is sent
		action: req.Action, now: r.cfg.Clock.Now(), entity: s.mod.manifest.Name, vary: r.cfg.Vary,
	})
	return out
}

// runKeyed answers a commit whose Idempotency-Key the session remembers
// with the outcome it had, and otherwise runs the action, remembering a
// commit's outcome under its key when the module answered (a request the
// runtime stopped leaves its key free). Called with s.mu held, so a second
// request with a key waits for the first to be over.
func (r *Runtime) runKeyed(s *session, req ActionRequest, o *Outcome, nowMS int64) ([]json.RawMessage, *Outcome) {
	if req.DryRun || req.IdempotencyKey == "" {
		return r.runLocked(s, req, o, nowMS), o
	}
	fp := fingerprint(req)
	if k, ok := s.keys[req.IdempotencyKey]; ok {
		if k.fingerprint != fp {
			return nil, o.fail(newError(kindKeyReused, "Idempotency-Key %q was already used in this session with a different payload", req.IdempotencyKey))
		}
		replay := *k.outcome
		replay.Replayed = true
		return nil, &replay
	}
	events := r.runLocked(s, req, o, nowMS)
	if o.ran {
		s.remember(req.IdempotencyKey, fp, o, r.cfg.MaxKeysPerSession)
	}
	return events, o
}

// runLocked does the work under the session lock and returns the events to
// relay (committed successes only).
func (r *Runtime) runLocked(s *session, req ActionRequest, o *Outcome, nowMS int64) []json.RawMessage {
	state, seed, err := r.ensureState(s)
	if err != nil {
		o.fail(failureError(err, "init"))
		return nil
	}
	o.State = state
	res, err := r.call(s, sandbox.Call{
		Kind:   "action",
		Action: req.Action,
		State:  string(state),
		Params: string(req.Params),
		Env:    envJSON(s.mod, req.Env, req.SessionID, req.DryRun, req.Intent),
		NowMS:  nowMS,
		Seed:   seed,
	})
	if err != nil {
		o.fail(failureError(err, fmt.Sprintf("action %q", req.Action)))
		return nil
	}
	var ar actionResult
	if decodeObject(res.JSON, &ar) != nil {
		o.fail(newError(kindBadResult, "action %q returned something other than an ActionResult object", req.Action))
		return nil
	}
	if len(ar.AuditPreview) > 0 && string(ar.AuditPreview) != "null" {
		var p string
		if json.Unmarshal(ar.AuditPreview, &p) != nil {
			o.fail(newError(kindBadResult, "action %q: audit_preview must be a string", req.Action))
			return nil
		}
		if p != "" {
			o.AuditPreview = p
		}
	}
	var events []json.RawMessage
	if len(ar.Events) > 0 && string(ar.Events) != "null" {
		if json.Unmarshal(ar.Events, &events) != nil {
			o.fail(newError(kindBadResult, "action %q: events must be an array", req.Action))
			return nil
		}
	}
	if isSet(ar.Result) {
		o.Result = ar.Result
	}
	if isSet(ar.Error) {
		var me moduleError
		if err := decodeObject(string(ar.Error), &me); err != nil || me.Code == "" {
			o.fail(newError(kindBadResult, "action %q: error must be {code, message?}", req.Action))
			return nil
		}
		o.ran = true
		o.Events = events
		o.fail(moduleErr(me))
		return nil
	}
	if !isSet(ar.State) && string(ar.State) != "null" {
		o.fail(newError(kindBadResult, "action %q returned no state", req.Action))
		return nil
	}
	newState := ar.State
	if req.View {
		view, err := r.call(s, sandbox.Call{Kind: "view", State: string(newState), NowMS: nowMS, Seed: res.Seed})
		if err != nil {
			o.fail(failureError(err, "view"))
			return nil
		}
		o.View = json.RawMessage(view.JSON)
	}
	o.State = newState
	o.Events = events
	o.Status = 200
	o.ran = true
	if req.DryRun {
		return nil
	}
	s.state = newState
	s.seed = res.Seed
	return events
}

func (o *Outcome) fail(e *Error) *Outcome {
	o.Error = e
	o.Status = e.Status
	return o
}

func isSet(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

func decodeObject(s string, v any) error {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") {
		return fmt.Errorf("not an object")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(t)))
	return dec.Decode(v)
}

// moduleStatus is the status a module's error code names: one of the
// family's ten canonical codes always its family status; another code its
// explicit error.status of 400-599, else a common name's status (in any
// letter case); 0 when it names none (the runtime then answers 400).
func moduleStatus(code string, explicit json.RawMessage) int {
	if st, ok := FamilyStatus(code); ok {
		return st
	}
	var n int
	if json.Unmarshal(explicit, &n) == nil && n >= 400 && n <= 599 { // an absent status does not decode
		return n
	}
	return map[string]int{
		"BAD_REQUEST": 400, "INVALID_ARGUMENT": 400, "INVALID": 400, "VALIDATION": 400, "VALIDATION_ERROR": 400,
		"UNAUTHENTICATED": 401, "PERMISSION_DENIED": 403, "ALREADY_EXISTS": 409, "ABORTED": 409,
		"FAILED_PRECONDITION": 412, "RESOURCE_EXHAUSTED": 429, "TOO_MANY_REQUESTS": 429,
		"NOT_IMPLEMENTED": 501, "UNIMPLEMENTED": 501, "UNAVAILABLE": 503, "TIMEOUT": 504, "DEADLINE_EXCEEDED": 504,
	}[strings.ToUpper(code)]
}

// remember keeps o for the replays of key, forgetting the oldest keys
// beyond max. Called with s.mu held.
func (s *session) remember(key, fp string, o *Outcome, max int) {
	stored := *o
	s.keys[key] = &keyEntry{fingerprint: fp, outcome: &stored}
	s.keyOrder = append(s.keyOrder, key)
	for len(s.keyOrder) > max {
		delete(s.keys, s.keyOrder[0])
		s.keyOrder = s.keyOrder[1:]
	}
}
