package clock

import (
	"container/heap"
	"fmt"
	"sync"
	"time"
)

// Epoch returns the start time of a simulation that asks for no other: a fixed
// instant, so that timestamps printed by a simulation are the same on every run.
func Epoch() time.Time { return time.Date(2026, time.January, 1, 9, 0, 0, 0, time.UTC) }

// Sim is a deterministic clock. Its time moves only through Advance,
// AdvanceTo, AdvanceToNext and RunUntilIdle. Pending timers fire in order of
// their deadline, ties broken by the order in which they were set, and
// AfterFunc callbacks run synchronously on the goroutine that advances the
// clock, never while the clock's lock is held (a callback may set timers).
//
// Goroutines may Sleep on a Sim; they wake when another goroutine advances
// the clock past their deadline. BlockUntilSleepers lets that other goroutine
// wait until they are asleep before it advances.
type Sim struct {
	mu       sync.Mutex
	cond     *sync.Cond
	now      time.Time
	seq      uint64
	events   eventHeap
	sleepers int
	fired    uint64
}

// NewSim returns a simulated clock reading start (Epoch if start is zero).
func NewSim(start time.Time) *Sim {
	if start.IsZero() {
		start = Epoch()
	}
	s := &Sim{now: start}
	s.cond = sync.NewCond(&s.mu)
	return s
}

type event struct {
	when   time.Time
	seq    uint64
	period time.Duration // > 0 for tickers
	ch     chan time.Time
	fn     func()
	index  int // heap index, -1 when not scheduled
}

type eventHeap []*event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if !h[i].when.Equal(h[j].when) {
		return h[i].when.Before(h[j].when)
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *eventHeap) Push(x any) {
	e := x.(*event)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *eventHeap) Pop() any {
	old := *h
	n := len(old)
	e := old[n-1]
	old[n-1] = nil
	e.index = -1
	*h = old[:n-1]
	return e
}

// schedule must be called with s.mu held.
func (s *Sim) schedule(e *event, d time.Duration) {
	if d < 0 {
		d = 0
	}
	s.seq++
	e.when = s.now.Add(d)
	e.seq = s.seq
	heap.Push(&s.events, e)
	s.cond.Broadcast()
}

// unschedule must be called with s.mu held. It reports whether e was pending.
func (s *Sim) unschedule(e *event) bool {
	if e.index < 0 {
		return false
	}
	heap.Remove(&s.events, e.index)
	return true
}

// Now returns the simulated time.
func (s *Sim) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// Since returns the simulated time elapsed since t.
func (s *Sim) Since(t time.Time) time.Duration { return s.Now().Sub(t) }

// After returns a channel that receives the time once d has passed.
func (s *Sim) After(d time.Duration) <-chan time.Time { return s.NewTimer(d).C() }

// Sleep blocks until another goroutine advances the clock by d.
func (s *Sim) Sleep(d time.Duration) {
	t := s.NewTimer(d)
	s.mu.Lock()
	s.sleepers++
	s.cond.Broadcast()
	s.mu.Unlock()
	<-t.C()
	s.mu.Lock()
	s.sleepers--
	s.mu.Unlock()
}

// NewTimer returns a timer whose channel receives the time after d.
func (s *Sim) NewTimer(d time.Duration) Timer {
	e := &event{ch: make(chan time.Time, 1), index: -1}
	s.mu.Lock()
	s.schedule(e, d)
	s.mu.Unlock()
	return &simTimer{s: s, e: e}
}

// AfterFunc calls f on the advancing goroutine once d has passed.
func (s *Sim) AfterFunc(d time.Duration, f func()) Timer {
	e := &event{fn: f, index: -1}
	s.mu.Lock()
	s.schedule(e, d)
	s.mu.Unlock()
	return &simTimer{s: s, e: e}
}

// NewTicker returns a ticker with period d (d must be positive).
func (s *Sim) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic(fmt.Sprintf("clock: non-positive ticker period %v", d))
	}
	e := &event{ch: make(chan time.Time, 1), period: d, index: -1}
	s.mu.Lock()
	s.schedule(e, d)
	s.mu.Unlock()
	return &simTicker{s: s, e: e}
}

type simTimer struct {
	s *Sim
	e *event
}

func (t *simTimer) C() <-chan time.Time { return t.e.ch }
func (t *simTimer) Stop() bool {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	return t.s.unschedule(t.e)
}
func (t *simTimer) Reset(d time.Duration) bool {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	was := t.s.unschedule(t.e)
	t.s.schedule(t.e, d)
	return was
}

type simTicker struct {
	s *Sim
	e *event
}

func (t *simTicker) C() <-chan time.Time { return t.e.ch }
func (t *simTicker) Stop() {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	t.s.unschedule(t.e)
}
func (t *simTicker) Reset(d time.Duration) {
	if d <= 0 {
		panic(fmt.Sprintf("clock: non-positive ticker period %v", d))
	}
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	t.s.unschedule(t.e)
	t.e.period = d
	t.s.schedule(t.e, d)
}

// fireNext fires the earliest event if it is due at or before limit. It
// reports whether it fired one.
func (s *Sim) fireNext(limit time.Time) bool {
	s.mu.Lock()
	if len(s.events) == 0 || s.events[0].when.After(limit) {
		s.mu.Unlock()
		return false
	}
	e := heap.Pop(&s.events).(*event)
	if e.when.After(s.now) {
		s.now = e.when
	}
	now := s.now
	if e.period > 0 {
		s.seq++
		e.when = e.when.Add(e.period)
		e.seq = s.seq
		heap.Push(&s.events, e)
	}
	s.fired++
	s.mu.Unlock()

	if e.fn != nil {
		e.fn()
	} else {
		select { // like time.Ticker, a slow reader drops ticks
		case e.ch <- now:
		default:
		}
	}
	return true
}

// AdvanceTo moves the clock to t, firing every event due on the way in order.
// Moving backwards is an error.
func (s *Sim) AdvanceTo(t time.Time) error {
	if t.Before(s.Now()) {
		return fmt.Errorf("clock: cannot move back from %v to %v", s.Now(), t)
	}
	for s.fireNext(t) {
	}
	s.mu.Lock()
	s.now = t
	s.mu.Unlock()
	return nil
}

// Advance moves the clock forward by d, firing every event due on the way.
func (s *Sim) Advance(d time.Duration) {
	if d < 0 {
		d = 0
	}
	_ = s.AdvanceTo(s.Now().Add(d)) // never backwards
}

// Next returns the deadline of the earliest pending event.
func (s *Sim) Next() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.events) == 0 {
		return time.Time{}, false
	}
	return s.events[0].when, true
}

// AdvanceToNext jumps to the earliest pending event and fires every event due
// at that instant. It reports false when nothing is pending.
func (s *Sim) AdvanceToNext() bool {
	when, ok := s.Next()
	if !ok {
		return false
	}
	_ = s.AdvanceTo(when)
	return true
}

// RunUntilIdle fires events in order until none is pending. Tickers never let
// a clock go idle, so it stops with an error after maxEvents events.
func (s *Sim) RunUntilIdle(maxEvents int) error {
	for n := 0; ; n++ {
		if n >= maxEvents {
			return fmt.Errorf("clock: still busy after %d events (a ticker left running?)", maxEvents)
		}
		if !s.AdvanceToNext() {
			return nil
		}
	}
}

// Pending returns how many timers and tickers are scheduled.
func (s *Sim) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}

// Fired returns how many events have fired since the clock was made.
func (s *Sim) Fired() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fired
}

// BlockUntilSleepers waits until at least n goroutines are blocked in Sleep.
func (s *Sim) BlockUntilSleepers(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.sleepers < n {
		s.cond.Wait()
	}
}
