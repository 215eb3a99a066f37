// Package realm simulates the realm instances and the agents of the
// file-based REPL spec (seed 000_8e263a46ca5a55fb, implemented by
// anchorage/impl/chatlog).
//
// A Page is a simulated browser tab: it registers with the server, polls for
// jobs with a configurable network latency on a clock (usually the
// deterministic clock.Sim), evaluates the code in an embedded QuickJS
// (modernc.org/quickjs) with the same evaluation core as the real page
// script, so results, thrown errors and stacks are real, and posts the
// results back. Background errors and unhandled rejections can be scripted.
// An Agent appends requests to a log the way an editor or an LLM tool does:
// whole, half-written (torn), as drafts, concurrently, or by rewriting the
// file (save-as).
//
// All randomness comes from explicit seeds; all time from the clock. It may
// import the standard library, anchorage/impl/chatlog, anchorage/sim/clock,
// afero and modernc.org/quickjs.
package realm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"anchorage/impl/chatlog"
	"anchorage/sim/clock"

	"modernc.org/quickjs"
)

// Hub is the server side of the transport as a page sees it: a
// *chatlog.Server behind a transport.
type Hub interface {
	Poll(id, token string) (*chatlog.Task, error)
	// Received tells that the task's code has reached the page.
	Received(t chatlog.Task)
	Result(id, token, jobID string, o chatlog.Outcome) error
	Heartbeat(id, token string) error
	// Rejoin registers a page: afresh when id is empty, else again under
	// the id it had before a restart the server forgot it in, so that it
	// keeps its log.
	Rejoin(id, name, url, lang string) (chatlog.Registration, error)
}

// windowScript plays the browser's part for the adapter's listeners: a
// window that takes event listeners and dispatches "error" and
// "unhandledrejection" events to them the way a browser does.
const windowScript = `(function () {
  var listeners = {};
  globalThis.window = globalThis;
  globalThis.addEventListener = function (type, f) { (listeners[type] = listeners[type] || []).push(f); };
  globalThis.__dispatch = function (type, ev) {
    (listeners[type] || []).forEach(function (f) { f(ev); });
  };
})();
`

// Config describes a simulated page.
type Config struct {
	Name           string        // the page title
	URL            string        // default http://localhost:8302/
	Latency        time.Duration // one-way network delay, default 5 ms
	Jitter         time.Duration // extra random delay in [0, Jitter), from Seed
	PollEvery      time.Duration // idle poll period, default 100 ms
	HeartbeatEvery time.Duration // default 5 s
	Seed           uint64
	// Core is the adapter's evaluation core the page runs, default
	// chatlog.CoreScript (chatlog.CoreScriptFor gives a varied one).
	Core string
}

// Page is a simulated realm instance running QuickJS.
type Page struct {
	cfg   Config
	hub   Hub
	clk   clock.Clock
	rng   *rand.Rand
	vm    *quickjs.VM
	reg   chatlog.Registration
	mu    sync.Mutex
	timer []clock.Timer

	// Work returns how long the page spends on a job (simulated execution
	// time, added between receiving the code and posting the result);
	// nil means no time at all.
	Work func(t chatlog.Task) time.Duration
	// Hung makes the page keep results to itself (it never posts).
	hung    bool
	held    []heldResult
	stopped bool
	// Log records what the page did, for tests.
	Log []string
}

type heldResult struct {
	task chatlog.Task
	out  chatlog.Outcome
}

// New makes a page with a fresh QuickJS VM holding the evaluation core.
func New(hub Hub, clk clock.Clock, cfg Config) (*Page, error) {
	if cfg.URL == "" {
		cfg.URL = "http://localhost:8302/"
	}
	if cfg.Latency <= 0 {
		cfg.Latency = 5 * time.Millisecond
	}
	if cfg.PollEvery <= 0 {
		cfg.PollEvery = 100 * time.Millisecond
	}
	if cfg.HeartbeatEvery <= 0 {
		cfg.HeartbeatEvery = 5 * time.Second
	}
	vm, err := quickjs.NewVM()
	if err != nil {
		return nil, fmt.Errorf("realm %q: new QuickJS VM: %w", cfg.Name, err)
	}
	if cfg.Core == "" {
		cfg.Core = chatlog.CoreScript
	}
	for _, src := range []string{windowScript, cfg.Core, chatlog.ListenerScript} {
		if _, err := vm.Eval(src, quickjs.EvalGlobal); err != nil {
			vm.Close()
			return nil, fmt.Errorf("realm %q: load the adapter: %w", cfg.Name, err)
		}
	}
	return &Page{cfg: cfg, hub: hub, clk: clk, vm: vm,
		rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed+1))}, nil
}

// Language is the page's fence tag (chatlog.Adapter).
func (p *Page) Language() string { return "JS" }

// Registration is what the server answered at Start.
func (p *Page) Registration() chatlog.Registration { return p.reg }

// Close releases the VM.
func (p *Page) Close() error {
	p.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.vm.Close()
}

func (p *Page) delay() time.Duration {
	d := p.cfg.Latency
	if p.cfg.Jitter > 0 {
		d += time.Duration(p.rng.Int64N(int64(p.cfg.Jitter)))
	}
	return d
}

func (p *Page) after(d time.Duration, f func()) {
	p.timer = append(p.timer, p.clk.AfterFunc(d, func() {
		p.mu.Lock()
		stopped := p.stopped
		p.mu.Unlock()
		if !stopped {
			f()
		}
	}))
	if len(p.timer) > 64 {
		p.timer = p.timer[len(p.timer)-64:]
	}
}

// Start registers the page and starts its poll and heartbeat loops.
func (p *Page) Start() error {
	reg, err := p.hub.Rejoin("", p.cfg.Name, p.cfg.URL, p.Language())
	if err != nil {
		return fmt.Errorf("realm %q: register: %w", p.cfg.Name, err)
	}
	p.reg = reg
	p.after(p.delay(), p.poll)
	p.after(p.cfg.HeartbeatEvery, p.heartbeat)
	return nil
}

// Attach starts the loops with a registration obtained elsewhere (for
// instance chatlog.Server.Rejoin after a restart).
func (p *Page) Attach(reg chatlog.Registration) {
	p.reg = reg
	p.after(p.delay(), p.poll)
	p.after(p.cfg.HeartbeatEvery, p.heartbeat)
}

// Stop ends the loops (a closed tab); held results are lost.
func (p *Page) Stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	for _, t := range p.timer {
		t.Stop()
	}
	p.timer = nil
}

func (p *Page) heartbeat() {
	if err := p.hub.Heartbeat(p.reg.ID, p.reg.Token); err != nil {
		p.Log = append(p.Log, "heartbeat: "+err.Error())
	}
	p.after(p.cfg.HeartbeatEvery, p.heartbeat)
}

// poll asks for a job; the answer takes one latency to come back.
func (p *Page) poll() {
	task, err := p.hub.Poll(p.reg.ID, p.reg.Token)
	if errors.Is(err, chatlog.ErrUnknownInstance) {
		// The server restarted and forgot this page: rejoin, keeping
		// the log, as the browser adapter does on a 403.
		p.Log = append(p.Log, "poll: "+err.Error())
		if reg, rerr := p.hub.Rejoin(p.reg.ID, p.cfg.Name, p.cfg.URL, p.Language()); rerr != nil {
			p.Log = append(p.Log, "rejoin: "+rerr.Error())
		} else {
			p.reg = reg
		}
		p.after(p.cfg.PollEvery, p.poll)
		return
	}
	if err != nil {
		p.Log = append(p.Log, "poll: "+err.Error())
		p.after(p.cfg.PollEvery, p.poll)
		return
	}
	if task == nil {
		p.after(p.cfg.PollEvery, p.poll)
		return
	}
	t := *task
	p.after(p.delay(), func() { p.receive(t) })
}

func (p *Page) receive(t chatlog.Task) {
	p.hub.Received(t)
	out := p.Evaluate(t)
	work := time.Duration(0)
	if p.Work != nil {
		work = p.Work(t)
	}
	p.Log = append(p.Log, fmt.Sprintf("ran %s", t.JobID))
	p.after(work+p.delay(), func() { p.send(t, out) })
}

func (p *Page) send(t chatlog.Task, out chatlog.Outcome) {
	p.mu.Lock()
	hung := p.hung
	if hung {
		p.held = append(p.held, heldResult{t, out})
	}
	p.mu.Unlock()
	if !hung {
		if err := p.hub.Result(p.reg.ID, p.reg.Token, t.JobID, out); err != nil {
			p.Log = append(p.Log, "result: "+err.Error())
		}
	}
	p.after(0, p.poll)
}

// Hang makes the page keep its results (as a stuck tab would) until
// Release; it keeps polling.
func (p *Page) Hang() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hung = true
}

// Release posts every held result now and stops hanging.
func (p *Page) Release() {
	p.mu.Lock()
	held := p.held
	p.held, p.hung = nil, false
	p.mu.Unlock()
	for _, h := range held {
		if err := p.hub.Result(p.reg.ID, p.reg.Token, h.task.JobID, h.out); err != nil {
			p.Log = append(p.Log, "result: "+err.Error())
		}
	}
}

// jsString renders s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// Evaluate runs the task's code in the page's QuickJS and returns the
// outcome with the error buffer (chatlog.Adapter).
func (p *Page) Evaluate(t chatlog.Task) chatlog.Outcome {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.vm.SetEvalTimeout(5 * time.Second); err != nil {
		return chatlog.Outcome{Stack: "realm: " + err.Error()}
	}
	defer p.vm.SetEvalTimeout(0)
	src := "globalThis.__chatlogOut = undefined; __chatlog.run(" + jsString(t.Code) +
		").then(function (r) { globalThis.__chatlogOut = JSON.stringify(r); });"
	if _, err := p.vm.Eval(src, quickjs.EvalGlobal); err != nil {
		return chatlog.Outcome{Stack: describeGoErr(err), Errors: p.takeLocked()}
	}
	if _, err := p.vm.ExecutePendingJobs(); err != nil {
		p.captureLocked(err)
	}
	raw, err := p.vm.Eval("globalThis.__chatlogOut", quickjs.EvalGlobal)
	if err != nil {
		return chatlog.Outcome{Stack: describeGoErr(err), Errors: p.takeLocked()}
	}
	s, ok := raw.(string)
	if !ok {
		return chatlog.Outcome{Stack: "Error: the evaluation never settled (a promise that does not resolve)", Errors: p.takeLocked()}
	}
	var out chatlog.Outcome
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return chatlog.Outcome{Stack: "realm: bad outcome " + s, Errors: p.takeLocked()}
	}
	out.Errors = p.takeLocked()
	return out
}

func describeGoErr(err error) string {
	var je *quickjs.Error
	if errors.As(err, &je) {
		return je.Name + ": " + je.Message + "\n" + je.Stack
	}
	return err.Error()
}

func (p *Page) captureLocked(err error) {
	_, _ = p.vm.Eval("__chatlog.capture(new Error("+jsString(describeGoErr(err))+"), 'error')", quickjs.EvalGlobal)
}

func (p *Page) takeLocked() []string {
	raw, err := p.vm.Eval("JSON.stringify(__chatlog.take())", quickjs.EvalGlobal)
	if err != nil {
		return []string{describeGoErr(err)}
	}
	var errs []string
	if s, ok := raw.(string); ok {
		_ = json.Unmarshal([]byte(s), &errs)
	}
	return errs
}

// ThrowInBackground runs code as an event handler of the page would run:
// an error it throws goes to the window's "error" listeners, as a browser
// dispatches it; the adapter's listener puts it in the buffer returned with
// the next result.
func (p *Page) ThrowInBackground(code string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	src := "try { (0, eval)(" + jsString(code) + "); } catch (e) { __dispatch('error', {error: e, message: String(e && e.message)}); }"
	if _, err := p.vm.Eval(src, quickjs.EvalGlobal); err != nil {
		p.captureLocked(err)
	}
}

// RejectInBackground evaluates code, which should give a promise that
// nobody handles, and dispatches its rejection to the window's
// "unhandledrejection" listeners, as a browser does.
func (p *Page) RejectInBackground(code string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	src := "Promise.resolve((0, eval)(" + jsString(code) + ")).then(undefined, function (e) { __dispatch('unhandledrejection', {reason: e}); });"
	if _, err := p.vm.Eval(src, quickjs.EvalGlobal); err != nil {
		p.captureLocked(err)
	}
	if _, err := p.vm.ExecutePendingJobs(); err != nil {
		p.captureLocked(err)
	}
}
