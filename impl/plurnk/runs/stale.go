package runs

import (
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// OutcomeRejected is the outcome of a rejected proposal, the one server
// yolo gives a stale-clobber EDIT.
const OutcomeRejected = "rejected"

// editOp is the engine's Edit hook (§dual-yolo-stale-clobber-reject). A
// model's file EDIT in a loop under server yolo is a proposal yolo accepts
// at once, which the op engine then applies; but when the target changed
// on disk since the model's last turn (Config.StaleClobber), yolo rejects
// it instead: the EDIT row fails at 400 with outcome rejected, as any
// rejected proposal does, nothing is written, and loop/proposal announces
// it with attrs.staleClobberRisk. Anything else is left to the op engine.
func (s *Service) editOp(a ops.Actor, st dsl.Statement) (ops.Result, bool) {
	sess, ok := s.sessions[a.Session.ID]
	if !ok || a.Writer != scheme.WriterModel || st.Target == nil {
		return ops.Result{}, false
	}
	r := sess.runs[a.Run.Name]
	yolo := s.cfg.Yolo || (r != nil && r.yolo[a.Loop])
	if !yolo || !s.cfg.StaleClobber(a.Session.ID, st.Target.Path) {
		return ops.Result{}, false
	}
	row := &store.LogRow{Loop: a.Loop, Turn: a.Turn, Op: string(dsl.OpEdit), Origin: string(a.Writer), Target: st.Target.String(),
		Status: 400, Reason: OutcomeRejected, Expanded: true, Mimetype: "text/plain", Tx: dsl.Format(st)}
	s.appendRow(a.Session, a.Run, row)
	body := ""
	if st.Body != nil {
		body = *st.Body
	}
	ev := Event{Kind: KindProposal, Session: a.Session.ID, RunID: a.Run.ID, Run: a.Run.Name, LoopSeq: a.Loop, Turn: a.Turn,
		Status: 400, RowID: row.ID, Target: row.Target, Body: body, Yolo: true, Op: string(dsl.OpEdit), StaleClobberRisk: true}
	if a.Loop >= 1 && a.Loop <= len(a.Run.Loops) {
		ev.LoopID = a.Run.Loops[a.Loop-1].ID
	}
	s.emit(ev)
	return ops.Result{Status: 400, Reason: OutcomeRejected, Row: *row}, true
}
