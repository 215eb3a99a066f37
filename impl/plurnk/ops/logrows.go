package ops

import (
	"fmt"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// curate is OPEN (open = true) and FOLD: they flip the expanded bit of the
// acting run's own log rows (§machine-processes-run-is-its-log) — never
// anything of an entry, which carries no open/folded state, so aimed at
// any scheme but log:/// they answer 501.
//
// The rows are chosen as selectRows says. 200 when at least one row
// changed, 304 when every selected row already was in that state, 204 when
// a glob, tag or matcher selects no row, 404 when an exact coordinate names
// no row. Like every executed op, OPEN and FOLD record their own log row,
// whatever their status. Content lists the rows that changed, one log:///
// handle a line.
func (e *Engine) curate(c scheme.Call, st dsl.Statement, open bool) (Result, error) {
	r, err := e.resolve(st)
	if err != nil {
		return Result{}, err
	}
	if r.Key.Scheme != "log" {
		return Result{}, fail(501, "%s acts on log rows (log:///<loop>/<turn>/<seq>); %s:// entries carry no open or folded state", st.Op, r.Key.Scheme)
	}
	rows, res, err := e.selectRows(c, st, r)
	if err != nil || rows == nil {
		return res, err
	}
	var b strings.Builder
	for _, row := range rows {
		if c.Tx.SetExpanded(c.Run, row.ID, open) {
			fmt.Fprintf(&b, "log:///%s\n", row.Handle())
		}
	}
	res.Status, res.Content, res.Mimetype = 200, b.String(), "text/markdown"
	if b.Len() == 0 {
		res.Status, res.Content, res.Mimetype = 304, "", ""
	}
	return res, nil
}

// killRows deletes the acting run's own log rows chosen by selectRows
// (KILL, or SEND[410], on log:///): 200 with the deleted handles, one a
// line; 204 when a glob, tag or matcher selects none; 404 when an exact
// coordinate names no row.
func (e *Engine) killRows(c scheme.Call, st dsl.Statement, r scheme.Resolved) (Result, error) {
	rows, res, err := e.selectRows(c, st, r)
	if err != nil || rows == nil {
		return res, err
	}
	var b strings.Builder
	for _, row := range rows {
		if c.Tx.DeleteLog(c.Run, row.ID) {
			fmt.Fprintf(&b, "log:///%s\n", row.Handle())
		}
	}
	res.Status, res.Content, res.Mimetype = 200, b.String(), "text/markdown"
	return res, nil
}

// selectRows picks rows of the acting run's log for OPEN, FOLD and KILL.
// The target is one row (log:///L/T/S, or its handle log:///L/T/S/OP) or a
// path glob over the coordinates (log:///**, log:///1/2/*; a glob is tried
// against both the coordinate and the handle, so log:///**/READ selects
// the READ rows). Tags in the signal filter, and log rows carry none, so a
// tag selects nothing. A body is a matcher over each row's body (its
// result, or its statement when it returned none). <L> then keeps results
// N, or N to M, of what was selected, in log order.
//
// It returns nil rows with a finished result (204) when nothing is
// selected, and an error for 400, 404, 416 and 501.
func (e *Engine) selectRows(c scheme.Call, st dsl.Statement, r scheme.Resolved) ([]*store.LogRow, Result, error) {
	res := Result{Target: target(r)}
	if r.Named {
		return nil, res, fail(400, "log rows have no channels: drop #%s from %s", r.Channel, st.Target)
	}
	if c.Run == nil {
		return nil, res, fail(400, "%s on log:/// needs a run", st.Op)
	}
	matcher, err := e.compileBody(st)
	if err != nil {
		return nil, res, err
	}
	e.bind(c, matcher)
	var rows []*store.LogRow
	if isGlob(r.Key.Path) {
		g, err := compilePathGlob(r.Key.Path)
		if err != nil {
			return nil, res, err
		}
		for _, row := range c.Run.Log {
			if g.Match("/"+row.Coord()) || g.Match("/"+row.Handle()) {
				rows = append(rows, row)
			}
		}
	} else {
		row := scheme.FindRow(c.Run, r.Key.Path)
		if row == nil {
			return nil, res, fail(404, "there is no log row log://%s in this run's log", r.Key.Path)
		}
		rows = []*store.LogRow{row}
	}
	if st.Signal != nil && len(st.Signal.Tags) > 0 {
		rows = nil
	}
	if matcher != nil {
		kept := rows[:0:0]
		for _, row := range rows {
			k := r.Key
			k.Path = "/" + row.Coord()
			body := scheme.RowEntry(row, k).Channels["body"]
			if matcher.MatchIn(k, "body", body.Content, body.Mimetype).Status == 200 {
				kept = append(kept, row)
			}
		}
		rows = kept
	}
	if st.Scope != nil {
		a, b, status, err := sliceRange(st.Scope, len(rows))
		if err != nil {
			return nil, res, fail(status, "results %v", err)
		}
		rows = rows[a:b]
	}
	if len(rows) == 0 {
		res.Status = 204
		return nil, res, nil
	}
	return rows, res, nil
}
