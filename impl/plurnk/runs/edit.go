package runs

import (
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// OutcomeRejected is the outcome of a rejected proposal, the one server
// yolo gives a stale-clobber EDIT.
const OutcomeRejected = "rejected"

// OutcomeWriteConflict is the outcome of an accepted EDIT proposal whose
// file changed on disk between the proposal and the accept: nothing is
// written (§membership-edit-write-cas).
const OutcomeWriteConflict = "write_conflict"

// pendingEdit is what an EDIT proposal applies once accepted.
type pendingEdit struct {
	actor ops.Actor
	st    dsl.Statement
	sig   string     // the file on disk when the EDIT was proposed
	res   ops.Result // the apply's outcome, once accepted
}

// editOp is the engine's Edit hook: a model's EDIT of a workspace file is
// egress to disk, and so a proposal (the seed: ingestion is the inverse of
// an EDIT, which proposes egress to disk, §membership-edit-membership-gate).
//
//   - A write the membership refuses (an existing non-member, a view
//     member: 403; a member changed on disk since plurnk last synced it:
//     400) is proposed to nobody: it is left to the op engine, which
//     refuses it with its own row.
//   - Under yolo (the server's, or the loop's flags.yolo) the proposal is
//     accepted at once and the EDIT applies as a direct one, with its own
//     status; loop/proposal still announces it, with flags.yolo. But when
//     the target changed on disk since the model's last turn (its sync
//     pass reported it, Config.StaleClobber), yolo rejects it instead: the
//     row fails at 400 with outcome rejected, nothing is written
//     (§dual-yolo-stale-clobber-reject).
//   - Otherwise the EDIT row is written at 202, the session hears
//     loop/proposal, and dispatch pauses until loop.resolve, the timeout or
//     a cancel settles it (§proposal-202-pauses). Accepted, the write is
//     applied then — refused with write_conflict when the file changed on
//     disk since the proposal — and the row is resolved at 200; rejected,
//     it is 400 and nothing is written.
func (s *Service) editOp(a ops.Actor, st dsl.Statement) (ops.Result, bool) {
	sess, ok := s.sessions[a.Session.ID]
	if !ok || a.Writer != scheme.WriterModel || st.Target == nil || s.cfg.FileEdit == nil {
		return ops.Result{}, false
	}
	res, err := s.eng.Ops.Schemes.Resolve(*st.Target)
	if err != nil || res.Key.Scheme != "file" {
		return ops.Result{}, false
	}
	sig, gate := s.cfg.FileEdit(a.Session.ID, res.Key.Path)
	if gate != nil {
		return ops.Result{}, false
	}
	r := sess.runs[a.Run.Name]
	yolo := s.cfg.Yolo || (r != nil && r.yolo[a.Loop])
	body := ""
	if st.Body != nil {
		body = *st.Body
	}
	if yolo {
		if s.cfg.StaleClobber != nil && s.cfg.StaleClobber(a.Session.ID, res.Key.Path) {
			row := &store.LogRow{Loop: a.Loop, Turn: a.Turn, Op: string(dsl.OpEdit), Origin: string(a.Writer), Target: st.Target.String(),
				Status: 400, Reason: OutcomeRejected, Expanded: true, Mimetype: "text/plain", Tx: dsl.Format(st)}
			s.appendRow(a.Session, a.Run, row)
			s.emit(s.editProposal(a, row, body, true, 400, true))
			return ops.Result{Status: 400, Reason: OutcomeRejected, Row: *row}, true
		}
		out := s.eng.Do(a, st)
		s.emit(s.editProposal(a, &out.Row, body, true, 202, false))
		s.after(a, st, out)
		return out, true
	}
	row := &store.LogRow{Loop: a.Loop, Turn: a.Turn, Op: string(dsl.OpEdit), Origin: string(a.Writer), Target: st.Target.String(),
		Status: 202, Expanded: true, Mimetype: "text/plain", Tx: dsl.Format(st)}
	s.appendRow(a.Session, a.Run, row)
	pe := &pendingExec{run: r, row: row, edit: &pendingEdit{actor: a, st: st, sig: sig}}
	s.pending[row.ID] = pe
	if _, err := s.proposals.Propose(exec.Proposal{ID: row.ID, Op: string(dsl.OpEdit), Target: row.Target, Body: body}, func() (int, string) {
		return s.applyEdit(pe.edit, res.Key.Path)
	}); err != nil {
		delete(s.pending, row.ID)
		row.Status, row.Reason, row.Expanded = 500, err.Error(), false
		return ops.Result{Status: 500, Reason: row.Reason, Row: *row}, true
	}
	s.emit(s.editProposal(a, row, body, false, 202, false))
	s.await(pe)
	out := pe.edit.res
	out.Status, out.Reason, out.Target, out.Row = row.Status, row.Reason, row.Target, *row
	if row.Status < 400 {
		s.after(a, st, out)
	}
	return out, true
}

// applyEdit is an accepted EDIT proposal's effect (s.mu is held): the file
// must be as it was when the EDIT was proposed, else nothing is written
// (write_conflict); a write the op engine refuses turns the accept into a
// reject carrying its reason.
func (s *Service) applyEdit(pe *pendingEdit, p string) (int, string) {
	if sig, _ := s.cfg.FileEdit(pe.actor.Session.ID, p); sig != pe.sig {
		return 400, OutcomeWriteConflict
	}
	pe.res = s.eng.Ops.Apply(pe.actor, pe.st)
	if pe.res.Status >= 400 {
		return 400, pe.res.Reason
	}
	return pe.res.Status, ""
}

// editProposal is the loop/proposal event of an EDIT row.
func (s *Service) editProposal(a ops.Actor, row *store.LogRow, body string, yolo bool, status int, stale bool) Event {
	ev := Event{Kind: KindProposal, Session: a.Session.ID, RunID: a.Run.ID, Run: a.Run.Name, LoopSeq: a.Loop, Turn: a.Turn,
		Status: status, RowID: row.ID, Target: row.Target, Body: body, Yolo: yolo, Op: string(dsl.OpEdit), StaleClobberRisk: stale}
	if a.Loop >= 1 && a.Loop <= len(a.Run.Loops) {
		ev.LoopID = a.Run.Loops[a.Loop-1].ID
	}
	return ev
}

// settledEdit records an EDIT proposal's resolution on its row: accepted,
// the row is resolved at 200 and shows what the write produced; rejected,
// timed out or cancelled, it takes the proposal's status and outcome.
func (s *Service) settledEdit(pe *pendingExec, p exec.Proposal) {
	row := pe.row
	if p.State == exec.Resolved {
		res := pe.edit.res
		row.Status, row.Content, row.Mimetype, row.Span = 200, res.Content, res.Mimetype, res.Span
		if row.Mimetype == "" {
			row.Mimetype = "text/plain"
		}
		s.eng.Recount(row)
		return
	}
	row.Status, row.Reason = p.Status, p.Outcome
}
