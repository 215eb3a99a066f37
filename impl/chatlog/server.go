package chatlog

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"anchorage/impl/vary"
	"anchorage/sim/clock"

	"github.com/spf13/afero"
)

// Config holds the server's collaborators and the choices its caller makes.
type Config struct {
	Fs      afero.Fs    // the workspace root (required)
	Clock   clock.Clock // time source (required)
	Console io.Writer   // server console; nil discards
	Seed    uint64      // seeds the short-id generator
	// Timeout is the job timeout, 60 s when zero (§chatlog-timeout).
	Timeout time.Duration
	// Vary makes, where the seed leaves a choice open, another choice than
	// the reference's (Variations); the zero Set is the reference.
	Vary vary.Set
	// SingleFile makes debug.md the log of the only instance
	// (§chatlog-single-file-compat); no registry is written then.
	SingleFile bool
}

// The server's timings, fixed by the seed or by a Decision of the digest.
const (
	defaultTimeout = 60 * time.Second       // §chatlog-timeout
	debounce       = 150 * time.Millisecond // quiet time before a changed log is parsed (§chatlog-debounce)
	pollInterval   = 50 * time.Millisecond  // how often the logs are stat'ed
	tailChunk      = 64 << 10               // bytes read from the end of a log nobody has parsed yet (§chatlog-tail-only)
	// sigWindow is how much of a log's end the watcher hashes on each
	// poll: a write that keeps the size and the mtime still changes it.
	sigWindow = 4096
	// guardLen is how many bytes before the resume point are hashed to
	// notice a rewrite of the part of the log already parsed.
	guardLen = 1024
	// longPoll is how long an HTTP poll waits for a job, 20 s with the
	// variation "limits" (§chatlog-adapter-contract).
	longPoll       = 25 * time.Second
	variedLongPoll = 20 * time.Second
)

// limits are the bounds the seed leaves open (Decisions
// §chatlog-registry-bounded, §chatlog-sanitize, §chatlog-adapter-contract).
type limits struct {
	recentJobs int // jobs listed in the registry
	listed     int // instances listed in the registry
	name       int // characters of a sanitized name
	longPoll   time.Duration
}

// limitsFor is the reference's limits, or other ones with the variation
// "limits".
func limitsFor(v vary.Set) limits {
	return vary.Choose(v, "limits",
		limits{recentJobs: 30, listed: 60, name: maxNameLen, longPoll: longPoll},
		limits{recentJobs: 10, listed: 80, name: 32, longPoll: variedLongPoll})
}

// Instance states shown in the registry (§chatlog-registry-states).
const (
	StateIdle      = "idle"
	StateExecuting = "executing"
	StateCompleted = "completed"
	StateFailed    = "failed"
)

// Errors returned to transports.
var (
	ErrUnknownInstance = errors.New("chatlog: unknown instance or bad token")
	ErrUnknownJob      = errors.New("chatlog: unknown job")
)

// Instance is one connected realm instance (a browser tab, a simulated page).
type Instance struct {
	Name     string // display name given at registration
	Base     string // <sanitized-name>, the name its registry line shows
	Stem     string // <sanitized-name>-<short-id>
	URL      string
	Lang     string
	Path     string // log path relative to the root
	token    string
	LastBeat time.Time
	State    string
	Note     string // "after 60000ms (timeout)", "late"

	// queue holds the jobs of the log that are not over, in file order;
	// the first may be dispatched (§chatlog-instance-order: one job at a
	// time, in file order).
	queue []*Job
	watch watch
	wake  chan struct{}
}

// watch is the polling watcher's knowledge of one log.
type watch struct {
	size     int64
	mod      time.Time
	sum      [32]byte
	warm     bool  // cp is valid
	cp       int64 // parse resumes at this offset
	guard    [32]byte
	guardLen int64
	debounce clock.Timer
	// known holds where the requests the last read found closed begin:
	// each had its job or its answer then, though the next read, which
	// resumes at cp, may find one again.
	known []int64
	// own holds where the entries the server appended since the last read
	// begin: they answer the jobs they were written for, never a request
	// appended since that read.
	own []int64
}

// Server is the file harness: registry writer, log watcher, job queue.
type Server struct {
	cfg     Config
	console io.Writer
	timeout time.Duration
	lim     limits
	ids     *IDSource

	mu        sync.Mutex
	instances []*Instance // in the order they connected
	byToken   map[string]*Instance
	jobs      map[string]*Job
	all       []*Job // every job, in the order the server created them
	recent    []*Job
	seq       int
	stopped   bool
	refused   map[string]bool // ids whose refusal the console has told
	// unattached are the logs found in debug/ at Start, in name order,
	// with the mtime last seen: a change to one that no realm has claimed
	// is told on the console, since nothing else happens to it.
	unattached []unattachedLog
}

// unattachedLog is what the watcher knows of a log left by an earlier run.
type unattachedLog struct {
	path string
	mod  time.Time
}

// New returns a server over cfg.Fs. Call Start to begin watching.
func New(cfg Config) *Server {
	return &Server{cfg: cfg, console: cmp.Or(cfg.Console, io.Discard), timeout: cmp.Or(cfg.Timeout, defaultTimeout),
		lim: limitsFor(cfg.Vary), ids: NewIDSource(cfg.Seed),
		byToken: map[string]*Instance{}, jobs: map[string]*Job{}, refused: map[string]bool{}}
}

func (s *Server) logf(format string, args ...any) {
	msg, at := fmt.Sprintf(format, args...), Clock(s.cfg.Clock.Now())
	fmt.Fprintln(s.console, vary.Choose(s.cfg.Vary, "console", at+" chatlog: "+msg, "[CHATLOG "+at+"] "+strings.ToUpper(msg)))
}

// format renders log entries with the variations in force.
func (s *Server) format() Format { return Format{Vary: s.cfg.Vary} }

// Start writes the registry and starts polling the logs on the clock.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.cfg.Fs.MkdirAll(InstanceDir, 0o755); err != nil {
		return fmt.Errorf("chatlog: create %s: %w", InstanceDir, err)
	}
	s.writeRegistry()
	// Logs left by an earlier run have no realm until their pages register
	// again; say so rather than ignore them silently. Glob sorts the names
	// and fails only on a malformed pattern.
	names, _ := afero.Glob(s.cfg.Fs, InstanceDir+"/*.md")
	for _, p := range names {
		s.logf("%s: not watched until its page registers again (no realm is attached to it since the server started)", p)
		_, mod := s.stat(p)
		s.unattached = append(s.unattached, unattachedLog{p, mod})
	}
	s.cfg.Clock.AfterFunc(pollInterval, s.tick)
	return nil
}

// Stop stops the server: it does nothing more. Every timer it armed (the
// watcher's tick, a debounce, a job's timeout) finds it stopped and returns.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
}

func (s *Server) tick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.scanLocked()
	s.cfg.Clock.AfterFunc(pollInterval, s.tick)
}

// Registration is what a realm instance gets back from Register.
type Registration struct {
	ID    string `json:"id"` // the instance stem
	Token string `json:"token"`
	Path  string `json:"path"`
}

// logPath is where the log of stem lives: debug/<stem>.md, or debug.md in
// single-file mode.
func (s *Server) logPath(stem string) string {
	if s.cfg.SingleFile {
		return RegistryFile
	}
	return InstancePath(stem)
}

func (s *Server) registerLocked(name, url, lang string) (Registration, error) {
	if s.cfg.SingleFile && len(s.instances) > 0 {
		return Registration{}, errors.New("chatlog: single-file mode serves one instance")
	}
	base := SanitizeWith(name, vary.Choose(s.cfg.Vary, "transliterate", dropNonASCII, transliterate), s.lim.name)
	stem := s.newStem(base)
	p := s.logPath(stem)
	// debug/ may have gone since Start; an error here shows when the log
	// is opened.
	_ = s.cfg.Fs.MkdirAll(path.Dir(p), 0o755)
	f, err := s.cfg.Fs.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return Registration{}, fmt.Errorf("chatlog: create log %s: %w", p, err)
	}
	f.Close()
	s.logf("registered %q as %s (%s)", name, stem, p)
	return s.attachLocked(base, stem, name, url, lang, p), nil
}

// newStem draws a short id for base until the stem is neither connected
// nor a log already in debug/ (§chatlog-short-id): 4 hex digits (6 with the
// variation "short-ids"), one more on each draw from the sixth, up to 8.
func (s *Server) newStem(base string) string {
	for try := 0; ; try++ {
		stem := base + "-" + s.ids.Next(max(vary.Choose(s.cfg.Vary, "short-ids", 4, 6), try))
		if exists, _ := afero.Exists(s.cfg.Fs, InstancePath(stem)); !s.connected(stem) && !exists {
			return stem
		}
	}
}

// attachLocked connects the instance stem to its log p and lists it. The
// watcher reads what the log holds already (a log that exists after a
// restart) at its next poll.
func (s *Server) attachLocked(base, stem, name, url, lang, p string) Registration {
	in := &Instance{Name: name, Base: base, Stem: stem, URL: url, Lang: cmp.Or(lang, "JS"), Path: p,
		token:    s.ids.Next(8) + s.ids.Next(8) + s.ids.Next(8) + s.ids.Next(8),
		LastBeat: s.cfg.Clock.Now(), State: StateIdle,
		wake: make(chan struct{})}
	s.instances = append(s.instances, in)
	s.byToken[in.token] = in
	s.writeRegistry()
	return Registration{ID: stem, Token: in.token, Path: p}
}

// stemRE is a stem a page may ask for: what Sanitize gives, a short id
// included, so that it never leads outside debug/.
const stemRE = `^[a-z0-9]+(-[a-z0-9]+)*$`

// Rejoin connects a realm instance named name (a page title) at url
// running lang. A page registered as id before (it keeps the id, the
// server forgot it in a restart) gets it back, log and all, when no
// instance is connected under id and its log exists; otherwise, and when
// id is empty, it is registered afresh and its log created under debug/
// (§chatlog-instance-dir, §chatlog-filename-pattern, §chatlog-short-id).
func (s *Server) Rejoin(id, name, url, lang string) (Registration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.logPath(id)
	connected := s.connected(id)
	exists, _ := afero.Exists(s.cfg.Fs, p)
	switch {
	case id == "":
	case connected || !exists || !regexp.MustCompile(stemRE).MatchString(id):
		s.logf("%q cannot rejoin as %s (connected: %v, log %s exists: %v); registering it afresh", name, id, connected, p, exists)
	default:
		s.logf("%s rejoined after a server restart, keeping %s", id, p)
		return s.attachLocked(BaseName(id), id, name, url, lang, p), nil
	}
	return s.registerLocked(name, url, lang)
}

func (s *Server) verify(id, token string) (*Instance, error) {
	in, ok := s.byToken[token]
	if ok && in.Stem == id {
		return in, nil
	}
	if !s.refused[id] {
		s.refused[id] = true
		s.logf("refused a call for %s: %s", id, refusal(s.connected(id), id))
	}
	return nil, ErrUnknownInstance
}

// refusal says why a call for id was refused: a wrong token for an
// instance the server knows, else an instance it does not know.
func refusal(known bool, id string) string {
	if known {
		return "wrong token"
	}
	return "no such instance since the server started; the page must register again (it may rejoin as " + id + ")"
}

// Heartbeat refreshes an instance's last-seen time (§chatlog-registry-heartbeat).
func (s *Server) Heartbeat(id, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.verify(id, token)
	if err != nil {
		return err
	}
	in.LastBeat = s.cfg.Clock.Now()
	s.writeRegistry()
	return nil
}

func (s *Server) wakeLocked(in *Instance) {
	close(in.wake)
	in.wake = make(chan struct{})
}

// Poll hands the instance its next job (§chatlog-verified-realm: only a
// registered instance with its token gets code, and only the code of its
// own log). When none is ready it returns a nil Task and a channel that is
// closed when one may be: long-poll transports wait on it. A poll counts
// as a heartbeat.
func (s *Server) Poll(id, token string) (*Task, <-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.verify(id, token)
	if err != nil {
		return nil, nil, err
	}
	in.LastBeat = s.cfg.Clock.Now()
	if len(in.queue) == 0 || in.queue[0].State != Requested {
		return nil, in.wake, nil // nothing waits, or the page runs the first job
	}
	j := in.queue[0]
	placeholder := vary.Choose(s.cfg.Vary, "no-placeholder", s.format().Placeholder(in.Stem, j.Agent, Clock(s.cfg.Clock.Now())), "")
	if err := s.appendLocked(in, "job "+j.ID+" not dispatched, its placeholder", placeholder); err != nil {
		return nil, in.wake, nil
	}
	j.to(Dispatched)
	in.State, in.Note = StateExecuting, ""
	s.noteRecent(j)
	s.writeRegistry()
	return &Task{JobID: j.ID, Instance: in.Stem, Agent: j.Agent, Page: j.Page, At: j.At, Lang: j.Lang, Code: j.Code, job: j}, nil, nil
}

// Received records that the page has the task's code now: startedAt is the
// moment the transport finished delivering it (§chatlog-job-times). A job
// that timed out while its code was on the way is still run by the page,
// and its late result is measured from this moment too.
func (s *Server) Received(t *Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.job.FinishedAt.IsZero() {
		t.job.StartedAt = s.cfg.Clock.Now()
	}
}

// Result records the outcome of a job and appends its reply
// (§chatlog-reply-header, §chatlog-result-fences, §chatlog-late-result).
func (s *Server) Result(id, token, jobID string, o Outcome) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.verify(id, token)
	if err != nil {
		return err
	}
	in.LastBeat = s.cfg.Clock.Now()
	j, ok := s.jobs[jobID]
	if !ok || j.Instance != id || !j.given() {
		// Only the page that was handed the job can answer it; a job no
		// page took (even one that timed out) has no result to take.
		return ErrUnknownJob
	}
	now := s.cfg.Clock.Now()
	switch {
	case j.State == Orphaned:
		s.logf("job %s: result dropped, its request is gone from %s", j.ID, in.Path)
		return nil
	case j.State == Dispatched:
		j.FinishedAt, j.Outcome = now, &o
		state, shown := ending(o)
		j.to(state)
		in.remove(j)
		in.State, in.Note = shown, ""
		_ = s.appendLocked(in, "job "+j.ID+": reply", s.format().Reply(in.Stem, j.Agent, Clock(now), j.Duration().Milliseconds(), o))
	case j.State == TimedOut && !j.Late:
		j.FinishedAt, j.Outcome, j.Late = now, &o, true
		in.Note = "late"
		s.logf("job %s: late result after %s", j.ID, FormatMillis(j.Duration().Milliseconds()))
		_ = s.appendLocked(in, "job "+j.ID+": late reply", s.format().Reply(in.Stem, j.Agent, Clock(now), j.Duration().Milliseconds(), o, "late"))
	default:
		return fmt.Errorf("chatlog: job %s is %s, not expecting a result", j.ID, j.State)
	}
	s.changedLocked(in, j)
	return nil
}

// ending is the state a job ends in with outcome o, and the state its
// instance then shows (§chatlog-job-states, §chatlog-registry-states).
func ending(o Outcome) (JobState, string) {
	if o.OK {
		return Completed, StateCompleted
	}
	return Failed, StateFailed
}

// changedLocked tells what follows from a change of job j: it moves to
// the end of the recent jobs, the registry is written again and a long
// poll of its page wakes up.
func (s *Server) changedLocked(in *Instance, j *Job) {
	s.noteRecent(j)
	s.writeRegistry()
	s.wakeLocked(in)
}

// armTimeout times job j out after the timeout, unless it is over by then
// (§chatlog-timeout).
func (s *Server) armTimeout(in *Instance, j *Job) {
	s.cfg.Clock.AfterFunc(s.timeout, func() { s.expire(in, j) })
}

// expire times job j out. The reference's timeout runs from the request;
// with the variation "timeout-from-dispatch" it runs from the moment the
// page received the job, and a job no page took waits.
func (s *Server) expire(in *Instance, j *Job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || j.State.Final() {
		return
	}
	if wait := vary.Choose(s.cfg.Vary, "timeout-from-dispatch", noWait, s.untilTimeout)(j); wait > 0 {
		s.cfg.Clock.AfterFunc(wait, func() { s.expire(in, j) })
		return
	}
	d := FormatMillis(s.timeout.Milliseconds())
	why, note := s.timeoutWords(j, d)
	j.to(TimedOut)
	in.remove(j)
	in.State, in.Note = StateFailed, fmt.Sprintf("after %dms (timeout)", s.timeout.Milliseconds())
	s.logf("%s", note)
	_ = s.appendLocked(in, "job "+j.ID+": timeout entry", s.format().Reply(in.Stem, j.Agent, Clock(s.cfg.Clock.Now()), s.timeout.Milliseconds(), Outcome{Stack: why}, "timeout"))
	s.changedLocked(in, j)
}

// timeoutWords are the Error text of job j's timeout entry and the
// console's note, by the state the job timed out in; d is the timeout.
func (s *Server) timeoutWords(j *Job, d string) (entry, note string) {
	switch j.State {
	case Requested:
		return s.words("timeout: no realm took this job within "+d, "Timed out: no page asked for this job within "+d+" (timeout)"),
			"job " + j.ID + " timed out after " + d + " without being dispatched: no realm took it"
	}
	return s.words("timeout: no result after "+d, "Timed out: the page sent nothing back within "+d+" (timeout)"),
		"job " + j.ID + " timed out after " + d
}

// noWait is the reference's wait before a job times out once its timeout
// is over: none.
func noWait(*Job) time.Duration { return 0 }

// untilTimeout is how long job j still has with the variation
// "timeout-from-dispatch": the timeout from the moment its page received
// it, or the whole timeout again while no page has it.
func (s *Server) untilTimeout(j *Job) time.Duration {
	if j.StartedAt.IsZero() {
		return s.timeout
	}
	return j.StartedAt.Add(s.timeout).Sub(s.cfg.Clock.Now())
}

// Jobs returns the jobs of an instance ("" for all) in creation order.
func (s *Server) Jobs(stem string) []Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Job
	for _, j := range s.all {
		if stem == "" || j.Instance == stem {
			out = append(out, *j) // History only grows: the copy's stays as it is
		}
	}
	return out
}

// connected reports whether an instance is connected as stem.
func (s *Server) connected(stem string) bool {
	return slices.ContainsFunc(s.instances, func(in *Instance) bool { return in.Stem == stem })
}

// remove takes j out of the instance's queue.
func (in *Instance) remove(j *Job) {
	in.queue = slices.DeleteFunc(in.queue, func(q *Job) bool { return q == j })
}

func (s *Server) noteRecent(j *Job) {
	s.recent = append(slices.DeleteFunc(s.recent, func(r *Job) bool { return r == j }), j)
	s.recent = s.recent[max(len(s.recent)-s.lim.recentJobs, 0):]
}

func (s *Server) scanLocked() {
	for _, in := range s.instances {
		s.pollLocked(in)
	}
	s.pollUnattachedLocked()
}

// pollUnattachedLocked tells on the console when a log that no realm has
// claimed since the start changes: an agent writing to it would otherwise
// wait in silence, since its requests run only once its page is back.
func (s *Server) pollUnattachedLocked() {
	for i := range s.unattached {
		u := &s.unattached[i]
		claimed := slices.ContainsFunc(s.instances, func(in *Instance) bool { return in.Path == u.path })
		if _, mod := s.stat(u.path); !claimed && !mod.Equal(u.mod) {
			u.mod = mod
			s.logf("%s changed, but no realm is attached to it since the server started: its requests are ignored until its page registers again", u.path)
		}
	}
}

// pollLocked compares a log's size, mtime and end hash with what was seen
// last and arms the debounce timer when they differ (§chatlog-debounce).
// A log that cannot be read is left alone until it can be read again.
func (s *Server) pollLocked(in *Instance) {
	fi, err := s.cfg.Fs.Stat(in.Path)
	if err != nil {
		return
	}
	size, mod := fi.Size(), fi.ModTime()
	sum := s.hashRange(in.Path, size-sigWindow, size)
	if size == in.watch.size && mod.Equal(in.watch.mod) && sum == in.watch.sum {
		return
	}
	in.watch.size, in.watch.mod, in.watch.sum = size, mod, sum
	if in.watch.debounce != nil {
		in.watch.debounce.Stop()
	}
	in.watch.debounce = s.cfg.Clock.AfterFunc(debounce, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.stopped {
			s.parseLocked(in)
		}
	})
}

func (s *Server) hashRange(p string, from, to int64) [32]byte {
	b, err := s.readRange(p, from, to)
	if err != nil {
		return [32]byte{}
	}
	return sha256.Sum256(b)
}

func (s *Server) readRange(p string, from, to int64) ([]byte, error) {
	from = max(from, 0)
	f, err := s.cfg.Fs.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, to-from)
	n, err := f.ReadAt(b, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return b[:n], fmt.Errorf("read %s at %d: %w", p, from, err)
	}
	return b[:n], nil
}

// parseLocked reads the new part of a log, or its tail when the log is new
// to the server or was rewritten, and turns requests into jobs.
func (s *Server) parseLocked(in *Instance) {
	fi, err := s.cfg.Fs.Stat(in.Path)
	if err != nil {
		s.logf("%s: %v", in.Path, err)
		return
	}
	w := &in.watch
	switch {
	case !w.warm:
		// The log is new to the server (a restart): its tail is read.
		s.coldParseLocked(in, fi)
	case fi.Size() < w.cp || s.hashRange(in.Path, w.cp-guardLen, w.cp) != w.guard:
		s.logf("%s was rewritten; reparsing its tail", in.Path)
		s.coldParseLocked(in, fi)
	default:
		s.warmParseLocked(in, fi)
	}
}

// readLocked parses the log from offset from to its end, from the first
// entry there when tail (a cold read, §chatlog-tail-only), tells its
// ambiguities on the console and resumes the next read where the settled
// part of this one ends. A read that fails is told on the console and
// gives no log (ok false): the log is read again at its next change.
func (s *Server) readLocked(in *Instance, from, size int64, tail bool) (Log, bool) {
	data, err := s.readRange(in.Path, from, size)
	if err != nil {
		s.logf("%v", err)
		return Log{}, false
	}
	start := TailStart(data, !tail || from == 0)
	lg := ParseAt(data[start:], from+int64(start))
	for _, a := range lg.Ambiguous {
		s.logf("%s: ambiguous pairing: %s", in.Path, a)
	}
	in.watch.cp, in.watch.guard, in.watch.warm, in.watch.known, in.watch.own = lg.Resume, s.hashRange(in.Path, lg.Resume-guardLen, lg.Resume), true, closedAt(lg), nil
	return lg, true
}

// closedAt lists where the closed requests of lg begin.
func closedAt(lg Log) []int64 {
	var out []int64
	for _, r := range lg.Requests {
		if r.Closed {
			out = append(out, r.Offset)
		}
	}
	return out
}

// warmParseLocked reads what was appended to a log since the last read.
func (s *Server) warmParseLocked(in *Instance, fi os.FileInfo) {
	own, known := in.watch.own, in.watch.known
	lg, ok := s.readLocked(in, in.watch.cp, fi.Size(), false)
	if !ok {
		return
	}
	// What was appended pairs as the seed says, by agent and timestamp
	// (§chatlog-reply-pairing): a reply an agent wrote answers the closest
	// earlier request of its agent. A read starts where the last one
	// settled; a closed request it reads again (its closing line had no
	// line break yet) had its job then, so no request becomes a job twice
	// (§chatlog-request-job). The server's own entries answer the earlier
	// jobs they were written for: a request appended since the last read,
	// just before one of them, still waits for its job, whatever its time.
	answered := lg.AnsweredBesides(own)
	for i, r := range lg.Requests {
		if r.Closed && !answered[i] && !slices.Contains(known, r.Offset) {
			s.newJobLocked(in, r, fi.ModTime())
		}
	}
}

// requestKey identifies a request across a rewrite, where offsets move; at
// is the time its header carries, "" for none (a rewrite changes the
// mtime that stands in for it).
func requestKey(agent, at, lang, code string) string {
	return agent + "\x00" + at + "\x00" + lang + "\x00" + code
}

// coldParseLocked reads only the last tailChunk bytes of a log, resyncing on
// the first entry found there (§chatlog-tail-only): when the server first
// sees a log (a restart) and after a rewrite. A job still waiting or
// running whose request is no longer in the chunk is orphaned
// (§chatlog-rewrite-orphan). Entries appended here (interrupted replies)
// change the log, so the watcher reads them at its next poll.
func (s *Server) coldParseLocked(in *Instance, fi os.FileInfo) {
	lg, ok := s.readLocked(in, max(fi.Size()-tailChunk, 0), fi.Size(), true)
	if !ok {
		return
	}
	// The jobs still in the queue, by request key, in file order.
	live := map[string][]*Job{}
	for _, j := range in.queue {
		k := requestKey(j.Agent, j.requestAt(), j.Lang, j.Code)
		live[k] = append(live[k], j)
	}
	answered, executing := lg.Answered(), lg.Executing()
	for i, r := range lg.Requests {
		k := requestKey(r.Agent, r.At, r.Lang, r.Code)
		switch q := live[k]; {
		case !r.Closed, answered[i] && len(q) == 0:
		case len(q) > 0:
			live[k] = q[1:]
		case executing[i]:
			// Dispatched before a restart and never answered: running it
			// again could repeat its effects, so it is closed instead.
			s.logf("%s: the request of %s at %s was executing when the server stopped; not run again", in.Path, r.Agent, r.At)
			o := Outcome{Stack: s.words("interrupted: the server restarted while this request was executing; it was not run again",
				"Not run again: this request was running when the server stopped.")}
			_ = s.appendLocked(in, in.Path+": the interrupted entry",
				s.format().Reply(in.Stem, r.Agent, Clock(s.cfg.Clock.Now()), -1, o, "interrupted"))
		default:
			s.newJobLocked(in, r, fi.ModTime())
		}
	}
	for _, q := range live {
		for _, j := range q {
			s.orphanLocked(in, j)
		}
	}
}

func (s *Server) orphanLocked(in *Instance, j *Job) {
	j.to(Orphaned)
	in.remove(j)
	s.logf("job %s orphaned: its request (%s at %s) is gone from %s after a rewrite", j.ID, j.Agent, j.At, in.Path)
	s.changedLocked(in, j)
}

func (s *Server) newJobLocked(in *Instance, r Request, mtime time.Time) {
	s.seq++
	j := &Job{ID: fmt.Sprintf("%s#%d", in.Stem, s.seq), Seq: s.seq, Instance: in.Stem, Agent: r.Agent,
		Page: r.Page, At: cmp.Or(r.At, Clock(mtime)), untimed: r.At == "",
		Lang: r.Lang, Code: r.Code,
		State: Requested, History: []JobState{Requested}, RequestedAt: s.cfg.Clock.Now()}
	s.jobs[j.ID] = j
	s.all = append(s.all, j)
	if !SameLanguage(r.Lang, in.Lang) {
		// Not this realm's language (§chatlog-adapter-language), or no
		// language at all (§chatlog-request-header): refused, never
		// dispatched, and the agent is told why.
		why := s.words(fmt.Sprintf("refused: the fence names %s; this realm evaluates %s (open the fence with ```%s)", cmp.Or(r.Lang, "no language"), in.Lang, in.Lang),
			fmt.Sprintf("Not run: tag the fence with the realm's language, %s, not %s.", in.Lang, cmp.Or(r.Lang, "none")))
		s.logf("job %s not run: %s", j.ID, why)
		j.to(Orphaned)
		_ = s.appendLocked(in, "job "+j.ID+": refusal", s.format().Reply(in.Stem, r.Agent, Clock(s.cfg.Clock.Now()), -1, Outcome{Stack: why}))
		return
	}
	in.queue = append(in.queue, j)
	// The job's timeout runs from its request, dispatched or not
	// (§chatlog-timeout): a job no page ever takes times out too.
	s.armTimeout(in, j)
	s.logf("job %s requested by %s at %s (%s)", j.ID, j.Agent, j.At, in.Path)
	s.changedLocked(in, j)
}

// words is the reference's text, or the other when the variation
// "refusals" rewords the server's own Error texts.
func (s *Server) words(reference, varied string) string {
	return vary.Choose(s.cfg.Vary, "refusals", reference, varied)
}

// SameLanguage compares fence tags loosely: case-insensitive, with js,
// javascript, mjs, ecmascript and node standing for one language.
func SameLanguage(a, b string) bool {
	norm := func(s string) string {
		s = strings.ToLower(s)
		switch s {
		case "javascript", "mjs", "ecmascript", "node":
			return "js"
		}
		return s
	}
	return norm(a) == norm(b)
}
