package ops

import (
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
)

// kill deletes the target: with a fragment, that channel only; without,
// the whole entry. 404 when the entry (or the channel) is absent.
func (e *Engine) kill(c scheme.Call, st dsl.Statement) (Result, error) {
	r, err := e.resolve(st)
	if err != nil {
		return Result{}, err
	}
	m := r.Handler.Manifest()
	if !m.Writable(c.Writer) {
		return Result{}, fail(403, "%s may not delete %s:// entries", c.Writer, m.Name)
	}
	cur, err := load(c, r)
	if err != nil {
		return Result{}, err
	}
	if cur == nil {
		return Result{}, fail(404, "%s does not exist", r.Key)
	}
	if r.Named {
		if _, ok := cur.Channels[r.Channel]; !ok {
			return Result{}, fail(404, "%s has no %q channel", r.Key, r.Channel)
		}
		delete(cur.Channels, r.Channel)
		if err := save(c, r, cur); err != nil {
			return Result{}, err
		}
		return Result{Status: 200, EntryID: cur.ID, Target: target(r)}, nil
	}
	if _, err := r.Handler.Remove(c, r.Key); err != nil {
		return Result{}, fail(scheme.StatusOf(err), "remove %s: %v", r.Key, err)
	}
	return Result{Status: 200, EntryID: cur.ID, Target: target(r)}, nil
}
