package rpc

import (
	"anchorage/impl/vary"

	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/impl/plurnk/telemetry"
	"anchorage/sim/clock"

	"github.com/spf13/afero"
)

// ModelRun is the default name of a session's model run, the run loop.run
// drives, allocated on its first use.
const ModelRun = "model"

// OrchestratorConfig configures an Orchestrator. Clock, FS and Provider
// are required.
type OrchestratorConfig struct {
	// Vary holds the spec-permitted variations in force
	// (config.Variations); the zero Set is the reference's decisions.
	Vary     vary.Set
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
	// ProposalTimeout is PLURNK_PROPOSAL_TIMEOUT_MS (0: read from Env,
	// else the default).
	ProposalTimeout time.Duration
	// Aliases, when set, reports whether a loop.run alias names a
	// configured model ("" asks for the default one); nil accepts every
	// alias.
	Aliases func(alias string) bool
	// Registering is the runs service's test seam (runs.Config), nil by
	// default: an EXEC dispatch calls it, outside the service lock, while
	// its stream registers, so a scenario can hold a handler there.
	Registering func(session int64, run, target string)
	// Providers are the provider packages discover reports.
	Providers []string
	// Members puts a membership in front of the file scheme
	// (§membership-*): writes of non-members and view members answer 403,
	// each turn syncs the members, session.members and session.constrain
	// answer. Git lists the tracked files (nil: picks are the only
	// source); the git switches are read from Env.
	Members bool
	Git     membership.Git
	// StateFS, when set, with StateDir, keeps the daemon's state (every
	// session with its runs, loops, log rows, entries and settings) in
	// StateDir/state.json: it is loaded at start and saved, crash-safely,
	// before every notification and answer (persist.go).
	StateFS  afero.Fs
	StateDir string
}

// Orchestrator is the daemon's Backend over impl/plurnk/runs: every
// session holds its model run, the reserved plurnk run and every run its
// loops spawn or fork, all driven by one runs.Service.
//
// Concurrency: the runs service's lock guards the store and every field of
// the Orchestrator below it; the Orchestrator's own code touches them only
// through Service.View or from the service's hooks (Quiet, the event
// subscription, the stream notifier, the engine's Sink), which run with
// that lock held. New log rows, of every run, are announced as log/entry
// from those hooks: before each generate call, after each loop, after the
// stream output is applied, and before each loop/terminated,
// loop/quiesced, loop/proposal and telemetry/event.
type Orchestrator struct {
	cfg OrchestratorConfig
	svc *runs.Service
	eng *engine.Engine // the service's engine: the token counts of rows
	st  *store.Store
	reg *scheme.Registry
	// mimes are the mimetype handlers of the op engine.
	mimes *ops.Mimetypes
	// members is the project's membership, nil unless cfg.Members.
	members *membership.Project

	// guarded by the service lock
	notify   Notifier
	sessions map[int64]*orchSession
	durable  *durable // nil: nothing is kept on disk
}

type orchSession struct {
	ss   *store.Session
	name string
	root *string
	// modelName names the session's model run and model is that run, nil
	// until its first use allocates it (Envelope.ensureModelRun): it is
	// distinct from every connection's client run.
	modelName string
	model     *store.Run
	sent      map[int64]sentRow // every log row as it was last announced, by id
}

// sentRow is a log row as log/entry last announced it.
type sentRow struct {
	entry LogEntry
	key   string // the entry's JSON: a change to the row changes it
}

// defaultMimetypes are the mimetypes the matcher reads structurally or as
// lines.
// nopNotifier drops notifications until a server subscribes.
type nopNotifier struct{}

func (nopNotifier) Notify(int64, string, any) {}

// NewOrchestrator builds the backend: the store, the scheme registry (with
// an exec scheme per executor), the operator config read from cfg.Env,
// the op engine, the loop engine and the runs service over them.
func NewOrchestrator(cfg OrchestratorConfig) (*Orchestrator, error) {
	if cfg.Root == "" {
		cfg.Root = "/"
	}
	var runtimes []string
	for _, x := range cfg.Executors {
		runtimes = append(runtimes, x.Runtime())
	}
	reg, err := scheme.Defaults(cfg.FS, cfg.Root, runtimes...)
	if err != nil {
		return nil, fmt.Errorf("rpc: orchestrator: schemes: %w", err)
	}
	opcfg, err := config.Load(cfg.Env, cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("rpc: orchestrator: config: %w", err)
	}
	if provider.GBNFEnabled(cfg.Env) {
		if err := verifyGrammars(cfg.Provider); err != nil {
			return nil, fmt.Errorf("refusing to start: %w", err)
		}
	}
	if cfg.ProposalTimeout == 0 {
		if v := cfg.Env["PLURNK_PROPOSAL_TIMEOUT_MS"]; v != "" {
			ms, perr := strconv.Atoi(v)
			if perr != nil || ms <= 0 {
				return nil, fmt.Errorf("rpc: orchestrator: PLURNK_PROPOSAL_TIMEOUT_MS=%q: want a positive number of ms", v)
			}
			cfg.ProposalTimeout = time.Duration(ms) * time.Millisecond
		}
	}
	xr, err := exec.NewRegistry(cfg.Executors...)
	if err != nil {
		return nil, fmt.Errorf("rpc: orchestrator: executors: %w", err)
	}
	o := &Orchestrator{cfg: cfg, st: store.New(cfg.Clock), reg: reg, notify: nopNotifier{}, sessions: map[int64]*orchSession{}}
	if cfg.Members {
		o.members, err = membership.Attach(reg, cfg.FS, cfg.Root, cfg.Git, membership.FlagsFromEnv(func(k string) string { return cfg.Env[k] }))
		if err != nil {
			return nil, fmt.Errorf("rpc: orchestrator: %w", err)
		}
	}
	o.mimes = ops.NewMimetypes()
	opcfg.Vary = cfg.Vary
	eng := engine.New(o.st, &ops.Engine{Store: o.st, Schemes: reg, Mimetypes: o.mimes, Vary: cfg.Vary}, &serialProvider{p: cfg.Provider}, opcfg, cfg.FS)
	eng.Sink = o.telemetry
	o.eng = eng
	o.svc, err = runs.New(runs.Config{Store: o.st, Engine: eng, Clock: cfg.Clock, Executors: xr, StreamEvents: streamNotifier{o},
		ProposalTimeout: cfg.ProposalTimeout, Yolo: cfg.Yolo, MaxActive: maxActive(cfg.Env),
		Dir: cfg.Root, Env: cfg.ExecEnv, Quiet: o.flushAll, Registering: cfg.Registering, StaleClobber: o.staleClobber(), FileEdit: o.fileEdit})
	if err != nil {
		return nil, fmt.Errorf("rpc: orchestrator: %w", err)
	}
	o.svc.Subscribe(o.event)
	if cfg.StateFS != nil {
		o.durable = &durable{fs: cfg.StateFS, dir: cfg.StateDir}
		if err := o.load(); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// staleClobber is the runs service's stale-clobber test: the membership's,
// nil without one.
func (o *Orchestrator) staleClobber() func(session int64, p string) bool {
	if o.members == nil {
		return nil
	}
	return o.members.StaleClobberRisk
}

// verifyGrammars is the boot check of PLURNK_PROVIDERS_GBNF: every
// declared alias of a Selector (none: nothing to check), or the provider
// itself, must return exactly the text the probe grammar allows.
func verifyGrammars(p provider.Provider) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sel, ok := p.(*provider.Selector)
	if !ok {
		return provider.VerifyGrammar(ctx, p)
	}
	aliases := sel.Aliases()
	names := make([]string, 0, len(aliases))
	for n := range aliases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := provider.VerifyGrammar(ctx, aliases[n]); err != nil {
			return fmt.Errorf("model alias %s: %w", n, err)
		}
	}
	return nil
}

// maxActive reads PLURNK_SESSION_RUNS_MAX_ACTIVE (unset or unreadable:
// no cap).
func maxActive(env map[string]string) int {
	n, err := strconv.Atoi(env[runs.EnvMaxActive])
	if err != nil {
		return runs.Off
	}
	return n
}

// Service returns the runs service under the backend.
func (o *Orchestrator) Service() *runs.Service { return o.svc }

// Subscribe implements Backend.
func (o *Orchestrator) Subscribe(n Notifier) {
	o.svc.View(func() {
		o.notify = n
		if o.durable != nil {
			o.notify = durableNotifier{o: o, n: n}
		}
	})
}

// Serve applies stream output as it arrives and proposals as they expire
// until ctx ends; the daemon runs it in a goroutine.
func (o *Orchestrator) Serve(ctx context.Context) { o.svc.Serve(ctx) }

// Settle waits, while Serve runs, until the daemon is quiescent: its
// loops have ended or park, and Serve has applied everything posted (a
// caller stepping a simulated clock lets the daemon catch up with it).
func (o *Orchestrator) Settle() { o.svc.Quiesce() }

// serialProvider lets one Generate run at a time: the runs of a session
// generate side by side, and a provider need not be safe for that.
type serialProvider struct {
	mu sync.Mutex
	p  provider.Provider
}

func (sp *serialProvider) Generate(ctx context.Context, req provider.Request) (provider.Response, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.p.Generate(ctx, req)
}

func (sp *serialProvider) CountTokens(text string) int {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.p.CountTokens(text)
}

func (sp *serialProvider) CostFor(u provider.Usage) int64 {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.p.CostFor(u)
}

func (sp *serialProvider) ContextSize() (int, bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.p.ContextSize()
}

// event forwards a runs event to the session's connections, after the
// rows written before it (the service lock is held).
func (o *Orchestrator) event(ev runs.Event) {
	s, ok := o.sessions[ev.Session]
	if !ok {
		return
	}
	o.flush(s)
	switch ev.Kind {
	case runs.KindTerminated:
		o.notify.Notify(ev.Session, "loop/terminated", o.usage(s, ev.RunID, ev.LoopID, ev.LoopSeq, ev.Status, ev.Reason, ev.Result))
	case runs.KindConcluded:
		p := map[string]any{"entryId": ev.RowID, "target": ev.Target, "subscriptionId": ev.Target, "scheme": ev.Runtime,
			"closeStatus": ev.Status, "summary": o.summary(ev.Body), "wakeAction": o.wakeAction(ev.WakeAction), "runId": ev.RunID}
		if ev.LoopID != 0 {
			p["wakeLoopId"] = ev.LoopID
		}
		switch {
		case ev.Signal != "":
			p["signal"] = ev.Signal
		case ev.Status == exec.StatusClean:
			p["exitCode"] = ev.ExitCode
		}
		o.notify.Notify(ev.Session, "stream/concluded", p)
	case runs.KindQuiesced:
		o.notify.Notify(ev.Session, "loop/quiesced", map[string]any{"loopId": ev.LoopID, "runId": ev.RunID, "status": ev.Status})
	case runs.KindProposal:
		p := map[string]any{"logEntryId": ev.RowID, "sessionId": ev.Session, "runId": ev.RunID, "loopId": ev.LoopID,
			"op": "EXEC", "target": ev.Target, "body": ev.Body, "attrs": map[string]any{}, "flags": map[string]any{"yolo": o.cfg.Yolo}}
		if r := runByID(s.ss, ev.RunID); r != nil && ev.LoopSeq >= 1 && ev.LoopSeq <= len(r.Loops) {
			if lp := r.Loops[ev.LoopSeq-1]; ev.Turn >= 0 && ev.Turn < len(lp.Turns) {
				p["turnId"] = lp.Turns[ev.Turn].ID
			}
		}
		p["flags"] = map[string]any{"yolo": o.cfg.Yolo || ev.Yolo}
		if ev.Op != "" {
			p["op"] = ev.Op
		}
		if ev.StaleClobberRisk {
			p["attrs"] = map[string]any{"staleClobberRisk": true}
		}
		o.notify.Notify(ev.Session, "loop/proposal", p)
	}
}

// usage is the loop usage payload of a loop of run runID.
func (o *Orchestrator) usage(s *orchSession, runID, loopID int64, loopSeq, status int, reason string, res *engine.Result) LoopResult {
	out := LoopResult{LoopID: loopID, LoopSeq: loopSeq, ModelRunID: s.modelRunID(), RunID: runID, FinalStatus: status, Reason: reason, Meta: []byte("{}")}
	out.TurnIDs = []int64{}
	if res != nil && res.Loop != nil {
		for _, t := range res.Loop.Turns {
			out.TurnIDs = append(out.TurnIDs, t.ID)
		}
	}
	if res != nil {
		out.Turns, out.Usage, out.CostPico = len(res.Turns), res.Usage, res.CostPico
		if len(res.Meta) > 0 {
			out.Meta = res.Meta
		}
	}
	out.HitMaxTurns = out.FinalStatus == engine.StatusTurnLimit
	return out
}

// telemetry is the engine's sink (the service lock is held): the rows
// written before the notice go out first, then the notice in the model's
// envelope.
func (o *Orchestrator) telemetry(session, loopID int64, n telemetry.Notice) {
	p := map[string]any{"loopId": loopID, "event": n}
	if s, ok := o.sessions[session]; ok {
		o.flush(s)
		for _, r := range s.ss.Runs {
			for _, l := range r.Loops {
				if l.ID == loopID {
					p["runId"] = r.ID
				}
			}
		}
	}
	o.notify.Notify(session, "telemetry/event", p)
}

type streamNotifier struct{ o *Orchestrator }

// StreamEvent is called by the streams with the service lock held.
func (sn streamNotifier) StreamEvent(ev exec.StreamEvent) {
	sn.o.notify.Notify(ev.Session, "stream/event", ev)
}

// flushAll announces the new rows of every session (the service lock is
// held).
func (o *Orchestrator) flushAll() {
	ids := make([]int64, 0, len(o.sessions))
	for id := range o.sessions {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		o.flush(o.sessions[id])
	}
}

// flush sends log/entry for every write to the session's log_entries since
// the last flush (§notifications-log-entry-notify): each row appended, or
// changed (its status, its expanded bit, its result), as it now stands,
// run by run in log order; then each row deleted, as it last stood, with
// deleted set (the service lock is held).
func (o *Orchestrator) flush(s *orchSession) {
	live := map[int64]bool{}
	for _, r := range s.ss.Runs {
		for _, row := range r.Log {
			live[row.ID] = true
			le := o.announced(r, row)
			key := entryKey(le)
			if prev, ok := s.sent[row.ID]; ok && prev.key == key {
				continue
			}
			s.sent[row.ID] = sentRow{entry: le, key: key}
			o.notify.Notify(s.ss.ID, "log/entry", map[string]any{"entry": le, "runId": r.ID})
		}
	}
	var gone []int64
	for id := range s.sent {
		if !live[id] {
			gone = append(gone, id)
		}
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i] < gone[j] })
	for _, id := range gone {
		le := s.sent[id].entry
		delete(s.sent, id)
		le.Deleted = true
		o.notify.Notify(s.ss.ID, "log/entry", map[string]any{"entry": le, "runId": le.RunID})
	}
}

// markSent records every row of s as announced as it stands, so that only
// later writes are announced (the service lock is held).
func (o *Orchestrator) markSent(s *orchSession) {
	s.sent = map[int64]sentRow{}
	for _, r := range s.ss.Runs {
		for _, row := range r.Log {
			le := o.announced(r, row)
			s.sent[row.ID] = sentRow{entry: le, key: entryKey(le)}
		}
	}
}

// announced is the LogEntry log/entry carries for row of r.
func (o *Orchestrator) announced(r *store.Run, row *store.LogRow) LogEntry {
	le := logEntry(r, row)
	le.Tokens, _ = o.eng.RowTokens(row.ID)
	return le
}

func entryKey(le LogEntry) string {
	b, err := json.Marshal(le)
	if err != nil {
		return fmt.Sprint(le)
	}
	return string(b)
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

func runByID(ss *store.Session, id int64) *store.Run {
	for _, r := range ss.Runs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Capabilities implements Backend.
func (o *Orchestrator) Capabilities() Capabilities {
	// Every mimetype with a handler, and text/plain, which any content
	// without one is read as (§discovery-discover).
	mimes := append(o.mimes.Types(), "text/plain")
	sort.Strings(mimes)
	c := Capabilities{Providers: append([]string{}, o.cfg.Providers...), Schemes: o.reg.Names(), Mimetypes: slices.Compact(mimes)}
	sort.Strings(c.Providers)
	return c
}

// CreateSession implements Backend: the session with the reserved plurnk
// run, and the connection's client run (auto-named). The session's model
// run is named here and allocated on its first use (ensureModel). The name
// is generated when absent; a name another session holds is refused.
func (o *Orchestrator) CreateSession(p SessionParams) (SessionInfo, error) {
	var taken bool
	o.svc.View(func() { taken = p.Name != "" && o.nameTaken(p.Name, 0) })
	if taken {
		return SessionInfo{}, Errorf(CodeInvalidParams, "invalid params: a session named %q exists", p.Name)
	}
	var docs []engine.Doc
	if p.Settings != nil {
		if p.Settings.MaxCommands != nil && *p.Settings.MaxCommands < 0 {
			return SessionInfo{}, Errorf(CodeInvalidParams, "invalid params: settings.maxCommands must not be negative")
		}
		for _, d := range p.Settings.MdDocs {
			if d.Alias == "" || strings.ContainsAny(d.Alias, "/#?* ") {
				return SessionInfo{}, Errorf(CodeInvalidParams, "invalid params: settings.mdDocs alias %q", d.Alias)
			}
			docs = append(docs, engine.Doc{Alias: d.Alias, Content: d.Content})
		}
	}
	modelRun := p.ModelRun
	if modelRun == "" {
		modelRun = ModelRun
	}
	if runs.ReservedName(modelRun) || runs.ValidName(modelRun) != nil {
		return SessionInfo{}, Errorf(CodeInvalidParams, "invalid params: modelRun %q is not a run name", modelRun)
	}
	ss, err := o.svc.NewSession("")
	if err != nil {
		return SessionInfo{}, fmt.Errorf("session.create: %w", err)
	}
	if p.Settings != nil {
		if err := o.svc.SetSettings(ss.ID, runs.Settings{Client: p.Settings.Client, MaxCommands: p.Settings.MaxCommands, Docs: docs}); err != nil {
			return SessionInfo{}, fmt.Errorf("session.create: %w", err)
		}
	}
	var s *orchSession
	o.svc.View(func() {
		name := p.Name
		if name == "" {
			name = o.sessionName(ss.ID)
		}
		s = &orchSession{ss: ss, name: name, root: p.ProjectRoot, modelName: modelRun, sent: map[int64]sentRow{}}
		o.sessions[ss.ID] = s
		if o.members != nil && p.Settings != nil && p.Settings.Git != nil {
			o.members.Sessions.Overlay(ss.ID).SetGit(*p.Settings.Git)
		}
		o.notify.Notify(0, "session/created", map[string]any{"id": ss.ID, "name": name, "projectRoot": p.ProjectRoot})
	})
	if err != nil {
		return SessionInfo{}, err
	}
	return o.newClientRun(s, "")
}

// nameTaken reports whether a session other than except is named name
// (the service lock is held).
func (o *Orchestrator) nameTaken(name string, except int64) bool {
	for id, s := range o.sessions {
		if id != except && s.name == name {
			return true
		}
	}
	return false
}

// newClientRun adds a client run to s, named name or, when name is "",
// client-<n> with the lowest n from 1 not taken (never the reserved name).
func (o *Orchestrator) newClientRun(s *orchSession, name string) (SessionInfo, error) {
	if name == "" {
		o.svc.View(func() {
			for n := 1; ; n++ {
				cand := fmt.Sprintf("client-%d", n)
				if _, err := s.ss.Run(cand); err != nil {
					name = cand
					return
				}
			}
		})
	}
	r, err := o.svc.AddClientRun(s.ss.ID, name)
	if err != nil {
		return SessionInfo{}, Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	var info SessionInfo
	o.svc.View(func() { info = s.info(r) })
	return info, nil
}

func (s *orchSession) info(r *store.Run) SessionInfo {
	return SessionInfo{ID: s.ss.ID, Name: s.name, RunID: r.ID, RunName: r.Name, ProjectRoot: s.root}
}

// modelRunID is the id of the session's model run, 0 while it is not
// allocated yet.
func (s *orchSession) modelRunID() int64 {
	if s.model == nil {
		return 0
	}
	return s.model.ID
}

// ensureModel allocates the session's model run on its first use (a
// loop.run, loop.inject or loop.cancel that names no other run).
func (o *Orchestrator) ensureModel(session int64) error {
	var s *orchSession
	var err error
	o.svc.View(func() {
		s, err = o.session(session)
		if err == nil && s.model != nil {
			s = nil
		}
	})
	if err != nil || s == nil {
		return err
	}
	r, aerr := o.svc.AddModelRun(session, s.modelName)
	o.svc.View(func() {
		if s.model != nil {
			return // another call allocated it first
		}
		if aerr == nil {
			s.model = r
			return
		}
		if r, rerr := s.ss.Run(s.modelName); rerr == nil {
			s.model = r
			return
		}
		err = fmt.Errorf("allocate the model run %q: %w", s.modelName, aerr)
	})
	return err
}

// AttachSession implements Backend: runId must name a run of the session;
// runName reuses the run of that name or creates a client run so named;
// with neither a fresh auto-named client run is created. The reserved run
// name is refused in any letter case before anything is looked up.
func (o *Orchestrator) AttachSession(p AttachParams) (SessionInfo, error) {
	if p.RunName != "" && runs.ReservedName(p.RunName) {
		return SessionInfo{}, Errorf(CodeInvalidParams, "invalid params: run name %q is reserved", p.RunName)
	}
	var s *orchSession
	var r *store.Run
	var err error
	o.svc.View(func() {
		if s, err = o.session(*p.ID); err != nil {
			return
		}
		switch {
		case p.RunID != nil:
			if r = runByID(s.ss, *p.RunID); r == nil {
				err = Errorf(CodeInvalidParams, "invalid params: run %d does not belong to session %d", *p.RunID, *p.ID)
			}
		case p.RunName != "":
			r, _ = s.ss.Run(p.RunName)
		}
	})
	if err != nil {
		return SessionInfo{}, err
	}
	if r == nil {
		return o.newClientRun(s, p.RunName)
	}
	var info SessionInfo
	o.svc.View(func() { info = s.info(r) })
	return info, nil
}

// RenameSession implements Backend.
func (o *Orchestrator) RenameSession(session int64, name string) (RenameResult, error) {
	var out RenameResult
	var err error
	o.svc.View(func() {
		var s *orchSession
		if s, err = o.session(session); err != nil {
			return
		}
		if o.nameTaken(name, session) {
			err = Errorf(CodeInvalidParams, "invalid params: a session named %q exists", name)
			return
		}
		s.name = name
		out = RenameResult{ID: session, Name: name}
	})
	return out, err
}

// CloseClient implements Backend.
func (o *Orchestrator) CloseClient(session, runID int64) {
	var name string
	o.svc.View(func() {
		if s, ok := o.sessions[session]; ok {
			if r := runByID(s.ss, runID); r != nil {
				name = r.Name
			}
		}
	})
	if name != "" {
		o.svc.CloseClient(session, name, 200)
	}
}

// session returns the session id (the service lock is held).
func (o *Orchestrator) session(id int64) (*orchSession, error) {
	s, ok := o.sessions[id]
	if !ok {
		return nil, Errorf(CodeSessionNotFound, "session %d not found", id)
	}
	return s, nil
}

// run returns the run runID of the session, the model run for 0 (the
// service lock is held).
func (o *Orchestrator) run(session, runID int64) (*orchSession, *store.Run, error) {
	s, err := o.session(session)
	if err != nil {
		return nil, nil, err
	}
	if runID == 0 {
		if s.model == nil {
			return nil, nil, fmt.Errorf("session %d: the model run is not allocated yet", session)
		}
		return s, s.model, nil
	}
	r := runByID(s.ss, runID)
	if r == nil {
		return nil, nil, Errorf(CodeInvalidParams, "invalid params: run %d does not belong to session %d", runID, session)
	}
	return s, r, nil
}

// Audit lists the breaches of the drain discipline among the session's
// runs (Auditor); an unknown session is -32001.
func (o *Orchestrator) Audit(session int64) ([]string, error) {
	breaches, err := o.svc.Audit(session)
	if err != nil {
		return nil, Errorf(CodeSessionNotFound, "session %d not found", session)
	}
	return breaches, nil
}

// Runs implements Backend: every run of the session, in creation order.
func (o *Orchestrator) Runs(session int64) ([]RunInfo, error) {
	list, err := o.svc.Runs(session)
	if err != nil {
		return nil, Errorf(CodeSessionNotFound, "session %d not found", session)
	}
	out := make([]RunInfo, 0, len(list))
	for _, r := range list {
		out = append(out, RunInfo{ID: r.ID, Name: r.Name, Origin: r.Origin, Parent: r.Parent, Loops: r.Loops, Status: r.Status})
	}
	return out, nil
}

// RunLoop implements Backend: the prompt goes to the run's running or
// parked loop (injected into its next turn) or a new loop is queued; the
// answer comes at once with finalStatus 100, naming the loop as soon as it
// exists (a new loop of an idle run is opened before the answer; one
// queued behind the run's current work is announced by loop/terminated
// only). The alias must name a configured model.
func (o *Orchestrator) RunLoop(ctx context.Context, session int64, p LoopParams) (LoopAccepted, error) {
	var s *orchSession
	var r *store.Run
	var err error
	if p.RunID == 0 {
		if err := o.ensureModel(session); err != nil {
			return LoopAccepted{}, err
		}
	}
	o.svc.View(func() { s, r, err = o.run(session, p.RunID) })
	if err != nil {
		return LoopAccepted{}, err
	}
	if o.cfg.Aliases != nil && !o.cfg.Aliases(p.Alias) {
		msg := fmt.Sprintf("provider unavailable: no model alias %q", p.Alias)
		if p.Alias == "" {
			msg = "provider unavailable: no model is selected (PLURNK_MODEL) and loop.run gave no alias"
		}
		return LoopAccepted{}, &Error{Code: CodeProviderUnavailable, Message: msg, Data: map[string]any{"alias": p.Alias}}
	}
	begun := make(chan *store.Loop, 1)
	sub, err := o.svc.Submit(session, r.Name, runs.LoopStart{Prompt: p.Prompt, MaxTurns: p.MaxTurns, Alias: p.Alias, Yolo: p.Flags.Yolo,
		Begun: func(l *store.Loop) {
			select {
			case begun <- l:
			default:
			}
		}})
	if err != nil {
		return LoopAccepted{}, Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	var modelID int64
	o.svc.View(func() { modelID = s.modelRunID() })
	out := LoopAccepted{RunID: r.ID, ModelRunID: modelID, Action: sub.Action, FinalStatus: 100}
	l := sub.Loop
	if l == nil && !sub.Behind {
		select {
		case l = <-begun:
		case <-ctx.Done():
			return LoopAccepted{}, fmt.Errorf("loop.run: %w", ctx.Err())
		}
	}
	if l != nil {
		o.svc.View(func() {
			id := l.ID
			out.LoopID, out.LoopSeq = &id, l.Seq
		})
	}
	return out, nil
}

// Inject implements Backend: the prompt goes to the run as an event aimed
// at it.
func (o *Orchestrator) Inject(session, runID int64, prompt string) (InjectResult, error) {
	var r *store.Run
	var err error
	if runID == 0 {
		if err := o.ensureModel(session); err != nil {
			return InjectResult{}, err
		}
	}
	o.svc.View(func() { _, r, err = o.run(session, runID) })
	if err != nil {
		return InjectResult{}, err
	}
	busy := false
	if list, lerr := o.svc.Runs(session); lerr == nil {
		for _, ri := range list {
			if ri.ID == r.ID {
				busy = ri.Draining
			}
		}
	}
	// The service cannot refuse: it fails only on a run it does not
	// serve, and it serves every run of the session o.run found r in
	// (runs are never removed).
	_ = o.svc.Inject(session, r.Name, prompt)
	return InjectResult{RunID: r.ID, Queued: busy}, nil
}

// Cancel implements Backend.
func (o *Orchestrator) Cancel(session, runID int64, reason string) (CancelResult, error) {
	var r *store.Run
	var err error
	if runID == 0 {
		if err := o.ensureModel(session); err != nil {
			return CancelResult{}, err
		}
	}
	o.svc.View(func() { _, r, err = o.run(session, runID) })
	if err != nil {
		return CancelResult{}, err
	}
	hit, err := o.svc.Cancel(session, r.Name, reason)
	if err != nil {
		return CancelResult{}, Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return CancelResult{Cancelled: hit, RunID: r.ID, Reason: reason}, nil
}

// Resolve implements Backend: the proposal of an EXEC row of the session
// is settled through the runs service, whose stream, once accepted, wakes
// the parked loop when it concludes.
func (o *Orchestrator) Resolve(session int64, p ResolveParams) (ResolveResult, error) {
	var row *store.LogRow
	var err error
	o.svc.View(func() {
		var s *orchSession
		if s, err = o.session(session); err == nil {
			row = findRow(s.ss, p.LogEntryID)
		}
	})
	if err != nil {
		return ResolveResult{}, err
	}
	if row == nil {
		return ResolveResult{}, Errorf(CodeEntryNotFound, "no proposal %d in session %d", p.LogEntryID, session)
	}
	pr, err := o.svc.Resolve(p.LogEntryID, exec.Decision(p.Decision), p.Outcome)
	if err != nil {
		return ResolveResult{}, Errorf(CodeEntryNotFound, "proposal %d: %v", p.LogEntryID, err)
	}
	out := ResolveResult{LogEntryID: pr.ID, State: string(pr.State)}
	o.svc.View(func() {
		out.Status = row.Status
		o.flushAll()
	})
	return out, nil
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

// ReadEntry implements Backend. It writes no log row.
func (o *Orchestrator) ReadEntry(session int64, target string) (EntryResult, error) {
	st, err := dsl.ParseStatement("<<READ(" + target + ")::READ")
	if err != nil || st.Target == nil {
		return EntryResult{}, Errorf(CodeInvalidParams, "invalid params: target %q is not an address", target)
	}
	var out EntryResult
	o.svc.View(func() {
		var s *orchSession
		if s, err = o.session(session); err != nil {
			return
		}
		if t := *st.Target; t.Scheme == "run" {
			out = readScratch(s.ss, t)
			return
		}
		res, rerr := o.reg.Resolve(*st.Target)
		if rerr != nil {
			out = EntryResult{Status: scheme.StatusOf(rerr), Reason: rerr.Error()}
			return
		}
		var ent *store.Entry
		loadErr := o.st.Update(s.ss, func(tx *store.Tx) error {
			e, lerr := res.Handler.Load(scheme.Call{Tx: tx, Writer: scheme.WriterClient}, res.Key)
			ent = e
			return lerr
		})
		switch {
		case loadErr != nil:
			out = EntryResult{Status: scheme.StatusOf(loadErr), Reason: loadErr.Error()}
		case ent == nil:
			out = EntryResult{Status: 404, Reason: fmt.Sprintf("no entry at %s", res.Key)}
		default:
			out = EntryResult{Status: 200, Entry: entryOf(ent)}
		}
	})
	return out, err
}

// readScratch reads the run-scope entry run://<owner>/<path> of the
// session (a run's scratch, §run-scheme-scratch): a client names the run
// that owns it, so run:/// (the acting run's own) answers 400.
func readScratch(ss *store.Session, t dsl.Target) EntryResult {
	if t.Host == "" || t.Host == "." {
		return EntryResult{Status: 400, Reason: fmt.Sprintf("%s names no run: a client reads run://<run>/<path>", t.String())}
	}
	e := ss.Entry(runs.ScratchKey(t.Host, t.Path))
	if e == nil {
		return EntryResult{Status: 404, Reason: fmt.Sprintf("no entry at %s", t.String())}
	}
	return EntryResult{Status: 200, Entry: entryOf(e)}
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

// ReadLog implements Backend: the rows of q.RunID (any run of the
// session) that match every given filter, in log order; sinceId keeps the
// rows with a greater id; limit keeps the newest limit rows.
func (o *Orchestrator) ReadLog(session int64, q LogQuery) ([]LogEntry, error) {
	if q.RunID == nil {
		return nil, Errorf(CodeInvalidParams, "invalid params: log.read needs runId")
	}
	var out []LogEntry
	var err error
	o.svc.View(func() {
		var s *orchSession
		if s, err = o.session(session); err != nil {
			return
		}
		run := runByID(s.ss, *q.RunID)
		if run == nil {
			err = Errorf(CodeInvalidParams, "invalid params: run %d does not belong to session %d", *q.RunID, session)
			return
		}
		for _, row := range run.Log {
			if le := logEntry(run, row); matches(q, le) {
				le.Tokens, _ = o.eng.RowTokens(row.ID)
				out = append(out, le)
			}
		}
	})
	if err != nil {
		return nil, err
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

// ClientOp implements Backend: the statement is parsed as the model's
// would be and dispatched as one turn of the client run's client loop.
func (o *Orchestrator) ClientOp(session, runID int64, text string) (OpResult, error) {
	st, err := dsl.ParseStatement(text)
	if err != nil {
		return OpResult{}, Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	var r *store.Run
	o.svc.View(func() { _, r, err = o.run(session, runID) })
	if err != nil {
		return OpResult{}, err
	}
	rows, err := o.svc.ClientOp(session, r.Name, st)
	if err != nil {
		return OpResult{}, Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	out := OpResult{Entries: []LogEntry{}}
	o.svc.View(func() {
		for i := range rows {
			out.Entries = append(out.Entries, logEntry(r, &rows[i]))
		}
		if n := len(r.Loops); n > 0 {
			out.LoopID = r.Loops[n-1].ID
			out.TurnSeq = len(r.Loops[n-1].Turns) - 1
		}
	})
	if n := len(rows); n > 0 {
		last := rows[n-1]
		out.Status, out.Target, out.Content, out.Reason = last.Status, last.Target, last.Content, last.Reason
	}
	return out, nil
}

// Look implements Backend: LOOK is READ's name on this method; anything
// else is refused.
func (o *Orchestrator) Look(session, runID int64, text string) (LookResult, error) {
	src := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(src, "<<LOOK"); ok {
		src = "<<READ" + rest
		if i := strings.LastIndex(src, ":LOOK"); i != -1 {
			src = src[:i] + ":READ" + src[i+len(":LOOK"):]
		}
	}
	st, err := dsl.ParseStatement(src)
	if err != nil {
		return LookResult{}, Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	if st.Op != dsl.OpRead {
		return LookResult{}, Errorf(CodeInvalidParams, "invalid params: op.look resolves LOOK or READ, not %s", st.Op)
	}
	var r *store.Run
	o.svc.View(func() { _, r, err = o.run(session, runID) })
	if err != nil {
		return LookResult{}, err
	}
	res, err := o.svc.Look(session, r.Name, st)
	if err != nil {
		return LookResult{}, Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return LookResult{Status: res.Status, Target: res.Target, Content: res.Content, Mimetype: res.Mimetype, Reason: res.Reason}, nil
}
