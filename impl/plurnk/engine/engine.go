// Package engine runs the loops of plurnk-service 0.56 (features/plurnk/
// SPEC.md: §send-idle-turn, §send-premature-terminate,
// §provider-surface-*, §meta-passthrough, §packet-*, §policy-sections,
// §tokenomics-*, §grinder-*, §telemetry-*,
// §operator-config-max-turns-ceiling, §actor-boundary-doc-injection,
// §actor-boundary-self-hosting, §scheme-surface-exception-500).
//
// A loop runs turns until a terminal status. Turn 0 holds what the runtime
// foists (the prompt entry, the operator docs); each later turn assembles
// a packet, lets the grinder act on overflow only, calls the provider once
// under the run's abort signal, parses the emission, dispatches its ops and
// disposes of the turn by its terminal SEND. Rails (idle turn, premature
// terminate, shape violations, parse failures, cycle detection, grinder
// overflow) strike an internal counter the model never sees.
//
// Loop statuses: 100 pending, 102 running, 200 done, 202 parked,
// 413 budget overflow, 429 turn ceiling, 499 cancelled, 500 failed (strike
// threshold, provider or configuration failure), 508 runaway (the strike
// that crossed the threshold came from cycle detection).
//
// It may import the standard library, afero, and anchorage/impl/plurnk/
// {dsl,store,scheme,ops,provider,telemetry,config,packet}.
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/packet"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/impl/plurnk/telemetry"
	"anchorage/impl/vary"

	"github.com/spf13/afero"
)

// Loop statuses.
const (
	StatusPending   = 100
	StatusRunning   = 102
	StatusDone      = 200
	StatusParked    = 202
	StatusOverflow  = 413
	StatusTurnLimit = 429
	StatusCancelled = 499
	StatusFailed    = 500
	StatusRunaway   = 508
)

// The fixed steer texts of the two SEND rails.
const (
	SteerIdleTurn          = "If the turn's work is complete, terminate with 200. If awaiting a stream or run trigger, terminate with 202 to hibernate."
	SteerPrematureTerminal = "Attempted termination with active streams or child runs. Terminate with 202 to hibernate until they complete, KILL(path) with 200 again to clean up, or 499 to fail."
)

// Engine runs loops over one store.
type Engine struct {
	Store    *store.Store
	Ops      *ops.Engine
	Provider provider.Provider
	Config   config.Config
	FS       afero.Fs // operator files (inject, policy, docs)

	// Plugins rewrite the section list, in registration order.
	Plugins []packet.Transformer
	// Sink receives every notice as it is pushed (the daemon forwards it
	// as telemetry/event); nil drops them.
	Sink telemetry.Sink
	// Executors are the EXEC runtime tags listed in the tools section.
	Executors []string
	// Exec dispatches an EXEC; nil answers 501.
	Exec func(a ops.Actor, st dsl.Statement) ops.Result
	// Send dispatches a SEND aimed at run://<name> (irc); nil leaves it to
	// the op engine (501).
	Send func(a ops.Actor, st dsl.Statement) ops.Result
	// Git renders the git section; nil leaves it empty.
	Git func(ss *store.Session) string
	// Live lists what the run still holds live besides the streams and
	// children the engine finds itself; nil adds nothing.
	Live func(ss *store.Session, r *store.Run) []string
	// RunOp dispatches every op aimed at run:// (spawn, irc, fork,
	// terminate, scratch); it writes its own log row. When nil, a SEND at
	// run:// goes to Send and the other ops to the op engine.
	RunOp func(a ops.Actor, st dsl.Statement) ops.Result
	// Edit takes a model's EDIT of a workspace file (a file:// or bare
	// target: egress to disk, which is proposed) before the op engine sees
	// it: when it answers the EDIT itself it writes its own log row (and
	// sees to what After would do) and reports true; false leaves the EDIT
	// to the op engine. nil leaves every EDIT to the op engine.
	Edit func(a ops.Actor, st dsl.Statement) (ops.Result, bool)
	// Foist writes what the runtime places in a run's log at the start of
	// a turn (injected prompts, deltas, stream surfacings), at a.Turn: 0
	// after the turn-0 foists of a new loop, and each model turn before its
	// packet is assembled. nil foists nothing.
	Foist func(a ops.Actor)
	// After sees every op of an emission once it has been dispatched
	// through the op engine (not the hooks); nil ignores them.
	After func(a ops.Actor, st dsl.Statement, res ops.Result)
	// Yield, when set, is the lock the caller holds around Run: the engine
	// releases it while the provider generates and takes it back before
	// touching the store again, so loops of other runs go on meanwhile.
	Yield sync.Locker

	children    map[int64][]*store.Run
	rowTokens   map[int64]int
	runCost     map[int64]int64
	sessionCost map[int64]int64
}

// New returns an engine. It wires the provider's tokenizer into the op
// engine, so content tokens are counted when content is written.
func New(st *store.Store, o *ops.Engine, p provider.Provider, cfg config.Config, fsys afero.Fs) *Engine {
	o.Tokens = p.CountTokens
	return &Engine{Store: st, Ops: o, Provider: p, Config: cfg, FS: fsys,
		children: map[int64][]*store.Run{}, rowTokens: map[int64]int{},
		runCost: map[int64]int64{}, sessionCost: map[int64]int64{}}
}

// AdoptChild records child as a run spawned by parent: while its latest
// loop is not terminal, parent holds it live.
func (e *Engine) AdoptChild(parent, child *store.Run) {
	e.children[parent.ID] = append(e.children[parent.ID], child)
}

// RowTokens returns the token count stored for a log row when it was
// written, and whether one was stored.
func (e *Engine) RowTokens(id int64) (int, bool) {
	n, ok := e.rowTokens[id]
	return n, ok
}

// AllRowTokens returns a copy of every token count stored for a row, by
// row id, for the daemon to keep across a restart.
func (e *Engine) AllRowTokens() map[int64]int { return maps.Clone(e.rowTokens) }

// RestoreRowTokens takes back the token counts AllRowTokens gave.
func (e *Engine) RestoreRowTokens(m map[int64]int) { maps.Copy(e.rowTokens, m) }

// RunCost returns the pico-USD rolled up into run r.
func (e *Engine) RunCost(r *store.Run) int64 { return e.runCost[r.ID] }

// SessionCost returns the pico-USD rolled up into session ss.
func (e *Engine) SessionCost(ss *store.Session) int64 { return e.sessionCost[ss.ID] }

// Request starts one loop.
type Request struct {
	Session *store.Session
	Run     *store.Run
	Prompt  string
	// MaxTurns is the per-call turn request; 0 or less asks for none.
	MaxTurns int
	// MaxCommands narrows the per-emission op cap; nil asks for none.
	MaxCommands *int
	// Requirements replaces PLURNK_REQUIREMENTS; nil keeps it.
	Requirements *string
	// Resume, when set, is a loop of Run parked at 202 to continue in
	// place: no new loop and no turn 0; its turns go on from the last one.
	// Prompt is ignored.
	Resume *store.Loop
	// Begun, when set, is called with the loop once it exists (a new
	// loop right after it is opened, a resumed one at once), before turn
	// 0 or the next turn runs.
	Begun func(*store.Loop)
	// Client is the client id of the session (settings.client), handed to
	// every generate call of the loop; "" omits it (§client-telemetry).
	Client string
	// Alias selects the model for this loop (loop.run's alias), ""
	// keeps the provider's default.
	Alias string
	// Docs are the session's reference documents (settings.mdDocs),
	// merged over the operator's by alias.
	Docs []Doc
}

// Delivered is a packet as the provider received it.
type Delivered struct {
	Turn     int
	Sections []packet.Section
	System   string
	User     string
	// Measured is the text the headline was measured on (the packet with
	// the headline placeholder in place).
	Measured string
	Headline packet.Headline
}

// Text returns the whole packet, the system slot, a blank line, the user
// slot.
func (d *Delivered) Text() string { return d.System + "\n" + d.User }

// TurnRecord is what one turn of a loop left behind.
type TurnRecord struct {
	Seq      int
	Packet   *Delivered // nil when no packet was delivered
	Emission string
	// AssistantRaw is the provider's raw payload, kept verbatim and never
	// read (§provider-guarantees-assistantraw-opaque).
	AssistantRaw string
	Usage        provider.Usage
	CostPico     int64           // the turn's usage_cost_pico
	Meta         json.RawMessage // nil when the provider returned none
}

// Result is the outcome of a loop: its status and the loop usage payload.
type Result struct {
	Loop     *store.Loop
	Status   int
	Reason   string
	Turns    []TurnRecord
	Usage    provider.Usage
	CostPico int64
	// Meta is the newest turn's meta blob, `{}` when no turn returned one.
	Meta json.RawMessage
	// Overflow is the stored over-budget record of a loop that ended 413:
	// free floored at 0, percent above 100.
	Overflow *packet.Headline
}

// Packets returns the delivered packets in turn order.
func (r Result) Packets() []*Delivered {
	var out []*Delivered
	for _, t := range r.Turns {
		if t.Packet != nil {
			out = append(out, t.Packet)
		}
	}
	return out
}

// loopState is one running loop.
type loopState struct {
	ctx      context.Context // the run's abort signal
	req      Request
	loop     *store.Loop
	notices  telemetry.Buffer
	prev     string // the model's previous emission
	strikes  int    // turnErrors: the current streak
	struck   bool   // the current turn struck
	crossed  int    // 500 or 508 once the streak reached the threshold
	history  []string
	maxTurns int
	maxCmds  int
	reqs     string
	ceiling  int
	bounded  bool
	res      Result
}

// Run runs one loop of req.Run to its terminal status. The error is for
// a malformed request only; every failure of the loop itself is a status.
func (e *Engine) Run(ctx context.Context, req Request) (Result, error) {
	if req.Session == nil || req.Run == nil {
		return Result{}, errors.New("engine: run: a session and a run are required")
	}
	ls := &loopState{ctx: ctx, req: req, maxTurns: e.Config.TurnLimit(req.MaxTurns), maxCmds: e.Config.MaxCommands, reqs: e.Config.Requirements}
	if req.MaxCommands != nil {
		ls.maxCmds = e.Config.CommandLimit(*req.MaxCommands)
	}
	if req.Requirements != nil {
		ls.reqs = *req.Requirements
	}
	ls.ceiling, ls.bounded = e.Config.Ceiling(e.Provider.ContextSize())
	first := 1
	if req.Resume != nil {
		if req.Resume.Status != StatusParked {
			return Result{}, fmt.Errorf("engine: resume loop %d of run %q: status %d is not parked", req.Resume.Seq, req.Run.Name, req.Resume.Status)
		}
		ls.loop = req.Resume
		ls.res.Loop = ls.loop
		ls.loop.Status = StatusRunning
		first = len(ls.loop.Turns)
		if req.Begun != nil {
			req.Begun(ls.loop)
		}
	} else {
		ls.loop = e.Store.BeginLoop(req.Run)
		ls.res.Loop = ls.loop
		ls.loop.Status = StatusRunning
		if req.Begun != nil {
			req.Begun(ls.loop)
		}
		if err := e.turnZero(ls); err != nil {
			e.errorRow(ls, 0, StatusFailed, err.Error(), "")
			return e.finish(ls, StatusFailed, err.Error()), nil
		}
		e.foist(ls, 0)
	}
	for t := first; ; t++ {
		if ctx.Err() != nil {
			return e.finish(ls, StatusCancelled, "the run was aborted"), nil
		}
		if ls.maxTurns != config.Off && t > ls.maxTurns {
			return e.finish(ls, StatusTurnLimit, fmt.Sprintf("%d turns exhausted", ls.maxTurns)), nil
		}
		e.Store.NextTurn(ls.loop)
		e.reconcile(ls, t)
		e.foist(ls, t)
		if status, reason := e.turn(ctx, ls, t); status != 0 {
			return e.finish(ls, status, reason), nil
		}
	}
}

// foist lets the Foist hook write into the run's log at turn t.
func (e *Engine) foist(ls *loopState, t int) {
	if e.Foist == nil {
		return
	}
	n := len(ls.req.Run.Log)
	e.Foist(ops.Actor{Session: ls.req.Session, Run: ls.req.Run, Loop: ls.loop.Seq, Turn: t, Writer: scheme.WriterPlurnk})
	e.tokenize(ls.req.Run, n)
}

// reconcile runs the per-turn membership sync before the turn's foists
// (§membership-change-gated-sync): every member is checked against its
// synced signature, and each one changed outside plurnk becomes a folded
// plurnk EDIT row with source "file" in the session's plurnk run, which
// reaches the other runs as a delta through the After hook
// (§membership-emi-divergence-signal). A failed pass is an error row.
func (e *Engine) reconcile(ls *loopState, t int) {
	rows, err := e.Ops.Reconcile(ls.req.Session, ls.loop.Seq, t)
	if err != nil {
		e.errorRow(ls, t, StatusFailed, err.Error(), "")
		return
	}
	if e.After == nil || len(rows) == 0 {
		return
	}
	pr, err := ls.req.Session.Run(store.PlurnkRun)
	if err != nil {
		return
	}
	a := ops.Actor{Session: ls.req.Session, Run: pr, Loop: ls.loop.Seq, Turn: t, Writer: scheme.WriterPlurnk}
	for _, row := range rows {
		sch, p, _ := strings.Cut(row.Target, "://")
		body := row.Content
		e.After(a, statement(dsl.OpEdit, sch, p, &body), ops.Result{Status: row.Status, Target: row.Target, Row: row})
	}
}

func (e *Engine) finish(ls *loopState, status int, reason string) Result {
	ls.loop.Status = status
	ls.res.Status, ls.res.Reason = status, reason
	ls.res.Meta = json.RawMessage(`{}`)
	for i := len(ls.res.Turns) - 1; i >= 0; i-- {
		if ls.res.Turns[i].Meta != nil {
			ls.res.Meta = ls.res.Turns[i].Meta
			break
		}
	}
	return ls.res
}

// push buffers a notice for the next packet and hands it to the sink.
func (e *Engine) push(ls *loopState, n telemetry.Notice) {
	varied := vary.Apply(e.Config.Vary, config.VaryNotices, n, renameNotice)
	ls.notices.Push(varied)
	if e.Sink != nil {
		e.Sink(ls.req.Session.ID, ls.loop.ID, varied)
	}
}

// strike counts one strike on the loop; cycle says it came from cycle
// detection. The first strike that brings the streak to the threshold
// decides the failure status.
func (ls *loopState) strike(max int, cycle bool) {
	ls.strikes++
	ls.struck = true
	if ls.strikes >= max && ls.crossed == 0 {
		ls.crossed = StatusFailed
		if cycle {
			ls.crossed = StatusRunaway
		}
	}
}

// turnZero writes what the runtime foists before the model's first turn:
// the loop's prompt as the entry plurnk:///prompt/<loop> (its row born
// folded: the prompt section shows it), and each operator doc, which the
// plurnk run materializes and the model run READs.
func (e *Engine) turnZero(ls *loopState) error {
	ss, run := ls.req.Session, ls.req.Run
	model := ops.Actor{Session: ss, Run: run, Loop: ls.loop.Seq, Turn: 0, Writer: scheme.WriterPlurnk}
	if ls.req.Prompt != "" {
		res := e.do(model, statement(dsl.OpEdit, "plurnk", fmt.Sprintf("/prompt/%d", ls.loop.Seq), &ls.req.Prompt))
		if res.Status >= 400 {
			return fmt.Errorf("prompt entry: %d %s", res.Status, res.Reason)
		}
		if row := lastRow(run); row != nil {
			row.Expanded = false
		}
	}
	docs, err := e.docs(ls.req.Docs)
	if err != nil {
		return err
	}
	if err := e.materialize(ls, model, docs, e.schemeDocs(ss)); err != nil {
		return err
	}
	e.preview(model)
	return nil
}

// preview foists, with PLURNK_MANIFEST_ITEMS set, one plurnk-origin
// FIND(<scheme>:///**) per active scheme (a registered scheme holding an
// entry of session scope; log:// is the run's own log, not a catalog), in
// scheme order: -1 lists the whole catalog, N > 0 its first N rows
// through an <L> cap (§actor-boundary-manifest-preview).
func (e *Engine) preview(model ops.Actor) {
	n := e.Config.ManifestItems
	if n == 0 {
		return
	}
	active := map[string]bool{}
	for _, ent := range model.Session.Entries() {
		if ent.Key.Scope != store.ScopeRun {
			active[ent.Key.Scheme] = true
		}
	}
	for _, name := range e.Ops.Schemes.Names() {
		if !active[name] || name == "log" {
			continue
		}
		st := statement(dsl.OpFind, name, "/**", nil)
		if n > 0 {
			st.Scope = &dsl.Scope{Marks: []float64{1, float64(n)}}
		}
		e.do(model, st)
	}
}

// materialize has the plurnk run write each operator document and each
// scheme document, in one loop of its own, and the model run READ each
// operator document (§actor-boundary-doc-injection, §schemes-directory).
func (e *Engine) materialize(ls *loopState, model ops.Actor, docs, schemeDocs []Doc) error {
	all := append(append([]Doc(nil), docs...), schemeDocs...)
	if len(all) == 0 {
		return nil
	}
	ss := ls.req.Session
	pr, err := ss.Run(store.PlurnkRun)
	if err != nil {
		return fmt.Errorf("operator docs: %w", err)
	}
	pl := e.Store.BeginLoop(pr)
	for i, d := range all {
		a := ops.Actor{Session: ss, Run: pr, Loop: pl.Seq, Turn: 0, Writer: scheme.WriterPlurnk}
		if res := e.do(a, statement(dsl.OpEdit, "plurnk", "/"+d.Alias+".md", &d.Content)); res.Status >= 400 {
			pl.Status = StatusFailed
			what := config.EnvDocPrefix + d.Alias
			if i >= len(docs) {
				what = scheme.DocsPrefix + strings.TrimPrefix(d.Alias, "docs/") + ".md"
			}
			return fmt.Errorf("materialize %s: %d %s", what, res.Status, res.Reason)
		}
	}
	pl.Status = StatusDone
	for _, d := range docs {
		if res := e.do(model, statement(dsl.OpRead, "plurnk", "/"+d.Alias+".md", nil)); res.Status >= 400 {
			return fmt.Errorf("read %s: %d %s", config.EnvDocPrefix+d.Alias, res.Status, res.Reason)
		}
	}
	return nil
}

// schemeDocs are the documentation entries of the registered schemes that
// ship one (docEntries): plurnk:///docs/<scheme>.md, in scheme name order,
// but those the session already holds as they are.
func (e *Engine) schemeDocs(ss *store.Session) []Doc {
	names := e.Ops.Schemes.Names()
	sort.Strings(names)
	var out []Doc
	for _, n := range names {
		h, _ := e.Ops.Schemes.Handler(n)
		doc := h.Manifest().Doc
		if doc == "" {
			continue
		}
		k := store.Key{Scope: store.ScopeSession, Scheme: "plurnk", Path: "/docs/" + n + ".md"}
		if ent := ss.Entry(k); ent != nil && len(ent.Channels) == 1 && ent.Channels["body"].Content == doc {
			continue
		}
		out = append(out, Doc{Alias: "docs/" + n, Content: doc})
	}
	return out
}

// Doc is a reference document a loop materializes as plurnk:///<Alias>.md.
type Doc struct {
	Alias   string
	Content string
}

// docs merges the operator's PLURNK_MD_* documents with the session's own
// by alias, the session's content winning (an operator file the session
// replaces is not read), in alias order
// (§operator-config-session-md-docs).
func (e *Engine) docs(session []Doc) ([]Doc, error) {
	byAlias := map[string]string{}
	for _, d := range session {
		byAlias[d.Alias] = d.Content
	}
	for _, d := range e.Config.Docs {
		if _, ok := byAlias[d.Alias]; ok {
			continue
		}
		content, err := config.ReadFile(e.FS, config.EnvDocPrefix+d.Alias, d.Path, true)
		if err != nil {
			return nil, err
		}
		byAlias[d.Alias] = content
	}
	out := make([]Doc, 0, len(byAlias))
	for a, c := range byAlias {
		out = append(out, Doc{Alias: a, Content: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Alias < out[j].Alias })
	return out, nil
}

func statement(op dsl.Op, sch, path string, body *string) dsl.Statement {
	return dsl.Statement{Op: op, Target: &dsl.Target{Scheme: sch, Path: path}, Body: body}
}

func lastRow(r *store.Run) *store.LogRow {
	if len(r.Log) == 0 {
		return nil
	}
	return r.Log[len(r.Log)-1]
}

// Dispatch runs one statement for actor a through the same path as an
// op of the model's emission (the op.* mirror of the daemon): EXEC and
// run:// ops through their hooks, everything else through the op engine.
func (e *Engine) Dispatch(a ops.Actor, st dsl.Statement) { e.dispatch(a, st) }

// Do dispatches st for a through the op engine, as an op of an emission
// is, and stores the token count of every row it wrote; no hook sees it.
func (e *Engine) Do(a ops.Actor, st dsl.Statement) ops.Result { return e.do(a, st) }

// Recount stores again the token count of a row whose result was written
// after the row (a proposal accepted).
func (e *Engine) Recount(row *store.LogRow) {
	e.rowTokens[row.ID] = e.Provider.CountTokens(row.Content)
}

// do dispatches through the op engine and stores the token count of every
// row it wrote.
func (e *Engine) do(a ops.Actor, st dsl.Statement) ops.Result {
	n := len(a.Run.Log)
	res := e.Ops.Do(a, st)
	e.tokenize(a.Run, n)
	return res
}

// tokenize stores, at write time, the token count of the rows of r from
// index from on.
func (e *Engine) tokenize(r *store.Run, from int) {
	for _, row := range r.Log[from:] {
		if _, ok := e.rowTokens[row.ID]; !ok {
			e.rowTokens[row.ID] = e.Provider.CountTokens(row.Content)
		}
	}
}

// appendRow writes a row the engine itself owns (an error, a SEND, a
// failed curation) at the next sequence of its loop and turn.
func (e *Engine) appendRow(ss *store.Session, r *store.Run, row *store.LogRow) {
	row.Seq = 1
	for i := len(r.Log) - 1; i >= 0; i-- {
		p := r.Log[i]
		if p.Loop != row.Loop || p.Turn != row.Turn {
			break
		}
		row.Seq = max(row.Seq, p.Seq+1)
	}
	n := len(r.Log)
	_ = e.Store.Update(ss, func(tx *store.Tx) error { tx.AppendLog(r, row); return nil })
	e.tokenize(r, n)
}

// errorRow writes an actionless op='error' row.
func (e *Engine) errorRow(ls *loopState, turn, status int, reason, content string) {
	e.appendRow(ls.req.Session, ls.req.Run, &store.LogRow{
		Loop: ls.loop.Seq, Turn: turn, Op: "error", Origin: string(scheme.WriterPlurnk),
		Status: status, Expanded: true, Reason: reason, Content: content, Mimetype: "text/plain",
	})
}
