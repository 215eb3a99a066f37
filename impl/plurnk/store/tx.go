package store

import (
	"fmt"
	"unicode/utf8"
)

// Tx is one transaction over a session. Its writes are visible to itself
// and to the session at once; Store.Update undoes them all when the
// transaction fails.
type Tx struct {
	store   *Store
	Session *Session
	undo    []func()
}

// Update runs fn in a transaction over ss. When fn returns an error or
// panics, every change it made (entries, log rows, and the undo hooks it
// registered with OnRollback) is rolled back and the error is returned; a
// panic comes back as an error wrapping ErrPanic.
func (s *Store) Update(ss *Session, fn func(tx *Tx) error) (err error) {
	tx := &Tx{store: s, Session: ss}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrPanic, p)
		}
		if err != nil {
			for i := len(tx.undo) - 1; i >= 0; i-- {
				tx.undo[i]()
			}
		}
	}()
	return fn(tx)
}

// OnRollback registers f to run if the transaction fails, after the undo of
// every later change. Schemes with state outside the store (the file
// workspace) use it to restore that state.
func (tx *Tx) OnRollback(f func()) { tx.undo = append(tx.undo, f) }

// Get returns a copy of the entry at k, or nil.
func (tx *Tx) Get(k Key) *Entry { return tx.Session.Entry(k) }

// Put stores e at e.Key, creating the entry (and giving it an ID) when none
// exists. A channel body over MaxChannelChars fails with ErrChannelTooLarge
// and stores nothing.
func (tx *Tx) Put(e *Entry) error {
	for name, ch := range e.Channels {
		if len(ch.Content) > MaxChannelChars && utf8.RuneCountInString(ch.Content) > MaxChannelChars {
			return fmt.Errorf("put %s#%s: %w", e.Key, name, ErrChannelTooLarge)
		}
		if ch.State == "" {
			ch.State = StateStatic
			e.Channels[name] = ch
		}
	}
	prev, existed := tx.Session.entries[e.Key]
	n := e.Clone()
	now := tx.store.clock.Now()
	if existed {
		n.ID, n.Created = prev.ID, prev.Created
	} else {
		n.ID, n.Created = tx.store.id(), now
	}
	n.Updated = now
	tx.Session.entries[e.Key] = n
	tx.undo = append(tx.undo, func() { tx.restore(e.Key, prev, existed) })
	e.ID, e.Created, e.Updated = n.ID, n.Created, n.Updated
	return nil
}

// Delete removes the entry at k. It reports whether there was one.
func (tx *Tx) Delete(k Key) bool {
	prev, existed := tx.Session.entries[k]
	if !existed {
		return false
	}
	delete(tx.Session.entries, k)
	tx.undo = append(tx.undo, func() { tx.restore(k, prev, true) })
	return true
}

func (tx *Tx) restore(k Key, prev *Entry, existed bool) {
	if existed {
		tx.Session.entries[k] = prev
	} else {
		delete(tx.Session.entries, k)
	}
}

// SetExpanded sets the expanded bit of r's row with id to expanded. It
// reports whether the bit changed (false when there is no such row or it
// already had that state).
func (tx *Tx) SetExpanded(r *Run, id int64, expanded bool) bool {
	for _, row := range r.Log {
		if row.ID != id {
			continue
		}
		if row.Expanded == expanded {
			return false
		}
		row.Expanded = expanded
		tx.undo = append(tx.undo, func() { row.Expanded = !expanded })
		return true
	}
	return false
}

// DeleteLog removes r's row with id from its log. It reports whether there
// was one.
func (tx *Tx) DeleteLog(r *Run, id int64) bool {
	for i, row := range r.Log {
		if row.ID != id {
			continue
		}
		r.Log = append(r.Log[:i:i], r.Log[i+1:]...)
		tx.undo = append(tx.undo, func() {
			r.Log = append(r.Log[:i:i], append([]*LogRow{row}, r.Log[i:]...)...)
		})
		return true
	}
	return false
}

// AppendLog appends row to r's log and gives it an ID.
func (tx *Tx) AppendLog(r *Run, row *LogRow) {
	row.ID = tx.store.id()
	n := len(r.Log)
	r.Log = append(r.Log, row)
	tx.undo = append(tx.undo, func() { r.Log = r.Log[:n] })
}
