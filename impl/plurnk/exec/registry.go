package exec

import (
	"context"
	"fmt"
	"sort"

	"anchorage/impl/plurnk/scheme"
)

// DefaultRuntime is the runtime an EXEC with no [runtime] signal uses.
const DefaultRuntime = "sh"

// Effect is what running an executor may do to the world.
type Effect string

const (
	// EffectPure has no observable effect (an in-memory database).
	EffectPure Effect = "pure"
	// EffectRead observes external state without changing it (a search).
	EffectRead Effect = "read"
	// EffectHost may change the host (a subprocess).
	EffectHost Effect = "host"
)

// Gated reports whether an EXEC of this effect goes through a proposal
// before it spawns: only host does. Read and pure runtimes spawn at once but
// still stream in the background (§exec-readpure-ungated).
func (e Effect) Gated() bool { return e == EffectHost }

// Probe is what an executor reports about itself at boot.
type Probe struct {
	Available bool
	Detail    string
}

// Spec is one spawn: the command text, its working directory and its whole
// environment (already scoped by ScopeEnv; nothing is inherited).
type Spec struct {
	Command string
	Dir     string
	Env     []string
}

// Exit is how a process ended. Code is the exit code, -1 when a signal
// ended it; Signal names that signal; Err is a failure of the executor
// itself (the process could not be waited for).
type Exit struct {
	Code   int
	Signal string
	Err    error
}

// Sink receives what a process produces. Its methods are safe to call from
// any goroutine; Exit is called once, after every Chunk.
type Sink interface {
	Chunk(channel, data string)
	Exit(x Exit)
}

// Process is a running spawn.
type Process interface {
	// Stop signals the process: politely (SIGTERM to its group) when force
	// is false, SIGKILL when true. Stopping an ended process does nothing.
	Stop(force bool) error
	// Signal sends exactly the named signal ("SIGHUP", "SIGINT", ...) to
	// the process, with no escalation after it. Signalling an ended
	// process does nothing.
	Signal(name string) error
}

// Executor is one EXEC runtime.
type Executor interface {
	Runtime() string
	Effect() Effect
	Probe() Probe
	// Start spawns s and returns at once; output and the exit arrive on out.
	// Cancelling ctx kills the process outright.
	Start(ctx context.Context, s Spec, out Sink) (Process, error)
}

// Registry holds the executors, each probed once when the registry is built
// (at boot); the probe's answer is cached.
type Registry struct {
	execs  map[string]Executor
	probes map[string]Probe
}

// NewRegistry probes each executor and returns the registry holding them.
func NewRegistry(es ...Executor) (*Registry, error) {
	r := &Registry{execs: map[string]Executor{}, probes: map[string]Probe{}}
	for _, e := range es {
		rt := e.Runtime()
		if rt == "" {
			return nil, fmt.Errorf("register executor: empty runtime tag")
		}
		if _, dup := r.execs[rt]; dup {
			return nil, fmt.Errorf("register executor %q: already registered", rt)
		}
		r.execs[rt] = e
		r.probes[rt] = e.Probe()
	}
	return r, nil
}

// Resolve returns the executor for runtime ("" is DefaultRuntime). An
// unknown runtime, or one whose boot probe found it unavailable, answers a
// 501 *scheme.StatusError whose reason carries the probe's detail.
func (r *Registry) Resolve(runtime string) (Executor, error) {
	if runtime == "" {
		runtime = DefaultRuntime
	}
	e, ok := r.execs[runtime]
	if !ok {
		return nil, scheme.Errorf(501, "no executor for runtime %q (known: %v)", runtime, r.Runtimes())
	}
	if p := r.probes[runtime]; !p.Available {
		return nil, scheme.Errorf(501, "runtime %q is unavailable: %s", runtime, p.Detail)
	}
	return e, nil
}

// Probe returns the boot probe of runtime.
func (r *Registry) Probe(runtime string) (Probe, bool) {
	p, ok := r.probes[runtime]
	return p, ok
}

// Runtimes returns every registered runtime tag, sorted, available or not.
func (r *Registry) Runtimes() []string {
	out := make([]string, 0, len(r.execs))
	for rt := range r.execs {
		out = append(out, rt)
	}
	sort.Strings(out)
	return out
}
