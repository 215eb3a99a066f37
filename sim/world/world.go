// Package world bundles one simulated world: a deterministic clock, an
// in-memory filesystem stamped by that clock behind a fault injector, the
// seed derivation, and a trace of what happened. Simulated actors (agents,
// pages, providers) live in their own packages under sim/ and are handed a
// World.
//
// It may import the standard library, afero and the other sim/ packages.
package world

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"anchorage/sim/clock"
	"anchorage/sim/seed"
	"anchorage/sim/vfs"
)

// World is one simulation's environment.
type World struct {
	Clock *clock.Sim
	Fs    *vfs.Faulty
	Seeds seed.Seeds
	Trace *Trace
}

// New builds a world rooted at the master seed, its clock at clock.Epoch().
func New(s seed.Seeds) *World {
	clk := clock.NewSim(time.Time{})
	return &World{
		Clock: clk,
		Fs:    vfs.NewFaulty(vfs.NewMem(clk), s.Derive("vfs/faults")),
		Seeds: s,
		Trace: &Trace{clock: clk},
	}
}

// Trace is an ordered record of a simulation's events, stamped with the
// simulated time. Two runs of one simulation with one seed must give the
// same trace; Hash makes that cheap to compare.
type Trace struct {
	mu    sync.Mutex
	clock clock.Clock
	lines []string
}

// Record appends one event said by actor.
func (t *Trace) Record(actor, format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at := t.clock.Now().UTC().Format("15:04:05.000")
	t.lines = append(t.lines, at+" "+actor+": "+fmt.Sprintf(format, args...))
}

// Lines returns the events so far.
func (t *Trace) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// String returns the trace, one event a line.
func (t *Trace) String() string { return strings.Join(t.Lines(), "\n") }

// Hash returns the SHA-256 of the trace in hex.
func (t *Trace) Hash() string {
	sum := sha256.Sum256([]byte(t.String()))
	return hex.EncodeToString(sum[:])
}
