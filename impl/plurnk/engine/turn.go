package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/impl/plurnk/telemetry"
)

// turn runs model turn t. It returns a terminal status and its reason, or
// 0 when the loop goes on.
func (e *Engine) turn(ctx context.Context, ls *loopState, t int) (int, string) {
	ls.struck = false
	rec := TurnRecord{Seq: t}
	if ls.maxTurns != config.Off && ls.maxTurns-t < e.Config.MaxStrikes {
		e.push(ls, telemetry.Notice{"source": "engine:rail", "kind": "max_turns", "status": 429, "soft": true, "remaining": ls.maxTurns - t + 1})
	}
	pk, err := e.assemble(ls, t)
	if err != nil {
		e.errorRow(ls, t, StatusFailed, err.Error(), "")
		ls.res.Turns = append(ls.res.Turns, rec)
		return StatusFailed, err.Error()
	}
	if ls.bounded && pk.Headline.Usage > ls.ceiling {
		if status, reason := e.grind(ls, t, &pk); status != 0 {
			ls.res.Turns = append(ls.res.Turns, rec)
			return status, reason
		}
	}
	ls.notices.Drain()
	rec.Packet = pk
	ls.res.Turns = append(ls.res.Turns, rec)
	cur := &ls.res.Turns[len(ls.res.Turns)-1]

	if e.Yield != nil {
		e.Yield.Unlock()
	}
	resp, err := e.Provider.Generate(ctx, provider.Request{Messages: []provider.Message{
		{Role: provider.RoleSystem, Content: pk.System}, {Role: provider.RoleUser, Content: pk.User},
	}, Client: ls.req.Client, Alias: ls.req.Alias, Run: ls.req.Run.Name})
	if e.Yield != nil {
		e.Yield.Lock()
	}
	if ctx.Err() != nil {
		return StatusCancelled, "the run was aborted during generate"
	}
	if err != nil {
		e.errorRow(ls, t, StatusFailed, "provider: "+err.Error(), "")
		return StatusFailed, "provider: " + err.Error()
	}
	cur.Emission, cur.Usage, cur.AssistantRaw = resp.Assistant.Content, resp.Assistant.Usage, resp.AssistantRaw
	cur.CostPico = e.Provider.CostFor(resp.Assistant.Usage)
	ls.res.Usage = ls.res.Usage.Add(resp.Assistant.Usage)
	ls.res.CostPico += cur.CostPico
	e.runCost[ls.req.Run.ID] += cur.CostPico
	e.sessionCost[ls.req.Session.ID] += cur.CostPico
	if len(resp.Meta) > 0 && json.Valid(resp.Meta) {
		cur.Meta = append(json.RawMessage(nil), resp.Meta...)
	}
	for _, n := range resp.Telemetry {
		e.push(ls, n)
	}

	status := e.dispose(ls, t, resp.Assistant.Content)
	ls.prev = resp.Assistant.Content
	if ctx.Err() != nil {
		return StatusCancelled, "the run was aborted during dispatch"
	}
	if !ls.struck {
		ls.strikes = 0
	}
	switch {
	case status != 0:
		return status, fmt.Sprintf("SEND[%d]", status)
	case ls.crossed != 0:
		return ls.crossed, "strike threshold reached"
	}
	return 0, ""
}

// dispose parses an emission, records its failures, dispatches its ops
// and applies its terminal SEND. It returns the terminal status the turn
// ends the loop with, or 0 when the loop continues.
func (e *Engine) dispose(ls *loopState, t int, content string) int {
	ss, run := ls.req.Session, ls.req.Run
	parsed := dsl.Parse(content)
	failed := false
	for _, pe := range parsed.Errors {
		if pe.Severity != dsl.SeverityError {
			continue
		}
		e.errorRow(ls, t, 400, e.parseMessage(pe.Line, pe.Column, pe.Message), pe.Snippet)
		failed = true
	}
	rules := dsl.Rules056()
	rules.MaxCommands = ls.maxCmds
	shape := dsl.CheckTurn(parsed, rules)
	for _, v := range shape.Violations {
		switch v.Kind {
		case dsl.MaxCommandsExceeded:
			e.push(ls, telemetry.Notice{"source": "engine:rail", "kind": "max_commands_exceeded", "emitted": v.Emitted, "dropped": v.Dropped})
		case dsl.IdleTurn:
		default:
			e.errorRow(ls, t, 400, v.Kind.String()+": "+v.Message, "")
			failed = true
		}
	}
	if failed {
		ls.strike(e.Config.MaxStrikes, false)
	}
	a := ops.Actor{Session: ss, Run: run, Loop: ls.loop.Seq, Turn: t, Writer: scheme.WriterModel}
	stopped := map[string]bool{} // the streams this emission stopped
	for _, i := range shape.Actions {
		st := parsed.Statements[i]
		if st.Op == dsl.OpPlan || rules.IsDisposition(st) || (shape.Terminal >= 0 && i > shape.Terminal) {
			continue
		}
		if ls.ctx.Err() != nil {
			// The run was aborted while an op waited (a paused
			// proposal): nothing more of the emission is dispatched.
			return 0
		}
		if res := e.dispatch(a, st); res.Stopped {
			stopped[strings.SplitN(res.Target, "#", 2)[0]] = true
		}
	}
	if ls.ctx.Err() != nil {
		return 0
	}

	code, body := dsl.ContinueCode, ""
	if shape.Terminal >= 0 {
		term := parsed.Statements[shape.Terminal]
		code, _ = term.Status()
		if term.Body != nil {
			body = *term.Body
		}
	}
	result := 0
	switch code {
	case StatusDone:
		if live := e.live(ss, run, stopped); len(live) > 0 {
			code = dsl.ContinueCode
			ls.strike(e.Config.MaxStrikes, false)
			e.push(ls, telemetry.Notice{"source": "engine:rail", "kind": "premature_terminate", "message": SteerPrematureTerminal})
		} else {
			result = StatusDone
		}
	case StatusParked, StatusCancelled:
		result = code
	case dsl.ContinueCode:
		if shape.Has(dsl.IdleTurn) {
			ls.strike(e.Config.MaxStrikes, false)
			e.push(ls, telemetry.Notice{"source": "engine:rail", "kind": "idle_turn", "message": SteerIdleTurn})
		}
	}
	if shape.Terminal >= 0 {
		e.appendRow(ss, run, &store.LogRow{Loop: ls.loop.Seq, Turn: t, Op: string(dsl.OpSend), Origin: string(scheme.WriterModel),
			Status: code, Expanded: true, Content: body, Mimetype: "text/markdown"})
	}
	if e.cycle(ls, parsed.Statements) {
		ls.strike(e.Config.MaxStrikes, true)
	}
	return result
}

// dispatch runs one op of the model's emission and returns its result:
// EXEC and a SEND aimed at a run through their hooks when set, everything
// else (OPEN and FOLD on the run's own log rows included) through the op
// engine.
func (e *Engine) dispatch(a ops.Actor, st dsl.Statement) ops.Result {
	var hook func(ops.Actor, dsl.Statement) ops.Result
	switch {
	case st.Op == dsl.OpExec:
		hook = e.Exec
	case st.Target != nil && st.Target.Scheme == "run" && e.RunOp != nil:
		hook = e.RunOp
	case st.Op == dsl.OpSend && st.Target != nil && st.Target.Scheme == "run":
		hook = e.Send
	}
	if hook == nil && st.Op == dsl.OpEdit && st.Target != nil && (st.Target.Scheme == "file" || st.Target.Scheme == "") && e.Edit != nil {
		n := len(a.Run.Log)
		if res, ok := e.Edit(a, st); ok {
			e.tokenize(a.Run, n)
			return res
		}
	}
	if hook == nil {
		res := e.do(a, st)
		if e.After != nil {
			e.After(a, st, res)
		}
		return res
	}
	n := len(a.Run.Log)
	res := hook(a, st)
	e.tokenize(a.Run, n)
	return res
}

// live lists what run still holds live: its EXEC streams whose output
// entry has an active channel, its children whose latest loop has not
// reached a terminal status, and whatever the Live hook adds. A stream in
// stopped (the model's KILL or SEND[499] stopped it in this turn, as its
// result's Stopped says) is being torn down and no longer counts: the steer's "KILL(path) with
// 200 again to clean up" ends the loop (§send-premature-terminate).
func (e *Engine) live(ss *store.Session, run *store.Run, stopped map[string]bool) []string {
	var out []string
	execs := map[string]bool{}
	for _, row := range run.Log {
		if row.Op == string(dsl.OpExec) {
			execs["/"+row.Coord()] = true
		}
	}
	if len(execs) > 0 {
		for _, ent := range ss.Entries() {
			if !execs[ent.Key.Path] {
				continue
			}
			// Stopped through its output entry or its exec:// face.
			face := store.Key{Scope: ent.Key.Scope, Scheme: scheme.SpawnScheme, Path: ent.Key.Path}
			if stopped[ent.Key.String()] || stopped[face.String()] {
				continue
			}
			for _, ch := range ent.Channels {
				if ch.State == store.StateActive {
					out = append(out, ent.Key.String())
					break
				}
			}
		}
	}
	for _, c := range e.children[run.ID] {
		if n := len(c.Loops); n > 0 && !Terminal(c.Loops[n-1].Status) {
			out = append(out, "run://"+c.Name)
		}
	}
	if e.Live != nil {
		out = append(out, e.Live(ss, run)...)
	}
	return out
}

// Terminal reports whether a loop status ends the loop for good (202,
// parked, does not: a parked loop resumes).
func Terminal(status int) bool {
	switch status {
	case StatusDone, StatusOverflow, StatusTurnLimit, StatusCancelled, StatusFailed, StatusRunaway:
		return true
	}
	return false
}

// cycle records the emission's fingerprint (its ops without the PLAN) and
// reports whether the latest fingerprints repeat a period of 1 to
// PLURNK_MAX_CYCLE_PERIOD turns at least PLURNK_MIN_CYCLES times.
func (e *Engine) cycle(ls *loopState, stmts []dsl.Statement) bool {
	var kept []dsl.Statement
	for _, s := range stmts {
		if s.Op != dsl.OpPlan {
			kept = append(kept, s)
		}
	}
	ls.history = append(ls.history, dsl.FormatAll(kept))
	h := ls.history
	for p := 1; p <= e.Config.MaxCyclePeriod; p++ {
		n := p * e.Config.MinCycles
		if len(h) < n {
			break
		}
		tail := h[len(h)-n:]
		same := true
		for i := p; i < n && same; i++ {
			same = tail[i] == tail[i-p]
		}
		if same {
			return true
		}
	}
	return false
}

// grind acts on an overflowing packet: it folds the previous turn's rows
// in one step, strikes (never on turn 0 or 1), reports the entries that
// left the window as a budget_overflow notice and reassembles. A packet
// still over the ceiling ends the loop with 413 and a stored record of the
// overshoot. It returns 0 when the packet now fits.
func (e *Engine) grind(ls *loopState, t int, pk **Delivered) (int, string) {
	hidden := e.fold(ls, t-1)
	if t > 1 {
		ls.strike(e.Config.MaxStrikes, false)
	}
	list := make([]any, 0, len(hidden))
	for _, h := range hidden {
		list = append(list, map[string]any{"scheme": h.scheme, "count": h.count})
	}
	e.push(ls, telemetry.Notice{"source": "engine:rail", "kind": "budget_overflow", "hidden": list})
	next, err := e.assemble(ls, t)
	if err != nil {
		e.errorRow(ls, t, StatusFailed, err.Error(), "")
		return StatusFailed, err.Error()
	}
	if next.Headline.Usage > ls.ceiling {
		rec := next.Headline
		ls.res.Overflow = &rec
		e.errorRow(ls, t, StatusOverflow, "budget overflow", e.headline(rec))
		return StatusOverflow, "budget overflow: " + e.headline(rec)
	}
	*pk = next
	if ls.crossed != 0 {
		return ls.crossed, "strike threshold reached"
	}
	return 0, ""
}

type hiddenCount struct {
	scheme string
	count  int
}

// fold folds every expanded row of turn t of the loop and counts, by the
// scheme of their target, the entries that left the window (a row without
// a target, such as a SEND, is folded but names no entry).
func (e *Engine) fold(ls *loopState, t int) []hiddenCount {
	counts := map[string]int{}
	for _, row := range ls.req.Run.Log {
		if row.Loop != ls.loop.Seq || row.Turn != t || !row.Expanded {
			continue
		}
		row.Expanded = false
		if row.Target != "" {
			counts[schemeOf(row.Target)]++
		}
	}
	var out []hiddenCount
	for s, n := range counts {
		out = append(out, hiddenCount{s, n})
	}
	slices.SortFunc(out, func(a, b hiddenCount) int { return strings.Compare(a.scheme, b.scheme) })
	return out
}

// schemeOf names the scheme of a row target: its URI scheme, or file for
// a project path.
func schemeOf(target string) string {
	if s, _, ok := strings.Cut(target, "://"); ok {
		return s
	}
	return "file"
}
