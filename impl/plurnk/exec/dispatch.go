package exec

import (
	"fmt"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// RequestOf reads an EXEC statement: its [runtime] signal, its <T,P> slot
// and its body (the command). The caller fills in the run, the op's
// coordinate, the working directory (the target, resolved against the
// workspace) and the scoped environment.
func RequestOf(st dsl.Statement) (Request, error) {
	if st.Op != dsl.OpExec {
		return Request{}, fmt.Errorf("request of %s: not an EXEC", st.Op)
	}
	var req Request
	if st.Signal != nil {
		req.Runtime = st.Signal.Executor
	}
	if req.Runtime == "" {
		req.Runtime = DefaultRuntime
	}
	if st.Body != nil {
		req.Command = *st.Body
	}
	req.Timeout, req.Poll = Limits(st.Scope)
	return req, nil
}

// Dispatch runs one EXEC op whose log row has id row, and returns the
// status the row records:
//
//   - 501 when the runtime is unknown or unavailable (the error carries
//     the probe's detail);
//   - for a host runtime, 202 while its proposal awaits a resolution: the
//     spawn runs when the proposal is accepted (at once under yolo, and
//     then the answer is 102);
//   - for a read or pure runtime, no proposal: it spawns at once;
//   - 102 once spawned, the output streaming into
//     <runtime>:///<loop>/<turn>/<seq> in the background.
//
// A spawn that fails answers its error's status (500).
func Dispatch(streams *Streams, props *Proposals, ss *store.Session, req Request, row int64, yolo bool) (int, error) {
	exe, err := streams.cfg.Registry.Resolve(req.Runtime)
	if err != nil {
		return scheme.StatusOf(err), err
	}
	if !exe.Effect().Gated() {
		if _, err := streams.Spawn(ss, req); err != nil {
			return scheme.StatusOf(err), err
		}
		return 102, nil
	}
	var spawnErr error
	p, err := props.Propose(Proposal{ID: row, Op: "EXEC", Target: req.Runtime, Body: req.Command, Yolo: yolo}, func() (int, string) {
		if _, err := streams.Spawn(ss, req); err != nil {
			spawnErr = err
			return scheme.StatusOf(err), "spawn_failed"
		}
		return 200, ""
	})
	switch {
	case err != nil:
		return 500, err
	case p.State == Proposed:
		return 202, nil
	case p.State == Resolved:
		return 102, nil
	case spawnErr != nil:
		return scheme.StatusOf(spawnErr), spawnErr
	}
	return p.Status, nil
}
