package fefuzz

import (
	"errors"
	"io"
	"testing"

	"anchorage/impl/fe"
)

// maxInput bounds the input so that reading stays fast.
const maxInput = 1 << 16

func checkStats(t *testing.T, vm *fe.VM) {
	t.Helper()
	st := vm.Stats()
	if st.Free+st.Used != st.Cells || st.Free < 0 {
		t.Fatalf("inconsistent arena stats %+v", st)
	}
	if st.GCStack > st.GCStackCap {
		t.Fatalf("gc stack %d beyond capacity %d", st.GCStack, st.GCStackCap)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`(a b . c) "str\"ing" 'q 1e3 0x10 -nan`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxInput {
			return
		}
		vm, err := fe.New(24576)
		if err != nil {
			t.Fatal(err)
		}
		forms, err := vm.Read(string(data))
		var ferr *fe.Error
		if err != nil && !errors.As(err, &ferr) {
			t.Fatalf("read error of type %T: %v", err, err)
		}
		checkStats(t, vm)
		// Whatever was read prints to text that reads again.
		for _, text := range forms {
			if len(text) > 4096 {
				continue
			}
			if _, err := vm.Read("'" + text); err != nil && !errors.As(err, &ferr) {
				t.Fatalf("re-read error of type %T: %v", err, err)
			}
		}
		checkStats(t, vm)
	})
}

func FuzzEval(f *testing.F) {
	f.Add([]byte(`(= f (fn (n) (if (< n 2) n (+ (f (- n 1)) (f (- n 2)))))) (print (f 10))`), false)
	f.Add([]byte(`(eval '(+ 1 2)) ((lambda (x) x) :k) (try (fn () (car 1)))`), true)
	f.Fuzz(func(t *testing.T, data []byte, deck bool) {
		if len(data) > maxInput {
			return
		}
		errBudget := errors.New("step budget exhausted")
		budget := 200000
		hook := func(fe.Event) error {
			budget--
			if budget < 0 {
				return errBudget
			}
			return nil
		}
		opts := []fe.Option{fe.WithOutput(io.Discard), fe.WithStepHook(hook)}
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
		budget = 200000
		_, err = vm.Eval("(car (cons 1 2))")
		if err != nil && !errors.As(err, &ferr) {
			t.Fatalf("follow-up error of type %T: %v", err, err)
		}
		checkStats(t, vm)
	})
}
