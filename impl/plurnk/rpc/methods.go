package rpc

import (
	"context"
	"encoding/json"
	"strings"
)

// method is one JSON-RPC method: it decodes its own params.
type method func(ctx context.Context, c *conn, params json.RawMessage) (any, error)

func (s *Server) methodTable() map[string]method {
	return map[string]method{
		"session.create": s.sessionCreate,
		"session.attach": s.sessionAttach,
		"session.runs":   s.sessionRuns,
		"loop.run":       s.loopRun,
		"loop.inject":    s.loopInject,
		"loop.cancel":    s.loopCancel,
		"loop.resolve":   s.loopResolve,
		"entry.read":     s.entryRead,
		"log.read":       s.logRead,
	}
}

// session returns the connection's session, or the not-attached error.
func session(c *conn) (int64, error) {
	id, _ := c.attached()
	if id == 0 {
		return 0, Errorf(CodeNotAttached, "not initialized: call session.create or session.attach first")
	}
	return id, nil
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
	c.attach(info.ID, info.RunID)
	return info, nil
}

func (s *Server) sessionAttach(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		ID *int64 `json:"id"`
	}
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	if p.ID == nil {
		return nil, Errorf(CodeInvalidParams, "invalid params: session.attach needs id")
	}
	info, err := s.backend.AttachSession(*p.ID)
	if err != nil {
		return nil, err
	}
	c.attach(info.ID, info.RunID)
	return info, nil
}

func (s *Server) sessionRuns(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	id, err := session(c)
	if err != nil {
		return nil, err
	}
	runs, err := s.backend.Runs(id)
	if err != nil {
		return nil, err
	}
	return map[string]any{"runs": runs}, nil
}

func (s *Server) loopRun(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	id, err := session(c)
	if err != nil {
		return nil, err
	}
	var p LoopParams
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	if strings.TrimSpace(p.Prompt) == "" {
		return nil, Errorf(CodeInvalidParams, "invalid params: loop.run needs a non-empty prompt")
	}
	if p.RunID == 0 {
		_, p.RunID = c.attached()
	}
	return s.backend.RunLoop(ctx, id, p)
}

func (s *Server) loopInject(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	id, err := session(c)
	if err != nil {
		return nil, err
	}
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
	if p.RunID == 0 {
		_, p.RunID = c.attached()
	}
	return s.backend.Inject(id, p.RunID, p.Prompt)
}

func (s *Server) loopCancel(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	id, err := session(c)
	if err != nil {
		return nil, err
	}
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
	if p.RunID == 0 {
		_, p.RunID = c.attached()
	}
	return s.backend.Cancel(id, p.RunID, p.Reason)
}

func (s *Server) loopResolve(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	id, err := session(c)
	if err != nil {
		return nil, err
	}
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
	return s.backend.Resolve(id, p)
}

func (s *Server) entryRead(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	id, err := session(c)
	if err != nil {
		return nil, err
	}
	var p struct {
		Target string `json:"target"`
	}
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	if p.Target == "" {
		return nil, Errorf(CodeInvalidParams, "invalid params: entry.read needs target")
	}
	return s.backend.ReadEntry(id, p.Target)
}

func (s *Server) logRead(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	id, err := session(c)
	if err != nil {
		return nil, err
	}
	var q LogQuery
	if e := decodeParams(raw, &q); e != nil {
		return nil, e
	}
	if q.Limit != nil && *q.Limit < 0 {
		return nil, Errorf(CodeInvalidParams, "invalid params: limit must not be negative")
	}
	if q.RunID == nil {
		_, run := c.attached()
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
