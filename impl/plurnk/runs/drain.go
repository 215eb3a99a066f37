package runs

import (
	"fmt"

	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
)

// enqueue queues w on r and starts r's drain unless it holds its slot
// already (§run-lifecycle-no-lost-loop: enqueue and the drain's exit both
// happen under s.mu, so a queued item is always claimed). s.mu is held.
func (s *Service) enqueue(r *Run, w work) {
	r.queue = append(r.queue, w)
	r.poll = nil // a poll armed before finds itself disowned when it fires (parked)
	if r.draining {
		return
	}
	r.draining = true
	r.drained++
	if r.started > 0 {
		r.twice = true
	}
	r.started++
	s.drains++
	if s.cfg.Go != nil {
		s.cfg.Go(func() { s.drain(r) })
		return
	}
	go s.drain(r)
}

// drain is a run's one loop worker. It runs queued work until, holding
// s.mu, it finds the queue empty; only then does it give up the slot.
func (s *Service) drain(r *Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(r.queue) > 0 {
			s.runWork(r)
		}
		if s.cfg.Teardown != nil {
			// The test seam: let the world move between "the queue
			// looks empty" and the confirmation below.
			s.mu.Unlock()
			s.cfg.Teardown(r.sess.store.ID, r.store.Name)
			s.mu.Lock()
		}
		s.claimOwed(r)
		if len(r.queue) == 0 {
			break
		}
	}
	// Confirmed under the lock: the queue is empty, the slot goes.
	r.draining = false
	r.started--
	s.drains--
	s.drainExit(r)
	s.idle.Broadcast()
}

// claimOwed turns an event owed to r into queued work when its drain has
// run out of work: an event that found the drain busy after its last loop
// had already come back (a wake, a stream conclusion or a child's
// conclusion while the drain was giving up its slot) resumes the parked
// loop, or opens a loop for a message waiting in the inbox. s.mu is held.
func (s *Service) claimOwed(r *Run) {
	if !r.owed || len(r.queue) > 0 {
		return
	}
	message := r.message
	r.owed, r.message = false, false
	if r.cancelled {
		return
	}
	switch l := r.latest(); {
	case l != nil && l.Status == engine.StatusParked:
		r.queue = append(r.queue, work{resume: l})
	case message && len(r.inbox) > 0:
		r.queue = append(r.queue, work{})
	}
}

// runWork runs r's next queued item through the engine. s.mu is held.
func (s *Service) runWork(r *Run) {
	w := r.queue[0]
	r.queue = r.queue[1:]
	if w.explicit && r.scope.Aborted() {
		// A loop.run kept queued through a loop.cancel: the cancel
		// ended the loop before it, not this one.
		r.scope = r.scope.Renew()
		r.cancelled = false
	}
	ctx := r.scope.Context()
	req := engine.Request{Session: r.sess.store, Run: r.store, Prompt: w.prompt, MaxTurns: w.maxTurns, Resume: w.resume,
		Client: r.sess.settings.Client, Alias: w.alias, MaxCommands: r.sess.settings.MaxCommands, Docs: r.sess.settings.Docs}
	req.Begun = func(l *store.Loop) {
		if w.resume == nil {
			r.yolo[l.Seq] = w.yolo
		} else if w.yolo {
			r.yolo[l.Seq] = true
		}
		if w.begun != nil {
			w.begun(l)
		}
	}
	if w.resume != nil {
		if w.resume.Status != engine.StatusParked {
			// The loop was closed (a KILL) while the resume waited.
			return
		}
		r.current = w.resume
	}
	r.running = true
	res, err := s.eng.Run(ctx, req)
	r.running, r.current = false, nil
	s.quiet()
	if err != nil {
		// engine.Run refuses only requests the drain never makes (no
		// session or run; a resume of a loop that is not parked, ruled
		// out above): nothing was begun, so nothing is announced.
		return
	}
	s.afterLoop(r, res)
}

// afterLoop disposes of a loop the engine returned: a terminal loop is
// collected by the sisters and announced; a parked one resumes at once if
// an event is owed, else arms its poll and may announce quiescence.
func (s *Service) afterLoop(r *Run, res engine.Result) {
	// An abort (KILL of run://, loop.cancel) lands only while the engine
	// has yielded s.mu (generate, a paused dispatch) or from the loop's
	// own dispatch; the engine checks the run's context right after each,
	// so an aborted loop always comes back terminal (499) with a reason.
	l := res.Loop
	if engine.Terminal(l.Status) {
		res.Status = l.Status
		s.closed(r, l, res.Reason, &res)
		if len(r.inbox) > 0 && r.message && !r.cancelled {
			// A message aimed at the run landed after its last turn: it
			// opens the next loop rather than being lost.
			r.owed, r.message = false, false
			r.queue = append(r.queue, work{})
		}
		return
	}
	if l.Status != engine.StatusParked {
		return
	}
	if r.owed {
		r.owed, r.message = false, false
		r.queue = append(r.queue, work{resume: l})
		return
	}
	s.parked(r, l, &res)
}

// parked arms the poll of a loop parked at 202 and, when nothing live is
// left beneath it, emits loop/quiesced (§run-lifecycle-quiesced,
// §exec-poll).
func (s *Service) parked(r *Run, l *store.Loop, res *engine.Result) {
	ss := r.sess.store
	if p, ok := s.streams.PollCadence(ss, r.store.Name); ok {
		var t clock.Timer
		t = s.cfg.Clock.AfterFunc(p, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			// Work enqueued since the loop parked took this timer out of
			// r.poll under s.mu, so a poll that fires after it resumes
			// nothing; after an abort the resume finds its loop closed
			// and is skipped (runWork).
			if r.poll == t {
				s.enqueue(r, work{resume: l})
			}
		})
		r.poll = t
	}
	if len(s.liveUnder(r)) == 0 {
		s.emit(Event{Kind: KindQuiesced, Session: ss.ID, RunID: r.store.ID, Run: r.store.Name, LoopID: l.ID, LoopSeq: l.Seq, Status: engine.StatusParked, Result: res})
	}
}

// closed announces a terminal loop and hands its deliverable to every
// sister as a folded SEND delta from run://<name> (§run-scheme-collect).
func (s *Service) closed(r *Run, l *store.Loop, reason string, res *engine.Result) {
	deliverable := reason
	if l.Status == engine.StatusDone {
		deliverable = ""
		for i := len(r.store.Log) - 1; i >= 0; i-- {
			row := r.store.Log[i]
			if row.Loop == l.Seq && row.Op == "SEND" && row.Status == engine.StatusDone && row.Origin == string(scheme.WriterModel) {
				deliverable = row.Content
				break
			}
		}
	}
	from := "run://" + r.store.Name
	for _, sis := range r.sess.order {
		if sis == r || sis.store.Name == store.PlurnkRun {
			continue
		}
		sis.inbox = append(sis.inbox, &store.LogRow{Op: "SEND", Origin: string(scheme.WriterPlurnk), Target: from, Status: l.Status,
			Expanded: false, Content: deliverable, Mimetype: "text/markdown", Reason: fmt.Sprintf("loop %d of %s ended %d", l.Seq, from, l.Status)})
	}
	s.emit(Event{Kind: KindTerminated, Session: r.sess.store.ID, RunID: r.store.ID, Run: r.store.Name, LoopID: l.ID, LoopSeq: l.Seq, Status: l.Status, Reason: reason, Result: res})
}

// drainExit runs when r's drain has given up its slot. A run that has
// concluded (no loop parked, no open stream) wakes its parked parent in
// place; the parent's own drain exit carries the wake further up
// (§run-lifecycle-child-wake).
func (s *Service) drainExit(r *Run) {
	if r.parent == nil || !s.concludedRun(r) {
		return
	}
	p := r.parent
	if p.draining {
		p.owed = true
		return
	}
	if l := p.latest(); l != nil && l.Status == engine.StatusParked && len(p.queue) == 0 {
		s.enqueue(p, work{resume: l})
	}
}

func (s *Service) concludedRun(r *Run) bool {
	if r.draining || len(r.queue) > 0 {
		return false
	}
	if l := r.latest(); l == nil || !engine.Terminal(l.Status) {
		return false
	}
	return len(s.streams.Open(r.sess.store, r.store.Name)) == 0
}

// inject delivers row to r as an event aimed at it
// (§actor-boundary-passive-wake). s.mu is held.
func (s *Service) inject(r *Run, row *store.LogRow) {
	r.inbox = append(r.inbox, row)
	s.wake(r)
}

// wake is an event aimed at r: a running loop sees it in its next turn (or
// is resumed if it parks first), a parked loop is resumed in place, an
// idle run starts a loop.
func (s *Service) wake(r *Run) {
	r.cancelled = false
	r.scope = r.scope.Renew()
	switch l := r.latest(); {
	case r.draining || len(r.queue) > 0:
		r.owed, r.message = true, true
	case l != nil && l.Status == engine.StatusParked:
		s.enqueue(r, work{resume: l})
	default:
		s.enqueue(r, work{})
	}
}

// concluded routes a stream conclusion to its run
// (§run-lifecycle-wake-liveness, §run-lifecycle-no-resurrection).
func (s *Service) concluded(r *Run, st exec.Stream) {
	ev := Event{Kind: KindConcluded, Session: r.sess.store.ID, RunID: r.store.ID, Run: r.store.Name, Status: st.Status,
		Target: st.Key.String(), RowID: st.EntryID, Runtime: st.Runtime, Body: summary(st), Signal: st.Signal, ExitCode: st.ExitCode}
	if r.cancelled && !r.draining && len(r.queue) == 0 {
		ev.WakeAction = WakeSkippedCancelled
		if st.Status == exec.StatusKilled {
			ev.WakeAction = WakeSkippedAborted
			s.emit(ev)
			return
		}
		// A clean straggler's deliverable waits as a folded delta for
		// the next loop an explicit loop.run starts; it wakes nothing.
		r.inbox = append(r.inbox, &store.LogRow{Op: "SEND", Origin: string(scheme.WriterPlurnk), Target: st.Key.String(),
			Status: st.Status, Expanded: false, Content: summary(st) + "\n", Reason: "stream concluded after the run was cancelled", Mimetype: "text/plain"})
		s.emit(ev)
		return
	}
	switch l := r.latest(); {
	case r.draining || len(r.queue) > 0:
		r.owed = true
		ev.WakeAction = WakeActiveLoop
		if cur := r.current; cur != nil {
			ev.LoopID = cur.ID
		} else if l != nil && !engine.Terminal(l.Status) {
			ev.LoopID = l.ID
		}
	case l != nil && l.Status == engine.StatusParked:
		ev.WakeAction, ev.LoopID = WakeResumed, l.ID
		s.enqueue(r, work{resume: l})
	default:
		ev.WakeAction = WakeNoLoop
	}
	s.emit(ev)
	s.drainExit(r) // a run still draining or queued has not concluded
}

// terminate ends r (KILL of run://<name>, loop.cancel): the running loop
// closes 499 at its next step, a parked loop closes 499 now, queued work
// is dropped, and its streams, proposals and poll are torn down. It
// reports whether a loop was running, queued or parked.
func (s *Service) terminate(r *Run, reason string) bool {
	return s.abort(r, reason, false)
}

// abort is terminate; keep leaves the loops a client queued with
// loop.run in the queue (loop.cancel aborts the active drain only,
// §methods-loop-cancel): each starts afresh once the aborted loop is
// closed.
func (s *Service) abort(r *Run, reason string, keep bool) bool {
	hit := r.draining || len(r.queue) > 0
	var kept []work
	for _, w := range r.queue {
		if keep && w.explicit && w.resume == nil {
			kept = append(kept, w)
			continue
		}
	}
	r.queue = kept
	r.cancelled = true
	r.owed, r.message = false, false
	r.scope.Abort() // kills every stream the run spawned: each is bound to its scope
	for id, pe := range s.pending {
		if pe.run == r {
			if p, err := s.proposals.Resolve(id, exec.Cancel, "loop_aborted"); err == nil {
				s.settled(id, p)
			}
		}
	}
	if r.running {
		return true
	}
	if l := r.latest(); l != nil && !engine.Terminal(l.Status) {
		l.Status = engine.StatusCancelled
		s.closed(r, l, reason, nil)
		s.drainExit(r)
		return true
	}
	return hit
}

// live is the engine's Live hook: the children whose loop is queued but
// not begun, the pending host EXEC proposals.
func (s *Service) live(ss *store.Session, sr *store.Run) []string {
	sess, ok := s.sessions[ss.ID]
	if !ok {
		return nil
	}
	var out []string
	for _, c := range sess.order {
		if c.parent != nil && c.parent.store == sr && (c.draining || len(c.queue) > 0) {
			out = append(out, "run://"+c.store.Name)
		}
	}
	for _, pe := range s.pending {
		if pe.run.store == sr {
			out = append(out, "proposal "+pe.row.Coord())
		}
	}
	return out
}

// liveUnder lists what r still holds live: open streams, pending
// proposals, and children not yet terminal.
func (s *Service) liveUnder(r *Run) []string {
	var out []string
	for _, st := range s.streams.Open(r.sess.store, r.store.Name) {
		out = append(out, st.Key.String())
	}
	out = append(out, s.live(r.sess.store, r.store)...)
	for _, c := range r.sess.order {
		if c.parent == r && c.active() {
			out = append(out, "run://"+c.store.Name)
		}
	}
	return out
}

// summary is a one-line account of a concluded stream, for display.
func summary(st exec.Stream) string {
	switch st.Status {
	case exec.StatusClean:
		return fmt.Sprintf("%s exited with code %d", st.Command, st.ExitCode)
	case exec.StatusTimedOut:
		return fmt.Sprintf("%s stopped at its time limit", st.Command)
	case exec.StatusKilled:
		return fmt.Sprintf("%s was killed", st.Command)
	}
	return fmt.Sprintf("%s failed: %s", st.Command, st.Reason)
}
