package exec

import (
	"errors"
	"testing"
	"time"

	"anchorage/impl/plurnk/scheme"
	"anchorage/sim/clock"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestProposalLifecycle(t *testing.T) {
	ignore := cmpopts.IgnoreFields(Proposal{}, "Created", "Settled")
	for _, tc := range []struct {
		name     string
		decision Decision
		outcome  string
		apply    Apply
		want     Proposal
		applied  bool
	}{
		{"accept", Accept, "", nil, Proposal{State: Resolved, Status: 200}, true},
		{"accept whose effect fails", Accept, "", func() (int, string) { return 409, "write_conflict" },
			Proposal{State: Failed, Status: 400, Outcome: "write_conflict"}, true},
		{"accept whose effect fails silently", Accept, "", func() (int, string) { return 500, "" },
			Proposal{State: Failed, Status: 400, Outcome: "apply_failed"}, true},
		{"reject", Reject, "", nil, Proposal{State: Failed, Status: 400, Outcome: "rejected"}, false},
		{"reject with an outcome", Reject, "write_failed", nil, Proposal{State: Failed, Status: 400, Outcome: "write_failed"}, false},
		{"cancel", Cancel, "", nil, Proposal{State: Cancelled, Status: 499, Outcome: "loop_aborted"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewSim(time.Time{})
			var settled []Proposal
			tbl := NewProposals(clk, 0, func(p Proposal) { settled = append(settled, p) })
			applied := false
			apply := func() (int, string) {
				applied = true
				if tc.apply != nil {
					return tc.apply()
				}
				return 200, ""
			}
			p, err := tbl.Propose(Proposal{ID: 7, Op: "EXEC", Target: "sh", Body: "make"}, apply)
			if err != nil || p.State != Proposed || p.Status != 202 {
				t.Fatalf("proposed: %+v %v", p, err)
			}
			if d := cmp.Diff([]int64{7}, tbl.Pending()); d != "" {
				t.Fatal(d)
			}
			got, err := tbl.Resolve(7, tc.decision, tc.outcome)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			want.ID, want.Op, want.Target, want.Body = 7, "EXEC", "sh", "make"
			if d := cmp.Diff(want, got, ignore); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if applied != tc.applied {
				t.Errorf("applied %v, want %v", applied, tc.applied)
			}
			if len(settled) != 1 {
				t.Errorf("settled %d times", len(settled))
			}
			_, err = tbl.Resolve(7, Accept, "")
			var se *scheme.StatusError
			if !errors.As(err, &se) || se.Status != 404 {
				t.Errorf("second resolution: %v, want 404", err)
			}
			clk.Advance(DefaultProposalTimeout)
			if after, _ := tbl.Get(7); after.State != want.State {
				t.Errorf("the timeout changed a settled proposal: %+v", after)
			}
		})
	}
}

func TestProposalTimeout(t *testing.T) {
	clk := clock.NewSim(time.Time{})
	tbl := NewProposals(clk, 0, nil)
	applied := false
	if _, err := tbl.Propose(Proposal{ID: 1}, func() (int, string) { applied = true; return 200, "" }); err != nil {
		t.Fatal(err)
	}
	clk.Advance(DefaultProposalTimeout - time.Millisecond)
	if p, _ := tbl.Get(1); p.State != Proposed {
		t.Fatalf("settled early: %+v", p)
	}
	clk.Advance(time.Millisecond)
	p, _ := tbl.Get(1)
	if p.State != Cancelled || p.Status != 499 || p.Outcome != "timeout" || applied {
		t.Fatalf("after the timeout: %+v applied=%v", p, applied)
	}
	if !p.Settled.Equal(clock.Epoch().Add(DefaultProposalTimeout)) {
		t.Errorf("settled at %s", p.Settled)
	}
}

func TestProposalYolo(t *testing.T) {
	clk := clock.NewSim(time.Time{})
	tbl := NewProposals(clk, time.Second, nil)
	applied := 0
	p, err := tbl.Propose(Proposal{ID: 3, Yolo: true}, func() (int, string) { applied++; return 200, "" })
	if err != nil {
		t.Fatal(err)
	}
	if p.State != Resolved || p.Status != 200 || applied != 1 {
		t.Fatalf("yolo: %+v applied %d", p, applied)
	}
	if clk.Pending() != 0 {
		t.Errorf("yolo armed a timeout")
	}
	if _, err := tbl.Propose(Proposal{ID: 3}, nil); err == nil {
		t.Error("a duplicate id was proposed")
	}
}
