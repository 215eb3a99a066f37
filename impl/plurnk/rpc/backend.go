package rpc

import (
	"context"
	"encoding/json"

	"anchorage/impl/plurnk/provider"
)

// Backend is what the daemon needs from the session-level orchestration of
// runs. Methods return an *Error for a failure the client caused (an
// unknown session, a run outside the session); any other error is an
// internal error.
type Backend interface {
	// Subscribe hands the backend the sink of its notifications.
	Subscribe(n Notifier)
	// Capabilities are what discover reports: providers, schemes and
	// mimetypes.
	Capabilities() Capabilities
	// CreateSession creates a session with its model run and the
	// connection's client run.
	CreateSession(p SessionParams) (SessionInfo, error)
	// AttachSession binds to a session and one of its runs (p.RunID, or
	// p.RunName reused or created, or a new auto-named client run).
	AttachSession(p AttachParams) (SessionInfo, error)
	RenameSession(session int64, name string) (RenameResult, error)
	// CloseClient closes the client loop of the run runID at 200 (a
	// connection moving away from it).
	CloseClient(session, runID int64)
	Runs(session int64) ([]RunInfo, error)
	// Members resolves the session's membership (session.members).
	Members(session int64) (MembersResult, error)
	// Constrain adds a rule to the session's overlay (session.constrain).
	Constrain(session int64, p ConstrainParams) (MembersResult, error)
	// RunLoop queues a loop of p.RunID (the model run when 0) or injects
	// the prompt into its running or parked loop, and answers at once.
	// The loop's end is announced by loop/terminated.
	RunLoop(ctx context.Context, session int64, p LoopParams) (LoopAccepted, error)
	// Inject hands prompt to the run runID (the model run when 0) as an
	// event aimed at it.
	Inject(session, runID int64, prompt string) (InjectResult, error)
	// Cancel aborts the run runID (the model run when 0).
	Cancel(session, runID int64, reason string) (CancelResult, error)
	Resolve(session int64, p ResolveParams) (ResolveResult, error)
	ReadEntry(session int64, target string) (EntryResult, error)
	// ReadLog reads the log of q.RunID, which must belong to the session.
	ReadLog(session int64, q LogQuery) ([]LogEntry, error)
	// ClientOp dispatches the statement text as one turn of the client
	// loop of the client run runID (the op.* mirror).
	ClientOp(session, runID int64, text string) (OpResult, error)
	// Look resolves a LOOK or READ for the client run runID, writing
	// nothing (op.look).
	Look(session, runID int64, text string) (LookResult, error)
}

// Notifier receives the backend's notifications. Session 0 means every
// connection. Notify must not block on the backend.
type Notifier interface {
	Notify(session int64, method string, params any)
}

// SessionParams are session.create's params.
type SessionParams struct {
	Name        string           `json:"name"`
	ProjectRoot *string          `json:"projectRoot"`
	Settings    *SessionSettings `json:"settings"`
	// ModelRun names the session's model run (ModelRun when empty).
	ModelRun string `json:"modelRun"`
}

// SessionSettings are session.create's settings.
type SessionSettings struct {
	// Client is the client's self-declared id, forwarded to every
	// generate call (§client-telemetry).
	Client string `json:"client"`
	// MaxCommands narrows PLURNK_MAX_COMMANDS for the session's loops.
	MaxCommands *int `json:"maxCommands"`
	// MdDocs are documents merged by alias over the operator's PLURNK_MD_*.
	MdDocs []MdDoc `json:"mdDocs"`
	// Git false turns git membership off for the session; true (or
	// absent) leaves it on, never past PLURNK_GIT_ALLOWED=0
	// (§operator-config-session-git).
	Git *bool `json:"git"`
}

// MdDoc is one document of settings.mdDocs.
type MdDoc struct {
	Alias   string `json:"alias"`
	Content string `json:"content"`
}

// AttachParams are session.attach's params.
type AttachParams struct {
	ID      *int64 `json:"id"`
	RunID   *int64 `json:"runId"`
	RunName string `json:"runName"`
}

// RenameResult is session.rename's result.
type RenameResult struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// Capabilities are discover's capabilities.
type Capabilities struct {
	Providers []string `json:"providers"`
	Schemes   []string `json:"schemes"`
	Mimetypes []string `json:"mimetypes"`
}

// LoopAccepted is loop.run's answer: the loop the prompt went to (null
// when it is queued behind the run's current work and not opened yet),
// what was done with it, and finalStatus 100.
type LoopAccepted struct {
	LoopID      *int64 `json:"loopId"`
	LoopSeq     int    `json:"loopSeq,omitempty"`
	RunID       int64  `json:"runId"`
	ModelRunID  int64  `json:"modelRunId"`
	Action      string `json:"action"`
	FinalStatus int    `json:"finalStatus"`
}

// OpResult is an op.* answer: the op's status and the rows it wrote.
type OpResult struct {
	Status  int        `json:"status"`
	Target  string     `json:"target,omitempty"`
	Content string     `json:"content,omitempty"`
	Reason  string     `json:"reason,omitempty"`
	LoopID  int64      `json:"loopId"`
	TurnSeq int        `json:"turnSeq"`
	Entries []LogEntry `json:"entries"`
}

// LookResult is op.look's answer.
type LookResult struct {
	Status   int    `json:"status"`
	Target   string `json:"target,omitempty"`
	Content  string `json:"content"`
	Mimetype string `json:"mimetype,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// SessionInfo is session.create's and session.attach's result.
type SessionInfo struct {
	ID          int64   `json:"id"`
	Name        string  `json:"name"`
	RunID       int64   `json:"runId"`
	RunName     string  `json:"runName"`
	ProjectRoot *string `json:"projectRoot"`
}

// RunInfo is one run as session.runs lists it.
type RunInfo struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Origin string `json:"origin"`
	// Parent names the run that spawned or forked it ("" for none).
	Parent string `json:"parent,omitempty"`
	Loops  int    `json:"loops"`
	// Status is the status of the run's latest loop, 0 when it has none.
	Status int `json:"status"`
}

// LoopParams are loop.run's params.
type LoopParams struct {
	Prompt   string    `json:"prompt"`
	MaxTurns int       `json:"maxTurns"`
	Alias    string    `json:"alias"`
	Flags    LoopFlags `json:"flags"`
	// RunID names a run of the session; 0 is the connection's own run.
	RunID int64 `json:"runId"`
}

// LoopFlags are a loop's flags.
//
// The seed names four per-loop flags: yolo, which this build honours, and
// noWeb, noInteraction and noProposals, which it schedules; those three
// are taken (a client may send them) and change nothing yet.
type LoopFlags struct {
	Yolo          bool `json:"yolo"`
	NoWeb         bool `json:"noWeb"`
	NoInteraction bool `json:"noInteraction"`
	NoProposals   bool `json:"noProposals"`
}

// LoopResult is the loop usage payload: loop.run's result and the params
// of loop/terminated.
type LoopResult struct {
	LoopID      int64           `json:"loopId"`
	LoopSeq     int             `json:"loopSeq"`
	ModelRunID  int64           `json:"modelRunId"`
	RunID       int64           `json:"runId"`
	FinalStatus int             `json:"finalStatus"`
	HitMaxTurns bool            `json:"hitMaxTurns"`
	Reason      string          `json:"reason,omitempty"`
	Turns       int             `json:"turns"`
	TurnIDs     []int64         `json:"turnIds"`
	Usage       provider.Usage  `json:"usage"`
	CostPico    int64           `json:"costPico"`
	Meta        json.RawMessage `json:"meta"`
}

// InjectResult is loop.inject's result.
type InjectResult struct {
	RunID  int64 `json:"runId"`
	Queued bool  `json:"queued"` // the run was busy: its next turn sees the prompt
}

// CancelResult is loop.cancel's result.
type CancelResult struct {
	Cancelled bool   `json:"cancelled"`
	RunID     int64  `json:"runId"`
	Reason    string `json:"reason"`
}

// ResolveParams are loop.resolve's params.
type ResolveParams struct {
	LogEntryID int64  `json:"logEntryId"`
	Decision   string `json:"decision"` // accept, reject, cancel
	Outcome    string `json:"outcome"`
}

// ResolveResult is loop.resolve's result.
type ResolveResult struct {
	LogEntryID int64  `json:"logEntryId"`
	State      string `json:"state"`
	Status     int    `json:"status"`
}

// EntryResult is entry.read's result.
type EntryResult struct {
	Status int    `json:"status"`
	Entry  *Entry `json:"entry"`
	Reason string `json:"reason,omitempty"`
}

// Entry is the whole shape of an entry.
type Entry struct {
	ID       int64              `json:"id"`
	Target   string             `json:"target"`
	Scheme   string             `json:"scheme"`
	Path     string             `json:"path"`
	Channels map[string]Channel `json:"channels"`
	Tags     []string           `json:"tags"`
	Metadata EntryMetadata      `json:"metadata"`
}

// Channel is one channel of an entry.
type Channel struct {
	Content  string `json:"content"`
	Mimetype string `json:"mimetype"`
	Tokens   int    `json:"tokens"`
	State    string `json:"state"`
}

// EntryMetadata is what the store keeps about an entry besides content.
type EntryMetadata struct {
	Scope   string `json:"scope"`
	Owner   string `json:"owner,omitempty"`
	Created string `json:"created"` // RFC 3339
	Updated string `json:"updated"`
}

// LogQuery are log.read's params. Nil fields do not filter.
type LogQuery struct {
	RunID    *int64 `json:"runId"`
	LoopID   *int64 `json:"loopId"`
	TurnID   *int64 `json:"turnId"`
	LoopSeq  *int   `json:"loopSeq"`
	TurnSeq  *int   `json:"turnSeq"`
	Sequence *int   `json:"sequence"`
	SinceID  *int64 `json:"sinceId"`
	Limit    *int   `json:"limit"`
}

// LogEntry is one log row on the wire (§methods-log-coordinate): the
// database keys loop_id and turn_id beside the ordinals loop_seq and
// turn_seq, tx the statement, rx the result.
type LogEntry struct {
	ID       int64  `json:"id"`
	RunID    int64  `json:"run_id"`
	LoopID   int64  `json:"loop_id"`
	TurnID   int64  `json:"turn_id"`
	LoopSeq  int    `json:"loop_seq"`
	TurnSeq  int    `json:"turn_seq"`
	Sequence int    `json:"sequence"`
	Path     string `json:"path"` // log:///L/T/S/OP
	Op       string `json:"op"`
	Origin   string `json:"origin"`
	Target   string `json:"target"`
	Status   int    `json:"status"`
	Expanded bool   `json:"expanded"`
	Tx       string `json:"tx"`
	Rx       string `json:"rx"`
	Mimetype string `json:"mimetype"`
	Reason   string `json:"reason,omitempty"`
	// Tokens is the count the model's tokenizer stored for the row's
	// result when it was written (log.read and log/entry; 0 when none
	// was).
	Tokens int `json:"tokens,omitempty"`
	// Deleted marks the log/entry of a row that was deleted (KILL or
	// SEND[410] on log:///): the row as it last stood.
	Deleted bool `json:"deleted,omitempty"`
}

// Auditor reports, for a session, every breach of the drain discipline
// among its runs (§run-lifecycle-no-lost-loop): a run that ever had two
// drains at once, or one holding queued work or its drain slot while no
// drain runs. The Orchestrator is one; plurnkd -debug offers it as the
// method debug.audit (AuditMethod).
type Auditor interface {
	Audit(session int64) ([]string, error)
}

// AuditMethod is debug.audit over a: given {"id": session} it answers
// {"breaches": [...]}, empty when the discipline held.
func AuditMethod(a Auditor) Method {
	return Method{
		Description: "Debug: list the breaches of the drain discipline among the runs of a session (empty when it held).",
		Params:      map[string]string{"id": "number — the session"},
		Handler: func(_ context.Context, _ *conn, raw json.RawMessage) (any, error) {
			var p struct {
				ID int64 `json:"id"`
			}
			if e := decodeParams(raw, &p); e != nil {
				return nil, e
			}
			breaches, err := a.Audit(p.ID)
			if err != nil {
				return nil, err
			}
			return map[string]any{"breaches": append([]string{}, breaches...)}, nil
		},
	}
}
