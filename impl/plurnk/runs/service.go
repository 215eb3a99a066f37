package runs

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
)

// EnvMaxActive is the operator variable capping the active runs of one
// session (§run-scheme-cap).
const EnvMaxActive = "PLURNK_SESSION_RUNS_MAX_ACTIVE"

// Off switches the active-run cap off.
const Off = -1

// Notification kinds, as the daemon forwards them.
const (
	KindQuiesced   = "loop/quiesced"
	KindTerminated = "loop/terminated"
	// KindProposal: a host EXEC waits for loop.resolve (its row is at
	// 202); RowID, Target and Body describe it.
	KindProposal = "loop/proposal"
	// KindConcluded: a stream of the run closed (stream/concluded);
	// WakeAction says how its conclusion reached the run.
	KindConcluded = "stream/concluded"
)

// The wake actions of stream/concluded (§notifications-stream-concluded).
const (
	WakeResumed          = "resumed-loop"      // a loop parked at 202 resumed in place
	WakeActiveLoop       = "no-op-active-loop" // folded into the run's active loop
	WakeSkippedAborted   = "skipped-aborted"   // a killed stream of a cancelled run: dropped
	WakeSkippedCancelled = "skipped-cancelled" // a clean straggler of a cancelled run: a delta only
	WakeNoLoop           = "no-loop"           // nothing to wake
)

// Event is an in-process notification of a loop's life: loop/quiesced when
// a loop parks with nothing live beneath it, loop/terminated when a loop
// reaches a terminal status.
type Event struct {
	Kind    string
	Session int64
	RunID   int64
	Run     string
	LoopID  int64
	LoopSeq int
	Status  int
	Reason  string
	// Turn, RowID, Target and Body locate a proposal's EXEC row: its
	// turn, its log row id, its output entry and its command.
	Turn  int
	RowID int64
	// Yolo is the proposing loop's flags.yolo (loop/proposal's flags).
	Yolo bool
	// Op is the proposed op ("" is EXEC); StaleClobberRisk marks an EDIT
	// proposal whose target changed on disk since the model's last turn.
	Op               string
	StaleClobberRisk bool
	// WakeAction and Runtime describe a stream/concluded.
	WakeAction string
	Runtime    string
	Target     string
	Body       string
	// Signal is the signal that ended a concluded stream's process ("" if
	// none did) and ExitCode the code it exited with by itself.
	Signal   string
	ExitCode int
	// Result is the engine's outcome of the loop (its usage payload) when
	// the event follows a loop the engine returned; nil for a parked loop
	// closed by a cancel or a KILL outside any drain.
	Result *engine.Result
}

// Config wires a Service. Store, Engine and Clock are required.
type Config struct {
	Store *store.Store
	// Engine runs the loops. The Service installs its hooks (Exec, RunOp,
	// Foist, After, Live, Yield); set everything else before New.
	Engine *engine.Engine
	Clock  clock.Clock
	// Executors are the EXEC runtimes; nil makes every EXEC answer 501.
	Executors *exec.Registry
	// Grace is PLURNK_EXEC_KILL_GRACE_MS (0: the default).
	Grace time.Duration
	// StreamEvents receives stream/event notifications; nil drops them.
	StreamEvents exec.Notifier
	// ProposalTimeout is PLURNK_PROPOSAL_TIMEOUT_MS (0: the default).
	ProposalTimeout time.Duration
	// Yolo accepts every proposal at once.
	Yolo bool
	// MaxActive is PLURNK_SESSION_RUNS_MAX_ACTIVE: no cap unless positive
	// (Off, or 0 when unset).
	MaxActive int
	// Dir and Env are the working directory and the scoped environment of
	// every EXEC spawn.
	Dir string
	Env []string
	// Go starts a drain; nil uses a plain goroutine. A caller that runs
	// the drains itself, one after another, gets a deterministic schedule.
	Go func(func())
	// Quiet, when set, is called with the service lock held whenever the
	// store is between writes: before a loop yields the lock to the
	// provider, after every loop the engine returns, and after Pump. The
	// daemon announces the new log rows there.
	Quiet func()

	// Teardown is a test seam, nil by default. When set, a drain that has
	// found its queue empty releases the service lock, calls Teardown,
	// and takes the lock back to confirm the queue is still empty before
	// giving up its slot: a test queues a loop inside that window to show
	// it is claimed (§run-lifecycle-no-lost-loop). Without it the check
	// and the release happen under one holding of the lock.
	Teardown func(session int64, run string)
	// Registering is a test seam, nil by default. When set, an EXEC
	// dispatch that has captured its run's cancellation scope releases the
	// service lock and calls Registering before it spawns the stream and
	// wires the stream's kill to that scope, so a test can land an abort
	// in exactly that gap (§run-lifecycle-exec-epoch-bound). target is the
	// stream's output entry.
	Registering func(session int64, run, target string)
	// StaleClobber, when set, reports whether a write of the project path
	// p by session risks clobbering an outside change the model has not
	// read (membership.Project.StaleClobberRisk): server yolo then rejects
	// the model's EDIT of it instead of accepting it
	// (§dual-yolo-stale-clobber-reject). nil: no EDIT is ever flagged.
	StaleClobber func(session int64, p string) bool
	// FileEdit, when set, makes a model's EDIT of a workspace file a
	// proposal (§membership-edit-membership-gate): it reports the file's
	// signature on disk at p (a path of the file scheme), which an accept
	// compares with the one the EDIT was proposed against, and gate, the
	// membership's refusal of the write (nil when it may be proposed).
	// nil: such an EDIT applies at once, as any EDIT.
	FileEdit func(session int64, p string) (sig string, gate error)
}

// Service holds the sessions and their runs.
type Service struct {
	cfg       Config
	eng       *engine.Engine
	streams   *exec.Streams
	proposals *exec.Proposals

	mu       sync.Mutex // guards the store and everything below
	idle     *sync.Cond // signalled when a drain exits or pauses
	resumed  *sync.Cond // signalled when a proposal a drain waits on settles
	drains   int        // drains running
	paused   int        // drains paused at a proposal (§proposal-202-pauses)
	sessions map[int64]*Session
	pending  map[int64]*pendingExec // host EXECs awaiting their proposal, by row id
	subs     []subscriber           // in the order they subscribed
	expired  chan struct{}          // a proposal timed out
	quiesce  chan quiesceAsk        // Quiesce asks Serve
	nextSub  int
}

// subscriber is one Subscribe: its id (for its cancel) and its func.
type subscriber struct {
	id int
	fn func(Event)
}

// Session is one session: its world in the store and its runs.
type Session struct {
	store    *store.Session
	runs     map[string]*Run
	order    []*Run
	settings Settings
}

// Run is one run's orchestration state.
type Run struct {
	sess     *Session
	store    *store.Run
	parent   *Run
	origin   string      // model, client or plurnk, fixed at creation
	client   *store.Loop // a client run's open client loop
	queue    []work
	draining bool
	running  bool        // the engine is running one of its loops
	current  *store.Loop // the loop its drain is resuming
	scope    *Scope
	// cancelled: the run was cancelled and nothing explicit has resumed it
	// since (§run-lifecycle-no-resurrection).
	cancelled bool
	// owed: an event aimed at the run arrived while its loop was running;
	// if the loop parks before seeing it, it is resumed at once.
	owed bool
	// message: the event owed is a message (loop.inject, a SEND to the
	// run) still in the inbox: if the loop ends before a turn sees it, it
	// opens the next loop. A sister's collected delta or a child's
	// conclusion waits for the next turn instead and wakes nobody.
	message bool
	inbox   []*store.LogRow // rows waiting for the run's next turn
	cursors *exec.Cursors
	poll    clock.Timer
	yolo    map[int]bool // loop seq → the loop's flags.yolo
	drained int          // drains this run has had
	started int          // drains started and not yet exited
	twice   bool         // two drains were ever started at once (never expected)
}

type work struct {
	prompt   string
	maxTurns int
	resume   *store.Loop
	// begun, when set, receives the loop once the engine opened or
	// resumed it.
	begun func(*store.Loop)
	alias string
	// explicit: queued by a client's loop.run.
	explicit bool
	// yolo is the loop's flags.yolo: its proposals are accepted at once.
	yolo bool
}

type pendingExec struct {
	run   *Run
	row   *store.LogRow
	req   exec.Request
	scope *Scope
	// edit is set when the proposal is a model's EDIT of a workspace file
	// rather than a host EXEC.
	edit *pendingEdit
	// paused: the run's drain waits for this proposal to settle before it
	// dispatches the rest of the emission; settled: it has.
	paused  bool
	settled bool
}

// New returns a Service over cfg and installs its hooks on cfg.Engine.
func New(cfg Config) (*Service, error) {
	s := &Service{cfg: cfg, eng: cfg.Engine, sessions: map[int64]*Session{}, pending: map[int64]*pendingExec{}}
	s.idle = sync.NewCond(&s.mu)
	s.resumed = sync.NewCond(&s.mu)
	reg := cfg.Executors
	if reg == nil {
		var err error
		if reg, err = exec.NewRegistry(); err != nil {
			return nil, fmt.Errorf("runs: empty executor registry: %w", err)
		}
	}
	s.streams = exec.NewStreams(exec.Config{Store: cfg.Store, Registry: reg, Clock: cfg.Clock, Grace: cfg.Grace, Notify: cfg.StreamEvents})
	s.expired = make(chan struct{}, 1)
	s.quiesce = make(chan quiesceAsk)
	s.proposals = exec.NewProposals(cfg.Clock, cfg.ProposalTimeout, func(p exec.Proposal) {
		if p.Outcome == "timeout" {
			// Settled by its timer, outside the service lock: Pump
			// records it on its row.
			select {
			case s.expired <- struct{}{}:
			default:
			}
		}
	})
	cfg.Engine.Ops.SubscribeStreams(reg.Runtimes(), s.streams) // the model's SEND[499]/KILL on a stream reach the stream table
	e := cfg.Engine
	e.Exec, e.RunOp, e.Foist, e.After, e.Live, e.Yield = s.execOp, s.runOp, s.foist, s.after, s.live, quietLocker{s}
	if cfg.FileEdit != nil {
		e.Edit = s.editOp
	}
	e.Executors = reg.Runtimes()
	return s, nil
}

// quietLocker is the engine's Yield: the service lock, calling the Quiet
// hook before each release.
type quietLocker struct{ s *Service }

func (q quietLocker) Lock() { q.s.mu.Lock() }

func (q quietLocker) Unlock() {
	q.s.quiet()
	q.s.mu.Unlock()
}

func (s *Service) quiet() {
	if s.cfg.Quiet != nil {
		s.cfg.Quiet()
	}
}

// Streams returns the EXEC stream table (the daemon reads stream state
// from it).
func (s *Service) Streams() *exec.Streams { return s.streams }

// Proposals returns the proposal table.
func (s *Service) Proposals() *exec.Proposals { return s.proposals }

// NewSession creates a session whose model run is named modelRun, next to
// the reserved plurnk run.
func (s *Service) NewSession(modelRun string) (*store.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, err := s.cfg.Store.NewSession(modelRun)
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	sess := &Session{store: ss, runs: map[string]*Run{}}
	for _, r := range ss.Runs {
		origin := OriginModel
		if r.Name == store.PlurnkRun {
			origin = OriginPlurnk
		}
		sess.add(r, nil, origin)
	}
	s.sessions[ss.ID] = sess
	return ss, nil
}

func (sess *Session) add(r *store.Run, parent *Run, origin string) *Run {
	run := &Run{sess: sess, store: r, parent: parent, origin: origin, yolo: map[int]bool{}, scope: NewScope(), cursors: exec.NewCursors()}
	sess.runs[r.Name] = run
	sess.order = append(sess.order, run)
	return run
}

func (s *Service) session(id int64) (*Session, error) {
	sess, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("runs: session %d: %w", id, store.ErrNotFound)
	}
	return sess, nil
}

func (s *Service) run(session int64, name string) (*Run, error) {
	sess, err := s.session(session)
	if err != nil {
		return nil, err
	}
	r, ok := sess.runs[name]
	if !ok {
		return nil, fmt.Errorf("runs: run %q of session %d: %w", name, session, store.ErrNotFound)
	}
	return r, nil
}

// RunInfo describes one run of a session.
type RunInfo struct {
	ID     int64
	Name   string
	Origin string // model, client or plurnk (§machine-processes-run-origin)
	Parent string // "" for a run no run spawned
	Loops  int
	// Status is the latest loop's status, 0 before the first loop.
	Status   int
	Draining bool
	Queued   int
	// Drains counts the drains the run has had (each took the slot once).
	Drains int
}

// Runs lists the runs of a session in creation order (session.runs).
func (s *Service) Runs(session int64) ([]RunInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.session(session)
	if err != nil {
		return nil, err
	}
	out := make([]RunInfo, 0, len(sess.order))
	for _, r := range sess.order {
		out = append(out, r.info())
	}
	return out, nil
}

func (r *Run) info() RunInfo {
	in := RunInfo{ID: r.store.ID, Name: r.store.Name, Origin: r.origin, Loops: len(r.store.Loops), Draining: r.draining, Queued: len(r.queue), Drains: r.drained}
	if r.parent != nil {
		in.Parent = r.parent.store.Name
	}
	if l := r.latest(); l != nil {
		in.Status = l.Status
	}
	return in
}

func (r *Run) latest() *store.Loop {
	if n := len(r.store.Loops); n > 0 {
		return r.store.Loops[n-1]
	}
	return nil
}

// View runs fn with the service lock held, for reads of the store that the
// other accessors do not cover (entries, rows). fn must not call back into
// the Service.
func (s *Service) View(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn()
}

// Subscribe registers fn for every Event; the returned func removes it.
// fn is called with the service lock held and must not call back into the
// Service (the daemon queues the event and returns).
func (s *Service) Subscribe(fn func(Event)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextSub
	s.nextSub++
	s.subs = append(s.subs, subscriber{id: id, fn: fn})
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.subs = slices.DeleteFunc(s.subs, func(sub subscriber) bool { return sub.id == id })
	}
}

func (s *Service) emit(ev Event) {
	for _, sub := range s.subs {
		sub.fn(ev)
	}
}

// LoopStart is what Start queues: the prompt, the per-call turn request,
// and the waiter of the loop's outcome.
type LoopStart struct {
	Prompt   string
	MaxTurns int
	// Alias overrides the model for this loop ("" keeps the default).
	Alias string
	// Yolo is the loop's flags.yolo (§dual-yolo-server-yolo-auto-accept).
	Yolo bool
	// Begun, when set, is called with the service lock held with the
	// loop once the engine opened it (or resumed it in place).
	Begun func(*store.Loop)
}

// Start starts a loop of run (loop.run): it is queued behind the run's
// current work when its drain is busy, resumes the run's parked loop in
// place (ls.Prompt then reaching it as an injected row), and otherwise
// starts a new loop; the loop's end is announced by its loop/terminated
// event. It is the one call that lifts a cancelled run's cancellation.
func (s *Service) Start(session int64, run string, ls LoopStart) error {
	prompt := ls.Prompt
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.run(session, run)
	if err != nil {
		return err
	}
	if r.store.Name == store.PlurnkRun {
		return fmt.Errorf("runs: loop.run on the reserved %q run", store.PlurnkRun)
	}
	r.cancelled = false
	r.scope = r.scope.Renew()
	if l := r.latest(); !r.draining && len(r.queue) == 0 && l != nil && l.Status == engine.StatusParked {
		if prompt != "" {
			r.inbox = append(r.inbox, injectRow(scheme.WriterClient, "", prompt))
		}
		s.enqueue(r, work{resume: l, maxTurns: ls.MaxTurns, begun: ls.Begun, alias: ls.Alias, yolo: ls.Yolo})
		return nil
	}
	s.enqueue(r, work{prompt: prompt, maxTurns: ls.MaxTurns, begun: ls.Begun, alias: ls.Alias, explicit: true, yolo: ls.Yolo})
	return nil
}

// Inject hands msg to run as an event aimed at it (loop.inject): a busy
// run sees it in its next turn, a parked one is resumed in place, an idle
// one starts a loop that opens with it.
func (s *Service) Inject(session int64, run, msg string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.run(session, run)
	if err != nil {
		return err
	}
	s.inject(r, injectRow(scheme.WriterClient, "", msg))
	return nil
}

// Cancel aborts the run's active loop with 499 (loop.cancel), tears down
// its streams, pending proposals and poll, and drops its queued work. It
// reports whether anything was running or parked.
func (s *Service) Cancel(session int64, run, reason string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.run(session, run)
	if err != nil {
		return false, err
	}
	if reason == "" {
		reason = "user_cancelled"
	}
	return s.abort(r, reason, true), nil
}

// Resolve settles the proposal of a host EXEC (proposal.resolve). On
// accept the stream spawns, bound to the cancellation scope its run had
// when it was proposed, and the EXEC row moves to 102; a reject records
// 400 and a cancel 499 on the row.
func (s *Service) Resolve(id int64, d exec.Decision, outcome string) (exec.Proposal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.proposals.Resolve(id, d, outcome)
	if err != nil {
		return p, err
	}
	s.settled(id, p)
	return p, nil
}

// Wait blocks until no drain is running: each has exited or is paused at
// a proposal waiting for its resolution.
func (s *Service) Wait() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.drains > s.paused {
		s.idle.Wait()
	}
}

// Serve applies what the processes post (Pump) until ctx ends: a
// stream's output and exit when it arrives, a proposal's expiry when its
// timer fires.
func (s *Service) Serve(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.streams.Ready():
			s.Pump()
		case <-s.expired:
			s.Pump()
		case q := <-s.quiesce:
			// Once the drains are done: idle when no wake-up is
			// pending, else busy with what it brought.
			s.Wait()
			select {
			case <-s.streams.Ready():
				s.Pump()
				close(q.busy)
			case <-s.expired:
				s.Pump()
				close(q.busy)
			default:
				close(q.idle)
			}
		}
	}
}

// quiesceAsk is a Quiesce's question to Serve, which closes idle or busy.
type quiesceAsk struct{ idle, busy chan struct{} }

// Quiesce waits, while Serve runs, until the service has nothing left to
// do on its own: no drain running (each has exited or waits on its
// proposal) and no wake-up of Serve pending. It applies nothing itself: a
// caller stepping a simulated clock lets the service catch up with it.
func (s *Service) Quiesce() {
	for {
		q := quiesceAsk{idle: make(chan struct{}), busy: make(chan struct{})}
		s.quiesce <- q
		select {
		case <-q.idle:
			return
		case <-q.busy:
		}
	}
}

// Pump applies the chunks and exits the processes have posted and routes
// every concluded stream to its run.
func (s *Service) Pump() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire()
	s.apply()
	s.quiet()
}

// apply applies what the processes have posted and routes every concluded
// stream to its run. s.mu is held.
func (s *Service) apply() {
	for _, st := range s.streams.Drain() {
		sess, ok := s.sessions[st.Session]
		if !ok {
			continue
		}
		if r, ok := sess.runs[st.Run]; ok {
			s.concluded(r, st)
		}
	}
}

// Audit reports every breach of the drain discipline
// (§run-lifecycle-no-lost-loop) among the runs of session: a run that ever
// had two drains at once, and, when no drain is running (after Wait), a
// run still holding queued work or its drain slot; nil means none. plurnkd
// -debug offers it as debug.audit; an unknown session is an error.
func (s *Service) Audit(session int64) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.session(session)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range sess.order {
		name := r.store.Name
		if r.twice {
			out = append(out, fmt.Sprintf("run %s had two drains at once", name))
		}
		if s.drains == 0 && (r.draining || len(r.queue) > 0 || r.started > 0) {
			out = append(out, fmt.Sprintf("run %s left with its slot taken=%v and %d queued loops while no drain runs", name, r.draining, len(r.queue)))
		}
	}
	return out, nil
}

// Active counts the session's active runs: those with a loop queued,
// running or parked.
func (sess *Session) active() int {
	n := 0
	for _, r := range sess.order {
		if r.active() {
			n++
		}
	}
	return n
}

func (r *Run) active() bool {
	if r.store.Name == store.PlurnkRun {
		return false
	}
	if r.draining || len(r.queue) > 0 {
		return true
	}
	l := r.latest()
	return l != nil && !engine.Terminal(l.Status)
}

// injectRow is the row an injected message becomes in its run's log.
func injectRow(origin scheme.Writer, from, msg string) *store.LogRow {
	return &store.LogRow{Op: "SEND", Origin: string(origin), Target: from, Status: 102, Expanded: true, Content: msg, Mimetype: "text/markdown"}
}

// expire records on their rows the proposals their timeout cancelled
// (§proposal-timeout-cancels): the EXEC row ends 499 with reason timeout.
// s.mu is held.
func (s *Service) expire() {
	ids := make([]int64, 0, len(s.pending))
	for id := range s.pending {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if p, ok := s.proposals.Get(id); ok && p.State != exec.Proposed {
			s.settled(id, p)
		}
	}
}
