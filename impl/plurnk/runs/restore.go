package runs

import (
	"fmt"
	"sort"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// RunMeta is what a restart needs of a run beyond its log: its origin and
// the run that spawned or forked it.
type RunMeta struct {
	Name   string `json:"name"`
	Origin string `json:"origin"`
	Parent string `json:"parent,omitempty"`
}

// SessionMeta is what a restart needs of a session beyond the store: its
// runs' origins and parents and its settings.
type SessionMeta struct {
	ID       int64     `json:"id"`
	Runs     []RunMeta `json:"runs"`
	Settings Settings  `json:"settings"`
}

// MetaLocked returns the metadata of every session, ascending by id. The
// service lock must be held (inside View, or a hook the Service calls).
func (s *Service) MetaLocked() []SessionMeta {
	out := make([]SessionMeta, 0, len(s.sessions))
	for _, id := range s.cfg.Store.Sessions() {
		sess, ok := s.sessions[id]
		if !ok {
			continue
		}
		m := SessionMeta{ID: id, Settings: sess.settings}
		for _, r := range sess.order {
			rm := RunMeta{Name: r.store.Name, Origin: r.origin}
			if r.parent != nil {
				rm.Parent = r.parent.store.Name
			}
			m.Runs = append(m.Runs, rm)
		}
		out = append(out, m)
	}
	return out
}

// Adopt takes over a session the store holds after a restart: its runs
// with the origins and parents meta records. What the stop interrupted
// ends now: a loop that was running (or waiting at a proposal) closes at
// 499, its pending proposal's EXEC row at
// 499 loop_aborted, and the output entry of a stream that was open (its
// process is gone) is marked errored; a loop parked at 202 stays parked,
// and a loop.run resumes it. It announces nothing. Adopt the parents
// before their children (meta's order is creation order).
func (s *Service) Adopt(meta SessionMeta) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, err := s.cfg.Store.Session(meta.ID)
	if err != nil {
		return fmt.Errorf("runs: adopt: %w", err)
	}
	if _, dup := s.sessions[meta.ID]; dup {
		return fmt.Errorf("runs: adopt: session %d is served already", meta.ID)
	}
	byName := map[string]RunMeta{}
	for _, rm := range meta.Runs {
		byName[rm.Name] = rm
	}
	sess := &Session{store: ss, runs: map[string]*Run{}, settings: meta.Settings}
	for _, sr := range ss.Runs {
		rm, ok := byName[sr.Name]
		if !ok {
			return fmt.Errorf("runs: adopt: session %d: no record of run %q", meta.ID, sr.Name)
		}
		var parent *Run
		if rm.Parent != "" {
			if parent = sess.runs[rm.Parent]; parent == nil {
				return fmt.Errorf("runs: adopt: run %q: parent %q not adopted before it", sr.Name, rm.Parent)
			}
			s.eng.AdoptChild(parent.store, sr)
		}
		sess.add(sr, parent, rm.Origin)
	}
	s.sessions[meta.ID] = sess
	for _, r := range sess.order {
		s.interrupted(r)
	}
	return nil
}

// interrupted ends what the daemon's stop cut short in r. s.mu is held.
func (s *Service) interrupted(r *Run) {
	ss := r.sess.store
	for _, row := range r.store.Log {
		if row.Op == string(dsl.OpEdit) && row.Status == 202 {
			row.Status, row.Reason = 499, "loop_aborted" // an EDIT proposal left pending
			continue
		}
		if row.Op != string(dsl.OpExec) {
			continue
		}
		switch row.Status {
		case 202:
			row.Status, row.Reason = 499, "loop_aborted"
		case 102:
			rt, _, ok := strings.Cut(row.Target, ":///")
			if !ok {
				continue
			}
			k := scheme.ExecKey(rt, row.Loop, row.Turn, row.Seq)
			e := ss.Entry(k)
			if e == nil {
				continue
			}
			for _, ch := range e.Channels {
				if ch.State == store.StateActive {
					_ = s.cfg.Store.Update(ss, func(tx *store.Tx) error { return scheme.SetState(tx, k, store.StateErrored) })
					break
				}
			}
		}
	}
	for _, l := range r.store.Loops {
		if !engine.Terminal(l.Status) && l.Status != engine.StatusParked {
			l.Status = engine.StatusCancelled
		}
	}
}

// Shutdown ends every run of every session as the daemon stops
// (§run-lifecycle-total-reap): running and parked loops close 499, their
// streams are stopped (polite signal, then SIGKILL after the grace) and
// their pending proposals cancelled, and the drains are waited for.
func (s *Service) Shutdown() {
	s.mu.Lock()
	ids := make([]int64, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		for _, r := range s.sessions[id].order {
			if r.store.Name != store.PlurnkRun {
				s.abort(r, "shutdown", false)
			}
		}
	}
	for s.drains > 0 {
		s.idle.Wait()
	}
	s.mu.Unlock()
}
