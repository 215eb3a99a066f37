package fefuzz

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"anchorage/fuzz/internal/fuzzfile"
	"anchorage/impl/fe"
)

// maxInput bounds the input so that reading stays fast.
const maxInput = 1 << 16

func checkStats(t *testing.T, vm *fe.VM) {
	t.Helper()
	st := vm.Stats()
	if st.Free > st.Cells || st.Free < 0 {
		t.Fatalf("inconsistent arena stats %+v", st)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`(a b . c) "str\"ing" 'q 1e3 0x10 -nan`))
	// Small versions of the pathological inputs (the large ones are
	// regression tests: TestPathological).
	f.Add([]byte(strings.Repeat("(", 40) + strings.Repeat(")", 40)))
	f.Add([]byte(strings.Repeat("'", 40) + "x"))
	f.Add([]byte(`(= s "` + strings.Repeat("abcdefghij", 8) + `")`))
	f.Fuzz(readCheck)
}

// stepBudget returns a meter that stops an evaluation after n events.
func stepBudget(n uint64) *fe.Meter {
	m := &fe.Meter{Limit: n, Err: errors.New("step budget exhausted")}
	for i := range m.Costs {
		m.Costs[i] = 1
	}
	return m
}

// readCheck is the body of FuzzRead: the bytes are read as the elements
// of a quoted list, so that reading them evaluates nothing (text after a
// stray ')' is evaluated, under a step budget).
func readCheck(t *testing.T, data []byte) {
	{
		if len(data) > maxInput {
			return
		}
		m := stepBudget(200000)
		vm, err := fe.New(24576, fe.WithMeter(m))
		if err != nil {
			t.Fatal(err)
		}
		text, err := vm.Eval("'(" + string(data) + "\n)")
		var ferr *fe.Error
		if err != nil && !errors.As(err, &ferr) {
			t.Fatalf("read error of type %T: %v", err, err)
		}
		checkStats(t, vm)
		// Whatever was read prints to text that reads again.
		if err == nil && len(text) <= 4096 {
			m.Limit = m.Total + 200000
			if _, err := vm.Eval("'" + text); err != nil && !errors.As(err, &ferr) {
				t.Fatalf("re-read error of type %T: %v", err, err)
			}
		}
		checkStats(t, vm)
	}
}

func FuzzEval(f *testing.F) {
	f.Add([]byte(`(= f (fn (n) (if (< n 2) n (+ (f (- n 1)) (f (- n 2)))))) (print (f 10))`), false)
	f.Add([]byte(`(eval '(+ 1 2)) ((lambda (x) x) :k) (try (fn () (car 1)))`), true)
	f.Add([]byte(strings.Repeat("(", 40)+strings.Repeat(")", 40)), false)
	f.Add([]byte(strings.Repeat("'", 40)+"x"), false)
	f.Add([]byte(`(= s "`+strings.Repeat("abcdefghij", 8)+`") (print s)`), false)
	f.Fuzz(evalCheck)
}

// evalCheck is the body of FuzzEval.
func evalCheck(t *testing.T, data []byte, deck bool) {
	{
		if len(data) > maxInput {
			return
		}
		m := stepBudget(200000)
		opts := []fe.Option{fe.WithOutput(io.Discard), fe.WithMeter(m)}
		if deck {
			opts = append(opts, fe.WithExtensions())
		}
		vm, err := fe.New(4096, opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = vm.Eval(string(data))
		var ferr *fe.Error
		if err != nil && !errors.As(err, &ferr) {
			t.Fatalf("eval error of type %T: %v", err, err)
		}
		checkStats(t, vm)
		// The VM stays usable after whatever happened.
		m.Limit = m.Total + 200000
		_, err = vm.Eval("(car (cons 1 2))")
		if err != nil && !errors.As(err, &ferr) {
			t.Fatalf("follow-up error of type %T: %v", err, err)
		}
		checkStats(t, vm)
	}
}

// TestPathological runs the large pathological inputs under
// testdata/pathological through the fuzz bodies. They are kept out of the
// seed corpus: mutating and minimizing inputs of tens of kilobytes would
// stall the fuzzing engine.
func TestPathological(t *testing.T) {
	for _, tg := range []struct {
		name string
		body func(*testing.T, []any)
	}{
		{"FuzzRead", func(t *testing.T, v []any) { readCheck(t, v[0].([]byte)) }},
		{"FuzzEval", func(t *testing.T, v []any) { evalCheck(t, v[0].([]byte), v[1].(bool)) }},
	} {
		entries, err := fuzzfile.ReadDir(os.DirFS("testdata/pathological"), tg.name)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 {
			t.Fatalf("%s: no pathological inputs", tg.name)
		}
		for _, e := range entries {
			t.Run(tg.name+"/"+e.Name, func(t *testing.T) {
				tg.body(t, e.Values)
			})
		}
	}
}
