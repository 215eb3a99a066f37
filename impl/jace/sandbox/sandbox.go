// Package sandbox is the QuickJS sandbox of the JACE runtime (seed
// 003_fd13fde4b5172d4e.txt, §jace-fixed-clock, §jace-seeded-rng, §jace-no-io,
// §jace-no-eval, §jace-json-marshal, §jace-timeout, §jace-fuel,
// §jace-untrusted, §jace-module-shape).
//
// A VM is one QuickJS runtime+context (modernc.org/quickjs, Bellard's QuickJS
// transpiled to Go) with the determinism prelude installed before any module
// code. Values cross the boundary as JSON text only. Every call into the VM
// runs under three guards: an instruction meter (fuel, deterministic), the
// action timeout (a fuel budget in deterministic mode, a watchdog on the
// injected clock otherwise) and a memory limit. A breach answers a *Failure
// and marks the VM broken: the owner must Close it and make a new one.
//
// Time zone: local-time Date methods follow the C library's TZ. New sets
// TZ=UTC both in the Go process environment and in the engine's C
// environment before the first VM exists, so that every VM renders dates in
// UTC whatever the host's zone.
//
// It may import the standard library, modernc.org/{quickjs,libquickjs,libc}
// and anchorage/sim/clock; nothing else of the project.
package sandbox

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/quickjs"

	"anchorage/sim/clock"
)

//go:embed prelude.js
var preludeSource string

// Failure kinds.
const (
	KindTimeout       = "timeout"        // the action timeout fired
	KindFuel          = "fuel"           // the fuel budget ran out
	KindMemory        = "memory"         // the VM hit its memory limit
	KindThrow         = "throw"          // module code threw
	KindBadResult     = "bad_result"     // the entry point returned a non-JSON value or too much
	KindUnknownAction = "unknown_action" // no such action in jace.actions
	KindBadModule     = "bad_module"     // the module does not parse or lacks part of the ABI
)

// Messages the seed fixes for the two guards.
const (
	MsgTimeout = "Action timed out"
	MsgFuel    = "Fuel exhausted"
	MsgMemory  = "Memory limit exceeded"
)

// Failure is what went wrong inside the VM.
type Failure struct {
	Kind    string // one of the Kind constants
	Message string // human-readable, stable for a given module and input
}

func (f *Failure) Error() string { return f.Message }

// Limits are the guards applied to every call into a VM.
type Limits struct {
	// Fuel caps one call at this many fuel units (1 unit = one interrupt
	// poll = 10,000 QuickJS ticks); 0 means no fuel guard.
	Fuel int64
	// TimeoutFuel, when > 0, makes the action timeout deterministic: a call
	// that burns more than this many units fails with MsgTimeout, and no
	// wall-clock watchdog runs. This is the simulation mode.
	TimeoutFuel int64
	// Timeout is the wall-clock limit per call, measured on Clock, used when
	// TimeoutFuel is 0 (real mode); it must then be positive.
	Timeout time.Duration
	// MemoryLimit caps the VM's heap in bytes; 0 means DefaultMemoryLimit.
	MemoryLimit int
	// MaxOutput caps the JSON text an entry point may return, in bytes
	// (the runtime's default is DefaultMaxOutput).
	MaxOutput int
	// UnitTicks is how many interpreter ticks make one unit of Fuel: a
	// positive multiple of PollTicks (PollTicks is one interrupt poll).
	UnitTicks int64
}

// PollTicks is how many interpreter ticks QuickJS runs between two calls
// of the interrupt handler, the meter's step.
const PollTicks = 10000

// Defaults.
const (
	DefaultMemoryLimit = 32 << 20
	DefaultMaxOutput   = 4 << 20
	// DefaultTimeoutFuel is the fuel budget standing for the 2 s action
	// timeout in deterministic mode: about 2 s of a tight loop on the
	// reference 2-core machine (a 10M-iteration loop costs 2000 units and
	// takes about 0.65 s there).
	DefaultTimeoutFuel = 6000
)

// Config makes a VM.
type Config struct {
	Limits
	Clock clock.Clock // for the watchdog; nil means clock.Real()
}

// Manifest is what a loaded module declares.
type Manifest struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Actions []string `json:"actions"`
}

// VM is one sandboxed QuickJS VM. It is not safe for concurrent calls; the
// runtime serialises calls per session.
type VM struct {
	cfg    Config
	qjs    *quickjs.VM
	m      *meter
	callFn quickjs.Value // the prelude's call function
	shapeF quickjs.Value // the prelude's shape function
	broken bool

	wmu   sync.Mutex // guards armed against the watchdog callback
	armed uint64     // generation of the watchdog armed last
}

// New makes a VM with the prelude installed. Nothing in it can fail short
// of the host running out of memory or the pinned engine moving the
// internals the fuel shim reads (TestFuelShimFieldsPresent); either
// panics.
func New(cfg Config) *VM {
	if cfg.MemoryLimit <= 0 {
		cfg.MemoryLimit = DefaultMemoryLimit
	}
	q, err := quickjs.NewVM()
	if err != nil {
		panic(fmt.Sprintf("sandbox: new QuickJS VM: %v", err))
	}
	eng := engineOf(q)
	setCEnvUTC(eng.tls)
	v := &VM{cfg: cfg, qjs: q, m: installMeter(eng)}
	q.SetMemoryLimit(uintptr(cfg.MemoryLimit))
	if err := v.guard(v.installPrelude); err != nil {
		panic(fmt.Sprintf("sandbox: installing the prelude: %v", err))
	}
	return v
}

// installPrelude evaluates the prelude and keeps the two functions it
// evaluates to. The prelude is the sandbox's own text, run first in a
// fresh VM far inside its limits: it always evaluates, and both functions
// are there.
func (v *VM) installPrelude() error {
	obj, err := v.qjs.EvalValue(preludeSource, quickjs.EvalGlobal)
	defer obj.Free()
	call, _ := v.qjs.NewAtom("call")
	shape, _ := v.qjs.NewAtom("shape")
	v.callFn, _ = obj.GetPropertyValue(call)
	v.shapeF, _ = obj.GetPropertyValue(shape)
	return err
}

// setCEnvUTC sets TZ=UTC in the engine's C environment, which modernc's libc
// copies from the Go environment only once. The name and value are string
// constants, which never move or go away; setenv copies them.
func setCEnvUTC(tls *libc.TLS) {
	libc.Xsetenv(tls, uintptr(unsafe.Pointer(unsafe.StringData("TZ\x00"))), uintptr(unsafe.Pointer(unsafe.StringData("UTC\x00"))), 1)
}

// Broken reports whether a guard fired in this VM; a broken VM refuses
// further calls and must be closed.
func (v *VM) Broken() bool { return v.broken }

// Close releases the VM: the prelude's functions, then the engine, whose
// memory stays taken until both are freed. It is called once, when the VM
// is no longer used.
func (v *VM) Close() {
	v.callFn.Free()
	v.shapeF.Free()
	v.qjs.Close()
}

// guard runs f (which enters the engine) with the meter reset and the
// watchdog armed, and turns a guard breach into a *Failure.
func (v *VM) guard(f func() error) error {
	if v.broken {
		return &Failure{Kind: KindBadModule, Message: "VM is broken by an earlier failure"}
	}
	atomic.StoreInt32(&v.m.reason, reasonNone)
	atomic.StoreInt64(&v.m.used, 0)
	v.m.fuel = v.cfg.Fuel * v.cfg.UnitTicks / PollTicks // in polls
	v.m.timeFuel = v.cfg.TimeoutFuel

	var t clock.Timer
	if v.cfg.TimeoutFuel == 0 {
		// The stop flag is cleared as this call's watchdog is armed, under
		// the lock: a watchdog of an earlier call that fires late finds
		// another generation armed and leaves the flag alone.
		v.wmu.Lock()
		v.armed++
		gen := v.armed
		atomic.StoreInt32(&v.m.stop, 0)
		v.wmu.Unlock()
		t = v.cfg.Clock.AfterFunc(v.cfg.Timeout, func() {
			v.wmu.Lock()
			if v.armed == gen {
				atomic.StoreInt32(&v.m.stop, 1)
			}
			v.wmu.Unlock()
		})
	}
	err := f()
	if t != nil {
		t.Stop()
	}
	switch atomic.LoadInt32(&v.m.reason) {
	case reasonFuel:
		v.broken = true
		return &Failure{Kind: KindFuel, Message: MsgFuel}
	case reasonTimeout:
		v.broken = true
		return &Failure{Kind: KindTimeout, Message: MsgTimeout}
	}
	if err == nil {
		return nil
	}
	// The engine runs out of memory with an "out of memory" InternalError,
	// an "OOM" error of the Go side, or, when it cannot even make its error,
	// by throwing null (a module that throws null gets the same answer).
	if text := err.Error(); strings.HasPrefix(text, "InternalError: out of memory") || text == "OOM" || text == "null" {
		v.broken = true
		return &Failure{Kind: KindMemory, Message: MsgMemory}
	}
	var je *quickjs.Error
	if errors.As(err, &je) {
		return &Failure{Kind: KindThrow, Message: describe(je)}
	}
	return &Failure{Kind: KindThrow, Message: err.Error()}
}

// describe renders a JS exception as the engine writes it ("Name: message"
// for an Error, the text of any other thrown value) followed by its
// innermost frame, "(at boom (<eval>:7:3))" or, for a syntax error,
// "(at <eval>:2:13)".
func describe(e *quickjs.Error) string {
	frame, _, _ := strings.Cut(strings.TrimSpace(e.Stack), "\n")
	if frame == "" {
		return e.Error()
	}
	return e.Error() + " (" + frame + ")"
}

// Load evaluates module source (name is only used in messages) and checks
// that it sets globalThis.jace with the ABI's parts.
func (v *VM) Load(source, name string) (Manifest, error) {
	err := v.guard(func() error {
		// The completion value is freed unread: converting it to Go would
		// run the module's getters (or walk a huge value) for nothing.
		val, err := v.qjs.EvalValue(source, quickjs.EvalGlobal)
		if err != nil {
			return err
		}
		val.Free()
		return nil
	})
	if err != nil {
		var f *Failure
		if errors.As(err, &f) && f.Kind == KindThrow {
			return Manifest{}, &Failure{Kind: KindBadModule, Message: fmt.Sprintf("module %s: %s", name, f.Message)}
		}
		return Manifest{}, err
	}
	var out any
	err = v.guard(func() (err error) {
		out, err = v.shapeF.Call(quickjs.UndefinedValue)
		return err
	})
	if err != nil {
		return Manifest{}, fmt.Errorf("module %s: checking its shape: %w", name, err)
	}
	// shape() answers the JSON text of a shapeReport (see the prelude).
	text, _ := out.(string)
	var sh shapeReport
	json.Unmarshal([]byte(text), &sh)
	if len(sh.Problems) > 0 {
		return Manifest{}, &Failure{Kind: KindBadModule, Message: fmt.Sprintf("module %s is missing or has a bad %s", name, strings.Join(sh.Problems, ", "))}
	}
	return Manifest{Name: sh.Name, Version: sh.Version, Actions: sh.Actions}, nil
}

// Call is one call into a module entry point.
type Call struct {
	Kind   string // "init", "view" or "action"
	Action string // action name when Kind is "action"
	State  string // JSON of the state (view, action)
	Params string // JSON of the params (action)
	Env    string // JSON of the env (init, action)
	NowMS  int64  // what Date.now() returns
	Seed   uint32 // xorshift32 state before the call (0 is taken as 1)
}

// Result is what an entry point returned.
type Result struct {
	JSON string // the returned value as JSON text
	Seed uint32 // xorshift32 state after the call
}

// Do runs one entry point.
func (v *VM) Do(c Call) (Result, error) {
	var out any
	err := v.guard(func() (err error) {
		// NowMS and Seed go in as int64 and uint32, which quickjs converts
		// to JS numbers directly; a float64 argument would be round-tripped
		// through encoding/json and JSON.parse (the same number, slower).
		//
		// Arguments the entry point's kind never reads (the prelude's call
		// reads env for init, state for view, all of them for an action)
		// are passed as JS null rather than as strings the VM would have to
		// allocate.
		var action, state, params, env any
		switch c.Kind {
		case "init":
			env = orEmpty(c.Env)
		case "view":
			state = orNull(c.State)
		default:
			action, state, params, env = c.Action, orNull(c.State), orNull(c.Params), orEmpty(c.Env)
		}
		out, err = v.callFn.Call(quickjs.UndefinedValue, c.Kind, action, state, params, env, c.NowMS, c.Seed)
		return err
	})
	if err != nil {
		return Result{}, err
	}
	// call() answers a string: "U", "X<message>" or "R<seed>\n<json>" (see
	// the prelude).
	answer, _ := out.(string)
	switch answer[:1] {
	case "U":
		return Result{}, &Failure{Kind: KindUnknownAction, Message: fmt.Sprintf("unknown action %q", c.Action)}
	case "X":
		return Result{}, &Failure{Kind: KindBadResult, Message: answer[1:]}
	}
	head, js, _ := strings.Cut(answer[1:], "\n")
	if len(js) > v.cfg.MaxOutput {
		return Result{}, &Failure{Kind: KindBadResult, Message: fmt.Sprintf("%s returned %d bytes of JSON, over the limit of %d", c.Kind, len(js), v.cfg.MaxOutput)}
	}
	seed, _ := strconv.ParseUint(head, 10, 32)
	return Result{JSON: js, Seed: uint32(seed)}, nil
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

func orEmpty(s string) string {
	if s == "" {
		return "{}"
	}
	return s
}

type shapeReport struct {
	Problems []string `json:"problems"`
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	Actions  []string `json:"actions"`
}
