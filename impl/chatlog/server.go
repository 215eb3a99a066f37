package chatlog

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"anchorage/impl/chatlog/logparse"
	"anchorage/impl/vary"
	"anchorage/sim/clock"

	"github.com/spf13/afero"
)

// Config holds the server's collaborators and tunables. Zero values take the
// defaults noted on each field.
type Config struct {
	Fs      afero.Fs    // the workspace root (required)
	Clock   clock.Clock // time source (required)
	Console io.Writer   // server console; nil discards
	Seed    uint64      // seeds the short-id generator

	Timeout       time.Duration // job timeout, 60 s (§chatlog-timeout)
	Debounce      time.Duration // quiet time before a changed log is parsed, 150 ms (§chatlog-debounce)
	PollInterval  time.Duration // how often logs are stat'ed, 50 ms
	TailChunk     int64         // bytes read from the end of a log nobody has parsed yet, 64 KiB (§chatlog-tail-only)
	MaxInFlight   int           // dispatched jobs per instance at once, 1 (§chatlog-instance-order)
	RecentJobs    int           // jobs listed in the registry, 30 (§chatlog-registry-bounded)
	MaxListed     int           // instances listed in the registry, 60
	MaxName       int           // characters of a sanitized name, 48 (§chatlog-sanitize)
	NoPlaceholder bool          // do not append "executing ..." on dispatch
	// Vary makes, where the seed leaves a choice open, another choice than
	// the reference's (Variations); the zero Set is the reference.
	Vary vary.Set
	// SingleFile makes debug.md the log of the only instance
	// (§chatlog-single-file-compat); no registry is written then.
	SingleFile bool
}

func (c *Config) defaults() {
	if c.Console == nil {
		c.Console = io.Discard
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	if c.Debounce <= 0 {
		c.Debounce = 150 * time.Millisecond
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 50 * time.Millisecond
	}
	if c.TailChunk <= 0 {
		c.TailChunk = 64 << 10
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 1
	}
	limits := c.Vary.Has("limits")
	if c.RecentJobs <= 0 {
		c.RecentJobs = pick(limits, 10, 30)
	}
	if c.MaxListed <= 0 {
		c.MaxListed = pick(limits, 80, 60)
	}
	if c.MaxName <= 0 {
		c.MaxName = pick(limits, 32, maxNameLen)
	}
	if c.Vary.Has("no-placeholder") {
		c.NoPlaceholder = true
	}
}

// pick is varied when the variation is in force, else the reference's.
func pick(on bool, varied, reference int) int {
	if on {
		return varied
	}
	return reference
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

	queue    []*Job
	inFlight map[string]*Job
	byOffset map[int64]*Job
	watch    watch
	wake     chan struct{}
	order    int
}

// watch is the polling watcher's knowledge of one log.
type watch struct {
	size     int64
	mod      time.Time
	sum      [32]byte
	warm     bool // cp is valid
	cp       Pos  // parse resumes here
	guard    [32]byte
	guardLen int64
	debounce clock.Timer
	changed  bool
}

// Server is the file harness: registry writer, log watcher, job queue.
type Server struct {
	cfg Config
	ids *IDSource

	mu        sync.Mutex
	instances map[string]*Instance
	byToken   map[string]*Instance
	jobs      map[string]*Job
	recent    []*Job
	seq       int
	order     int
	ticker    clock.Timer
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
func New(cfg Config) (*Server, error) {
	if cfg.Fs == nil || cfg.Clock == nil {
		return nil, errors.New("chatlog: Config needs Fs and Clock")
	}
	cfg.defaults()
	s := &Server{cfg: cfg, ids: NewIDSource(cfg.Seed),
		instances: map[string]*Instance{}, byToken: map[string]*Instance{}, jobs: map[string]*Job{}}
	return s, nil
}

// Config returns the configuration in force (defaults filled in).
func (s *Server) Config() Config { return s.cfg }

func (s *Server) logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if s.cfg.Vary.Has("console") {
		fmt.Fprintf(s.cfg.Console, "[CHATLOG %s] %s\n", Clock(s.cfg.Clock.Now()), strings.ToUpper(msg))
		return
	}
	fmt.Fprintf(s.cfg.Console, "%s chatlog: %s\n", Clock(s.cfg.Clock.Now()), msg)
}

// format renders log entries with the variations in force.
func (s *Server) format() Format { return Format{Vary: s.cfg.Vary} }

// Start writes the registry and starts polling the logs on the clock.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.cfg.Fs.MkdirAll(InstanceDir, 0o755); err != nil && !s.cfg.SingleFile {
		return fmt.Errorf("chatlog: create %s: %w", InstanceDir, err)
	}
	s.writeRegistry()
	if !s.cfg.SingleFile {
		// Logs left by an earlier run have no realm until their pages
		// register again; say so rather than ignore them silently.
		if names, err := afero.Glob(s.cfg.Fs, InstanceDir+"/*.md"); err == nil {
			sort.Strings(names)
			for _, p := range names {
				s.logf("%s: not watched until its page registers again (no realm is attached to it since the server started)", p)
				if fi, err := s.cfg.Fs.Stat(p); err == nil {
					s.unattached = append(s.unattached, unattachedLog{p, fi.ModTime()})
				}
			}
		}
	}
	s.ticker = s.cfg.Clock.AfterFunc(s.cfg.PollInterval, s.tick)
	return nil
}

// Stop stops the watcher and every timer; the server does nothing more.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	if s.ticker != nil {
		s.ticker.Stop()
	}
	for _, in := range s.instances {
		if in.watch.debounce != nil {
			in.watch.debounce.Stop()
		}
	}
}

func (s *Server) tick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.scanLocked()
	s.ticker = s.cfg.Clock.AfterFunc(s.cfg.PollInterval, s.tick)
}

// Registration is what a realm instance gets back from Register.
type Registration struct {
	ID    string `json:"id"` // the instance stem
	Token string `json:"token"`
	Path  string `json:"path"`
}

// Register connects a realm instance named name (a page title) at url
// running lang, creating its log under debug/ (§chatlog-instance-dir,
// §chatlog-filename-pattern, §chatlog-short-id).
func (s *Server) Register(name, url, lang string) (Registration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lang == "" {
		lang = "JS"
	}
	base := SanitizeWith(name, s.cfg.Vary.Has("transliterate"), s.cfg.MaxName)
	var stem string
	for try := 0; ; try++ {
		n := pick(s.cfg.Vary.Has("short-ids"), 6, 4)
		if try >= 8 {
			n = 8
		}
		stem = base + "-" + s.ids.Next(n)
		if _, dup := s.instances[stem]; dup {
			continue
		}
		if ok, _ := afero.Exists(s.cfg.Fs, InstancePath(stem)); ok && try < 64 {
			continue
		}
		break
	}
	p := InstancePath(stem)
	if s.cfg.SingleFile {
		if len(s.instances) > 0 {
			return Registration{}, errors.New("chatlog: single-file mode serves one instance")
		}
		p = RegistryFile
	} else if err := s.cfg.Fs.MkdirAll(InstanceDir, 0o755); err != nil {
		return Registration{}, fmt.Errorf("chatlog: create %s: %w", InstanceDir, err)
	}
	f, err := s.cfg.Fs.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return Registration{}, fmt.Errorf("chatlog: create log %s: %w", p, err)
	}
	f.Close()
	s.order++
	in := &Instance{Name: name, Base: base, Stem: stem, URL: url, Lang: lang, Path: p,
		token:    s.ids.Next(8) + s.ids.Next(8) + s.ids.Next(8) + s.ids.Next(8),
		LastBeat: s.cfg.Clock.Now(), State: StateIdle, inFlight: map[string]*Job{},
		byOffset: map[int64]*Job{}, wake: make(chan struct{}), order: s.order}
	s.instances[stem] = in
	s.byToken[in.token] = in
	s.logf("registered %q as %s (%s)", name, stem, p)
	s.parseLocked(in) // a log that already exists (restart) is read at once
	s.writeRegistry()
	return Registration{ID: stem, Token: in.token, Path: p}, nil
}

// Adopt re-attaches an existing log (after a server restart) to a realm that
// registers again under the same stem. It behaves like Register otherwise.
func (s *Server) Adopt(stem, name, url, lang string) (Registration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.instances[stem]; dup || SanitizeWith(stem, false, len(stem)) != stem {
		return Registration{}, fmt.Errorf("chatlog: cannot adopt %q", stem)
	}
	if lang == "" {
		lang = "JS"
	}
	p := InstancePath(stem)
	if s.cfg.SingleFile {
		p = RegistryFile
	}
	if ok, _ := afero.Exists(s.cfg.Fs, p); !ok {
		return Registration{}, fmt.Errorf("chatlog: adopt %s: no log at %s", stem, p)
	}
	s.order++
	in := &Instance{Name: name, Base: BaseName(stem), Stem: stem, URL: url, Lang: lang, Path: p,
		token:    s.ids.Next(8) + s.ids.Next(8) + s.ids.Next(8) + s.ids.Next(8),
		LastBeat: s.cfg.Clock.Now(), State: StateIdle, inFlight: map[string]*Job{},
		byOffset: map[int64]*Job{}, wake: make(chan struct{}), order: s.order}
	s.instances[stem] = in
	s.byToken[in.token] = in
	s.logf("adopted %s (%s)", stem, p)
	s.parseLocked(in)
	s.writeRegistry()
	return Registration{ID: stem, Token: in.token, Path: p}, nil
}

// Rejoin connects a realm that was registered as id before (its page
// keeps the id, the server forgot it in a restart): when no instance is
// connected under id and its log exists, the page gets it back, log and
// all, like Adopt; otherwise it registers afresh like Register.
func (s *Server) Rejoin(id, name, url, lang string) (Registration, error) {
	if id != "" {
		reg, err := s.Adopt(id, name, url, lang)
		if err == nil {
			s.mu.Lock()
			s.logf("%s rejoined after a server restart, keeping %s", id, reg.Path)
			s.mu.Unlock()
			return reg, nil
		}
		s.mu.Lock()
		s.logf("%q cannot rejoin as %s (%v); registering it afresh", name, id, err)
		s.mu.Unlock()
	}
	return s.Register(name, url, lang)
}

func (s *Server) verify(id, token string) (*Instance, error) {
	in, ok := s.byToken[token]
	if !ok || in.Stem != id {
		if s.refused == nil {
			s.refused = map[string]bool{}
		}
		if !s.refused[id] {
			s.refused[id] = true
			if _, known := s.instances[id]; known {
				s.logf("refused a call for %s: wrong token", id)
			} else {
				s.logf("refused a call for %s: no such instance since the server started; the page must register again (it may rejoin as %s)", id, id)
			}
		}
		return nil, ErrUnknownInstance
	}
	return in, nil
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

// Wake returns a channel closed when the instance may have a job to take;
// long-poll transports wait on it.
func (s *Server) Wake(id, token string) (<-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.verify(id, token)
	if err != nil {
		return nil, err
	}
	return in.wake, nil
}

func (s *Server) wakeLocked(in *Instance) {
	close(in.wake)
	in.wake = make(chan struct{})
}

// Poll hands the instance its next job, or nil when none is ready
// (§chatlog-verified-realm: only a registered instance with its token gets
// code, and only the code of its own log). It counts as a heartbeat.
func (s *Server) Poll(id, token string) (*Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.verify(id, token)
	if err != nil {
		return nil, err
	}
	in.LastBeat = s.cfg.Clock.Now()
	if len(in.queue) == 0 || len(in.inFlight) >= s.cfg.MaxInFlight {
		return nil, nil
	}
	j := in.queue[0]
	if !s.cfg.NoPlaceholder {
		if err := s.appendLocked(in, s.format().Placeholder(j.Page, j.Agent, Clock(s.cfg.Clock.Now()))); err != nil {
			s.logf("job %s not dispatched: %v", j.ID, err)
			return nil, nil
		}
	}
	in.queue = in.queue[1:]
	if err := j.to(Dispatched); err != nil {
		return nil, err
	}
	j.StartedAt = s.cfg.Clock.Now()
	if s.cfg.Vary.Has("timeout-from-dispatch") {
		s.armTimeout(in, j)
	}
	in.inFlight[j.ID] = j
	in.State, in.Note = StateExecuting, ""
	s.noteRecent(j)
	s.writeRegistry()
	return &Task{JobID: j.ID, Instance: in.Stem, Agent: j.Agent, Page: j.Page, At: j.At, Lang: j.Lang, Code: j.Code}, nil
}

// Received records that the page has the job's code now: startedAt is the
// moment the transport finished delivering it (§chatlog-job-times). Poll
// already set a provisional startedAt; this moves it forward.
func (s *Server) Received(id, token, jobID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.verify(id, token); err != nil {
		return err
	}
	j, ok := s.jobs[jobID]
	if !ok || j.Instance != id || !j.given() {
		return ErrUnknownJob
	}
	// Until the page answers, this is when it has the code; a job that
	// timed out while its code was on the way is still run by the page,
	// and its late result is measured from this moment too.
	if j.FinishedAt.IsZero() {
		if now := s.cfg.Clock.Now(); now.After(j.StartedAt) {
			j.StartedAt = now
		}
	}
	return nil
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
	switch j.State {
	case Dispatched:
		j.FinishedAt = now
		j.Outcome = &o
		next := Completed
		if !o.OK {
			next = Failed
		}
		if err := j.to(next); err != nil {
			return err
		}
		delete(in.inFlight, j.ID)
		in.State, in.Note = StateCompleted, ""
		if !o.OK {
			in.State = StateFailed
		}
		if err := s.appendLocked(in, s.format().Reply(j.Page, j.Agent, Clock(now), j.Duration().Milliseconds(), o)); err != nil {
			s.logf("job %s: reply not written: %v", j.ID, err)
		}
	case TimedOut:
		if j.Late {
			return fmt.Errorf("chatlog: job %s already has its late result", j.ID)
		}
		j.FinishedAt = now
		j.Outcome = &o
		j.Late = true
		in.Note = "late"
		s.logf("job %s: late result after %s", j.ID, FormatDuration(j.Duration()))
		if err := s.appendLocked(in, s.format().Reply(j.Page, j.Agent, Clock(now), j.Duration().Milliseconds(), o, "late")); err != nil {
			s.logf("job %s: late reply not written: %v", j.ID, err)
		}
	case Orphaned:
		s.logf("job %s: result dropped, its request is gone from %s", j.ID, in.Path)
		return nil
	default:
		return fmt.Errorf("chatlog: job %s is %s, not expecting a result", j.ID, j.State)
	}
	s.noteRecent(j)
	s.writeRegistry()
	s.wakeLocked(in)
	return nil
}

func (s *Server) timeout(stem, jobID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	in, j := s.instances[stem], s.jobs[jobID]
	if in == nil || j == nil || (j.State != Dispatched && j.State != Requested) {
		return
	}
	taken := j.State == Dispatched
	if err := j.to(TimedOut); err != nil {
		s.logf("%v", err)
		return
	}
	ms := s.cfg.Timeout.Milliseconds()
	in.State, in.Note = StateFailed, fmt.Sprintf("after %dms (timeout)", ms)
	o := Outcome{Stack: s.words(fmt.Sprintf("timeout: no result after %s", FormatMillis(ms)),
		fmt.Sprintf("Timed out: the page sent nothing back within %s (timeout)", FormatMillis(ms)))}
	if taken {
		delete(in.inFlight, j.ID)
		s.logf("job %s timed out after %s", j.ID, FormatMillis(ms))
	} else {
		for i, q := range in.queue {
			if q == j {
				in.queue = append(in.queue[:i], in.queue[i+1:]...)
				break
			}
		}
		s.logf("job %s timed out after %s without being dispatched: no realm took it", j.ID, FormatMillis(ms))
		o.Stack = s.words(fmt.Sprintf("timeout: no realm took this job within %s", FormatMillis(ms)),
			fmt.Sprintf("Timed out: no page asked for this job within %s (timeout)", FormatMillis(ms)))
	}
	if err := s.appendLocked(in, s.format().Reply(j.Page, j.Agent, Clock(s.cfg.Clock.Now()), ms, o, "timeout")); err != nil {
		s.logf("job %s: timeout entry not written: %v", j.ID, err)
	}
	s.noteRecent(j)
	s.writeRegistry()
	s.wakeLocked(in)
}

// Jobs returns the jobs of an instance ("" for all) in creation order.
func (s *Server) Jobs(stem string) []Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Job
	for _, j := range s.jobs {
		if stem == "" || j.Instance == stem {
			c := *j
			c.History = append([]JobState(nil), j.History...)
			out = append(out, c)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Seq < out[b].Seq })
	return out
}

// Instances returns a snapshot of the connected instances in registration order.
func (s *Server) Instances() []Instance {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Instance
	for _, in := range s.sortedInstances() {
		c := *in
		c.queue, c.inFlight, c.byOffset, c.wake = nil, nil, nil, nil
		c.watch = watch{}
		out = append(out, c)
	}
	return out
}

func (s *Server) sortedInstances() []*Instance {
	var ins []*Instance
	for _, in := range s.instances {
		ins = append(ins, in)
	}
	sort.Slice(ins, func(a, b int) bool { return ins[a].order < ins[b].order })
	return ins
}

func (s *Server) noteRecent(j *Job) {
	for i, r := range s.recent {
		if r == j {
			s.recent = append(s.recent[:i], s.recent[i+1:]...)
			break
		}
	}
	s.recent = append(s.recent, j)
	if len(s.recent) > s.cfg.RecentJobs {
		s.recent = s.recent[len(s.recent)-s.cfg.RecentJobs:]
	}
}

// Scan polls every log once (the watcher does this every PollInterval).
func (s *Server) Scan() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scanLocked()
}

func (s *Server) scanLocked() {
	for _, in := range s.sortedInstances() {
		s.pollLocked(in)
	}
	s.pollUnattachedLocked()
}

// pollUnattachedLocked tells on the console when a log that no realm has
// claimed since the start changes: an agent writing to it would otherwise
// wait in silence, since its requests run only once its page is back.
func (s *Server) pollUnattachedLocked() {
	claimed := map[string]bool{}
	for _, in := range s.instances {
		claimed[in.Path] = true
	}
	for i := range s.unattached {
		u := &s.unattached[i]
		if claimed[u.path] {
			continue
		}
		fi, err := s.cfg.Fs.Stat(u.path)
		if err != nil || fi.ModTime().Equal(u.mod) {
			continue
		}
		u.mod = fi.ModTime()
		s.logf("%s changed, but no realm is attached to it since the server started: its requests are ignored until its page registers again", u.path)
	}
}

// sigWindow is how much of a log's end the watcher hashes on each poll: a
// write that keeps the size and the mtime still changes this hash.
const sigWindow = 4096

// pollLocked compares a log's size, mtime and end hash with what was seen
// last and arms the debounce timer when they differ (§chatlog-debounce).
func (s *Server) pollLocked(in *Instance) {
	fi, err := s.cfg.Fs.Stat(in.Path)
	if err != nil {
		if in.watch.size != -1 {
			s.logf("%s: %v", in.Path, err)
			in.watch.size, in.watch.warm = -1, false
		}
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
	stem := in.Stem
	in.watch.debounce = s.cfg.Clock.AfterFunc(s.cfg.Debounce, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.stopped {
			return
		}
		if in, ok := s.instances[stem]; ok {
			in.watch.debounce = nil
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
	if to <= from {
		return nil, nil
	}
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

// guardLen is how many bytes before the resume point are hashed to notice a
// rewrite of the part of the log already parsed.
const guardLen = 1024

// ParseNow parses an instance's log at once, skipping the debounce (tests).
func (s *Server) ParseNow(stem string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in, ok := s.instances[stem]; ok {
		s.parseLocked(in)
	}
}

// parseLocked reads the new part of a log (or its tail when the log is new
// to the server or was rewritten) and turns requests into jobs.
func (s *Server) parseLocked(in *Instance) {
	fi, err := s.cfg.Fs.Stat(in.Path)
	if err != nil {
		s.logf("%s: %v", in.Path, err)
		return
	}
	size := fi.Size()
	w := &in.watch
	if w.warm {
		ok := size >= w.cp.Offset
		if ok && w.guardLen > 0 {
			ok = s.hashRange(in.Path, w.cp.Offset-w.guardLen, w.cp.Offset) == w.guard
		}
		if !ok {
			s.logf("%s was rewritten; reparsing its tail", in.Path)
			s.coldParseLocked(in, fi.ModTime())
			return
		}
		data, err := s.readRange(in.Path, w.cp.Offset, size)
		if err != nil {
			s.logf("%v", err)
			return
		}
		// What was appended since the last parse pairs as the seed says,
		// by agent and timestamp (§chatlog-reply-pairing): a reply an agent
		// wrote answers the closest earlier request of its agent.
		lg := ParseAt(data, w.cp)
		s.reportAmbiguity(in, lg)
		answered := lg.Answered()
		for i, r := range lg.Requests {
			if !r.Closed || answered[i] {
				continue // a draft (§chatlog-fence-closed) or already answered
			}
			if _, seen := in.byOffset[r.Offset]; seen {
				continue // the same request parsed again (§chatlog-request-job)
			}
			s.newJobLocked(in, r, fi.ModTime())
		}
		s.setResume(in, lg.Resume, lg.ResumeLine)
		return
	}
	// Not warm: the log is new to the server, or it went away (deleted,
	// unreadable) and is back; either way its live jobs are checked
	// against what the log holds now, as after a rewrite.
	s.coldParseLocked(in, fi.ModTime())
}

func (s *Server) setResume(in *Instance, off int64, line int) {
	w := &in.watch
	w.cp = Pos{Offset: off, Line: line}
	w.guardLen = min(off, guardLen)
	w.guard = s.hashRange(in.Path, off-w.guardLen, off)
	w.warm = true
}

func (s *Server) reportAmbiguity(in *Instance, lg Log) {
	for _, a := range lg.Ambiguous {
		s.logf("%s: ambiguous pairing: %s", in.Path, a)
	}
}

// requestKey identifies a request across a rewrite, where offsets move; at
// is the time its header carries, "" for none (a rewrite changes the
// mtime that stands in for it).
func requestKey(agent, at, lang, code string) string {
	return agent + "\x00" + at + "\x00" + lang + "\x00" + code
}

// coldParseLocked parses only the last TailChunk bytes of a log, resyncing
// on the first header found there (§chatlog-tail-only). Used when the
// server first sees a log (a restart), after a rewrite and when a log that
// went away is back. A live job whose request is no longer in the chunk is
// orphaned (§chatlog-rewrite-orphan).
func (s *Server) coldParseLocked(in *Instance, mtime time.Time) {
	size := in.watch.size
	if fi, err := s.cfg.Fs.Stat(in.Path); err == nil {
		size = fi.Size()
	}
	from := max(size-s.cfg.TailChunk, 0)
	chunk, err := s.readRange(in.Path, from, size)
	if err != nil {
		s.logf("%v", err)
		return
	}
	start := TailStart(chunk, from == 0)
	var lg Log
	if start < 0 {
		lg = Log{Resume: from + int64(len(chunk))}
		// no header in the chunk: resume at its last complete line
		if i := strings.LastIndexByte(string(chunk), '\n'); i >= 0 {
			lg.Resume = from + int64(i) + 1
		} else {
			lg.Resume = from
		}
	} else {
		// Replies pair as the seed says, by agent and timestamp, as
		// they do in what is appended (§chatlog-reply-pairing).
		lg = ParseAt(chunk[start:], Pos{Offset: from + int64(start), Line: 1})
	}
	s.reportAmbiguity(in, lg)

	// Live jobs of this instance, by request key, in offset order.
	live := map[string][]*Job{}
	var liveJobs []*Job
	for _, j := range in.byOffset {
		if !j.State.Final() {
			liveJobs = append(liveJobs, j)
		}
	}
	sort.Slice(liveJobs, func(a, b int) bool { return liveJobs[a].Offset < liveJobs[b].Offset })
	for _, j := range liveJobs {
		k := requestKey(j.Agent, j.requestAt(), j.Lang, j.Code)
		live[k] = append(live[k], j)
	}
	in.byOffset = map[int64]*Job{}
	answered, executing := lg.Answered(), lg.Executing()
	for i, r := range lg.Requests {
		if !r.Closed {
			continue
		}
		k := requestKey(r.Agent, r.At, r.Lang, r.Code)
		if q := live[k]; len(q) > 0 {
			j := q[0]
			live[k] = q[1:]
			j.Offset = r.Offset
			in.byOffset[r.Offset] = j
			continue
		}
		if answered[i] {
			continue
		}
		if executing[i] {
			// Dispatched before a restart and never answered: running it
			// again could repeat its effects, so it is closed instead.
			s.logf("%s line %d: request was executing when the server stopped; not run again", in.Path, r.Line)
			o := Outcome{Stack: s.words("interrupted: the server restarted while this request was executing; it was not run again",
				"Not run again: this request was running when the server stopped.")}
			if err := s.appendLocked(in, s.format().Reply(replyName(r.Page, r.Agent, in.Stem), r.Agent, Clock(s.cfg.Clock.Now()), -1, o, "interrupted")); err != nil {
				s.logf("%v", err)
			}
			continue
		}
		s.newJobLocked(in, r, mtime)
	}
	for _, q := range live {
		for _, j := range q {
			s.orphanLocked(in, j)
		}
	}
	// Entries appended here (interrupted replies) change the log's size,
	// mtime and end, so the watcher reads them at its next poll.
	s.setResume(in, lg.Resume, lg.ResumeLine)
}

func (s *Server) orphanLocked(in *Instance, j *Job) {
	if err := j.to(Orphaned); err != nil {
		s.logf("%v", err)
		return
	}
	for i, q := range in.queue {
		if q == j {
			in.queue = append(in.queue[:i], in.queue[i+1:]...)
			break
		}
	}
	if _, ok := in.inFlight[j.ID]; ok {
		delete(in.inFlight, j.ID)
		s.wakeLocked(in)
	}
	s.logf("job %s orphaned: its request (%s at %s) is gone from %s after a rewrite", j.ID, j.Agent, j.At, in.Path)
	s.noteRecent(j)
	s.writeRegistry()
}

// replyName is the page name a reply header uses: the name the request
// used, unless a header with it would not read back (a torn or interleaved
// request header), then the instance's stem.
func replyName(page, agent, stem string) string {
	from, to, ok := logparse.HeaderNames([]byte(ReplyHeader(page, agent, "00:00:00", 1, false)))
	if !ok || from != page || to != agent {
		return stem
	}
	return page
}

func (s *Server) newJobLocked(in *Instance, r Request, mtime time.Time) {
	r.Page = replyName(r.Page, r.Agent, in.Stem)
	at := r.At
	if at == "" {
		at = Clock(mtime)
	}
	s.seq++
	j := &Job{ID: fmt.Sprintf("%s#%d", in.Stem, s.seq), Seq: s.seq, Instance: in.Stem, Agent: r.Agent,
		Page: r.Page, At: at, untimed: r.At == "", Lang: r.Lang, Code: r.Code, Offset: r.Offset,
		State: Requested, History: []JobState{Requested}, RequestedAt: s.cfg.Clock.Now()}
	in.byOffset[r.Offset] = j
	if r.Lang == "" || !SameLanguage(r.Lang, in.Lang) {
		// Not this realm's language (§chatlog-adapter-language), or no
		// language at all (§chatlog-request-header): refused, never
		// dispatched, and the agent is told why.
		why := s.words(fmt.Sprintf("refused: this realm evaluates %s, not %s", in.Lang, r.Lang),
			fmt.Sprintf("Not run: %s code cannot run in a %s realm.", r.Lang, in.Lang))
		if r.Lang == "" {
			why = s.words(fmt.Sprintf("refused: the request's fence names no language; this realm evaluates %s (open the fence with ```%s)", in.Lang, in.Lang),
				fmt.Sprintf("Not run: tag the fence with the realm's language, %s.", in.Lang))
		}
		s.logf("%s line %d: request refused: %s", in.Path, r.Line, why)
		_ = j.to(Orphaned)
		s.jobs[j.ID] = j
		o := Outcome{Stack: why}
		if err := s.appendLocked(in, s.format().Reply(r.Page, r.Agent, Clock(s.cfg.Clock.Now()), -1, o)); err != nil {
			s.logf("%v", err)
		}
		return
	}
	s.jobs[j.ID] = j
	in.queue = append(in.queue, j)
	// The job's timeout runs from its request, dispatched or not
	// (§chatlog-timeout): a job no page ever takes times out too.
	if !s.cfg.Vary.Has("timeout-from-dispatch") {
		s.armTimeout(in, j)
	}
	s.logf("job %s requested by %s (%s line %d)", j.ID, j.Agent, in.Path, r.Line)
	s.noteRecent(j)
	s.writeRegistry()
	s.wakeLocked(in)
}

// armTimeout times the job out after the timeout, unless it is over by then.
func (s *Server) armTimeout(in *Instance, j *Job) {
	stem, jid := in.Stem, j.ID
	s.cfg.Clock.AfterFunc(s.cfg.Timeout, func() { s.timeout(stem, jid) })
}

// words is the reference's text, or the other when the variation
// "refusals" rewords the server's own Error texts.
func (s *Server) words(reference, varied string) string {
	if s.cfg.Vary.Has("refusals") {
		return varied
	}
	return reference
}

// SameLanguage compares fence tags loosely: case-insensitive, with js,
// javascript, mjs and ecmascript standing for one language.
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
