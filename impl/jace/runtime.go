// Package jace is the JACE sandbox runtime (seed 003_fd13fde4b5172d4e.txt):
// it loads a JACE module into QuickJS sandboxes (package sandbox), keeps
// state per session, applies dry-run/commit and Idempotency-Key rules,
// relays events, writes the audit log and serves the HTTP JSON API.
//
// Runtime is the in-process API; Server wraps it in an http.Handler. Both
// are built from a Config; there is no package-level state.
//
// Isolation: every session gets its own VM (created lazily, at most
// Config.MaxVMs alive, least recently used idle ones closed first), so
// nothing a module does in one session's heap — globals, prototype
// tampering, memory — can be seen by another. The persisted state, the
// random generator's state and the idempotency keys live on the host side,
// so closing a VM loses nothing the ABI promises.
//
// It may import the standard library, anchorage/impl/jace/sandbox,
// anchorage/impl/vary, anchorage/sim/clock, github.com/spf13/afero and
// github.com/santhosh-tekuri/jsonschema/v6; never godog or features/.
package jace

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/spf13/afero"

	"anchorage/impl/jace/sandbox"
	"anchorage/impl/vary"
	"anchorage/sim/clock"
)

//go:embed calc.js
var calculatorSource string

// CalculatorModule returns the source of the embedded calculator demo, the
// module the jace command serves when it is given none (seed §7).
func CalculatorModule() string { return calculatorSource }

// Defaults.
const (
	DefaultAddr              = "127.0.0.1:3323"
	DefaultTimeout           = 2 * time.Second
	DefaultMaxBody           = 1 << 20
	DefaultMaxVMs            = 64
	DefaultMaxKeysPerSession = 10000
	DefaultEventBuffer       = 256
	DefaultSeed              = 42
)

// DefaultNow is the instant Date reports inside the VM unless env.now says
// otherwise: 2026-01-01T00:00:00Z (the clock variation moves it).
func DefaultNow() time.Time { return time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC) }

// Config builds a Runtime (and a Server).
type Config struct {
	// Clock drives the wall-clock watchdog and the timestamps of events and
	// audit records. nil means clock.Real().
	Clock clock.Clock
	// Seed seeds Math.random (xorshift32). Every session starts from it.
	Seed int64
	// Fuel caps each call into a VM at this many fuel units (1 unit =
	// 10,000 QuickJS ticks); 0 disables the fuel guard.
	Fuel int64
	// Timeout is the wall-clock limit of one call (0 or less: 2 s). It is
	// used only when TimeoutFuel is 0.
	Timeout time.Duration
	// TimeoutFuel > 0 turns on the deterministic (simulation) mode of the
	// action timeout: a call burning more than this many fuel units is
	// answered "Action timed out", and no watchdog runs.
	// sandbox.DefaultTimeoutFuel approximates 2 s.
	TimeoutFuel int64
	// MemoryLimit per VM in bytes (default sandbox.DefaultMemoryLimit).
	MemoryLimit int
	// MaxOutput caps the JSON an entry point returns (default
	// sandbox.DefaultMaxOutput).
	MaxOutput int
	// MaxBody caps request bodies in bytes (0 or less: 1 MiB).
	MaxBody int64
	// Module is the module source loaded at start (CalculatorModule() is
	// the seed's demo); ModuleName names it in messages.
	Module     string
	ModuleName string
	// FS is where /load-file reads (default the OS file system). Wrap it in
	// afero.NewBasePathFs to confine it.
	FS afero.Fs
	// AuditLog receives one JSON line per action; nil discards.
	AuditLog io.Writer
	// Logger receives operational messages; nil discards.
	Logger *slog.Logger
	// MaxVMs bounds the live session VMs (default 64).
	MaxVMs int
	// MaxKeysPerSession bounds remembered Idempotency-Keys per session;
	// the oldest are forgotten first (default 10000).
	MaxKeysPerSession int
	// EventBuffer is the per-subscriber SSE queue; a subscriber that falls
	// this far behind is disconnected (default 256).
	EventBuffer int
	// Vary switches on spec-permitted variations (Variations): choices the
	// seed leaves open made differently from the reference's decisions.
	// The zero Set is the reference itself.
	Vary vary.Set
}

func (c Config) withDefaults() Config {
	if c.Clock == nil {
		c.Clock = clock.Real()
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxBody <= 0 {
		c.MaxBody = vary.Choose[int64](c.Vary, VaryBodyLimit, DefaultMaxBody, variedMaxBody)
	}
	if c.MaxOutput <= 0 {
		c.MaxOutput = vary.Choose(c.Vary, VaryLimits, sandbox.DefaultMaxOutput, variedMaxOutput)
	}
	if c.FS == nil {
		c.FS = afero.NewOsFs()
	}
	if c.AuditLog == nil {
		c.AuditLog = io.Discard
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.MaxVMs <= 0 {
		c.MaxVMs = DefaultMaxVMs
	}
	if c.MaxKeysPerSession <= 0 {
		c.MaxKeysPerSession = DefaultMaxKeysPerSession
	}
	if c.EventBuffer <= 0 {
		c.EventBuffer = DefaultEventBuffer
	}
	return c
}

// fuelUnitTicks is how many interpreter ticks make a unit of Fuel: one
// interrupt poll (Decision §jace-fuel), two with the fuel-unit variation.
func (c Config) fuelUnitTicks() int64 {
	return vary.Choose[int64](c.Vary, VaryFuelUnit, sandbox.PollTicks, variedUnitTicks)
}

// SeedState maps a configured seed to the xorshift32 starting state: the
// two halves XORed, and a fixed non-zero constant in place of zero (the
// generator is stuck at zero).
func SeedState(seed int64) uint32 {
	s := uint32(seed) ^ uint32(uint64(seed)>>32)
	if s == 0 {
		s = 0x6D2B79F5
	}
	return s
}

// Env is an ActionEnv: known keys (session_id, dry_run, intent, now) and
// any host-injected capability, as raw JSON.
type Env map[string]json.RawMessage

func (e Env) str(key string) string {
	var s string
	if raw, ok := e[key]; ok {
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
	}
	return s
}

func (e Env) flag(key string) bool {
	var b bool
	if raw, ok := e[key]; ok {
		if json.Unmarshal(raw, &b) != nil {
			return false
		}
	}
	return b
}

// Manifest describes the loaded module.
type Manifest = sandbox.Manifest

type module struct {
	source   string
	name     string
	manifest Manifest
	env      Env
}

// Runtime holds the loaded module, the sessions and the event broker.
type Runtime struct {
	cfg    Config
	events *broker
	audit  *auditLog
	seed0  uint32
	now    time.Time // what Date reports in the VM unless env.now says otherwise

	mu       sync.Mutex
	mod      *module
	sessions map[string]*session
	tick     uint64
	liveVMs  int
	closed   bool
}

// session is the host side of one session_id.
type session struct {
	id  string
	mod *module

	mu    sync.Mutex // serialises calls; guards the fields below
	dead  bool       // its module was replaced; look the session up again
	state json.RawMessage
	seed  uint32
	vm    *sandbox.VM

	keys     map[string]*keyEntry // the remembered Idempotency-Keys
	keyOrder []string             // the same, oldest first

	lastUse uint64 // guarded by Runtime.mu
}

type keyEntry struct {
	fingerprint string
	outcome     *Outcome
}

// New makes a Runtime and loads Config.Module (or the calculator).
func New(cfg Config) (*Runtime, error) {
	cfg = cfg.withDefaults()
	r := &Runtime{
		cfg:      cfg,
		events:   newBroker(cfg.EventBuffer),
		audit:    &auditLog{w: cfg.AuditLog},
		seed0:    SeedState(cfg.Seed),
		now:      vary.Choose(cfg.Vary, VaryClock, DefaultNow(), variedNow()),
		sessions: map[string]*session{},
	}
	if _, err := r.Load(cfg.Module, cfg.ModuleName, nil); err != nil {
		return nil, fmt.Errorf("jace: loading the start module: %w", err)
	}
	return r, nil
}

// Config returns the effective configuration.
func (r *Runtime) Config() Config { return r.cfg }

// Manifest returns the loaded module's manifest.
func (r *Runtime) Manifest() Manifest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mod.manifest
}

func (r *Runtime) vmConfig() sandbox.Config {
	return sandbox.Config{
		Limits: sandbox.Limits{
			Fuel:        r.cfg.Fuel,
			TimeoutFuel: r.cfg.TimeoutFuel,
			Timeout:     r.cfg.Timeout,
			MemoryLimit: r.cfg.MemoryLimit,
			MaxOutput:   r.cfg.MaxOutput,
			UnitTicks:   r.cfg.fuelUnitTicks(),
		},
		Clock: r.cfg.Clock,
	}
}

// Load checks source in a fresh VM and, if it has the module shape, makes
// it the runtime's module. Every session (state, keys, VM) is discarded:
// state belongs to the module that made it. env is merged into the env of
// every later call (host-injected capabilities).
func (r *Runtime) Load(source, name string, env Env) (Manifest, error) {
	vm := sandbox.New(r.vmConfig())
	man, err := vm.Load(source, name)
	vm.Close()
	if err != nil {
		var f *sandbox.Failure
		if errors.As(err, &f) && f.Kind != sandbox.KindBadModule {
			// A guard fired while the module's top level ran.
			return Manifest{}, newError(kindBadModule, "module %s: top-level code: %s", name, f.Message)
		}
		return Manifest{}, failureError(err, "loading the module")
	}
	m := &module{source: source, name: name, manifest: man, env: env}

	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return Manifest{}, newError(kindShutdown, "the runtime is closed")
	}
	old := r.sessions
	r.mod = m
	r.sessions = map[string]*session{}
	r.mu.Unlock()
	r.retire(old)
	r.cfg.Logger.Info("module loaded", "name", man.Name, "version", man.Version, "source", name)
	return man, nil
}

// LoadFile reads path from Config.FS and loads it.
func (r *Runtime) LoadFile(path string, env Env) (Manifest, error) {
	b, err := afero.ReadFile(r.cfg.FS, path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) { // the OS's and afero's file systems alike
			return Manifest{}, newError(kindFileMissing, "module file %s: %v", path, err)
		}
		return Manifest{}, newError(kindFileUnreadable, "module file %s: %v", path, err)
	}
	return r.Load(string(b), path, env)
}

// retire closes the VMs of sessions that no longer belong to the runtime.
// Each is closed under its own lock, so the order does not matter.
func (r *Runtime) retire(old map[string]*session) {
	for _, s := range old {
		r.retireSession(s)
	}
}

// retireSession marks s dead, so that a request that looked it up before it
// left the table looks again, and closes its VM.
func (r *Runtime) retireSession(s *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dead = true
	r.dropVM(s)
}

// Close closes every VM and ends every event stream.
func (r *Runtime) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	old := r.sessions // nothing reads the table once closed is set
	r.mu.Unlock()
	r.retire(old)
	r.events.close()
	return nil
}

// Subscribe returns a stream of SSE payloads (one JSON object each) for
// committed events, optionally only those of one session, and a cancel func.
func (r *Runtime) Subscribe(sessionID string, filter bool) (<-chan []byte, func()) {
	return r.events.subscribe(sessionID, filter)
}

// lock finds (or makes) the session and locks it. The caller unlocks s.mu.
func (r *Runtime) lock(id string) (*session, error) {
	for {
		s, err := r.lookup(id)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		if !s.dead {
			return s, nil
		}
		s.mu.Unlock()
	}
}

func (r *Runtime) lookup(id string) (*session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, newError(kindShutdown, "the runtime is closed")
	}
	s := r.sessions[id]
	if s == nil {
		s = &session{id: id, mod: r.mod, seed: r.seed0, keys: map[string]*keyEntry{}}
		r.sessions[id] = s
	}
	r.tick++
	s.lastUse = r.tick
	return s, nil
}

// vmOf returns the session's VM, making one if needed. A session never
// keeps a broken VM: call drops one as soon as a guard breaks it. Called
// with s.mu held.
func (r *Runtime) vmOf(s *session) (*sandbox.VM, error) {
	if s.vm != nil {
		return s.vm, nil
	}
	r.makeRoom(s)
	vm := sandbox.New(r.vmConfig())
	if _, err := vm.Load(s.mod.source, s.mod.name); err != nil {
		vm.Close()
		return nil, failureError(err, "loading the module into a session VM")
	}
	s.vm = vm
	r.mu.Lock()
	r.liveVMs++
	r.mu.Unlock()
	return vm, nil
}

// dropVM closes the session's VM. Called with s.mu held.
func (r *Runtime) dropVM(s *session) {
	if s.vm == nil {
		return
	}
	s.vm.Close()
	s.vm = nil
	r.mu.Lock()
	r.liveVMs--
	r.mu.Unlock()
}

// makeRoom closes the VMs of the least recently used idle sessions until a
// new VM fits under MaxVMs. Busy sessions are skipped (TryLock), so the cap
// can be exceeded briefly rather than block.
func (r *Runtime) makeRoom(self *session) {
	r.mu.Lock()
	if r.liveVMs < r.cfg.MaxVMs {
		r.mu.Unlock()
		return
	}
	cands := make([]*session, 0, len(r.sessions))
	for _, s := range r.sessions {
		if s != self {
			cands = append(cands, s)
		}
	}
	need := r.liveVMs - r.cfg.MaxVMs + 1
	slices.SortFunc(cands, func(a, b *session) int { return cmp.Compare(a.lastUse, b.lastUse) })
	r.mu.Unlock()
	for _, s := range cands {
		if need <= 0 {
			return
		}
		if !s.mu.TryLock() {
			continue
		}
		if s.vm != nil {
			r.dropVM(s)
			need--
		}
		s.mu.Unlock()
	}
}

// call runs one entry point in the session's VM. A guard breach discards
// the VM. Called with s.mu held.
func (r *Runtime) call(s *session, c sandbox.Call) (sandbox.Result, error) {
	vm, err := r.vmOf(s)
	if err != nil {
		return sandbox.Result{}, err
	}
	res, err := vm.Do(c)
	if vm.Broken() {
		r.cfg.Logger.Warn("session VM discarded after a guard breach", "session_id", s.id, "error", err)
		r.dropVM(s)
	}
	return res, err
}

// failureError maps a sandbox failure to an Error with its HTTP status.
func failureError(err error, doing string) *Error {
	var f *sandbox.Failure
	if !errors.As(err, &f) {
		var e *Error
		if errors.As(err, &e) {
			return e
		}
		return newError(kindInternal, "%s: %v", doing, err)
	}
	switch f.Kind {
	case sandbox.KindTimeout:
		return newError(kindTimeout, "%s", f.Message)
	case sandbox.KindFuel:
		return newError(kindFuel, "%s", f.Message)
	case sandbox.KindMemory:
		return newError(kindMemory, "%s", f.Message)
	case sandbox.KindUnknownAction:
		return newError(kindUnknownAction, "%s", f.Message)
	case sandbox.KindBadModule:
		return newError(kindBadModule, "%s", f.Message)
	case sandbox.KindBadResult:
		return newError(kindBadResult, "%s", f.Message)
	default:
		return newError(kindThrown, "%s: %s", doing, f.Message)
	}
}

// nowMS resolves env.now (an RFC 3339 timestamp) or the configured instant.
func (r *Runtime) nowMS(env Env) (int64, *Error) {
	raw, ok := env["now"]
	if !ok {
		return r.now.UnixMilli(), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, newError(kindSchema, "env.now: want an ISO 8601 timestamp string, got %s", raw)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, newError(kindSchema, "env.now: %q is not an ISO 8601 (RFC 3339) timestamp", s)
	}
	return t.UnixMilli(), nil
}

// envJSON merges the module's load env and the request env, the request's
// members winning, and writes the known keys over them.
func envJSON(mod *module, env Env, sessionID string, dryRun bool, intent string) string {
	m := map[string]json.RawMessage{}
	for k, v := range mod.env {
		m[k] = v
	}
	for k, v := range env {
		m[k] = v
	}
	delete(m, "session_id") // dry_run is written below in any case
	delete(m, "intent")
	if sessionID != "" {
		m["session_id"] = mustJSON(sessionID)
	}
	m["dry_run"] = mustJSON(dryRun)
	if intent != "" {
		m["intent"] = mustJSON(intent)
	}
	return string(mustJSON(m))
}

func mustJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only Go values built here are encoded; they always encode.
		return json.RawMessage("null")
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))
}

// canonical re-encodes JSON with object keys sorted (numbers kept as
// written), so that equal payloads compare equal.
func canonical(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	dec.Decode(&v) // raw is JSON the runtime has read already; nothing reads as null
	return string(mustJSON(v))
}

// ensureState returns the session's state, computing init's (without
// storing it) if the session has none yet. Called with s.mu held.
func (r *Runtime) ensureState(s *session) (json.RawMessage, uint32, error) {
	if s.state != nil {
		return s.state, s.seed, nil
	}
	res, err := r.call(s, sandbox.Call{
		Kind:  "init",
		Env:   envJSON(s.mod, nil, s.id, false, ""),
		NowMS: r.now.UnixMilli(),
		Seed:  s.seed,
	})
	if err != nil {
		return nil, 0, failureError(err, "init")
	}
	return json.RawMessage(res.JSON), res.Seed, nil
}

// Init runs the module's init with env and, unless env.dry_run, makes the
// result the state of session env.session_id (default session when absent).
func (r *Runtime) Init(env Env) (json.RawMessage, error) {
	nowMS, e := r.nowMS(env)
	if e != nil {
		return nil, e
	}
	id := env.str("session_id")
	dry := env.flag("dry_run")
	s, err := r.lock(id)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	res, err := r.call(s, sandbox.Call{
		Kind:  "init",
		Env:   envJSON(s.mod, env, id, dry, env.str("intent")),
		NowMS: nowMS,
		Seed:  r.seed0,
	})
	if err != nil {
		return nil, failureError(err, "init")
	}
	if !dry {
		s.state = json.RawMessage(res.JSON)
		s.seed = res.Seed
	}
	return json.RawMessage(res.JSON), nil
}

// View renders state (or, when state is nil, the session's state) with the
// module's view.
func (r *Runtime) View(sessionID string, state json.RawMessage) (json.RawMessage, error) {
	s, err := r.lock(sessionID)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	seed := s.seed
	if state == nil {
		st, sd, err := r.ensureState(s)
		if err != nil {
			return nil, err
		}
		state, seed = st, sd
	}
	res, err := r.call(s, sandbox.Call{Kind: "view", State: string(state), NowMS: r.now.UnixMilli(), Seed: seed})
	if err != nil {
		return nil, failureError(err, "view")
	}
	return json.RawMessage(res.JSON), nil
}

// State returns the session's persisted state, or nil if it has none yet.
func (r *Runtime) State(sessionID string) json.RawMessage {
	s, err := r.lock(sessionID)
	if err != nil {
		return nil
	}
	defer s.mu.Unlock()
	return s.state
}
