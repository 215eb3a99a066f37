package exec

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"anchorage/impl/plurnk/scheme"
	"anchorage/sim/clock"
)

// ProposalState is a proposal's place in its lifecycle (a log row's state,
// distinct from a channel's state).
type ProposalState string

const (
	Proposed  ProposalState = "proposed"
	Resolved  ProposalState = "resolved"  // accepted: the effect happened
	Failed    ProposalState = "failed"    // rejected, or the effect failed
	Cancelled ProposalState = "cancelled" // cancelled, or timed out
)

// Decision is a resolution of a proposal.
type Decision string

const (
	Accept Decision = "accept"
	Reject Decision = "reject"
	Cancel Decision = "cancel"
)

// DefaultProposalTimeout is PLURNK_PROPOSAL_TIMEOUT_MS when unset.
const DefaultProposalTimeout = 300000 * time.Millisecond

// Apply runs an accepted proposal's effect (for EXEC: the spawn). A status
// of 400 or more turns the accept into a reject carrying outcome
// ("apply_failed" when outcome is empty).
type Apply func() (status int, outcome string)

// Proposal is a snapshot of one deferred action, identified by its log row.
type Proposal struct {
	ID      int64 // the log row's id
	Op      string
	Target  string
	Body    string
	Yolo    bool
	State   ProposalState
	Status  int // 202 while proposed, then 200, 400 or 499
	Outcome string
	Created time.Time
	Settled time.Time
}

// Proposals is the table of a service's proposals.
type Proposals struct {
	clock   clock.Clock
	timeout time.Duration
	onDone  func(Proposal)

	mu    sync.Mutex
	items map[int64]*proposal
}

type proposal struct {
	p       Proposal
	claimed bool // a resolution is running its effect
	apply   Apply
	timer   clock.Timer
}

// NewProposals returns an empty table. timeout ≤ 0 uses
// DefaultProposalTimeout; onDone (may be nil) is called once for every
// proposal that settles, outside the table's lock.
func NewProposals(c clock.Clock, timeout time.Duration, onDone func(Proposal)) *Proposals {
	if timeout <= 0 {
		timeout = DefaultProposalTimeout
	}
	return &Proposals{clock: c, timeout: timeout, onDone: onDone, items: map[int64]*proposal{}}
}

// Propose records p (its ID, Op, Target, Body and Yolo) with the effect to
// run on accept. With Yolo the proposal is accepted at once; otherwise it
// stays proposed (202) until Resolve, or until the timeout cancels it with
// outcome "timeout". It returns the proposal as it stands.
func (t *Proposals) Propose(p Proposal, apply Apply) (Proposal, error) {
	t.mu.Lock()
	if _, dup := t.items[p.ID]; dup {
		t.mu.Unlock()
		return Proposal{}, fmt.Errorf("propose %d: already proposed", p.ID)
	}
	p.State, p.Status, p.Outcome, p.Created = Proposed, 202, "", t.clock.Now()
	it := &proposal{p: p, apply: apply}
	t.items[p.ID] = it
	if !p.Yolo {
		it.timer = t.clock.AfterFunc(t.timeout, func() { _, _ = t.resolve(p.ID, Cancel, "timeout") })
	}
	t.mu.Unlock()
	if p.Yolo {
		return t.resolve(p.ID, Accept, "yolo")
	}
	return p, nil
}

// Resolve settles the proposal id with d. outcome, when not empty,
// replaces the default one (accept: none, reject: "rejected", cancel:
// "loop_aborted"). Only a proposal still proposed can be resolved: any
// other answers a 404 *scheme.StatusError.
func (t *Proposals) Resolve(id int64, d Decision, outcome string) (Proposal, error) {
	return t.resolve(id, d, outcome)
}

func (t *Proposals) resolve(id int64, d Decision, outcome string) (Proposal, error) {
	if d != Accept && d != Reject && d != Cancel {
		return Proposal{}, scheme.Errorf(400, "unknown decision %q", d)
	}
	t.mu.Lock()
	it, ok := t.items[id]
	if !ok || it.p.State != Proposed || it.claimed {
		t.mu.Unlock()
		return Proposal{}, scheme.Errorf(404, "no pending proposal %d", id)
	}
	// Claim it before running the effect, so a racing timeout or second
	// resolution finds it settled.
	it.claimed = true
	if it.timer != nil {
		it.timer.Stop()
	}
	t.mu.Unlock()

	var state ProposalState
	var status int
	switch d {
	case Accept:
		state, status = Resolved, 200
		if it.apply != nil {
			if st, out := it.apply(); st >= 400 {
				state, status, outcome = Failed, 400, out
				if outcome == "" {
					outcome = "apply_failed"
				}
			}
		}
	case Reject:
		state, status = Failed, 400
		if outcome == "" {
			outcome = "rejected"
		}
	case Cancel:
		state, status = Cancelled, 499
		if outcome == "" {
			outcome = "loop_aborted"
		}
	}

	t.mu.Lock()
	it.p.State, it.p.Status, it.p.Outcome, it.p.Settled = state, status, outcome, t.clock.Now()
	p := it.p
	t.mu.Unlock()
	if t.onDone != nil {
		t.onDone(p)
	}
	return p, nil
}

// Get returns the proposal id.
func (t *Proposals) Get(id int64) (Proposal, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	it, ok := t.items[id]
	if !ok {
		return Proposal{}, false
	}
	return it.p, true
}

// Pending returns the ids of the proposals still proposed, ascending.
func (t *Proposals) Pending() []int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []int64
	for id, it := range t.items {
		if it.p.State == Proposed && !it.claimed {
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
