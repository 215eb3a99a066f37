package fe

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func newVM(t *testing.T, arena int, opts ...Option) *VM {
	t.Helper()
	vm, err := New(arena, opts...)
	if err != nil {
		t.Fatalf("New(%d): %v", arena, err)
	}
	return vm
}

func mustEval(t *testing.T, vm *VM, src string) string {
	t.Helper()
	got, err := vm.Eval(src)
	if err != nil {
		t.Fatalf("Eval(%q): %v", src, err)
	}
	return got
}

func TestEvalAPI(t *testing.T) {
	var out bytes.Buffer
	vm := newVM(t, 24576, WithOutput(&out))
	cases := []struct{ src, want string }{
		{"(+ 1 2)", "3"},
		{`"raw"`, "raw"},
		{`(list "q" 1)`, `("q" 1)`},
		{"(= sq (fn (x) (* x x))) (sq 12)", "144"},
		{"", "nil"},
		{"(/ 1 3)", "0.3333333"},
		{"12345678", "1.234568e+07"},
	}
	for _, c := range cases {
		if got := mustEval(t, vm, c.src); got != c.want {
			t.Errorf("Eval(%q) = %q, want %q", c.src, got, c.want)
		}
	}
	mustEval(t, vm, `(print "hi" 2)`)
	if out.String() != "hi 2\n" {
		t.Errorf("print output %q, want %q", out.String(), "hi 2\n")
	}
	_, err := vm.Eval("(car 5)")
	var fe *Error
	if !errors.As(err, &fe) || fe.Msg != "expected pair, got number" {
		t.Fatalf("Eval(car 5) error = %v, want expected pair, got number", err)
	}
	// The VM stays usable and keeps earlier bindings.
	if got := mustEval(t, vm, "(sq 3)"); got != "9" {
		t.Errorf("after error: %q", got)
	}
}

func TestStockModeHasNoExtensions(t *testing.T) {
	vm := newVM(t, 24576)
	for _, src := range []string{"(eval '(+ 1 2))", "((lambda (x) x) 1)", "(describe 'car)", "(type-of 1)", "(try (fn () 1))"} {
		_, err := vm.Eval(src)
		if err == nil || err.Error() != "tried to call non-callable value" {
			t.Errorf("stock Eval(%q) err = %v, want non-callable", src, err)
		}
	}
	if got := mustEval(t, vm, "(list :fn 'x)"); got != "(nil x)" {
		t.Errorf("stock keywords: %q, want (nil x)", got)
	}
}

func TestExtensions(t *testing.T) {
	vm := newVM(t, 24576, WithExtensions())
	cases := []struct{ src, want string }{
		{"(eval (quote (+ 1 2)))", "3"},
		{"((lambda (x) (* x x)) 5)", "25"},
		{"(list :fn :message)", "(:fn :message)"},
		{"(is :seed ':seed)", "t"},
		{"(type-of nil)", "nil"},
		{"(type-of '(1))", "cons"},
		{"(type-of car)", "lambda"},
		{"(type-of (fn () 1))", "lambda"},
		{"(type-of (mac () 1))", "lambda"},
		{"(type-of type-of)", "lambda"},
		{"(type-of 'a)", "symbol"},
		{"(type-of 1.5)", "number"},
		{`(type-of "s")`, "string"},
		{"(describe 'eval)", "(eval x) evaluates the value x in the global environment."},
		{"(describe 'nothing-here)", "nil"},
		{"(try (fn () (car 5)))", `(error fe-error :message "expected pair, got number")`},
		{"(try (fn () 7))", "7"},
		{"(car (try (fn () (car 5))))", "error"},
	}
	for _, c := range cases {
		if got := mustEval(t, vm, c.src); got != c.want {
			t.Errorf("Eval(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}

func TestStructuredErrors(t *testing.T) {
	vm := newVM(t, 24576, WithExtensions())
	msg := "Writes to deck state require mission context."
	if err := vm.Restrict("credit-add", []string{"not-authorized", "outside-mission"}, msg,
		"(credit-add n) adds credits; mission context only."); err != nil {
		t.Fatal(err)
	}
	_, err := vm.Eval("(credit-add 100)")
	want := `(error not-authorized outside-mission :fn credit-add :message "` + msg + `")`
	if err == nil || err.Error() != want {
		t.Fatalf("credit-add error = %v, want %s", err, want)
	}
	if got := mustEval(t, vm, "(describe 'credit-add)"); got != "(credit-add n) adds credits; mission context only." {
		t.Errorf("describe: %q", got)
	}
	// Lisp can inspect the error object through try.
	got := mustEval(t, vm, "(let e (try (fn () (credit-add 1)))) (do (let e (try (fn () (credit-add 1)))) (list (car e) (car (cdr e)) (car (cdr (cdr (cdr (cdr e)))))))")
	if got != "(error not-authorized credit-add)" {
		t.Errorf("inspect: %q", got)
	}
	// A Go primitive can raise its own structured error.
	err = vm.RegisterPrimitive("needs-number", func(vm *VM, args Value) (Value, error) {
		a := vm.Car(args)
		if vm.Type(a) != TNumber {
			return Nil, vm.RaiseError([]string{"bad-arg"}, Field{Key: "got", Value: a})
		}
		return vm.Number(vm.ToNumber(a) * 2), nil
	}, "doubles")
	if err != nil {
		t.Fatal(err)
	}
	if got := mustEval(t, vm, "(needs-number 4)"); got != "8" {
		t.Errorf("needs-number 4 = %q", got)
	}
	if _, err := vm.Eval(`(needs-number "x")`); err == nil || err.Error() != `(error bad-arg :got "x")` {
		t.Errorf("needs-number error = %v", err)
	}
	// A plain Go error raises its message.
	boom := errors.New("boom")
	if err := vm.RegisterPrimitive("boom", func(*VM, Value) (Value, error) { return Nil, boom }, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.Eval("(boom)"); !errors.Is(err, boom) || err.Error() != "boom" {
		t.Errorf("boom error = %v", err)
	}
}

// TestMeterWatchdog aborts a runaway loop and checks the VM recovers.
func TestMeterWatchdog(t *testing.T) {
	// Every event costs one unit: (while t nil) evaluates no pair after
	// the first, only lookups of t.
	errBudget := errors.New("interrupted")
	m := unitMeter(^uint64(0), errBudget)
	vm := newVM(t, 24576, WithMeter(m))
	mustEval(t, vm, "(= x 0)")
	m.Limit = m.Total + 1000
	_, err := vm.Eval("(while t nil)")
	if !errors.Is(err, errBudget) {
		t.Fatalf("runaway loop: err = %v, want interrupted", err)
	}
	if got := mustEval(t, vm, "(+ 1 2)"); got != "3" {
		t.Errorf("after abort: %q", got)
	}
	before := vm.pinStats()
	if before.GCStack != 4 {
		t.Errorf("gc stack after abort = %d, want 4", before.GCStack)
	}
}

// TestMeterAbortDuringGC aborts from the sweep: the collection must still
// finish, leaving a consistent heap.
func TestMeterAbortDuringGC(t *testing.T) {
	stop := errors.New("stop")
	m := &Meter{Limit: ^uint64(0), Err: stop}
	m.Costs[EvSweep] = 1
	vm := newVM(t, 4096, WithExtensions(), WithMeter(m))
	mustEval(t, vm, "(= l nil)")
	m.Limit = m.Total // the first sweep event passes it
	_, err := vm.Eval("(while t (= l (cons 1 l)))")
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want stop", err)
	}
	st := vm.pinStats()
	if st.Free+st.Used != st.Cells {
		t.Errorf("stats after abort: %+v", st)
	}
	mustEval(t, vm, "(= l nil)")
	if err := vm.Collect(); err != nil {
		t.Fatal(err)
	}
	if got := mustEval(t, vm, "(car (cons 5 nil))"); got != "5" {
		t.Errorf("after abort: %q", got)
	}
}

func TestTryDoesNotCatchWatchdog(t *testing.T) {
	m := &Meter{Limit: ^uint64(0), Err: errors.New("watchdog")}
	m.Costs[EvCall] = 1
	vm := newVM(t, 24576, WithExtensions(), WithMeter(m))
	mustEval(t, vm, "(= f (fn () 1))")
	m.Limit = m.Total // the next call passes it
	if _, err := vm.Eval("(try (fn () (f)))"); err == nil || err.Error() != "watchdog" {
		t.Errorf("try with watchdog: %v", err)
	}
}

func TestCountsAndStats(t *testing.T) {
	vm := newVM(t, 24576)
	st := vm.pinStats()
	if st.Cells != 2938 || st.Used != 142 || st.Free != 2796 {
		t.Fatalf("fresh 24 KB arena stats %+v, want 2938 cells, 142 used, 2796 free", st)
	}
	c0 := vm.Counts()
	mustEval(t, vm, "(+ 1 2)")
	c1 := vm.Counts()
	if d := c1[EvPair] - c0[EvPair]; d != 1 {
		t.Errorf("pair events %d, want 1", d)
	}
	if d := c1[EvArg] - c0[EvArg]; d != 2 {
		t.Errorf("arg events %d, want 2", d)
	}
	if d := c1[EvAtom] - c0[EvAtom]; d != 2 {
		t.Errorf("atom events %d, want 2", d)
	}
	// Reading: 3 conses and 2 numbers; evaluating: 1 result number.
	if d := c1[EvAlloc] - c0[EvAlloc]; d != 6 {
		t.Errorf("alloc events %d, want 6", d)
	}
	if err := vm.Collect(); err != nil {
		t.Fatal(err)
	}
	c2 := vm.Counts()
	if d := c2[EvSweep] - c1[EvSweep]; d != 2938 {
		t.Errorf("sweep events %d, want 2938", d)
	}
	if vm.pinStats().GCCount != 1 {
		t.Errorf("gc count %d, want 1", vm.pinStats().GCCount)
	}
}

func TestREPLDeckErrorObject(t *testing.T) {
	vm := newVM(t, 24576, WithExtensions())
	if err := vm.Restrict("gfx-line", []string{"not-authorized", "outside-mission"}, "no gfx", ""); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	vm.RunREPL(strings.NewReader("(gfx-line)\n(+ 1 1)\n"), &out, &out)
	want := "> error: (error not-authorized outside-mission :fn gfx-line :message \"no gfx\")\n> 2\n> "
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestNewTooSmall(t *testing.T) {
	_, err := New(1500)
	if !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("New(1500) = %v, want out of memory", err)
	}
	_, err = New(100)
	if !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("New(100) = %v, want out of memory", err)
	}
}

// TestForeignValueRejected checks that a value which is not a cell of the
// VM is refused at the API boundary (the evaluator follows values without a
// bounds check), both just past the last cell and far beyond it, and one
// that points inside a cell, while the last cell itself is accepted.
func TestForeignValueRejected(t *testing.T) {
	vm := newVM(t, 4096)
	last := valueOf(vm.pinStats().Cells)
	for _, v := range []Value{last + cellSize, last + 1, 1 << 30} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "not a cell of this VM") {
					t.Errorf("Cons(%d, nil): recovered %v, want a panic naming the foreign value", v, r)
				}
			}()
			_ = vm.Do(func() error { vm.Cons(v, Nil); return nil })
		}()
	}
	if err := vm.Do(func() error { vm.Cons(last, Nil); return nil }); err != nil {
		t.Errorf("Cons(last cell, nil): %v", err)
	}
	bad := func(vm *VM, _ Value) (Value, error) { return last + cellSize, nil }
	vm = newVM(t, 4096)
	if err := vm.RegisterPrimitive("bad", bad, ""); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Errorf("a primitive returning a foreign value: no panic")
			}
		}()
		_, _ = vm.Eval("(bad)")
	}()
}

// TestDeepTraceback raises an error 1,500 calls deep, past the part of the
// call list the VM keeps in place, twice (the second time after the list
// was reset by the first error): the traceback `fe FILE` prints has every
// call, innermost first. With a meter it has none (the call list is kept
// only without one).
func TestDeepTraceback(t *testing.T) {
	src := "(= f (fn (n) (if (< n 1) (car n) (+ 1 (f (- n 1))))))\n(f 500)\n"
	for _, metered := range []bool{false, true} {
		opts := []Option{WithModel(Model{ptrSize: 4, gcStackSize: 20000})}
		if metered {
			opts = append(opts, WithMeter(unitMeter(^uint64(0), nil)))
		}
		vm := newVM(t, 1<<22, opts...)
		for range 2 {
			var out, errOut bytes.Buffer
			if status := vm.RunFile(strings.NewReader(src), &out, &errOut); status != 1 {
				t.Fatalf("status %d, want 1", status)
			}
			lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
			if lines[0] != "error: expected pair, got number" {
				t.Fatalf("error line %q", lines[0])
			}
			trace := lines[1:]
			if metered {
				if len(trace) != 0 {
					t.Errorf("metered traceback %q, want none", trace)
				}
				continue
			}
			// The outermost (f 500); for n from 500 down to 1 its body
			// (if …), (+ 1 …) and (f (- n 1)); for n = 0 (if …) and the
			// innermost (car n).
			if len(trace) != 1+3*500+2 {
				t.Fatalf("trace has %d entries, want %d", len(trace), 1+3*500+2)
			}
			want := []string{"=> (car n)", "=> (if (< n 1) (car n) (+ 1 (f (- n 1))))", "=> (f (- n 1))", "=> (+ 1 (f (- n 1)))"}
			if diff := cmp.Diff(want, trace[:4]); diff != "" {
				t.Errorf("innermost trace (-want +got):\n%s", diff)
			}
			if last := trace[len(trace)-1]; last != "=> (f 500)" {
				t.Errorf("outermost trace entry %q, want => (f 500)", last)
			}
		}
	}
}
