package scheme

import (
	"errors"
	"io/fs"
	"strings"

	"anchorage/impl/plurnk/store"
)

// Members is the membership of the project's files as the file scheme
// consults it (§membership-edit-membership-gate, §membership-edit-write-cas,
// §membership-emi-divergence-signal). Paths are relative to the project
// root, without a leading slash.
type Members interface {
	// CheckWrite answers whether session may write p: a *StatusError with
	// 403 for an existing non-member or a view member, 400 for a member
	// changed on disk since it was last synced (a write conflict).
	CheckWrite(session int64, p string, exists bool) error
	// Wrote records plurnk's own write of p, re-stamping its signature so
	// the write is never reported as an outside change.
	Wrote(session int64, p string) error
	// Changes runs one sync pass for session and returns each member
	// changed on disk outside plurnk as a plurnk EDIT row, born folded.
	Changes(session int64) ([]store.LogRow, error)
}

// WriteGuard is implemented by a scheme that must approve a write before
// the engine touches the entry at all (before its Load): the file scheme,
// when it consults a membership.
type WriteGuard interface {
	GuardWrite(c Call, k store.Key) error
}

// Reconciler is implemented by a scheme whose entries can change outside
// plurnk: Changes reports them as rows for the session's plurnk run.
type Reconciler interface {
	Changes(c Call) ([]store.LogRow, error)
}

// UseMembers makes the file scheme consult m before every write and report
// its writes to it. A nil m turns the consultation off.
func (f *File) UseMembers(m Members) { f.members = m }

func rel(p string) string { return strings.TrimPrefix(p, "/") }

// GuardWrite asks the membership whether the acting session may write the
// file at k, before any read or write of its content: only its existence
// is looked up.
func (f *File) GuardWrite(c Call, k store.Key) error {
	if f.members == nil {
		return nil
	}
	_, err := f.fs.Stat(f.disk(k.Path))
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return f.members.CheckWrite(c.Tx.Session.ID, rel(k.Path), exists)
}

// Changes reports the members changed on disk outside plurnk since the
// last pass.
func (f *File) Changes(c Call) ([]store.LogRow, error) {
	if f.members == nil {
		return nil, nil
	}
	return f.members.Changes(c.Tx.Session.ID)
}

// wrote tells the membership about plurnk's own write of p.
func (f *File) wrote(c Call, p string) error {
	if f.members == nil {
		return nil
	}
	return f.members.Wrote(c.Tx.Session.ID, rel(p))
}

// Replace swaps the handler registered under h's name for h (a scheme
// rebuilt over another root, say); it fails when no such scheme exists.
func (r *Registry) Replace(h Handler) error {
	n := h.Manifest().Name
	if _, ok := r.handlers[n]; !ok {
		return errors.New("replace scheme " + n + ": not registered")
	}
	r.handlers[n] = h
	return nil
}

// GitReporter is implemented by a scheme that can render the packet's git
// section for a session (the file scheme, when its membership can).
type GitReporter interface {
	GitSection(session int64) (string, error)
}

// GitSection renders the git section of the membership the file scheme
// consults, when it renders one.
func (f *File) GitSection(session int64) (string, error) {
	g, ok := f.members.(GitReporter)
	if !ok {
		return "", nil
	}
	return g.GitSection(session)
}
