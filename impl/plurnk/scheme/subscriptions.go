package scheme

import (
	"errors"
	"fmt"

	"anchorage/impl/plurnk/store"
)

// Canceller aborts the live stream behind an entry of a session: the
// handle a streaming scheme keeps for each stream it opened (an exec
// runtime's process table). Cancel answers a *StatusError with 404 when no
// stream is live at the key.
type Canceller interface {
	Cancel(ss *store.Session, k store.Key) error
}

// Subscribe records that the streams of scheme name are held by c, so a
// later SEND[499] or KILL aimed at one of its entries is routed to c
// (§subscriptions-subscription-registry-routes-cancellation). The scheme
// must be registered; subscribing it again replaces its canceller.
func (r *Registry) Subscribe(name string, c Canceller) error {
	if _, ok := r.handlers[name]; !ok {
		return fmt.Errorf("subscribe %q: no such scheme", name)
	}
	if r.streams == nil {
		r.streams = map[string]Canceller{}
	}
	r.streams[name] = c
	return nil
}

// CancelStream routes a cancellation of the entry at k to the scheme that
// holds its stream. It reports whether a live stream was stopped; an entry
// whose scheme holds no streams, or that has no live stream, reports false.
func (r *Registry) CancelStream(ss *store.Session, k store.Key) (bool, error) {
	c, ok := r.streams[k.Scheme]
	if !ok {
		return false, nil
	}
	err := c.Cancel(ss, k)
	var se *StatusError
	if errors.As(err, &se) && se.Status == 404 {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cancel %s: %w", k, err)
	}
	return true, nil
}

// HoldsStreams reports whether scheme name has a canceller subscribed.
func (r *Registry) HoldsStreams(name string) bool {
	_, ok := r.streams[name]
	return ok
}
