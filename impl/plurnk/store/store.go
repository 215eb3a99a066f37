// Package store holds the in-memory state of plurnk-service 0.56 (the
// features/plurnk/SPEC.md digest): sessions, their runs, loops, turns and log
// rows, and the session's entries with their named channels and tags.
//
// Entries belong to the session (§machine-processes-one-filesystem): every
// run of a session reads and writes one entry set, keyed by (scope, owner,
// scheme, pathname). Every mutation goes through a Tx, which applies fully or
// not at all: Store.Update rolls a failed transaction back — entries, log
// rows appended or deleted, expanded bits flipped, and the undo hooks of
// schemes with state outside the store — and a channel body over
// MaxChannelChars fails it (§stream-constraints-engine-one-cap). Snapshot and
// Restore write and read the whole store as JSON on an afero fs.
//
// It may import the standard library, afero and anchorage/sim/clock.
package store

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"anchorage/sim/clock"
)

// MaxChannelChars is the engine's one limit: the longest channel body, in
// characters, the store accepts.
const MaxChannelChars = 104857600

// Error is the type of the store's sentinel errors.
type Error string

func (e Error) Error() string { return string(e) }

const (
	// ErrChannelTooLarge is returned (wrapped) by a write whose channel body
	// is longer than MaxChannelChars.
	ErrChannelTooLarge Error = "channel body exceeds 104857600 characters"
	// ErrNotFound is returned (wrapped) when a session or run is absent.
	ErrNotFound Error = "not found"
	// ErrPanic marks an error recovered from a panic inside a transaction.
	ErrPanic Error = "panic in transaction"
)

// Scope says whether an entry belongs to the whole session or to one run's
// scratch storage.
type Scope string

const (
	ScopeSession Scope = "session"
	ScopeRun     Scope = "run"
)

// State is a channel's streaming lifecycle. It is metadata only: reads never
// look at it (§channel-state-state-is-metadata).
type State string

const (
	StateStatic  State = "static"
	StateActive  State = "active"
	StateClosed  State = "closed"
	StateErrored State = "errored"
)

// Key names an entry. Owner is the owning run's name for ScopeRun and
// empty for ScopeSession. Scheme is "file" for project files.
type Key struct {
	Scope  Scope
	Owner  string
	Scheme string
	Path   string
}

// String renders the key as its address, scheme:///path.
func (k Key) String() string {
	if k.Scope == ScopeRun {
		return k.Scheme + "://" + k.Owner + k.Path
	}
	return k.Scheme + "://" + k.Path
}

// Channel is one named content store of an entry.
type Channel struct {
	Content  string
	Mimetype string
	Tokens   int
	State    State
}

// Entry is one addressed thing of the session.
type Entry struct {
	ID       int64
	Key      Key
	Channels map[string]Channel
	Tags     []string // sorted, no duplicates
	Created  time.Time
	Updated  time.Time
}

// Clone returns a deep copy of e.
func (e *Entry) Clone() *Entry {
	if e == nil {
		return nil
	}
	c := *e
	c.Channels = make(map[string]Channel, len(e.Channels))
	for n, ch := range e.Channels {
		c.Channels[n] = ch
	}
	c.Tags = append([]string(nil), e.Tags...)
	return &c
}

// HasTag reports whether e carries tag.
func (e *Entry) HasTag(tag string) bool {
	i := sort.SearchStrings(e.Tags, tag)
	return i < len(e.Tags) && e.Tags[i] == tag
}

// AddTags adds tags to e and reports how many were new.
func (e *Entry) AddTags(tags ...string) int {
	n := 0
	for _, t := range tags {
		if t == "" || e.HasTag(t) {
			continue
		}
		e.Tags = append(e.Tags, t)
		sort.Strings(e.Tags)
		n++
	}
	return n
}

// Run is a log over the session's world. Every session has the model run and
// the reserved "plurnk" run.
type Run struct {
	ID    int64
	Name  string
	Loops []*Loop
	Log   []*LogRow
}

// Loop is one prompt-to-terminal-status cycle of a run.
type Loop struct {
	ID     int64
	Seq    int // 1-based within the run
	Status int
	Turns  []*Turn
}

// Turn is one generate call of a loop.
type Turn struct {
	ID  int64
	Seq int // 0-based within the loop
}

// LogRow is one action of a run, at coordinate loop/turn/sequence.
// Expanded is the run's view of the row (§machine-processes-run-is-its-log):
// an open row renders its body, a folded one only its path. OPEN and FOLD
// flip it; nothing else is kept per run.
type LogRow struct {
	ID       int64
	Loop     int
	Turn     int
	Seq      int
	Op       string
	Origin   string // "model", "plurnk", "client"
	Target   string
	Status   int
	Expanded bool
	Content  string // the result (rx)
	Mimetype string
	Reason   string
	Tx       string `json:",omitempty"` // the statement as emitted, canonically printed
	Span     string `json:",omitempty"` // what an EDIT produced (rx.span), as its row renders
}

// Coord renders the row's log:/// coordinate, L/T/S.
func (r *LogRow) Coord() string { return fmt.Sprintf("%d/%d/%d", r.Loop, r.Turn, r.Seq) }

// Handle renders the row's op handle, L/T/S/OP (the form the budget table
// names rows by).
func (r *LogRow) Handle() string { return r.Coord() + "/" + r.Op }

// Body is what an open row shows: its result content, or, for a row whose
// action returned none (an EDIT, a KILL), its statement.
func (r *LogRow) Body() string {
	if r.Content != "" {
		return r.Content
	}
	return r.Tx
}

// Row returns r's log row at loop/turn/seq, or nil.
func (r *Run) Row(loop, turn, seq int) *LogRow {
	for _, row := range r.Log {
		if row.Loop == loop && row.Turn == turn && row.Seq == seq {
			return row
		}
	}
	return nil
}

// Session holds the entries every run of it shares, and its runs.
type Session struct {
	ID      int64
	Runs    []*Run
	entries map[Key]*Entry
}

// Store is the whole in-memory state. It is not safe for concurrent use;
// the engine serialises calls.
type Store struct {
	clock    clock.Clock
	nextID   int64
	sessions map[int64]*Session
}

// New returns an empty store reading time from c.
func New(c clock.Clock) *Store {
	return &Store{clock: c, sessions: map[int64]*Session{}}
}

// Clock returns the clock the store reads time from.
func (s *Store) Clock() clock.Clock { return s.clock }

func (s *Store) id() int64 {
	s.nextID++
	return s.nextID
}

// NewSession creates a session with its model run (named modelRun) and the
// reserved "plurnk" run; with modelRun "" it creates the plurnk run alone
// (the daemon allocates a session's model run on first use).
func (s *Store) NewSession(modelRun string) (*Session, error) {
	if modelRun == PlurnkRun {
		return nil, fmt.Errorf("new session: model run name %q is reserved", modelRun)
	}
	ss := &Session{ID: s.id(), entries: map[Key]*Entry{}}
	if modelRun != "" {
		ss.Runs = append(ss.Runs, &Run{ID: s.id(), Name: modelRun})
	}
	ss.Runs = append(ss.Runs, &Run{ID: s.id(), Name: PlurnkRun})
	s.sessions[ss.ID] = ss
	return ss, nil
}

// PlurnkRun is the name of the session's reserved run, the one the runtime
// acts through.
const PlurnkRun = "plurnk"

// Session returns the session with id.
func (s *Store) Session(id int64) (*Session, error) {
	ss, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("session %d: %w", id, ErrNotFound)
	}
	return ss, nil
}

// AddRun adds a run named name to the session.
func (s *Store) AddRun(ss *Session, name string) (*Run, error) {
	if _, err := ss.Run(name); err == nil {
		return nil, fmt.Errorf("add run %q: name taken", name)
	}
	r := &Run{ID: s.id(), Name: name}
	ss.Runs = append(ss.Runs, r)
	return r, nil
}

// Run returns the session's run named name.
func (ss *Session) Run(name string) (*Run, error) {
	for _, r := range ss.Runs {
		if r.Name == name {
			return r, nil
		}
	}
	return nil, fmt.Errorf("run %q: %w", name, ErrNotFound)
}

// BeginLoop opens a new loop on r with its turn 0.
func (s *Store) BeginLoop(r *Run) *Loop {
	l := &Loop{ID: s.id(), Seq: len(r.Loops) + 1, Status: 100}
	l.Turns = append(l.Turns, &Turn{ID: s.id(), Seq: 0})
	r.Loops = append(r.Loops, l)
	return l
}

// NextTurn opens the next turn of l.
func (s *Store) NextTurn(l *Loop) *Turn {
	t := &Turn{ID: s.id(), Seq: len(l.Turns)}
	l.Turns = append(l.Turns, t)
	return t
}

// Entry returns a copy of the entry at k, or nil when there is none.
func (ss *Session) Entry(k Key) *Entry { return ss.entries[k].Clone() }

// Entries returns copies of every entry of the session, ordered by key.
func (ss *Session) Entries() []*Entry {
	out := make([]*Entry, 0, len(ss.entries))
	for _, e := range ss.entries {
		out = append(out, e.Clone())
	}
	slices.SortFunc(out, func(a, b *Entry) int { return compareKey(a.Key, b.Key) })
	return out
}

func compareKey(a, b Key) int {
	return cmp.Or(cmp.Compare(a.Scope, b.Scope), strings.Compare(a.Owner, b.Owner),
		strings.Compare(a.Scheme, b.Scheme), strings.Compare(a.Path, b.Path))
}
