package rpc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/impl/plurnk/telemetry"
	"anchorage/sim/clock"

	"github.com/spf13/afero"
)

// LocalConfig configures a Local backend.
type LocalConfig struct {
	Clock    clock.Clock
	FS       afero.Fs // the workspace and the operator files
	Root     string   // the workspace root
	Env      map[string]string
	Provider provider.Provider
	// Executors are the EXEC runtimes (the first one named "sh" is the
	// default runtime); none means every EXEC answers 501.
	Executors []exec.Executor
	// Yolo accepts every EXEC proposal at once, without loop.resolve.
	Yolo bool
	// ExecEnv is the environment handed to spawned commands, already scoped.
	ExecEnv []string
}

// Local is a Backend over impl/plurnk/engine and impl/plurnk/store
// directly: each session has one model run ("model") beside the reserved
// plurnk run, and one loop at a time runs in it.
//
// Concurrency: the store and the engine are not safe for concurrent use,
// so mu guards both. A running loop holds mu except while the provider
// generates, so reads (log.read, entry.read) are answered between turns.
// New log rows are announced as log/entry at every point where the store
// is quiet: before each generate call, before a telemetry notice, after
// the loop, after a stream drain.
type Local struct {
	cfg     LocalConfig
	notify  Notifier
	pmu     sync.Mutex // serialises the provider
	streams *exec.Streams
	props   *exec.Proposals

	mu       sync.Mutex
	st       *store.Store
	eng      *engine.Engine
	reg      *scheme.Registry
	sessions map[int64]*localSession
}

type localSession struct {
	ss     *store.Session
	name   string
	root   *string
	model  *store.Run
	seen   map[int64]bool // log rows already announced
	cancel context.CancelFunc
	busy   bool
	queue  []string // injected prompts waiting for the running loop
}

// nopNotifier drops notifications until a server subscribes.
type nopNotifier struct{}

func (nopNotifier) Notify(int64, string, any) {}

// NewLocal builds the backend: the store, the scheme registry (with an
// exec scheme per executor), the operator config read from cfg.Env, the
// op engine and the loop engine.
func NewLocal(cfg LocalConfig) (*Local, error) {
	if cfg.Clock == nil || cfg.FS == nil || cfg.Provider == nil {
		return nil, errors.New("rpc: local backend: clock, fs and provider are required")
	}
	if cfg.Root == "" {
		cfg.Root = "/"
	}
	var runtimes []string
	for _, x := range cfg.Executors {
		runtimes = append(runtimes, x.Runtime())
	}
	reg, err := scheme.Defaults(cfg.FS, cfg.Root, runtimes...)
	if err != nil {
		return nil, fmt.Errorf("rpc: local backend: schemes: %w", err)
	}
	opcfg, err := config.Load(cfg.Env, cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("rpc: local backend: config: %w", err)
	}
	l := &Local{cfg: cfg, notify: nopNotifier{}, st: store.New(cfg.Clock), reg: reg, sessions: map[int64]*localSession{}}
	o := &ops.Engine{Store: l.st, Schemes: reg, Mimetypes: ops.NewMimetypes()}
	l.eng = engine.New(l.st, o, &lockedProvider{l: l, p: cfg.Provider}, opcfg, cfg.FS)
	l.eng.Sink = l.telemetry
	l.eng.Executors = runtimes
	if len(cfg.Executors) > 0 {
		xr, err := exec.NewRegistry(cfg.Executors...)
		if err != nil {
			return nil, fmt.Errorf("rpc: local backend: executors: %w", err)
		}
		l.streams = exec.NewStreams(exec.Config{Store: l.st, Registry: xr, Clock: cfg.Clock, Notify: streamNotifier{l}})
		l.props = exec.NewProposals(cfg.Clock, 0, nil)
		l.eng.Exec = l.execOp
	}
	return l, nil
}

// Subscribe implements Backend.
func (l *Local) Subscribe(n Notifier) {
	l.mu.Lock()
	l.notify = n
	l.mu.Unlock()
}

// Pump applies stream output as it arrives until ctx ends (the daemon runs
// it in a goroutine; tests that step a simulated clock call Drain instead).
func (l *Local) Pump(ctx context.Context) {
	if l.streams == nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.streams.Ready():
			l.Drain()
		}
	}
}

// Drain applies the output the streams have received so far and announces
// the rows and stream events it produced.
func (l *Local) Drain() {
	if l.streams == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.streams.Drain()
	l.flushAll()
}

// lockedProvider releases the backend's lock while the provider generates,
// after announcing the rows the turn so far has written.
type lockedProvider struct {
	l *Local
	p provider.Provider
}

func (lp *lockedProvider) Generate(ctx context.Context, req provider.Request) (provider.Response, error) {
	lp.l.flushAll()
	lp.l.mu.Unlock()
	defer lp.l.mu.Lock()
	lp.l.pmu.Lock()
	defer lp.l.pmu.Unlock()
	return lp.p.Generate(ctx, req)
}

func (lp *lockedProvider) CountTokens(text string) int {
	lp.l.pmu.Lock()
	defer lp.l.pmu.Unlock()
	return lp.p.CountTokens(text)
}

func (lp *lockedProvider) CostFor(u provider.Usage) int64 {
	lp.l.pmu.Lock()
	defer lp.l.pmu.Unlock()
	return lp.p.CostFor(u)
}

func (lp *lockedProvider) ContextSize() (int, bool) {
	lp.l.pmu.Lock()
	defer lp.l.pmu.Unlock()
	return lp.p.ContextSize()
}

// telemetry is the engine's sink (called with mu held): the rows written
// before the notice go out first, then the notice in the model's envelope.
func (l *Local) telemetry(session, _ int64, n telemetry.Notice) {
	if s, ok := l.sessions[session]; ok {
		l.flush(s)
	}
	l.notify.Notify(session, "telemetry/event", n)
}

type streamNotifier struct{ l *Local }

// StreamEvent is called by the streams with mu held.
func (sn streamNotifier) StreamEvent(ev exec.StreamEvent) {
	sn.l.notify.Notify(ev.Session, "stream/event", ev)
}

// flushAll announces the new rows of every session. mu is held.
func (l *Local) flushAll() {
	ids := make([]int64, 0, len(l.sessions))
	for id := range l.sessions {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		l.flush(l.sessions[id])
	}
}

// flush sends log/entry for each row of s not announced yet, run by run in
// log order. mu is held.
func (l *Local) flush(s *localSession) {
	for _, r := range s.ss.Runs {
		for _, row := range r.Log {
			if s.seen[row.ID] {
				continue
			}
			s.seen[row.ID] = true
			l.notify.Notify(s.ss.ID, "log/entry", map[string]any{"entry": logEntry(r, row)})
		}
	}
}

func logEntry(r *store.Run, row *store.LogRow) LogEntry {
	le := LogEntry{
		ID: row.ID, RunID: r.ID, LoopSeq: row.Loop, TurnSeq: row.Turn, Sequence: row.Seq,
		Path: "log:///" + row.Handle(), Op: row.Op, Origin: row.Origin, Target: row.Target,
		Status: row.Status, Expanded: row.Expanded, Tx: row.Tx, Rx: row.Content,
		Mimetype: row.Mimetype, Reason: row.Reason,
	}
	if row.Loop >= 1 && row.Loop <= len(r.Loops) {
		lp := r.Loops[row.Loop-1]
		le.LoopID = lp.ID
		if row.Turn >= 0 && row.Turn < len(lp.Turns) {
			le.TurnID = lp.Turns[row.Turn].ID
		}
	}
	return le
}

// CreateSession implements Backend.
func (l *Local) CreateSession(p SessionParams) (SessionInfo, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ss, err := l.st.NewSession("model")
	if err != nil {
		return SessionInfo{}, fmt.Errorf("session.create: %w", err)
	}
	model, err := ss.Run("model")
	if err != nil {
		return SessionInfo{}, fmt.Errorf("session.create: %w", err)
	}
	name := p.Name
	if name == "" {
		name = fmt.Sprintf("session-%d", ss.ID)
	}
	s := &localSession{ss: ss, name: name, root: p.ProjectRoot, model: model, seen: map[int64]bool{}}
	l.sessions[ss.ID] = s
	l.notify.Notify(0, "session/created", map[string]any{"id": ss.ID, "name": name, "projectRoot": p.ProjectRoot})
	return s.info(), nil
}

func (s *localSession) info() SessionInfo {
	return SessionInfo{ID: s.ss.ID, Name: s.name, RunID: s.model.ID, RunName: s.model.Name, ProjectRoot: s.root}
}

// AttachSession implements Backend.
func (l *Local) AttachSession(id int64) (SessionInfo, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, err := l.session(id)
	if err != nil {
		return SessionInfo{}, err
	}
	return s.info(), nil
}

func (l *Local) session(id int64) (*localSession, error) {
	s, ok := l.sessions[id]
	if !ok {
		return nil, Errorf(CodeSessionNotFound, "session %d not found", id)
	}
	return s, nil
}

// Runs implements Backend.
func (l *Local) Runs(session int64) ([]RunInfo, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, err := l.session(session)
	if err != nil {
		return nil, err
	}
	out := make([]RunInfo, 0, len(s.ss.Runs))
	for _, r := range s.ss.Runs {
		ri := RunInfo{ID: r.ID, Name: r.Name, Origin: "model", Loops: len(r.Loops)}
		if r.Name == store.PlurnkRun {
			ri.Origin = "plurnk"
		}
		if n := len(r.Loops); n > 0 {
			ri.Status = r.Loops[n-1].Status
		}
		out = append(out, ri)
	}
	return out, nil
}

// RunLoop implements Backend.
func (l *Local) RunLoop(_ context.Context, session int64, p LoopParams) (LoopResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, err := l.session(session)
	if err != nil {
		return LoopResult{}, err
	}
	if s.busy {
		return LoopResult{}, Errorf(CodeRunBusy, "run %q of session %d already has a loop running; use loop.inject or loop.cancel", s.model.Name, session)
	}
	return l.runLocked(s, p), nil
}

// runLocked runs one loop of s's model run, then the prompts injected
// meanwhile, each as its own loop in the background. mu is held.
func (l *Local) runLocked(s *localSession, p LoopParams) LoopResult {
	ctx, cancel := context.WithCancel(context.Background())
	s.busy, s.cancel = true, cancel
	res, err := l.eng.Run(ctx, engine.Request{Session: s.ss, Run: s.model, Prompt: p.Prompt, MaxTurns: p.MaxTurns})
	s.busy, s.cancel = false, nil
	cancel()
	l.flush(s)
	out := LoopResult{ModelRunID: s.model.ID, RunID: s.model.ID, FinalStatus: res.Status, Reason: res.Reason,
		Turns: len(res.Turns), Usage: res.Usage, CostPico: res.CostPico, Meta: res.Meta}
	if err != nil {
		out.FinalStatus, out.Reason = engine.StatusFailed, err.Error()
	}
	if res.Loop != nil {
		out.LoopID, out.LoopSeq = res.Loop.ID, res.Loop.Seq
	}
	out.HitMaxTurns = out.FinalStatus == engine.StatusTurnLimit
	if len(out.Meta) == 0 {
		out.Meta = []byte("{}")
	}
	switch {
	case out.FinalStatus == engine.StatusParked:
		if !l.liveLocked(s) {
			l.notify.Notify(s.ss.ID, "loop/quiesced", map[string]any{"loopId": out.LoopID, "runId": s.model.ID, "status": engine.StatusParked})
		}
	default:
		l.notify.Notify(s.ss.ID, "loop/terminated", out)
	}
	if len(s.queue) > 0 {
		next := s.queue[0]
		s.queue = s.queue[1:]
		s.busy = true // claimed before mu is released, so no second drain starts
		go func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			s.busy = false
			l.runLocked(s, LoopParams{Prompt: next})
		}()
	}
	return out
}

// liveLocked reports whether s's model run still holds an open stream.
func (l *Local) liveLocked(s *localSession) bool {
	return l.streams != nil && len(l.streams.Open(s.ss, s.model.Name)) > 0
}

// Inject implements Backend: an idle run starts a loop with the prompt in
// the background; a busy one runs it after the current loop.
func (l *Local) Inject(session int64, prompt string) (InjectResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, err := l.session(session)
	if err != nil {
		return InjectResult{}, err
	}
	if s.busy {
		s.queue = append(s.queue, prompt)
		return InjectResult{RunID: s.model.ID, Queued: true}, nil
	}
	s.busy = true
	go func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		s.busy = false
		l.runLocked(s, LoopParams{Prompt: prompt})
	}()
	return InjectResult{RunID: s.model.ID}, nil
}

// Cancel implements Backend: the running loop ends 499 and the run's
// streams are reaped; queued prompts stay queued.
func (l *Local) Cancel(session int64, reason string) (CancelResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, err := l.session(session)
	if err != nil {
		return CancelResult{}, err
	}
	out := CancelResult{RunID: s.model.ID, Reason: reason}
	if s.cancel != nil {
		s.cancel()
		out.Cancelled = true
	}
	if l.streams != nil && l.streams.CancelRun(s.ss, s.model.Name) > 0 {
		out.Cancelled = true
		l.streams.Drain()
		l.flush(s)
	}
	return out, nil
}

// Resolve implements Backend.
func (l *Local) Resolve(session int64, p ResolveParams) (ResolveResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, err := l.session(session)
	if err != nil {
		return ResolveResult{}, err
	}
	row := findRow(s.ss, p.LogEntryID)
	if l.props == nil || row == nil {
		return ResolveResult{}, Errorf(CodeLoopNotFound, "no proposal %d in session %d", p.LogEntryID, session)
	}
	pr, err := l.props.Resolve(p.LogEntryID, exec.Decision(p.Decision), p.Outcome)
	if err != nil {
		return ResolveResult{}, Errorf(CodeLoopNotFound, "proposal %d: %v", p.LogEntryID, err)
	}
	switch pr.State {
	case exec.Resolved:
		row.Status = 102 // spawned: the output streams in the background
	default:
		row.Status, row.Reason = pr.Status, pr.Outcome
	}
	l.flush(s)
	return ResolveResult{LogEntryID: pr.ID, State: string(pr.State), Status: row.Status}, nil
}

func findRow(ss *store.Session, id int64) *store.LogRow {
	for _, r := range ss.Runs {
		for _, row := range r.Log {
			if row.ID == id {
				return row
			}
		}
	}
	return nil
}

// execOp is the engine's EXEC hook (called with mu held): it records the
// op's row, then dispatches the spawn through the proposal table; a
// proposal still open is announced as loop/proposal.
func (l *Local) execOp(a ops.Actor, st dsl.Statement) ops.Result {
	row := &store.LogRow{Loop: a.Loop, Turn: a.Turn, Seq: nextSeq(a.Run, a.Loop, a.Turn), Op: string(dsl.OpExec),
		Origin: string(a.Writer), Expanded: true, Tx: dsl.Format(st), Mimetype: "text/plain"}
	req, err := exec.RequestOf(st)
	if err == nil {
		row.Target = scheme.ExecKey(req.Runtime, a.Loop, a.Turn, row.Seq).String()
	}
	_ = l.st.Update(a.Session, func(tx *store.Tx) error { tx.AppendLog(a.Run, row); return nil })
	if err != nil {
		row.Status, row.Reason = 400, err.Error()
		return ops.Result{Status: row.Status, Reason: row.Reason, Row: *row}
	}
	req.Run, req.Loop, req.Turn, req.Seq = a.Run.Name, a.Loop, a.Turn, row.Seq
	req.Dir, req.Env = l.cfg.Root, l.cfg.ExecEnv
	status, err := exec.Dispatch(l.streams, l.props, a.Session, req, row.ID, l.cfg.Yolo)
	row.Status = status
	if err != nil {
		row.Reason = err.Error()
	}
	if status == 202 {
		l.flush(l.sessions[a.Session.ID])
		lp := a.Run.Loops[a.Loop-1]
		l.notify.Notify(a.Session.ID, "loop/proposal", map[string]any{
			"logEntryId": row.ID, "sessionId": a.Session.ID, "runId": a.Run.ID, "loopId": lp.ID,
			"turnId": lp.Turns[a.Turn].ID, "op": row.Op, "target": row.Target, "body": req.Command,
			"attrs": map[string]any{}, "flags": map[string]any{"yolo": l.cfg.Yolo},
		})
	}
	return ops.Result{Status: row.Status, Target: row.Target, Reason: row.Reason, Row: *row}
}

// nextSeq is the next sequence number of loop/turn in r's log.
func nextSeq(r *store.Run, loop, turn int) int {
	seq := 1
	for _, row := range r.Log {
		if row.Loop == loop && row.Turn == turn {
			seq = max(seq, row.Seq+1)
		}
	}
	return seq
}

// ReadEntry implements Backend. It writes no log row.
func (l *Local) ReadEntry(session int64, target string) (EntryResult, error) {
	st, err := dsl.ParseStatement("<<READ(" + target + ")::READ")
	if err != nil || st.Target == nil {
		return EntryResult{}, Errorf(CodeInvalidParams, "invalid params: target %q is not an address", target)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s, err := l.session(session)
	if err != nil {
		return EntryResult{}, err
	}
	res, err := l.reg.Resolve(*st.Target)
	if err != nil {
		return EntryResult{Status: scheme.StatusOf(err), Reason: err.Error()}, nil
	}
	var ent *store.Entry
	loadErr := l.st.Update(s.ss, func(tx *store.Tx) error {
		e, err := res.Handler.Load(scheme.Call{Tx: tx, Run: s.model, Writer: scheme.WriterClient}, res.Key)
		ent = e
		return err
	})
	if loadErr != nil {
		return EntryResult{Status: scheme.StatusOf(loadErr), Reason: loadErr.Error()}, nil
	}
	if ent == nil {
		return EntryResult{Status: 404, Reason: fmt.Sprintf("no entry at %s", res.Key)}, nil
	}
	return EntryResult{Status: 200, Entry: entryOf(ent)}, nil
}

func entryOf(e *store.Entry) *Entry {
	out := &Entry{ID: e.ID, Target: e.Key.String(), Scheme: e.Key.Scheme, Path: e.Key.Path,
		Channels: map[string]Channel{}, Tags: append([]string{}, e.Tags...),
		Metadata: EntryMetadata{Scope: string(e.Key.Scope), Owner: e.Key.Owner,
			Created: e.Created.UTC().Format(time.RFC3339Nano), Updated: e.Updated.UTC().Format(time.RFC3339Nano)}}
	for name, ch := range e.Channels {
		out.Channels[name] = Channel{Content: ch.Content, Mimetype: ch.Mimetype, Tokens: ch.Tokens, State: string(ch.State)}
	}
	return out
}

// ReadLog implements Backend: the rows of q.RunID that match every given
// filter, in log order; sinceId keeps the rows with a greater id; limit
// keeps the newest limit rows.
func (l *Local) ReadLog(session int64, q LogQuery) ([]LogEntry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, err := l.session(session)
	if err != nil {
		return nil, err
	}
	if q.RunID == nil {
		return nil, Errorf(CodeInvalidParams, "invalid params: log.read needs runId")
	}
	var run *store.Run
	for _, r := range s.ss.Runs {
		if r.ID == *q.RunID {
			run = r
		}
	}
	if run == nil {
		return nil, Errorf(CodeInvalidParams, "invalid params: run %d does not belong to session %d", *q.RunID, session)
	}
	var out []LogEntry
	for _, row := range run.Log {
		le := logEntry(run, row)
		if !matches(q, le) {
			continue
		}
		out = append(out, le)
	}
	if q.Limit != nil && len(out) > *q.Limit {
		out = out[len(out)-*q.Limit:]
	}
	return out, nil
}

func matches(q LogQuery, le LogEntry) bool {
	switch {
	case q.LoopID != nil && *q.LoopID != le.LoopID,
		q.TurnID != nil && *q.TurnID != le.TurnID,
		q.LoopSeq != nil && *q.LoopSeq != le.LoopSeq,
		q.TurnSeq != nil && *q.TurnSeq != le.TurnSeq,
		q.Sequence != nil && *q.Sequence != le.Sequence,
		q.SinceID != nil && le.ID <= *q.SinceID:
		return false
	}
	return true
}
