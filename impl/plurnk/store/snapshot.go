package store

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/afero"
)

// snapshot is the serialised form of a Store.
type snapshot struct {
	NextID   int64             `json:"nextId"`
	Sessions []sessionSnapshot `json:"sessions"`
}

type sessionSnapshot struct {
	ID      int64    `json:"id"`
	Runs    []*Run   `json:"runs"`
	Entries []*Entry `json:"entries"`
}

// Snapshot writes the whole store as JSON to path on fs.
func (s *Store) Snapshot(fs afero.Fs, path string) error {
	b, err := json.MarshalIndent(s.snapshot(), "", " ")
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if err := afero.WriteFile(fs, path, b, 0o644); err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	return nil
}

// Restore replaces the store's state with the snapshot at path on fs.
func (s *Store) Restore(fs afero.Fs, path string) error {
	b, err := afero.ReadFile(fs, path)
	if err != nil {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	var snap snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	s.nextID = snap.NextID
	s.sessions = map[int64]*Session{}
	for _, ss := range snap.Sessions {
		n := &Session{ID: ss.ID, Runs: ss.Runs, entries: map[Key]*Entry{}}
		for _, e := range ss.Entries {
			n.entries[e.Key] = e
		}
		s.sessions[ss.ID] = n
	}
	return nil
}
