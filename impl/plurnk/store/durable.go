package store

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Encode returns the whole store in the form Snapshot writes: every
// session with its runs (loops, turns, log rows) and its entries, and the
// next id to hand out. A daemon that keeps its state on disk writes it
// crash-safely itself (a temporary file, then a rename).
func (s *Store) Encode() ([]byte, error) {
	b, err := json.Marshal(s.snapshot())
	if err != nil {
		return nil, fmt.Errorf("encode store: %w", err)
	}
	return b, nil
}

// Decode replaces the store's state with b, a store Encode (or Snapshot)
// wrote. On error the store is left as it was.
func (s *Store) Decode(b []byte) error {
	var snap snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		return fmt.Errorf("decode store: %w", err)
	}
	sessions := map[int64]*Session{}
	for _, ss := range snap.Sessions {
		n := &Session{ID: ss.ID, Runs: ss.Runs, entries: map[Key]*Entry{}}
		for _, e := range ss.Entries {
			n.entries[e.Key] = e
		}
		sessions[ss.ID] = n
	}
	s.nextID, s.sessions = snap.NextID, sessions
	return nil
}

// snapshot is the store's state in the form Encode and Snapshot write.
func (s *Store) snapshot() snapshot {
	snap := snapshot{NextID: s.nextID}
	for _, id := range s.Sessions() {
		ss := s.sessions[id]
		snap.Sessions = append(snap.Sessions, sessionSnapshot{ID: id, Runs: ss.Runs, Entries: ss.Entries()})
	}
	return snap
}

// Sessions returns the ids of the store's sessions, ascending.
func (s *Store) Sessions() []int64 {
	ids := make([]int64, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
