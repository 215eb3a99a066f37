package runs

import (
	"fmt"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// Run origins (§machine-processes-run-origin): who a run acts for. A run
// gets its origin when it is created and a fork inherits its source's.
const (
	OriginModel  = "model"
	OriginClient = "client"
	OriginPlurnk = "plurnk"
)

// Actions of Submit, as loop.run reports them (§methods-loop-run).
const (
	ActionNewLoop  = "enqueued_new_loop"
	ActionInjected = "injected_next_turn"
)

// Settings are a session's settings that reach its loops.
type Settings struct {
	Client string
	// MaxCommands narrows PLURNK_MAX_COMMANDS; nil leaves it.
	MaxCommands *int
	// Docs are settings.mdDocs, merged over the operator's documents.
	Docs []engine.Doc
}

// ReservedName reports whether name is the reserved run name, in any
// letter case (§methods-run-name-reserved).
func ReservedName(name string) bool { return strings.EqualFold(name, store.PlurnkRun) }

// AddClientRun adds a run of origin client named name to the session (a
// connection's own run). The reserved name is refused in any letter case.
func (s *Service) AddClientRun(session int64, name string) (*store.Run, error) {
	return s.addRun(session, name, OriginClient)
}

// AddModelRun adds the session's model run, of origin model, named name:
// the run loop.run drives, which the daemon allocates on first use.
func (s *Service) AddModelRun(session int64, name string) (*store.Run, error) {
	return s.addRun(session, name, OriginModel)
}

func (s *Service) addRun(session int64, name, origin string) (*store.Run, error) {
	if ReservedName(name) {
		return nil, fmt.Errorf("runs: %q is the reserved run name", name)
	}
	if err := ValidName(name); err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.session(session)
	if err != nil {
		return nil, err
	}
	sr, err := s.cfg.Store.AddRun(sess.store, name)
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	sess.add(sr, nil, origin)
	return sr, nil
}

// SetSettings records the session's settings: its client id reaches
// every later generate call of the session (§client-telemetry), its
// maxCommands every later loop (§operator-config-session-max-commands).
func (s *Service) SetSettings(session int64, st Settings) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.session(session)
	if err != nil {
		return err
	}
	sess.settings = st
	return nil
}

// Submitted is what Submit did with a loop.run.
type Submitted struct {
	Action string
	// Loop is the loop the prompt went to when it is already known (the
	// running or parked loop it was injected into); nil for a new loop,
	// which LoopStart.Begun reports once the engine opens it.
	Loop *store.Loop
	// Behind: the new loop waits behind other work of the run's drain.
	Behind bool
}

// Submit is loop.run as the daemon answers it at once
// (§methods-loop-run, §run-lifecycle-single-drain): a prompt aimed at a
// run whose loop is running is injected into that loop's next turn; a
// run parked at 202 is resumed in place with the prompt; otherwise a new
// loop is queued (started at once when the run's drain is free).
func (s *Service) Submit(session int64, run string, ls LoopStart) (Submitted, error) {
	s.mu.Lock()
	r, err := s.run(session, run)
	if err != nil {
		s.mu.Unlock()
		return Submitted{}, err
	}
	if r.store.Name == store.PlurnkRun {
		s.mu.Unlock()
		return Submitted{}, fmt.Errorf("runs: loop.run on the reserved %q run", store.PlurnkRun)
	}
	if r.running {
		l := r.current
		if l == nil {
			l = r.latest()
		}
		r.inbox = append(r.inbox, injectRow(scheme.WriterClient, "", ls.Prompt))
		if ls.Yolo && l != nil {
			r.yolo[l.Seq] = true
		}
		s.mu.Unlock()
		return Submitted{Action: ActionInjected, Loop: l}, nil
	}
	l := r.latest()
	parked := !r.draining && len(r.queue) == 0 && l != nil && l.Status == engine.StatusParked
	behind := r.draining
	s.mu.Unlock()
	if err := s.Start(session, run, ls); err != nil {
		return Submitted{}, err
	}
	if parked {
		return Submitted{Action: ActionInjected, Loop: l}, nil
	}
	return Submitted{Action: ActionNewLoop, Behind: behind}, nil
}

// ClientOp dispatches st as one turn of the client loop of run (a client
// run): the loop opens with the first op, each call adds a turn, and the
// op goes down the same dispatch path as the model's (§methods-op-mirror).
// It returns the rows the op wrote.
func (s *Service) ClientOp(session int64, run string, st dsl.Statement) ([]store.LogRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.run(session, run)
	if err != nil || r.origin != OriginClient {
		return nil, fmt.Errorf("runs: run %q of session %d is not a client run", run, session)
	}
	turn := 0
	if r.client == nil || engine.Terminal(r.client.Status) {
		r.client = s.cfg.Store.BeginLoop(r.store)
	} else {
		turn = s.cfg.Store.NextTurn(r.client).Seq
	}
	n := len(r.store.Log)
	s.eng.Dispatch(ops.Actor{Session: r.sess.store, Run: r.store, Loop: r.client.Seq, Turn: turn, Writer: scheme.WriterClient}, st)
	out := make([]store.LogRow, 0, len(r.store.Log)-n)
	for _, row := range r.store.Log[n:] {
		out = append(out, *row)
	}
	s.quiet()
	return out, nil
}

// CloseClient closes the client loop of run with status (a rebind closes
// it at 200); it reports whether one was open.
func (s *Service) CloseClient(session int64, run string, status int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.run(session, run)
	if err != nil || r.client == nil || engine.Terminal(r.client.Status) {
		return false
	}
	r.client.Status = status
	return true
}

// Look resolves a READ for the client run with READ's whole resolver
// and writes nothing: no turn, no log row (§op-look).
func (s *Service) Look(session int64, run string, st dsl.Statement) (ops.Result, error) {
	if st.Op != dsl.OpRead {
		return ops.Result{}, fmt.Errorf("runs: op.look resolves READ only, not %s", st.Op)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.run(session, run)
	if err != nil {
		return ops.Result{}, err
	}
	// The READ runs against a shadow of the run: the rows it records land
	// in the shadow's log, which is dropped.
	shadow := *r.store
	shadow.Log = append([]*store.LogRow(nil), r.store.Log...)
	return s.eng.Ops.Do(ops.Actor{Session: r.sess.store, Run: &shadow, Writer: scheme.WriterClient}, st), nil
}
