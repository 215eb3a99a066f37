// Package chatlog is the reference implementation of the file-based REPL
// server specified by seed 000_8e263a46ca5a55fb ("JavaScript REPL
// (file-based) — per-instance chat-log design"); its promises are restated
// in features/chatlog/SPEC.md and cited below by anchor id.
//
// The server keeps one append-only Markdown chat log per connected realm
// instance under debug/, rewrites the small registry debug.md, watches the
// logs by polling them on a clock (parsing only their tail), turns agent
// requests into jobs, hands the jobs to realm adapters and appends their
// replies. Files are reached only through an afero.Fs and time only through
// anchorage/sim/clock, so the same code runs on a real directory with the
// wall clock and inside a deterministic simulation.
//
// It may import the standard library, anchorage/sim/clock,
// anchorage/impl/vary and github.com/spf13/afero, nothing else (in particular nothing under
// features/ and not godog).
package chatlog
