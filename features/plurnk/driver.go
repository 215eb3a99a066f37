package plurnk

import (
	"context"
	"fmt"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"

	"github.com/cucumber/godog"
)

// driver is how the data-plane steps (an entry given, an emitted
// statement, the result and the entries read back) reach the plurnk under
// test. The world holds one, chosen once per scenario: embedded, the
// engine driven as a library, or, with $PLURNK_CMD set, a daemon process
// reached over its public JSON-RPC surface (daemonData).
type driver interface {
	// client writes st as a client would, outside any model turn.
	client(st dsl.Statement) (ops.Result, error)
	// do has run's model emit st as its action at the world's
	// coordinate, and answers its result.
	do(run string, st dsl.Statement) (ops.Result, error)
	// entry loads the entry a target names; nil when there is none.
	entry(t string) (*store.Entry, error)
	// assemble has the packet assembled once, which runs the derivation
	// pass over the session's channels (the mimetype handlers).
	assemble(ctx context.Context) error
	// loop runs a loop of the model run with the user's prompt (at most
	// maxTurns turns; 0 leaves the cap to the operator) until it ends or
	// parks, and answers what it did and the packets the model received.
	loop(ctx context.Context, prompt string, maxTurns int) (engine.Result, error)
	// log is the log of the session's run named run (model or plurnk).
	log(run string) ([]*store.LogRow, error)
	// rowTokens is the token count stored for the model run's row at
	// coord (L/T/S) when it was written, and whether one was.
	rowTokens(ctx context.Context, coord string) (int, bool, error)
	// configure refuses, when it is too late, to set what the plurnk
	// under test reads when it starts (an operator's variable, the
	// model's context window).
	configure(what string) error
	// project lays out the project directory of tbl (| path | content |
	// tracked |), a git repository tracking the rows marked yes when
	// withGit.
	project(ctx context.Context, tbl *godog.Table, withGit bool) error
	// constrain adds a rule to the session's membership overlay, as the
	// client of run asks ("": the session's own).
	constrain(ctx context.Context, run string, effect membership.Effect, pattern string) error
	// members is the resolved membership of the session (who ""), of the
	// second session (secondSession) or that a run of the session sees.
	members(ctx context.Context, who string) (membership.Set, error)
	// secondSession opens a second session over the same project.
	secondSession(ctx context.Context) error
	// offers has plurnk offer exactly the EXEC runtimes listed.
	offers(ctx context.Context, runtimes []string) error
	// otherSession writes the entry t holding body in a second session,
	// as its client.
	otherSession(t, body string) error
	// forest lays out a project of several git repositories (| repo |
	// path | content | tracked |).
	forest(ctx context.Context, tbl *godog.Table) error
	// gitFlags sets the operator's PLURNK_GIT_ALLOWED and PLURNK_GIT_AUTO.
	gitFlags(ctx context.Context, allowed, auto string) error
	// streamed gives an exec output at target that has streamed chunk on
	// channel ch and is still active.
	streamed(target, chunk, ch string) error
	// addRun adds a run named name to the session.
	addRun(name string) error
	// streamMore has the exec output at target stream chunk on ch.
	streamMore(target, chunk, ch string) error
	// streamEnd ends the exec output at target: closed, or errored when
	// failed.
	streamEnd(target string, failed bool) error

	// The commands of the exec scheme (exec_steps.go), as the scenario's
	// exec world sets them up.

	// execAccepted has the model's EXEC st accepted at loop/turn/seq and
	// answers its result.
	execAccepted(ctx context.Context, loop, turn, seq int, st dsl.Statement) (ops.Result, error)
	// passCommands lets ms go by for the running commands.
	passCommands(ctx context.Context, ms int) error
	// complete waits until every command of the model run has ended.
	complete(ctx context.Context) error
	// drain lets the streams take in what happened (after a cancel).
	drain(ctx context.Context) error
	// execStream is the stream at target.
	execStream(ctx context.Context, target string) (exec.Stream, error)
	// streamEvents are the stream/event notifications since the last
	// call (their Session left zero).
	streamEvents(ctx context.Context) ([]exec.StreamEvent, error)
	// commandDir is the directory a real command is given.
	commandDir(ctx context.Context) (string, error)
}

// embedded is the driver of the engine as a library: the world's own
// store, schemes and engine.
type embedded struct {
	w  *world
	ew *engineWorld // nil until the engine loop's world is made
}

func (e embedded) client(st dsl.Statement) (ops.Result, error) {
	w := e.w
	return w.eng.Do(ops.Actor{Session: w.session, Run: w.runs[store.PlurnkRun], Writer: scheme.WriterClient}, st), nil
}

func (e embedded) do(run string, st dsl.Statement) (ops.Result, error) {
	w := e.w
	r, ok := w.runs[run]
	if !ok {
		return ops.Result{}, fmt.Errorf("no run %q in the session", run)
	}
	return w.eng.Do(ops.Actor{Session: w.session, Run: r, Loop: w.loop, Turn: w.turn, Writer: scheme.WriterModel}, st), nil
}

func (e embedded) entry(t string) (*store.Entry, error) { return e.w.load(t) }

func (e embedded) assemble(context.Context) error {
	w := e.w
	if len(w.eng.Derive(w.session)) == 0 {
		return fmt.Errorf("the derivation pass saw no channel")
	}
	return nil
}

func (e embedded) loop(ctx context.Context, prompt string, maxTurns int) (engine.Result, error) {
	if e.ew == nil {
		return engine.Result{}, fmt.Errorf("no engine loop in this world")
	}
	return runLoop(ctx, e.w, e.ew, prompt, maxTurns)
}

func (e embedded) log(run string) ([]*store.LogRow, error) {
	r, ok := e.w.runs[run]
	if !ok {
		return nil, fmt.Errorf("no run %q in the session", run)
	}
	return r.Log, nil
}

// configure: the engine reads its configuration at each loop.
func (e embedded) configure(string) error { return nil }

func (e embedded) project(ctx context.Context, tbl *godog.Table, withGit bool) error {
	return layProject(ctx, tbl, withGit)
}

func (e embedded) constrain(ctx context.Context, run string, effect membership.Effect, pattern string) error {
	if run == "" {
		return constrainEmbedded(ctx, effect, pattern)
	}
	return constrainRun(ctx, run, effect, pattern)
}

func (e embedded) members(ctx context.Context, who string) (membership.Set, error) {
	return membersEmbedded(ctx, who)
}

func (e embedded) secondSession(ctx context.Context) error { return secondSessionEmbedded(ctx) }

func (e embedded) forest(ctx context.Context, tbl *godog.Table) error { return layForest(ctx, tbl) }

func (e embedded) gitFlags(ctx context.Context, allowed, auto string) error {
	return gitFlagsEmbedded(ctx, allowed, auto)
}

func (e embedded) streamed(target, chunk, ch string) error {
	w := e.w
	k, m, err := streamKey(w, target)
	if err != nil {
		return err
	}
	return w.store.Update(w.session, func(tx *store.Tx) error {
		if tx.Get(k) == nil {
			if err := scheme.OpenStream(tx, m, k); err != nil {
				return err
			}
		}
		return scheme.AppendChunk(tx, k, ch, chunk)
	})
}

func (e embedded) streamMore(target, chunk, ch string) error { return e.streamed(target, chunk, ch) }

func (e embedded) streamEnd(target string, failed bool) error {
	state := store.StateClosed
	if failed {
		state = store.StateErrored
	}
	w := e.w
	k, _, err := streamKey(w, target)
	if err != nil {
		return err
	}
	return w.store.Update(w.session, func(tx *store.Tx) error { return scheme.SetState(tx, k, state) })
}

func (e embedded) addRun(name string) error {
	w := e.w
	r, err := w.store.AddRun(w.session, name)
	if err != nil {
		return err
	}
	w.runs[name] = r
	return nil
}
