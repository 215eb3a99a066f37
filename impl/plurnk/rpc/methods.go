package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// method is one JSON-RPC method: it decodes its own params.
type method func(ctx context.Context, c *conn, params json.RawMessage) (any, error)

// Method is a registered method (§method-registration-register): its
// handler, what discover shows of it (description and params), whether it
// needs an attached session (requiresInit: a connection without one gets
// the auto envelope, §methods-auto-envelope, unless NoEnvelope is set,
// when it is answered -32000) and whether it is exempt from the RPC
// timeout (longRunning).
type Method struct {
	Handler      method
	Description  string
	Params       map[string]string
	RequiresInit bool
	// NoEnvelope: the method acts on something an envelope created on the
	// spot cannot hold yet (a proposal, the session's name), so an
	// unattached call is answered -32000 instead.
	NoEnvelope  bool
	LongRunning bool
}

// Register adds a method; a name registered twice is refused.
func (s *Server) Register(name string, m Method) error {
	if m.Handler == nil {
		return fmt.Errorf("rpc: register %q: no handler", name)
	}
	if _, taken := s.methods[name]; taken {
		return fmt.Errorf("rpc: register %q: already registered", name)
	}
	s.methods[name] = m
	return nil
}

// notificationDocs are the notifications discover lists.
func notificationDocs() map[string]string {
	return map[string]string{
		"log/entry":       "{entry, runId}: a log row was written (every run of the session)",
		"loop/terminated": "the loop usage payload: a loop reached a terminal status",
		"loop/quiesced":   "{loopId, runId, status: 202}: a parked loop has nothing live beneath it",
		"loop/proposal":   "{logEntryId, sessionId, runId, loopId, turnId, op, target, body, attrs, flags}: an op waits for loop.resolve",
		"session/created": "{id, name, projectRoot}: a session was created",
		"stream/event":    "{entryId, channel, state, contentLength}: a channel grew or changed state",
		"telemetry/event": "{loopId, runId, event}: an engine notice, live",
	}
}

// mirrorOps are the ops the op.* mirror offers (§methods-op-mirror).
func mirrorOps() []string {
	return []string{"FIND", "READ", "EDIT", "COPY", "MOVE", "OPEN", "FOLD", "EXEC", "KILL", "SEND"}
}

func (s *Server) register() {
	reg := func(name string, m Method) {
		if err := s.Register(name, m); err != nil {
			panic(err) // the built-in table is fixed
		}
	}
	reg("discover", Method{Handler: s.discover, Description: "List the methods, notifications and capabilities of this daemon.", Params: map[string]string{}})
	reg("session.create", Method{Handler: s.sessionCreate, Description: "Create a session and the connection's client run, and attach to it.",
		Params: map[string]string{"name": "string? — generated when absent", "projectRoot": "string|null? — null is headless", "settings": "object? — {client?, maxCommands?, mdDocs?: [{alias, content}]}", "modelRun": "string? — the model run's name, model when absent"}})
	reg("session.attach", Method{Handler: s.sessionAttach, Description: "Attach the connection to a session and one of its runs.",
		Params: map[string]string{"id": "number — the session", "runId": "number? — a run of the session", "runName": "string? — reused or created"}})
	reg("session.rename", Method{Handler: s.sessionRename, Description: "Rename the attached session.", RequiresInit: true, NoEnvelope: true,
		Params: map[string]string{"name": "string — not held by another session"}})
	reg("session.runs", Method{Handler: s.sessionRuns, Description: "List the runs of the attached session.", RequiresInit: true, Params: map[string]string{}})
	reg("session.members", Method{Handler: s.sessionMembers, Description: "List the attached session's members with their resolved effects, and the hidden files.", RequiresInit: true, Params: map[string]string{}})
	reg("session.constrain", Method{Handler: s.sessionConstrain, Description: "Add a rule to the session's membership overlay.", RequiresInit: true,
		Params: map[string]string{"effect": "string — pick, hide, view or repo", "pattern": "string — a glob relative to the project root"}})
	reg("loop.run", Method{Handler: s.loopRun, Description: "Run a model-driven loop with a prompt; answers at once with finalStatus 100.", RequiresInit: true,
		Params: map[string]string{"prompt": "string — the user prompt for the loop", "maxTurns": "number? — capped by PLURNK_MAX_TURNS", "alias": "string? — overrides PLURNK_MODEL", "flags": "object? — {yolo?}", "runId": "number? — a run of the session, the model run when absent"}})
	reg("loop.inject", Method{Handler: s.loopInject, Description: "Hand a prompt to a run as an event aimed at it.", RequiresInit: true,
		Params: map[string]string{"prompt": "string", "runId": "number? — the model run when absent"}})
	reg("loop.cancel", Method{Handler: s.loopCancel, Description: "Abort the active drain of a run.", RequiresInit: true,
		Params: map[string]string{"reason": "string? — user_cancelled by default", "runId": "number? — the model run when absent"}})
	reg("loop.resolve", Method{Handler: s.loopResolve, Description: "Settle a proposal.", RequiresInit: true, NoEnvelope: true,
		Params: map[string]string{"logEntryId": "number", "decision": "accept|reject|cancel", "outcome": "string?"}})
	reg("entry.read", Method{Handler: s.entryRead, Description: "Read a whole entry: channels, tags, metadata.", RequiresInit: true,
		Params: map[string]string{"target": "string — an address"}})
	reg("log.read", Method{Handler: s.logRead, Description: "Read log rows of a run of the session (the connection's own run by default).", RequiresInit: true,
		Params: map[string]string{"runId": "number?", "loopId": "number?", "turnId": "number?", "loopSeq": "number?", "turnSeq": "number?", "sequence": "number?", "sinceId": "number?", "limit": "number?"}})
	reg("op.look", Method{Handler: s.opLook, Description: "Resolve a READ (LOOK) for the connection's client loop without writing anything.", RequiresInit: true,
		Params: map[string]string{"text": "string — a LOOK or READ statement"}})
	for _, op := range mirrorOps() {
		target := "string — the op's target"
		switch op {
		case "EXEC":
			target = "string? — the working directory, the workspace root when absent"
		case "SEND":
			target = "string? — the entry or run the SEND is directed at"
		}
		reg("op."+strings.ToLower(op), Method{Handler: s.opMirror(op), Description: "Dispatch " + op + " as one turn of the connection's client loop.", RequiresInit: true,
			Params: map[string]string{"target": target, "body": "string|null?", "signal": "string?", "lines": "string? — the <L> marks"}})
	}
}

func (s *Server) discover(_ context.Context, _ *conn, _ json.RawMessage) (any, error) {
	methods := map[string]any{}
	for name, m := range s.methods {
		params := m.Params
		if params == nil {
			params = map[string]string{}
		}
		methods[name] = map[string]any{"description": m.Description, "params": params}
	}
	return map[string]any{"methods": methods, "notifications": notificationDocs(), "capabilities": s.backend.Capabilities()}, nil
}

// sessionOf returns the connection's session (the envelope was made by
// call when the method requires one).
func sessionOf(c *conn) int64 {
	id, _ := c.attached()
	return id
}

func (s *Server) sessionCreate(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p SessionParams
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	info, err := s.backend.CreateSession(p)
	if err != nil {
		return nil, err
	}
	s.rebind(c, info)
	return info, nil
}

// rebind attaches c to info's session and run, closing the client loop of
// the run it was attached to at 200 (§methods-rebind).
func (s *Server) rebind(c *conn, info SessionInfo) {
	oldSession, oldRun := c.attached()
	c.attach(info.ID, info.RunID)
	if oldSession != 0 && oldRun != info.RunID { // run ids are unique across sessions
		s.backend.CloseClient(oldSession, oldRun)
	}
}

func (s *Server) sessionAttach(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p AttachParams
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	if p.ID == nil {
		return nil, Errorf(CodeInvalidParams, "invalid params: session.attach needs id")
	}
	info, err := s.backend.AttachSession(p)
	if err != nil {
		return nil, err
	}
	s.rebind(c, info)
	return info, nil
}

func (s *Server) sessionRename(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Name string `json:"name"`
	}
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	if strings.TrimSpace(p.Name) == "" {
		return nil, Errorf(CodeInvalidParams, "invalid params: session.rename needs a name")
	}
	return s.backend.RenameSession(sessionOf(c), p.Name)
}

func (s *Server) sessionRuns(_ context.Context, c *conn, _ json.RawMessage) (any, error) {
	runs, err := s.backend.Runs(sessionOf(c))
	if err != nil {
		return nil, err
	}
	return map[string]any{"runs": runs}, nil
}

func (s *Server) loopRun(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p LoopParams
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	if strings.TrimSpace(p.Prompt) == "" {
		return nil, Errorf(CodeInvalidParams, "invalid params: loop.run needs a non-empty prompt")
	}
	return s.backend.RunLoop(ctx, sessionOf(c), p)
}

func (s *Server) loopInject(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Prompt string `json:"prompt"`
		RunID  int64  `json:"runId"`
	}
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	if strings.TrimSpace(p.Prompt) == "" {
		return nil, Errorf(CodeInvalidParams, "invalid params: loop.inject needs a non-empty prompt")
	}
	return s.backend.Inject(sessionOf(c), p.RunID, p.Prompt)
}

func (s *Server) loopCancel(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Reason string `json:"reason"`
		RunID  int64  `json:"runId"`
	}
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	if p.Reason == "" {
		p.Reason = "user_cancelled"
	}
	return s.backend.Cancel(sessionOf(c), p.RunID, p.Reason)
}

func (s *Server) loopResolve(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p ResolveParams
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	switch p.Decision {
	case "accept", "reject", "cancel":
	default:
		return nil, Errorf(CodeInvalidParams, `invalid params: decision must be "accept", "reject" or "cancel", not %q`, p.Decision)
	}
	if p.LogEntryID == 0 {
		return nil, Errorf(CodeInvalidParams, "invalid params: loop.resolve needs logEntryId")
	}
	return s.backend.Resolve(sessionOf(c), p)
}

func (s *Server) entryRead(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Target string `json:"target"`
	}
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	if p.Target == "" {
		return nil, Errorf(CodeInvalidParams, "invalid params: entry.read needs target")
	}
	return s.backend.ReadEntry(sessionOf(c), p.Target)
}

func (s *Server) logRead(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var q LogQuery
	if e := decodeParams(raw, &q); e != nil {
		return nil, e
	}
	if q.Limit != nil && *q.Limit < 0 {
		return nil, Errorf(CodeInvalidParams, "invalid params: limit must not be negative")
	}
	id, run := c.attached()
	if q.RunID == nil {
		q.RunID = &run
	}
	entries, err := s.backend.ReadLog(id, q)
	if err != nil {
		return nil, err
	}
	if entries == nil {
		entries = []LogEntry{}
	}
	return map[string]any{"entries": entries}, nil
}

// opMirror returns the handler of op.<op>: the params become the DSL
// statement the model would write, dispatched as one turn of the
// connection's client loop.
func (s *Server) opMirror(op string) method {
	return func(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
		var p OpParams
		if e := decodeParams(raw, &p); e != nil {
			return nil, e
		}
		text, err := p.statement(op)
		if err != nil {
			return nil, Errorf(CodeInvalidParams, "invalid params: %v", err)
		}
		id, run := c.attached()
		return s.backend.ClientOp(id, run, text)
	}
}

func (s *Server) opLook(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Text string `json:"text"`
	}
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	if strings.TrimSpace(p.Text) == "" {
		return nil, Errorf(CodeInvalidParams, "invalid params: op.look needs text")
	}
	id, run := c.attached()
	return s.backend.Look(id, run, p.Text)
}

// OpParams are the params of an op.* method.
type OpParams struct {
	Target *string `json:"target"`
	Body   *string `json:"body"`
	Signal *string `json:"signal"`
	Lines  *string `json:"lines"`
}

// statement writes the DSL statement of op with p's slots.
func (p OpParams) statement(op string) (string, error) {
	var b strings.Builder
	b.WriteString("<<" + op)
	if p.Signal != nil {
		if strings.ContainsAny(*p.Signal, "[]\n") {
			return "", fmt.Errorf("signal %q holds a bracket or a newline", *p.Signal)
		}
		b.WriteString("[" + *p.Signal + "]")
	}
	if p.Lines != nil {
		if strings.ContainsAny(*p.Lines, "<>\n") {
			return "", fmt.Errorf("lines %q holds an angle bracket or a newline", *p.Lines)
		}
		b.WriteString("<" + *p.Lines + ">")
	}
	if p.Target != nil {
		if strings.ContainsAny(*p.Target, "() \t\n") {
			return "", fmt.Errorf("target %q holds a parenthesis or whitespace", *p.Target)
		}
		b.WriteString("(" + *p.Target + ")")
	}
	closer := ":" + op
	b.WriteString(":")
	if p.Body != nil {
		if *p.Body == "" {
			return "", fmt.Errorf("an empty body cannot be written; send null to clear")
		}
		if strings.Contains(*p.Body, closer) {
			return "", fmt.Errorf("the body holds the close tag %q", closer)
		}
		b.WriteString(*p.Body)
	}
	b.WriteString(closer)
	return b.String(), nil
}
