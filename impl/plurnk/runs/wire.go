package runs

import (
	"fmt"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// foist is the engine's Foist hook: at the start of a turn it writes what
// waits for the run (injected messages, deltas), its scratch catalog on a
// new loop's turn 0, and each EXEC stream's output past the run's cursors
// as an origin=plurnk READ, folded while the channel streams and open once
// it has closed (§exec-stream).
func (s *Service) foist(a ops.Actor) {
	sess, ok := s.sessions[a.Session.ID]
	if !ok {
		return
	}
	r, ok := sess.runs[a.Run.Name]
	if !ok {
		return
	}
	r.owed, r.message = false, false
	inbox := r.inbox
	r.inbox = nil
	for _, row := range inbox {
		row.Loop, row.Turn = a.Loop, a.Turn
		s.appendRow(a.Session, a.Run, row)
	}
	if a.Turn == 0 {
		if list, err := s.find(a.Session, a.Run.Name, "/**"); err == nil && len(list) > 0 {
			s.appendRow(a.Session, a.Run, &store.LogRow{Loop: a.Loop, Turn: 0, Op: "FIND", Origin: string(scheme.WriterPlurnk),
				Target: "run:///**", Status: 200, Expanded: true, Content: strings.Join(list, "\n") + "\n", Mimetype: "text/plain", Tx: "FIND(run:///**)"})
		}
	}
	for _, row := range a.Run.Log {
		if row.Op != string(dsl.OpExec) || row.Status != 102 || !strings.Contains(row.Target, ":///") {
			continue
		}
		rt, _, _ := strings.Cut(row.Target, ":///")
		e := a.Session.Entry(scheme.ExecKey(rt, row.Loop, row.Turn, row.Seq))
		if e == nil {
			continue
		}
		for _, sf := range r.cursors.Next(e) {
			s.appendRow(a.Session, a.Run, &store.LogRow{Loop: a.Loop, Turn: a.Turn, Op: "READ", Origin: string(scheme.WriterPlurnk),
				Target: sf.Target, Status: 200, Expanded: !sf.Folded, Content: sf.Numbered, Mimetype: "text/plain",
				Reason: fmt.Sprintf("lines %d-%d, %s", sf.StartLine, sf.StartLine+sf.Lines-1, sf.State),
				Tx:     fmt.Sprintf("READ(%s)<%d>", sf.Target, sf.StartLine)})
		}
	}
}

// after is the engine's After hook: a change to a shared entry reaches
// every sister as a folded delta attributed to the writer, waiting for its
// next turn and waking nobody (§actor-boundary-passive-wake).
//
// Once the op is recorded the store is between writes: the Quiet hook runs,
// so the daemon announces each op's writes to the log as they happen
// (§notifications-log-entry-notify).
func (s *Service) after(a ops.Actor, st dsl.Statement, res ops.Result) {
	defer s.quiet()
	if res.Stopped {
		// The model's SEND[499] or KILL stopped a stream: a process
		// that ended at once is seen as ended from now on, after the
		// op's row.
		s.apply()
		return
	}
	switch st.Op {
	case dsl.OpEdit, dsl.OpCopy, dsl.OpMove, dsl.OpKill:
	default:
		return
	}
	if res.Status >= 300 || strings.HasPrefix(res.Target, "log://") {
		return
	}
	sess, ok := s.sessions[a.Session.ID]
	if !ok {
		return
	}
	for _, sis := range sess.order {
		if sis.store == a.Run || sis.store.Name == store.PlurnkRun {
			continue
		}
		sis.inbox = append(sis.inbox, &store.LogRow{Op: string(st.Op), Origin: string(scheme.WriterPlurnk), Target: res.Target,
			Status: res.Status, Expanded: false, Reason: "by run://" + a.Run.Name, Tx: dsl.Format(st)})
	}
}

// execOp is the engine's Exec hook (§exec-host-proposes,
// §exec-readpure-ungated): it records the EXEC row, its command fenced and
// numbered, at the op's coordinate, and dispatches: a host runtime waits
// for its proposal (202, or 102 at once under yolo), a read or pure one
// spawns at once (102); the output never returns in this turn.
func (s *Service) execOp(a ops.Actor, st dsl.Statement) ops.Result {
	r := s.sessions[a.Session.ID].runs[a.Run.Name]
	row := &store.LogRow{Loop: a.Loop, Turn: a.Turn, Op: string(dsl.OpExec), Origin: string(a.Writer), Expanded: true, Mimetype: "text/plain", Tx: dsl.Format(st)}
	req, err := exec.RequestOf(st)
	if err != nil {
		row.Status, row.Reason = 400, err.Error()
		s.appendRow(a.Session, a.Run, row)
		return ops.Result{Status: 400, Reason: err.Error(), Row: *row}
	}
	s.appendRow(a.Session, a.Run, row)
	req.Run, req.Loop, req.Turn, req.Seq = a.Run.Name, a.Loop, a.Turn, row.Seq
	req.Dir, req.Env = s.cfg.Dir, s.cfg.Env
	row.Target = scheme.ExecKey(req.Runtime, a.Loop, a.Turn, row.Seq).String()
	row.Content = fence(req.Runtime, req.Command)
	sc := r.scope
	if s.cfg.Registering != nil {
		s.mu.Unlock()
		s.cfg.Registering(a.Session.ID, a.Run.Name, row.Target)
		s.mu.Lock()
	}
	pe := &pendingExec{run: r, row: row, req: req, scope: sc}
	s.pending[row.ID] = pe
	yolo := s.cfg.Yolo || r.yolo[a.Loop]
	status, err := exec.Dispatch(s.streams, s.proposals, a.Session, req, row.ID, yolo)
	if status != 202 {
		delete(s.pending, row.ID)
	}
	row.Status = status
	if err != nil {
		row.Reason, row.Expanded = err.Error(), false
	}
	_, proposed := s.proposals.Get(row.ID)
	if status == 202 || (proposed && yolo) {
		// Under yolo the proposal was accepted in process; the session
		// still hears of it, with the flags that accepted it.
		ev := Event{Kind: KindProposal, Session: a.Session.ID, RunID: a.Run.ID, Run: a.Run.Name, LoopSeq: a.Loop, Turn: a.Turn,
			Status: 202, RowID: row.ID, Target: row.Target, Body: req.Command, Yolo: yolo}
		if a.Loop >= 1 && a.Loop <= len(a.Run.Loops) {
			ev.LoopID = a.Run.Loops[a.Loop-1].ID
		}
		s.emit(ev)
	}
	if status == 102 {
		s.bind(pe)
	}
	if status == 202 {
		// Dispatch pauses until the proposal is resolved: the rest of the
		// emission waits, and the op answers the resolved status.
		s.await(pe)
		status = row.Status
	}
	return ops.Result{Status: status, Target: row.Target, Reason: row.Reason, Row: *row}
}

// await pauses the drain that dispatched pe until its proposal settles
// (loop.resolve, the timeout, or a cancel of the run), giving up the
// service lock meanwhile; a paused drain counts as quiet for Wait
// (§proposal-202-pauses). s.mu is held.
func (s *Service) await(pe *pendingExec) {
	if pe.settled {
		return
	}
	pe.paused = true
	s.paused++
	s.idle.Broadcast()
	// No Quiet hook here: both callers have just emitted the proposal's
	// event, which announced every row written before it, and every other
	// writer calls the hook before it gives up the lock.
	for !pe.settled {
		s.resumed.Wait()
	}
}

// bind wires a spawned stream's kill to the scope its run had when the
// EXEC was issued, re-checking the abort after wiring
// (§run-lifecycle-exec-epoch-bound).
func (s *Service) bind(pe *pendingExec) {
	key := scheme.ExecKey(pe.req.Runtime, pe.req.Loop, pe.req.Turn, pe.req.Seq)
	ss := pe.run.sess.store
	pe.scope.Bind(func() { _ = s.streams.Cancel(ss, key) })
}

// settled records a proposal's resolution on its EXEC row.
func (s *Service) settled(id int64, p exec.Proposal) {
	pe, ok := s.pending[id]
	if !ok {
		return
	}
	delete(s.pending, id)
	pe.settled = true
	if pe.paused {
		pe.paused = false
		s.paused--
		s.resumed.Broadcast()
	}
	if pe.edit != nil {
		s.settledEdit(pe, p)
		return
	}
	switch p.State {
	case exec.Resolved:
		pe.row.Status = 102
		s.bind(pe)
	default:
		pe.row.Status, pe.row.Reason = p.Status, p.Outcome
	}
}

// fence renders a command as the EXEC row shows it: between a
// `:::<runtime>` line and a `:::` line, each line `N:\t`-numbered.
func fence(runtime, command string) string {
	return ":::" + runtime + "\n" + numbered(command) + ":::\n"
}
