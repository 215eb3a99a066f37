// Package ops dispatches the entry ops of plurnk-service 0.56 (the
// features/plurnk/SPEC.md digest: §edit-*, §read-*, §copy-*, the channel
// sections, §matcher-*, §stream-constraints-engine-one-cap,
// §scheme-surface-exception-500, §machine-processes-run-is-its-log and
// §telemetry-no-error-scheme): EDIT, READ, FIND, COPY, MOVE, KILL, OPEN,
// FOLD and the directed SEND, each driven by a parsed dsl.Statement, each
// applied in one store transaction and recorded in the acting run's log.
//
// What each op does here, where the sources leave room:
//
//   - EDIT writes one channel; with <L> on existing content it splices
//     lines (<N> replaces line N, <a,b> a range, <0> and <-1> insert before
//     the first and after the last line, a null body deletes); on an entry
//     that does not exist the body becomes its content.
//   - READ numbers each line `N:\t`; <N> is line N alone, <a,b> a range.
//     A matcher body selects lines (match.go). A glob target fans out: one
//     log row per entry read (per entry with a match), 204 in one row when
//     there is none — the 0.56 text's "one log item per file".
//   - KILL deletes the entry, or with a #fragment that channel; SEND[410]
//     does the same as a side effect. Any other directed SEND at an entry
//     answers 501 unless the scheme fronts live state (scheme.Controller).
//     SEND without a target and anything at run://<name> are the engine
//     loop's, and answer 501 here.
//   - OPEN and FOLD act only on log:/// rows of the acting run (501 on any
//     entry scheme): they set or clear the row's expanded bit. KILL on
//     log:/// deletes rows. OPEN and FOLD record their own row like any op.
//   - <L> is by line (by result on OPEN/FOLD/KILL of rows), except on
//     JSON content, where READ and EDIT slice and splice top-level items
//     (structured.go); tree-typed content (JSON, XML, HTML) reads verbatim,
//     everything else `N:\t`-numbered.
//
// A scheme that vets writes (scheme.WriteGuard: the file scheme under a
// membership) is asked before the entry is loaded, so a refused EDIT, COPY
// or MOVE touches nothing. KILL and SEND[499] on an entry whose stream a
// canceller holds (the subscription registry, scheme.Registry.Subscribe)
// stop the stream. Reconcile is the per-turn pass that records outside
// changes of the project's files in the plurnk run.
//
// COPY and MOVE are orchestrated here over the schemes' load, save and
// remove, never inside a scheme. The matcher (match.go) and the per-turn
// mimetype derivation pass (mimetype.go) are the engine's; schemes never
// call mimetype handlers.
//
// It may import the standard library, gobwas/glob, gjson, theory/jsonpath,
// antchfx/xpath and xmlquery, anchorage/impl/vary,
// anchorage/impl/plurnk/config (the variations), anchorage/impl/plurnk/dsl,
// anchorage/impl/plurnk/scheme and anchorage/impl/plurnk/store.
package ops

import (
	"errors"

	"anchorage/impl/vary"
	"fmt"
	"strings"
	"sync"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// Engine dispatches ops against a store through a scheme registry.
type Engine struct {
	Store   *store.Store
	Schemes *scheme.Registry
	// Tokens counts the tokens of written content; nil uses the
	// ceil(len/4) estimate.
	Tokens func(string) int
	// Mimetypes are the handlers process calls, for the derivation pass
	// and for the structural matchers; nil means none (process then
	// derives only what it derives for a mimetype without a handler).
	Mimetypes *Mimetypes
	// Vary holds the spec-permitted variations in force
	// (config.Variations); the zero Set is the reference's decisions.
	Vary vary.Set

	indexMu sync.Mutex
	index   map[int64]map[chanKey]derivedChannel // per session: the last derivation pass (the @graph index)
	fresh   map[int64]map[chanKey]derivedChannel // per session: derived for a matcher since that pass
}

// Actor is who issues an op, and where in its run.
type Actor struct {
	Session *store.Session
	Run     *store.Run
	Loop    int
	Turn    int
	Writer  scheme.Writer
}

// Result is the outcome of one op. Items holds the per-entry results of a
// READ over several entries, each with the row recorded for it.
type Result struct {
	Status   int
	EntryID  int64
	Target   string
	Content  string
	Mimetype string
	Reason   string
	Tags     []string
	// Span is what an EDIT produced, as its log row shows it (rx.span).
	Span  string
	Items []Result
	// Row is the log row recorded for the op (the last one when a READ fans
	// out; its items carry no row of their own, Rows lists them all).
	Row store.LogRow
	// Rows are every row the op recorded, in log order.
	Rows []store.LogRow
	// Stopped is set when the op stopped or signalled a live stream (a
	// KILL or SEND[499] on it answered 200).
	Stopped bool
}

// failure is an op outcome that aborts the transaction.
type failure struct{ res Result }

func (f *failure) Error() string { return fmt.Sprintf("%d %s", f.res.Status, f.res.Reason) }

func fail(status int, format string, args ...any) error {
	return &failure{res: Result{Status: status, Reason: fmt.Sprintf(format, args...)}}
}

// Do dispatches st for a and records its log row. An op applies fully or
// not at all: any status of 400 or above rolls back every change it made.
// A handler error or panic answers 500 with the reason on the row. A READ
// that fans out over a glob records one row per item. Every op records its
// row, OPEN and FOLD included: an executed op is an action, and an action
// produces its log row (§machine-processes-run-is-its-log).
func (e *Engine) Do(a Actor, st dsl.Statement) Result {
	res := e.Apply(a, st)
	items := []*Result{&res}
	if len(res.Items) > 0 {
		items = items[:0]
		for i := range res.Items {
			items = append(items, &res.Items[i])
		}
	}
	stmt := dsl.Format(st)
	_ = e.Store.Update(a.Session, func(tx *store.Tx) error {
		for _, it := range items {
			it.Reason = e.reason(it.Status, it.Reason)
			row := &store.LogRow{
				Loop: a.Loop, Turn: a.Turn, Seq: nextSeq(a.Run, a.Loop, a.Turn), Op: string(st.Op),
				Origin: string(a.Writer), Target: it.Target, Status: it.Status,
				Expanded: it.Status < 400, Content: it.Content, Mimetype: it.Mimetype, Reason: it.Reason, Tx: stmt, Span: it.Span,
			}
			tx.AppendLog(a.Run, row)
			res.Rows = append(res.Rows, *row)
		}
		return nil
	})
	res.Row = res.Rows[len(res.Rows)-1]
	return res
}

// Apply dispatches st for a without recording any row: the effect of an
// op whose row is already written (a proposal being accepted). It applies
// fully or not at all, as Do does.
func (e *Engine) Apply(a Actor, st dsl.Statement) Result {
	var res Result
	err := e.Store.Update(a.Session, func(tx *store.Tx) error {
		r, err := e.dispatch(tx, a, st)
		if err != nil {
			return err
		}
		res = r
		if res.Status >= 400 {
			return &failure{res: res}
		}
		return nil
	})
	if err != nil {
		res = resultOf(err)
	}
	if st.Target != nil && res.Target == "" {
		res.Target = st.Target.String()
	}
	return res
}

func resultOf(err error) Result {
	var f *failure
	if errors.As(err, &f) {
		return f.res
	}
	return Result{Status: scheme.StatusOf(err), Reason: err.Error()}
}

func nextSeq(r *store.Run, loop, turn int) int {
	n := 0
	for _, row := range r.Log {
		if row.Loop == loop && row.Turn == turn {
			n = max(n, row.Seq)
		}
	}
	return n + 1
}

func (e *Engine) dispatch(tx *store.Tx, a Actor, st dsl.Statement) (Result, error) {
	c := scheme.Call{Tx: tx, Run: a.Run, Writer: a.Writer}
	switch st.Op {
	case dsl.OpEdit:
		return e.edit(c, st)
	case dsl.OpRead:
		return e.read(c, st)
	case dsl.OpFind:
		return e.find(c, st)
	case dsl.OpCopy:
		return e.copyOrMove(c, st, false)
	case dsl.OpMove:
		return e.copyOrMove(c, st, true)
	case dsl.OpKill:
		return e.kill(c, st)
	case dsl.OpOpen:
		return e.curate(c, st, true)
	case dsl.OpFold:
		return e.curate(c, st, false)
	case dsl.OpSend:
		return e.send(c, st)
	}
	return Result{}, fail(501, "op %s is not dispatched by the entry engine", st.Op)
}

func (e *Engine) tokens(s string) int {
	if e.Tokens != nil {
		return e.Tokens(s)
	}
	return (len(s) + 3) / 4
}

func (e *Engine) resolve(st dsl.Statement) (scheme.Resolved, error) {
	if st.Target == nil {
		return scheme.Resolved{}, fail(400, "%s needs a (target)", st.Op)
	}
	r, err := e.Schemes.Resolve(*st.Target)
	if err != nil {
		return scheme.Resolved{}, fail(scheme.StatusOf(err), "%v", err)
	}
	return r, nil
}

// target renders a resolved key with its channel fragment when named.
func target(r scheme.Resolved) string {
	s := r.Key.Scheme + "://" + r.Key.Path
	if r.Key.Scheme == "file" {
		s = r.Key.Path
	}
	if r.Named {
		s += "#" + r.Channel
	}
	return s
}

// load calls the handler's Load, turning a handler error into the action's
// status.
func load(c scheme.Call, r scheme.Resolved) (*store.Entry, error) {
	e, err := r.Handler.Load(c, r.Key)
	if err != nil {
		return nil, fail(scheme.StatusOf(err), "load %s: %v", r.Key, err)
	}
	return e, nil
}

func save(c scheme.Call, r scheme.Resolved, e *store.Entry) error {
	if err := r.Handler.Save(c, e); err != nil {
		return fail(scheme.StatusOf(err), "save %s: %v", r.Key, err)
	}
	return nil
}

// splitLines splits content into lines; a final newline ends the last line
// rather than starting an empty one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
