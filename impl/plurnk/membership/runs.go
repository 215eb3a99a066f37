package membership

import (
	"fmt"

	"anchorage/impl/plurnk/store"
)

// ConstrainRun files a constraint a run asks for. The overlay is the
// session's, never the run's (§machine-processes-one-overlay): the
// constraint lands on the overlay of the session that holds the run, so
// every run of that session resolves it.
func (p *Project) ConstrainRun(st *store.Store, runID int64, c Constraint) error {
	ss, err := st.SessionOfRun(runID)
	if err != nil {
		return fmt.Errorf("constrain run %d: %w", runID, err)
	}
	return p.Sessions.Overlay(ss.ID).Add(c)
}

// MembersOfRun resolves the members a run sees: those of its session.
func (p *Project) MembersOfRun(st *store.Store, runID int64) (Set, error) {
	ss, err := st.SessionOfRun(runID)
	if err != nil {
		return Set{}, fmt.Errorf("members of run %d: %w", runID, err)
	}
	return p.Members(ss.ID)
}
