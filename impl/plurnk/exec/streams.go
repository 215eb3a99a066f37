package exec

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
)

// The statuses a stream ends with.
const (
	StatusClean    = 200 // the process exited on its own
	StatusKilled   = 499 // cancelled: SEND[499] on the stream, or its run torn down
	StatusFailed   = 500 // the executor failed (or the output overran the store)
	StatusTimedOut = 504 // stopped at the T of <T,P>
)

// DefaultKillGrace is PLURNK_EXEC_KILL_GRACE_MS when unset: the wait
// between the polite signal and SIGKILL.
const DefaultKillGrace = 2000 * time.Millisecond

// Limits reads EXEC's <T,P> slot (seconds): the lifetime bound and the poll
// cadence. A missing mark, or one of zero or less, is 0: no limit, no poll.
func Limits(sc *dsl.Scope) (timeout, poll time.Duration) {
	if sc == nil {
		return 0, 0
	}
	secs := func(i int) time.Duration {
		if i >= len(sc.Marks) {
			return 0
		}
		return time.Duration(max(sc.Marks[i], 0) * float64(time.Second))
	}
	return secs(0), secs(1)
}

// Request is one EXEC to spawn: the runtime, the coordinate of the op's log
// row (which names the output entry), the run that owns the stream, and the
// spawn itself.
type Request struct {
	Runtime         string // "" is DefaultRuntime
	Run             string
	Loop, Turn, Seq int
	Command         string
	Dir             string
	Env             []string // already scoped (ScopeEnv)
	Timeout         time.Duration
	Poll            time.Duration
}

// Stream is a snapshot of one spawn and its output entry.
type Stream struct {
	Session  int64
	Run      string
	Key      store.Key
	EntryID  int64
	Runtime  string
	Command  string
	Timeout  time.Duration
	Poll     time.Duration
	Started  time.Time
	Status   int // 0 while live, then StatusClean/Killed/Failed/TimedOut
	ExitCode int
	Signal   string
	Reason   string
	Ended    time.Time
}

// Live reports whether the stream has not concluded.
func (s Stream) Live() bool { return s.Status == 0 }

// StreamEvent is the stream/event notification: a channel grew or changed
// state. ContentLength is the channel's length in bytes. It never carries
// content.
type StreamEvent struct {
	Session       int64       `json:"-"`
	EntryID       int64       `json:"entryId"`
	Channel       string      `json:"channel"`
	State         store.State `json:"state"`
	ContentLength int         `json:"contentLength"`
}

// Notifier receives stream events (the daemon forwards them to the
// session's connections).
type Notifier interface {
	StreamEvent(ev StreamEvent)
}

// Config configures Streams.
type Config struct {
	Store    *store.Store
	Registry *Registry
	Clock    clock.Clock
	// Grace is PLURNK_EXEC_KILL_GRACE_MS; 0 uses DefaultKillGrace.
	Grace  time.Duration
	Notify Notifier // nil: events are dropped
}

// Streams owns the running EXEC spawns of every session: it opens their
// output entries, applies their output (Drain), stops them at T or on
// cancel, and remembers how each ended.
type Streams struct {
	cfg Config

	mu     sync.Mutex // guards nextID, byID, byKey and each stream's snap, stopping and timers
	nextID int64
	byID   map[int64]*stream
	byKey  map[streamKey]*stream

	qmu   sync.Mutex // guards inbox; never held while taking mu
	inbox []message
	ready chan struct{}
}

type streamKey struct {
	session int64
	key     store.Key
}

type stream struct {
	id       int64
	sess     *store.Session
	snap     Stream
	proc     Process
	cancel   context.CancelFunc
	stopping int // the status a stop in progress will end with
	// signalled is set once a model's KILL[code] sent the process a
	// signal: if a signal then ends it, the stream ends 499.
	signalled bool
	exited    atomic.Bool
	timers    []clock.Timer
}

type message struct {
	id      int64
	channel string
	data    string
	exit    *Exit
}

// NewStreams returns an empty stream table.
func NewStreams(cfg Config) *Streams {
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultKillGrace
	}
	return &Streams{cfg: cfg, byID: map[int64]*stream{}, byKey: map[streamKey]*stream{}, ready: make(chan struct{}, 1)}
}

// Ready receives a value when the inbox has something for Drain; the
// engine selects on it to wake a parked loop's owner.
func (s *Streams) Ready() <-chan struct{} { return s.ready }

func (s *Streams) post(m message) {
	s.qmu.Lock()
	s.inbox = append(s.inbox, m)
	s.qmu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

type sink struct {
	s  *Streams
	st *stream
}

func (k sink) Chunk(channel, data string) {
	if data != "" {
		k.s.post(message{id: k.st.id, channel: channel, data: data})
	}
}

func (k sink) Exit(x Exit) {
	k.st.exited.Store(true)
	k.s.post(message{id: k.st.id, exit: &x})
}

// Spawn resolves req's runtime, opens its output entry
// <runtime>:///<loop>/<turn>/<seq> with every channel active, starts the
// process and arms its T. It returns the stream's snapshot; the op answers
// 102. An unknown or unavailable runtime is a 501 *scheme.StatusError and
// opens nothing. A process that cannot start leaves its entry errored and
// returns a 500 error.
func (s *Streams) Spawn(ss *store.Session, req Request) (Stream, error) {
	exe, err := s.cfg.Registry.Resolve(req.Runtime)
	if err != nil {
		return Stream{}, err
	}
	rt := exe.Runtime()
	key := scheme.ExecKey(rt, req.Loop, req.Turn, req.Seq)
	sk := streamKey{ss.ID, key}
	s.mu.Lock()
	if _, dup := s.byKey[sk]; dup {
		s.mu.Unlock()
		return Stream{}, scheme.Errorf(409, "stream %s is already open", key)
	}
	s.mu.Unlock()

	m := scheme.Exec(rt).Manifest()
	var entryID int64
	err = s.cfg.Store.Update(ss, func(tx *store.Tx) error {
		if err := scheme.OpenStream(tx, m, key); err != nil {
			return err
		}
		entryID = tx.Get(key).ID
		return nil
	})
	if err != nil {
		return Stream{}, fmt.Errorf("open stream %s: %w", key, err)
	}
	for _, ch := range m.ChannelNames() {
		s.notify(ss, StreamEvent{EntryID: entryID, Channel: ch, State: store.StateActive})
	}

	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.nextID++
	st := &stream{id: s.nextID, sess: ss, cancel: cancel, snap: Stream{
		Session: ss.ID, Run: req.Run, Key: key, EntryID: entryID, Runtime: rt, Command: req.Command,
		Timeout: req.Timeout, Poll: req.Poll, Started: s.cfg.Clock.Now(),
	}}
	s.byID[st.id] = st
	s.byKey[sk] = st
	s.mu.Unlock()

	proc, err := exe.Start(ctx, Spec{Command: req.Command, Dir: req.Dir, Env: req.Env}, sink{s: s, st: st})
	if err != nil {
		// No stop can have been asked of a stream with no process, so
		// conclude makes it StatusFailed with err as its reason.
		return s.conclude(st, Exit{Code: -1, Err: err}), scheme.Errorf(500, "spawn %s: %v", key, err)
	}
	s.mu.Lock()
	st.proc = proc
	if req.Timeout > 0 && !st.exited.Load() {
		st.timers = append(st.timers, s.cfg.Clock.AfterFunc(req.Timeout, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.stopLocked(st, StatusTimedOut, fmt.Sprintf("timed out after %s", req.Timeout))
		}))
	}
	s.mu.Unlock()
	return s.snapshot(st), nil
}

// stopLocked starts stopping st with the given final status: a polite
// signal now, SIGKILL after the grace. A stream already stopping or ended
// is left alone. s.mu is held.
func (s *Streams) stopLocked(st *stream, status int, reason string) {
	if st.stopping != 0 || st.exited.Load() || st.proc == nil {
		return
	}
	st.stopping = status
	st.snap.Reason = reason
	_ = st.proc.Stop(false)
	if st.exited.Load() {
		return
	}
	st.timers = append(st.timers, s.cfg.Clock.AfterFunc(s.cfg.Grace, func() {
		if !st.exited.Load() {
			_ = st.proc.Stop(true)
		}
	}))
}

// Cancel stops the live stream at key of the session (SEND[499] on it): a
// polite signal, SIGKILL after the grace, and the stream ends 499. The key
// is the stream's output entry or its exec:// face. A key with no live
// stream answers a 404 *scheme.StatusError.
func (s *Streams) Cancel(ss *store.Session, key store.Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.liveLocked(ss, key)
	if !ok {
		return scheme.Errorf(404, "no live stream at %s", key)
	}
	s.stopLocked(st, StatusKilled, "cancelled")
	return nil
}

// Kill is a model's KILL[code] on the live stream at key of the session (its
// output entry or its exec:// face): the process gets exactly the signal
// numbered code, a bare KILL (0) SIGHUP, and Kill answers the signal's
// name. A key with no live stream answers a 404 *scheme.StatusError, a
// number that names no signal a 400 one.
func (s *Streams) Kill(ss *store.Session, key store.Key, code int) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.liveLocked(ss, key)
	if !ok {
		return "", scheme.Errorf(404, "no live stream at %s", key)
	}
	name, ok := SignalName(code)
	if !ok {
		return "", scheme.Errorf(400, "KILL[%d]: no signal numbered %d", code, code)
	}
	return name, s.signalLocked(st, key, name)
}

// Signal sends exactly the named signal to the live stream at key of the
// session (its output entry or its exec:// face): no polite signal before
// it and no SIGKILL after it. If a signal then ends the process, the
// stream ends 499. A key with no live stream answers a 404
// *scheme.StatusError.
func (s *Streams) Signal(ss *store.Session, key store.Key, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.liveLocked(ss, key)
	if !ok {
		return scheme.Errorf(404, "no live stream at %s", key)
	}
	return s.signalLocked(st, key, name)
}

// signalLocked sends the named signal to st, the live stream at key; one
// whose process has not started yet answers 404. s.mu is held.
func (s *Streams) signalLocked(st *stream, key store.Key, name string) error {
	if st.proc == nil {
		return scheme.Errorf(404, "no live stream at %s", key)
	}
	st.signalled = true
	if st.stopping == 0 {
		st.snap.Reason = "sent " + name
	}
	if err := st.proc.Signal(name); err != nil {
		return fmt.Errorf("signal %s: %w", key, err)
	}
	return nil
}

// liveLocked finds the live stream key names in the session: the stream
// whose output entry is key, or, for the exec:// face, the live stream
// spawned at key's coordinate whatever its runtime (the earliest spawned,
// should two runtimes share the coordinate). s.mu is held.
func (s *Streams) liveLocked(ss *store.Session, key store.Key) (*stream, bool) {
	if key.Scheme != scheme.SpawnScheme {
		st, ok := s.byKey[streamKey{ss.ID, key}]
		return st, ok && st.snap.Status == 0
	}
	var found *stream
	for k, st := range s.byKey {
		if k.session != ss.ID || k.key.Path != key.Path || k.key.Scope != key.Scope || st.snap.Status != 0 {
			continue
		}
		if found == nil || st.id < found.id {
			found = st
		}
	}
	return found, found != nil
}

// Drain applies every chunk and exit the processes have posted, in order,
// to the store: chunks are appended to their channel, an exit moves every
// channel of the entry to closed (a clean exit) or errored (timeout,
// cancel, failure). Each change is reported to the Notifier. It returns
// the streams that concluded during this drain. Call it from the goroutine
// that owns the store.
func (s *Streams) Drain() []Stream {
	s.qmu.Lock()
	msgs := s.inbox
	s.inbox = nil
	s.qmu.Unlock()
	var ended []Stream
	for _, m := range msgs {
		s.mu.Lock()
		st := s.byID[m.id]
		s.mu.Unlock()
		if st == nil {
			continue
		}
		if m.exit == nil {
			s.applyChunk(st, m.channel, m.data)
			continue
		}
		ended = append(ended, s.conclude(st, *m.exit))
	}
	return ended
}

func (s *Streams) applyChunk(st *stream, channel, data string) {
	var ev StreamEvent
	err := s.cfg.Store.Update(st.sess, func(tx *store.Tx) error {
		if err := scheme.AppendChunk(tx, st.snap.Key, channel, data); err != nil {
			return err
		}
		c := tx.Get(st.snap.Key).Channels[channel]
		ev = StreamEvent{EntryID: st.snap.EntryID, Channel: channel, State: c.State, ContentLength: len(c.Content)}
		return nil
	})
	if err != nil {
		// The output overran the store (or the entry went away): the
		// stream cannot go on.
		s.mu.Lock()
		s.stopLocked(st, StatusFailed, err.Error())
		s.mu.Unlock()
		return
	}
	s.notify(st.sess, ev)
}

func (s *Streams) conclude(st *stream, x Exit) Stream {
	s.mu.Lock()
	status := st.stopping
	if status == 0 && st.signalled && x.Signal != "" {
		status = StatusKilled
	}
	if status == 0 {
		status = StatusClean
		if x.Err != nil {
			status = StatusFailed
			st.snap.Reason = x.Err.Error()
		}
	}
	st.snap.Status, st.snap.ExitCode, st.snap.Signal, st.snap.Ended = status, x.Code, x.Signal, s.cfg.Clock.Now()
	for _, t := range st.timers {
		t.Stop()
	}
	st.timers = nil
	st.cancel()
	s.mu.Unlock()

	state := store.StateClosed
	if status != StatusClean {
		state = store.StateErrored
	}
	var evs []StreamEvent
	err := s.cfg.Store.Update(st.sess, func(tx *store.Tx) error {
		if err := scheme.SetState(tx, st.snap.Key, state); err != nil {
			return err
		}
		e := tx.Get(st.snap.Key)
		names := make([]string, 0, len(e.Channels))
		for n := range e.Channels {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			evs = append(evs, StreamEvent{EntryID: e.ID, Channel: n, State: state, ContentLength: len(e.Channels[n].Content)})
		}
		return nil
	})
	if err == nil {
		for _, ev := range evs {
			s.notify(st.sess, ev)
		}
	}
	return s.snapshot(st)
}

func (s *Streams) notify(ss *store.Session, ev StreamEvent) {
	if s.cfg.Notify != nil {
		ev.Session = ss.ID
		s.cfg.Notify.StreamEvent(ev)
	}
}

func (s *Streams) snapshot(st *stream) Stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return st.snap
}

// Get returns the stream at key of the session, live or concluded.
func (s *Streams) Get(ss *store.Session, key store.Key) (Stream, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.byKey[streamKey{ss.ID, key}]
	if !ok {
		return Stream{}, false
	}
	return st.snap, true
}

// Open returns the live streams of run in the session, in no particular
// order: what the run still holds (the pending set of SEND[200], the child
// streams section). Its callers count them or take the least poll.
func (s *Streams) Open(ss *store.Session, run string) []Stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Stream
	for k, st := range s.byKey {
		if k.session == ss.ID && st.snap.Run == run && st.snap.Status == 0 {
			out = append(out, st.snap)
		}
	}
	return out
}

// PollCadence returns the shortest P among run's live streams that have
// one, and false when none does: a parked loop with no polled stream sets no
// timer (§exec-poll).
func (s *Streams) PollCadence(ss *store.Session, run string) (time.Duration, bool) {
	var polls []time.Duration
	for _, st := range s.Open(ss, run) {
		if st.Poll > 0 {
			polls = append(polls, st.Poll)
		}
	}
	if len(polls) == 0 {
		return 0, false
	}
	return slices.Min(polls), true
}
