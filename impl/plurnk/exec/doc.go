// Package exec runs the EXEC op of plurnk-service 0.56 (the
// features/plurnk/SPEC.md digest: §exec-registry-resolves, §exec-timeout,
// §exec-poll, §exec-host-proposes, §exec-readpure-ungated, §exec-stream,
// §exec-env-scoped, §chunk-accumulation-chunks-accumulate,
// §channel-state-schemes-own-state-transitions and
// §notifications-stream-event-on-channel-change), and the proposal state
// machine a host-effect EXEC goes through first.
//
// The pieces:
//
//   - Registry: the executors probed once at boot, resolved by runtime tag
//     (default sh); an unknown or unavailable runtime is a 501 carrying the
//     probe's detail.
//   - Shell: the real sh executor (os/exec, one process group per spawn);
//     the scenarios' scripted executor is sim/plurnkexec.
//   - Streams: binds a spawned process to its output entry
//     <runtime>:///<loop>/<turn>/<seq>, appends chunks as they arrive,
//     moves the channel state when the process ends (closed after a clean
//     exit, errored after a timeout 504, a cancel 499 or a failure 500),
//     enforces the T of <T,P>, keeps P for the engine, and reports every
//     growth or state change to a Notifier as a stream/event.
//   - Cursors and Surface: the per-channel byte cursor and the slice of new
//     text, numbered continuously across turns, that the engine foists as an
//     origin=plurnk READ.
//   - ScopeEnv: the subprocess environment with provider API keys and every
//     PLURNK_* variable removed.
//   - Proposals: proposed → resolved / failed / cancelled, with the yolo
//     short-circuit and a timeout on the clock.
//
// Concurrency: the store is not safe for concurrent use, so processes never
// write it. They post chunks and exits to the Streams inbox (safe from any
// goroutine), Ready signals that the inbox holds something, and the owner of
// the store applies the inbox with Drain from its own goroutine.
//
// It may import the standard library, anchorage/impl/plurnk/dsl,
// anchorage/impl/plurnk/scheme, anchorage/impl/plurnk/store and
// anchorage/sim/clock.
package exec
