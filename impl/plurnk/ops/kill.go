package ops

import (
	"fmt"
	"slices"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// kill deletes the target: with a fragment, that channel only; without,
// the whole entry (200; 404 when the entry or the channel is absent). On
// log:/// it deletes the run's own rows (killRows). A live stream behind the
// target is not deleted: its process gets the KILL's signal (killStream).
// A scheme that fronts live state (scheme.Controller) sees the KILL next.
func (e *Engine) kill(c scheme.Call, st dsl.Statement) (Result, error) {
	r, err := e.resolve(st)
	if err != nil {
		return Result{}, err
	}
	if r.Key.Scheme == "log" {
		return e.killRows(c, st, r)
	}
	code, _ := st.Status()
	if res, ok, err := e.killStream(c, r, code); ok || err != nil {
		return res, err
	}
	if res, ok, err := control(c, r, st.Op, code); ok || err != nil {
		return res, err
	}
	return e.remove(c, st, r)
}

// stopStream routes a SEND[499] on a streaming entry (an output entry or
// its exec:// face) through the subscription registry to the scheme holding
// the stream (§subscriptions-subscription-registry-routes-cancellation): a
// live stream is torn down (it ends 499 once its process is gone) and the
// action answers 200. It reports false when no live stream is behind the
// target.
func (e *Engine) stopStream(c scheme.Call, r scheme.Resolved) (Result, bool, error) {
	stopped, err := e.Schemes.CancelStream(c.Tx.Session, r.Key)
	if err != nil {
		return Result{}, true, fail(500, "%v", err)
	}
	if !stopped {
		return Result{}, false, nil
	}
	return Result{Status: 200, Target: target(r), Stopped: true}, true, nil
}

// killStream routes a KILL[code] on a streaming entry the same way: the
// process of a live stream gets exactly that signal, a bare KILL SIGHUP
// (§run-lifecycle-total-reap), and the action answers 200 with the signal
// it sent. A number that names no signal answers 400 and sends nothing. It
// reports false when no live stream is behind the target.
func (e *Engine) killStream(c scheme.Call, r scheme.Resolved, code int) (Result, bool, error) {
	sig, live, err := e.Schemes.KillStream(c.Tx.Session, r.Key, code)
	if err != nil {
		return Result{}, true, fail(scheme.StatusOf(err), "%v", err)
	}
	if !live {
		return Result{}, false, nil
	}
	return Result{Status: 200, Target: target(r), Content: "sent " + sig, Mimetype: "text/plain", Stopped: true}, true, nil
}

// send dispatches a directed SEND at an entry. SEND[410] deletes, exactly
// as KILL does (the channel with a fragment, else the entry; log rows on
// log:///). Any other status goes to a scheme that fronts live state
// (scheme.Controller: SEND[499] cancels an exec stream) and otherwise
// answers 501. A SEND without a target (the turn's disposition) and a SEND
// to run://<name> belong to the engine loop, not to the entry engine: 501.
func (e *Engine) send(c scheme.Call, st dsl.Statement) (Result, error) {
	if st.Target == nil {
		return Result{}, fail(501, "a SEND without a target is the turn's disposition, handled by the engine loop")
	}
	if _, ok := st.Target.RunName(); ok {
		return Result{}, fail(501, "SEND to a run is handled by the engine loop")
	}
	r, err := e.resolve(st)
	if err != nil {
		return Result{}, err
	}
	code, ok := st.Status()
	if ok && code == 410 {
		if r.Key.Scheme == "log" {
			return e.killRows(c, st, r)
		}
		return e.remove(c, st, r)
	}
	if ok && code == 499 {
		if res, stopped, err := e.stopStream(c, r); stopped || err != nil {
			return res, err
		}
		if e.Schemes.HoldsStreams(r.Key.Scheme) {
			return Result{Status: 304, Target: target(r), Reason: "no live stream to cancel"}, nil
		}
	}
	if res, handled, err := control(c, r, st.Op, code); handled || err != nil {
		return res, err
	}
	return Result{}, fail(501, "SEND[%d] to a %s:// entry is not defined: SEND[410] deletes, SEND[499] belongs to the streaming scheme that holds the subscription", code, r.Key.Scheme)
}

// control hands a KILL or SEND to a scheme that implements
// scheme.Controller. It reports whether the scheme answered.
func control(c scheme.Call, r scheme.Resolved, op dsl.Op, code int) (Result, bool, error) {
	ctl, ok := r.Handler.(scheme.Controller)
	if !ok {
		return Result{}, false, nil
	}
	status, err := ctl.Control(c, r.Key, r.Channel, op, code)
	if err != nil {
		return Result{}, true, fail(scheme.StatusOf(err), "%s %s: %v", op, r.Key, err)
	}
	if status == 0 {
		return Result{}, false, nil
	}
	if status >= 400 {
		return Result{}, true, fail(status, "%s %s answered %d", op, r.Key, status)
	}
	return Result{Status: status, Target: target(r)}, true, nil
}

// remove deletes the resolved entry, or its named channel.
func (e *Engine) remove(c scheme.Call, st dsl.Statement, r scheme.Resolved) (Result, error) {
	m := r.Handler.Manifest()
	if !m.Writable(c.Writer) {
		return Result{}, fail(403, "%s may not delete %s:// entries", c.Writer, m.Name)
	}
	if err := guard(c, r); err != nil {
		return Result{}, err
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

// SubscribeStreams records c as the holder of the live streams of each
// runtime's exec scheme that is registered, and of the exec:// face of
// their spawns, so the model's SEND[499] and KILL on either reach it. The
// service calls it once at start.
func (e *Engine) SubscribeStreams(runtimes []string, c scheme.Canceller) {
	for _, rt := range append(slices.Clone(runtimes), scheme.SpawnScheme) {
		if _, ok := e.Schemes.Handler(rt); ok {
			_ = e.Schemes.Subscribe(rt, c)
		}
	}
}

// Reconcile is the per-turn pass over schemes whose entries change outside
// plurnk (scheme.Reconciler: the file scheme under a membership): each
// outside change is written into the session's plurnk run at loop/turn as
// a folded EDIT row (§membership-emi-divergence-signal). It returns the
// rows written.
func (e *Engine) Reconcile(ss *store.Session, loop, turn int) ([]store.LogRow, error) {
	pr, err := ss.Run(store.PlurnkRun)
	if err != nil {
		return nil, fmt.Errorf("reconcile: %w", err)
	}
	var out []store.LogRow
	err = e.Store.Update(ss, func(tx *store.Tx) error {
		c := scheme.Call{Tx: tx, Run: pr, Writer: scheme.WriterPlurnk}
		for _, name := range e.Schemes.Names() {
			h, _ := e.Schemes.Handler(name)
			rc, ok := h.(scheme.Reconciler)
			if !ok {
				continue
			}
			rows, err := rc.Changes(c)
			if err != nil {
				return fmt.Errorf("reconcile %s: %w", name, err)
			}
			for _, row := range rows {
				row.Loop, row.Turn, row.Seq, row.Expanded = loop, turn, nextSeq(pr, loop, turn), false
				row.Tx = "EDIT(" + row.Target + ")"
				tx.AppendLog(pr, &row)
				out = append(out, row)
			}
		}
		return nil
	})
	return out, err
}

// GitSection renders the packet's git section for ss from every scheme
// that reports one (scheme.GitReporter: the file scheme under a
// membership), in scheme order.
func (e *Engine) GitSection(ss *store.Session) (string, error) {
	var b strings.Builder
	for _, name := range e.Schemes.Names() {
		h, _ := e.Schemes.Handler(name)
		g, ok := h.(scheme.GitReporter)
		if !ok {
			continue
		}
		s, err := g.GitSection(ss.ID)
		if err != nil {
			return "", fmt.Errorf("git section of %s: %w", name, err)
		}
		b.WriteString(s)
	}
	return b.String(), nil
}
