package membership

import (
	"path"
	"sync"

	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// Project is the membership of one project directory as the file scheme
// consults it (it implements scheme.Members): each session's overlay over
// the resolver's git and picks, and one Sync of the disk.
type Project struct {
	Resolver *Resolver
	Sessions *Sessions
	Sync     *Sync

	mu    sync.Mutex
	fresh map[int64]map[string]bool // per session: the paths its latest sync pass reported
}

// NewProject returns the membership of the project r resolves, with no
// overlay and nothing synced yet.
func NewProject(r *Resolver) *Project {
	return &Project{Resolver: r, Sessions: NewSessions(), Sync: NewSync(r.FS, r.Root)}
}

// Members resolves session's members (session.members: each path with its
// effect, and the files a hide dropped).
func (p *Project) Members(session int64) (Set, error) {
	return p.Resolver.Resolve(p.Sessions.Overlay(session))
}

// CheckWrite refuses with 403 a write to an existing non-member or a view
// member (§membership-edit-membership-gate), and with 400 a write to a
// member whose file changed on disk since the last sync recorded it
// (§membership-edit-write-cas: a write conflict). Only the file's stat is
// looked at, never its content.
func (p *Project) CheckWrite(session int64, rel string, exists bool) error {
	set, err := p.Members(session)
	if err != nil {
		return err
	}
	if err := set.CheckWrite(rel, exists); err != nil {
		return err
	}
	prev, ok := p.Sync.Synced(rel)
	if !ok || !exists {
		return nil
	}
	fi, err := p.Resolver.FS.Stat(path.Join(p.Resolver.Root, clean(rel)))
	if err != nil {
		return err
	}
	if !fi.ModTime().Equal(prev.ModTime) || fi.Size() != prev.Size {
		return scheme.Errorf(400, "write_conflict: %s changed on disk since plurnk last synced it", clean(rel))
	}
	return nil
}

// Wrote re-stamps the signature of a file plurnk has just written. A file
// the session created (a path that was no member) joins its membership as
// a pick of that one path (§membership-edit-membership-gate).
func (p *Project) Wrote(session int64, rel string) error {
	set, err := p.Members(session)
	if err != nil {
		return err
	}
	if _, ok := set.Lookup(rel); !ok {
		if _, err := p.Resolver.FS.Stat(path.Join(p.Resolver.Root, clean(rel))); err == nil {
			if err := p.Sessions.Overlay(session).Add(Constraint{Effect: Pick, Pattern: clean(rel)}); err != nil {
				return err
			}
		}
	}
	return p.Sync.Wrote(rel)
}

// Changes runs one sync pass over session's members and returns each
// outside change as the EDIT row the plurnk run records
// (§membership-emi-divergence-signal, §membership-change-gated-sync).
func (p *Project) Changes(session int64) ([]store.LogRow, error) {
	set, err := p.Members(session)
	if err != nil {
		return nil, err
	}
	ds, err := p.Sync.Pass(set.Paths())
	rows := make([]store.LogRow, 0, len(ds))
	fresh := map[string]bool{}
	for _, d := range ds {
		rows = append(rows, d.Row())
		fresh[d.Path] = true
	}
	p.mu.Lock()
	if p.fresh == nil {
		p.fresh = map[int64]map[string]bool{}
	}
	p.fresh[session] = fresh
	p.mu.Unlock()
	return rows, err
}

// StaleClobberRisk reports whether a write of rel by session risks
// clobbering an outside change the model has not read: session's latest
// sync pass (the one at the start of the turn now dispatching) reported
// rel changed or deleted on disk (§dual-yolo-stale-clobber-reject). A
// later pass that does not report rel again clears it.
func (p *Project) StaleClobberRisk(session int64, rel string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fresh[session][clean(rel)]
}
