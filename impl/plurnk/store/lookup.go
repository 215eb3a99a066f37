package store

import "fmt"

// SessionOfRun returns the session that holds the run with id runID.
func (s *Store) SessionOfRun(runID int64) (*Session, error) {
	for _, ss := range s.sessions {
		for _, r := range ss.Runs {
			if r.ID == runID {
				return ss, nil
			}
		}
	}
	return nil, fmt.Errorf("no session holds run %d", runID)
}
