package jace

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// auditLog writes one JSON line per action call.
type auditLog struct {
	mu sync.Mutex
	w  io.Writer
}

// AuditRecord is one line of the audit log.
type AuditRecord struct {
	TS             string          `json:"ts"`
	Via            string          `json:"via,omitempty"`
	Action         string          `json:"action"`
	Params         json.RawMessage `json:"params"`
	AuditPreview   string          `json:"audit_preview"`
	SessionID      string          `json:"session_id"`
	IdempotencyKey string          `json:"idempotency_key"`
	DryRun         bool            `json:"dry_run"`
	Intent         string          `json:"intent,omitempty"`
	Outcome        string          `json:"outcome"` // committed, dry_run, replayed, error
	Status         int             `json:"status"`
	ErrorCode      string          `json:"error_code,omitempty"`
}

// write logs one action; canon is canonical(req.Params).
func (a *auditLog) write(now time.Time, req ActionRequest, o *Outcome, canon string) {
	if a.w == io.Discard {
		// Nothing would be kept: skip building the line.
		return
	}
	rec := AuditRecord{
		TS:             now.UTC().Format(time.RFC3339Nano),
		Via:            req.Via,
		Action:         req.Action,
		Params:         json.RawMessage(canon),
		AuditPreview:   o.AuditPreview,
		SessionID:      req.SessionID,
		IdempotencyKey: req.IdempotencyKey,
		DryRun:         req.DryRun,
		Intent:         req.Intent,
		Status:         o.Status,
	}
	switch {
	case o.Replayed:
		rec.Outcome = "replayed"
	case o.Error != nil:
		rec.Outcome = "error"
		rec.ErrorCode = o.Error.Code
	case req.DryRun:
		rec.Outcome = "dry_run"
	default:
		rec.Outcome = "committed"
	}
	line := append(mustJSON(rec), '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	a.w.Write(line) // an audit sink that fails cannot fail the action
}
