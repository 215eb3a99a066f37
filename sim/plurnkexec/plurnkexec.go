// Package plurnkexec is a simulated executor for plurnk's EXEC: an
// exec.Executor whose commands' output and exit come from scripts as a
// simulated clock advances, so the scenarios and the unit tests of
// impl/plurnk can run commands without a shell. The reference daemon runs
// real commands (exec.Shell) and never uses it.
//
// It may import the standard library, anchorage/impl/plurnk/exec and
// anchorage/sim/clock.
package plurnkexec

import (
	"context"
	"fmt"
	"sync"
	"time"

	"anchorage/impl/plurnk/exec"
	"anchorage/sim/clock"
)

// ScriptChunk is one piece of scripted output: Data on Channel, At after
// the spawn.
type ScriptChunk struct {
	At      time.Duration
	Channel string
	Data    string
}

// Script is what a simulated command does: its chunks, then an exit with
// Code at ExitAt (a negative ExitAt never exits on its own). A command that
// ignores SIGTERM (IgnoreTerm) ends only on SIGKILL.
type Script struct {
	Chunks     []ScriptChunk
	ExitAt     time.Duration
	Code       int
	IgnoreTerm bool
}

// Executor is a scripted executor over a clock: a command's output and
// exit come from its Script as the clock advances. It records every spawn's
// Spec. Its zero Probe is unavailable, so set Avail.
type Executor struct {
	Name    string
	Eff     exec.Effect
	Avail   exec.Probe
	Clock   clock.Clock
	Scripts map[string]Script

	mu     sync.Mutex
	spawns []exec.Spec
}

// Runtime returns the executor's tag.
func (x *Executor) Runtime() string { return x.Name }

// Effect returns the declared effect.
func (x *Executor) Effect() exec.Effect { return x.Eff }

// Probe returns the configured probe.
func (x *Executor) Probe() exec.Probe { return x.Avail }

// Spawns returns the specs of every spawn so far.
func (x *Executor) Spawns() []exec.Spec {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]exec.Spec(nil), x.spawns...)
}

// Start schedules the command's script on the clock. A command with no
// script fails to start.
func (x *Executor) Start(ctx context.Context, sp exec.Spec, out exec.Sink) (exec.Process, error) {
	sc, ok := x.Scripts[sp.Command]
	if !ok {
		return nil, fmt.Errorf("simulated %s: no script for command %q", x.Name, sp.Command)
	}
	x.mu.Lock()
	x.spawns = append(x.spawns, sp)
	x.mu.Unlock()
	p := &simProc{out: out, ignoreTerm: sc.IgnoreTerm}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range sc.Chunks {
		c := c
		p.timers = append(p.timers, x.Clock.AfterFunc(c.At, func() { p.chunk(c) }))
	}
	if sc.ExitAt >= 0 {
		p.timers = append(p.timers, x.Clock.AfterFunc(sc.ExitAt, func() { p.end(exec.Exit{Code: sc.Code}) }))
	}
	return p, nil
}

type simProc struct {
	mu         sync.Mutex
	out        exec.Sink
	ignoreTerm bool
	timers     []clock.Timer
	done       bool
}

func (p *simProc) chunk(c ScriptChunk) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.done {
		p.out.Chunk(c.Channel, c.Data)
	}
}

func (p *simProc) end(x exec.Exit) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked(x)
}

func (p *simProc) endLocked(x exec.Exit) {
	if p.done {
		return
	}
	p.done = true
	for _, t := range p.timers {
		t.Stop()
	}
	p.out.Exit(x)
}

// Signal ends the process by sig, unless sig is the polite
// SIGTERM and the process ignores that.
func (p *simProc) Signal(sig string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sig == "SIGTERM" && p.ignoreTerm {
		return nil
	}
	p.endLocked(exec.Exit{Code: -1, Signal: sig})
	return nil
}

// Stop ends the process at once, unless it ignores a polite stop.
func (p *simProc) Stop(force bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	sig := "SIGTERM"
	if force {
		sig = "SIGKILL"
	}
	if !force && p.ignoreTerm {
		return nil
	}
	p.endLocked(exec.Exit{Code: -1, Signal: sig})
	return nil
}
