package sandbox

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"modernc.org/quickjs"

	"anchorage/sim/clock"
)

const probeModule = `
globalThis.jace = {
  manifest: {name: "probe", version: "1"},
  init(env) { return {n: 0}; },
  view(state) { return {n: state.n}; },
  actions: {
    echo(state, params) { return {state, result: params}; },
    eval(state, params) { return {state, result: String(globalThis[params.expr] === undefined ? "absent" : "present")}; },
    run(state, params) { return {state, result: (0, globalThis.__probe)(params.expr)}; },
    spin() { for (;;) {} },
    loop(state, params) { let s = 0; for (let i = 0; i < params.n; i++) s += i; return {state, result: s}; },
  }
};
`

func newVM(t *testing.T, lim Limits) *VM {
	t.Helper()
	v := New(Config{Limits: withTestDefaults(lim), Clock: clock.NewSim(time.Time{})})
	t.Cleanup(func() { v.Close() })
	return v
}

// withTestDefaults fills in what the runtime always sets: the output cap,
// the fuel unit and, without a fuel budget standing for it, a timeout on
// the simulated clock (which nothing moves).
func withTestDefaults(lim Limits) Limits {
	if lim.MaxOutput == 0 {
		lim.MaxOutput = DefaultMaxOutput
	}
	if lim.UnitTicks == 0 {
		lim.UnitTicks = PollTicks
	}
	if lim.TimeoutFuel == 0 && lim.Timeout == 0 {
		lim.Timeout = time.Hour
	}
	return lim
}

func evalIn(t *testing.T, v *VM, expr string) string {
	t.Helper()
	// Expressions are evaluated by the host (the way a module's top level is),
	// after the prelude, so they see exactly what module code sees.
	var out any
	err := v.guard(func() error {
		r, err := v.qjs.Eval("JSON.stringify((function(){ try { return "+expr+" } catch (e) { return 'threw ' + e.name + ': ' + e.message } })())", quickjs.EvalGlobal)
		out = r
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	s, _ := out.(string)
	return s
}

// TestFuelShimFieldsPresent fails loudly when modernc.org/quickjs moves the
// unexported fields the fuel shim reads (see fuel.go).
func TestFuelShimFieldsPresent(t *testing.T) {
	q, err := quickjs.NewVM()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("FUEL SHIM BROKEN: modernc.org/quickjs internals moved: %v", r)
		}
	}()
	e := engineOf(q)
	if e.tls == nil || e.cRuntime == 0 {
		t.Fatalf("FUEL SHIM BROKEN: got tls=%p cRuntime=%#x", e.tls, e.cRuntime)
	}
}

func TestFuelIsDeterministic(t *testing.T) {
	var got []int64
	for i := 0; i < 2; i++ {
		v := newVM(t, Limits{})
		if _, err := v.Load(probeModule, "probe.js"); err != nil {
			t.Fatal(err)
		}
		r, err := v.Do(Call{Kind: "action", Action: "loop", State: `{}`, Params: `{"n":1000000}`})
		if err != nil {
			t.Fatal(err)
		}
		used := atomic.LoadInt64(&v.m.used)
		if r.JSON == "" || used == 0 {
			t.Fatalf("loop: %+v, %d polls", r, used)
		}
		got = append(got, used)
	}
	if got[0] != got[1] {
		t.Fatalf("fuel differs between identical runs: %v", got)
	}
}

func TestGuards(t *testing.T) {
	cases := []struct {
		name string
		lim  Limits
		kind string
		msg  string
	}{
		{"fuel", Limits{Fuel: 50}, KindFuel, MsgFuel},
		{"timeout as fuel", Limits{TimeoutFuel: 50}, KindTimeout, MsgTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := newVM(t, c.lim)
			if _, err := v.Load(probeModule, "probe.js"); err != nil {
				t.Fatal(err)
			}
			_, err := v.Do(Call{Kind: "action", Action: "spin", State: `{}`})
			var f *Failure
			if !errors.As(err, &f) || f.Kind != c.kind || f.Message != c.msg {
				t.Fatalf("got %v, want %s %q", err, c.kind, c.msg)
			}
			if !v.Broken() {
				t.Fatal("VM not marked broken after a guard breach")
			}
		})
	}
}

func TestWallWatchdog(t *testing.T) {
	v := New(Config{Limits: withTestDefaults(Limits{Timeout: 100 * time.Millisecond}), Clock: clock.Real()})
	defer v.Close()
	if _, err := v.Load(probeModule, "probe.js"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := v.Do(Call{Kind: "action", Action: "spin", State: `{}`})
	var f *Failure
	if !errors.As(err, &f) || f.Message != MsgTimeout {
		t.Fatalf("got %v, want %q", err, MsgTimeout)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("watchdog fired after %v", d)
	}
}

func TestPrelude(t *testing.T) {
	v := newVM(t, Limits{Fuel: 10000})
	probes := []struct{ expr, want string }{
		{`typeof eval`, `"undefined"`},
		{`typeof setTimeout + typeof setInterval + typeof fetch + typeof XMLHttpRequest + typeof queueMicrotask`, `"undefinedundefinedundefinedundefinedundefined"`},
		{`typeof WeakRef + typeof Atomics + typeof SharedArrayBuffer`, `"undefinedundefinedundefined"`},
		{`Function("return 1")()`, `"threw EvalError: code generation from strings is disabled in the JACE sandbox"`},
		{`(function(){}).constructor("return 1")()`, `"threw EvalError: code generation from strings is disabled in the JACE sandbox"`},
		{`(async function(){}).constructor("return 1")`, `"threw EvalError: code generation from strings is disabled in the JACE sandbox"`},
		{`(function*(){}).constructor("return 1")`, `"threw EvalError: code generation from strings is disabled in the JACE sandbox"`},
		{`Reflect.construct(Function, ["return 1"])`, `"threw EvalError: code generation from strings is disabled in the JACE sandbox"`},
		{`(function(){}) instanceof Function`, `true`},
		{`new Date().getTime() === Date.now()`, `true`},
		{`new (Object.getPrototypeOf(new Date()).constructor)().getTime() === Date.now()`, `true`},
		{`new (new Date().constructor)().getTime() === Date.now()`, `true`},
		{`Object.getPrototypeOf(Date) === Function.prototype`, `true`},
		{`new Date(0).toISOString()`, `"1970-01-01T00:00:00.000Z"`},
		{`new Date(0).getHours()`, `0`},
		{`new Date() instanceof Date`, `true`},
		{`(class D extends Date {}, new (class D extends Date {})()).getTime() === Date.now()`, `true`},
	}
	for _, p := range probes {
		if got := evalIn(t, v, p.expr); got != p.want {
			t.Errorf("%s = %s, want %s", p.expr, got, p.want)
		}
	}
}

func TestClockAndRandomPerCall(t *testing.T) {
	v := newVM(t, Limits{})
	src := `globalThis.jace = {manifest:{name:"t",version:"1"}, init(){return {}}, view(s){return s},
	  actions:{ a(s){ return {state:s, result:[Date.now(), new Date().toISOString(), Math.random(), Math.random()]}; } }};`
	if _, err := v.Load(src, "t.js"); err != nil {
		t.Fatal(err)
	}
	r1, err := v.Do(Call{Kind: "action", Action: "a", State: `{}`, NowMS: 1767225600000, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := v.Do(Call{Kind: "action", Action: "a", State: `{}`, NowMS: 1767225600000, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	if r1.JSON != r2.JSON || r1.Seed != r2.Seed {
		t.Fatalf("same seed and clock gave %s/%d and %s/%d", r1.JSON, r1.Seed, r2.JSON, r2.Seed)
	}
	if !strings.Contains(r1.JSON, `1767225600000,"2026-01-01T00:00:00.000Z"`) {
		t.Fatalf("clock not fixed: %s", r1.JSON)
	}
	r3, err := v.Do(Call{Kind: "action", Action: "a", State: `{}`, NowMS: 0, Seed: r1.Seed})
	if err != nil {
		t.Fatal(err)
	}
	if r3.JSON == r1.JSON || !strings.Contains(r3.JSON, `"1970-01-01T00:00:00.000Z"`) {
		t.Fatalf("clock override or generator continuation failed: %s", r3.JSON)
	}
}

func TestLoadRefusesIncompleteModules(t *testing.T) {
	cases := []struct{ src, want string }{
		{`1`, "globalThis.jace"},
		{`globalThis.jace = {init(){}, view(){}, actions:{}}`, "manifest (an object"},
		{`globalThis.jace = {manifest:{name:"x"}, init(){}, view(){}, actions:{}}`, "manifest.version"},
		{`globalThis.jace = {manifest:{name:"x",version:"1"}, view(){}, actions:{}}`, "init (a function)"},
		{`globalThis.jace = {manifest:{name:"x",version:"1"}, init(){}, actions:{}}`, "view (a function)"},
		{`globalThis.jace = {manifest:{name:"x",version:"1"}, init(){}, view(){}}`, "actions (an object"},
		{`globalThis.jace = {manifest:{name:"x",version:"1"}, init(){}, view(){}, actions:{a:1}}`, `actions["a"] (a function)`},
		{`globalThis.jace = {`, "SyntaxError"},
	}
	for _, c := range cases {
		v := newVM(t, Limits{Fuel: 1000})
		_, err := v.Load(c.src, "m.js")
		var f *Failure
		if !errors.As(err, &f) || f.Kind != KindBadModule || !strings.Contains(f.Message, c.want) {
			t.Errorf("Load(%q) = %v, want a bad_module failure mentioning %q", c.src, err, c.want)
		}
	}
}
