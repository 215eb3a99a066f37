// Package runs orchestrates the runs of plurnk-service 0.56 sessions (the
// features/plurnk/SPEC.md digest: §actor-boundary-passive-wake,
// §actor-boundary-no-mutex, §machine-processes-run-is-its-log, the
// §run-scheme-* anchors, the §run-lifecycle-* anchors, and the loop side
// of §exec-host-proposes, §exec-readpure-ungated, §exec-stream and
// §exec-poll).
//
// A session is the world: one set of entries and one membership overlay,
// shared by every run. A run is its log. Each run has at most one drain, a
// goroutine that takes the run's queued work (a new loop with a prompt, or
// a parked loop to resume in place) and runs it through the engine; the
// drain gives up its slot only after finding the queue empty under the
// service lock, so work queued during teardown is never lost.
//
// Runs reach each other through two doors only. Shared-entry changes and
// loop conclusions (collect) become folded delta rows that wait for the
// recipient's next turn and never wake it. Injects (a client's
// loop.inject, a sister's SEND to run://<name>, a stream concluding under
// the run) are events aimed at the run: a busy run sees them in its next
// turn, a parked one is resumed in place, an idle one starts a loop.
//
// Concurrency: one lock (the Service's) serialises every touch of the
// store, which is not safe for concurrent use; the engine gives it up
// while the provider generates, so runs proceed side by side. No run ever
// waits for another run's op, and no op is refused because a run is busy.
// Timers (poll cadence, proposal timeouts, simulated processes) come from
// the configured clock; Serve applies what the processes post as it
// arrives (Pump, once, for a caller that drives the service itself).
//
// It may import the standard library, gobwas/glob and anchorage/impl/
// plurnk/{dsl,store,scheme,ops,engine,exec,provider} and anchorage/sim/clock.
package runs
