package scheme

import (
	"errors"
	"fmt"

	"anchorage/impl/plurnk/store"
)

// Canceller stops the live stream behind an entry of a session: the
// handle a streaming scheme keeps for each stream it opened (an exec
// runtime's process table). Cancel is SEND[499]: the stream is torn down
// and ends 499. Kill is KILL[code]: the process gets exactly the signal
// numbered code (0, a bare KILL, is SIGHUP) and Kill answers its name; an
// unknown number is a 400 *StatusError. Both answer a *StatusError with
// 404 when no stream is live at the key.
type Canceller interface {
	Cancel(ss *store.Session, k store.Key) error
	Kill(ss *store.Session, k store.Key, code int) (signal string, err error)
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
	return reached(c.Cancel(ss, k))
}

// KillStream routes a KILL[code] of the entry at k to the scheme that
// holds its stream, and answers the signal sent. It reports false when no
// live stream is behind the entry (or its scheme holds none); a signal
// number the holder does not know is an error carrying its status (400).
func (r *Registry) KillStream(ss *store.Session, k store.Key, code int) (string, bool, error) {
	c, ok := r.streams[k.Scheme]
	if !ok {
		return "", false, nil
	}
	sig, err := c.Kill(ss, k, code)
	live, err := reached(err)
	return sig, live, err
}

// reached reads a canceller's answer: a 404 means no live stream was there
// (false, no error), any other error is the action's failure, and nil
// means the stream was reached.
func reached(err error) (bool, error) {
	var se *StatusError
	if errors.As(err, &se) && se.Status == 404 {
		return false, nil
	}
	return err == nil, err
}

// HoldsStreams reports whether scheme name has a canceller subscribed.
func (r *Registry) HoldsStreams(name string) bool {
	_, ok := r.streams[name]
	return ok
}
