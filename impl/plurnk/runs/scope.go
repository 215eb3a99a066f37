package runs

import "context"

// Scope is a run's cancellation scope (§run-lifecycle-exec-epoch-bound):
// the context its loops run under and the kills of the streams that took
// hold of it. It is aborted once; a run gets a fresh scope only after its
// old one was aborted, so a stream holding a replaced scope is always
// already killed.
type Scope struct {
	ctx     context.Context
	cancel  context.CancelFunc
	aborted bool
	kills   []func()
}

// NewScope returns a live scope.
func NewScope() *Scope {
	ctx, cancel := context.WithCancel(context.Background())
	return &Scope{ctx: ctx, cancel: cancel}
}

// Context is the context loops under the scope run with.
func (sc *Scope) Context() context.Context { return sc.ctx }

// Aborted reports whether the scope was aborted.
func (sc *Scope) Aborted() bool { return sc.aborted }

// Bind wires kill to the scope: it runs when the scope is aborted, or at
// once when the scope already was, so a stream spawned across an abort is
// still killed.
func (sc *Scope) Bind(kill func()) {
	if sc.aborted {
		kill()
		return
	}
	sc.kills = append(sc.kills, kill)
}

// Abort aborts the scope: its context is cancelled and every bound kill
// runs, once.
func (sc *Scope) Abort() {
	if sc.aborted {
		return
	}
	sc.aborted = true
	sc.cancel()
	for _, k := range sc.kills {
		k()
	}
}

// Renew returns the scope to use from now on: sc itself while it is live,
// a fresh one once sc was aborted.
func (sc *Scope) Renew() *Scope {
	if !sc.aborted {
		return sc
	}
	return NewScope()
}
