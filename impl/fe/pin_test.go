package fe

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The tests in this file pin the interpreter's observable work: the event
// counts (the deck's cycle model is built on them), the collection count,
// the arena statistics and the exact points where a step hook aborts. They
// were recorded before the VM was optimised and must never move.

// pinRun runs one program and describes everything observable about the
// run: output, exit status, event counts and arena statistics.
func pinRun(src []byte, mode string, arena int, opts ...Option) string {
	var out bytes.Buffer
	vm, err := New(arena, opts...)
	if err != nil {
		return "new: " + err.Error()
	}
	status := 0
	if mode == "repl" {
		vm.RunREPL(bytes.NewReader(src), &out, &out)
	} else {
		status = vm.RunFile(bytes.NewReader(src), &out, &out)
	}
	return fmt.Sprintf("%s|%d|%v|%+v", maskPointers(out.String()), status, vm.Counts(), vm.Stats())
}

// abortAfter returns a hook that fails at its k-th call.
func abortAfter(k int) StepHook {
	n := 0
	return func(Event) error {
		n++
		if n == k {
			return errors.New("pin: abort")
		}
		return nil
	}
}

func total(c [NumEvents]uint64) uint64 {
	var s uint64
	for _, n := range c {
		s += n
	}
	return s
}

// TestPinnedEventCountsCorpus hashes the observable work of every corpus
// program in several configurations, including hooks aborting part way.
func TestPinnedEventCountsCorpus(t *testing.T) {
	dir := corpusDir(t)
	h := sha256.New()
	for _, r := range readManifest(t, dir) {
		src, err := os.ReadFile(filepath.Join(dir, r.name+".fe"))
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		fmt.Fprintf(h, "%s\n%s\n", r.name, pinRun(src, r.mode, r.arena))
		fmt.Fprintf(h, "%s\n", pinRun(src, r.mode, r.arena, WithModel(Model64())))
		fmt.Fprintf(h, "%s\n", pinRun(src, r.mode, r.arena, WithExtensions(), WithNaNStyle(NaNNewlib)))
		// With a hook that never fails the counts must be the same, and the
		// hook must see every event.
		calls := uint64(0)
		got := pinRun(src, r.mode, r.arena, WithStepHook(func(Event) error { calls++; return nil }))
		fmt.Fprintf(h, "%s|%d\n", got, calls)
		// Aborts at a few points spread over the run.
		vm, err := New(r.arena)
		if err != nil {
			continue
		}
		vm.RunFile(bytes.NewReader(src), &bytes.Buffer{}, &bytes.Buffer{})
		n := int(total(vm.Counts()))
		for _, k := range []int{1, n / 7, n / 3, n / 2, n - 1} {
			if k < 1 {
				continue
			}
			fmt.Fprintf(h, "%d:%s\n", k, pinRun(src, r.mode, r.arena, WithStepHook(abortAfter(k))))
		}
	}
	const want = "3fc03a84b5baf25204113b377418e9b2043a4c2b77e11425bd11a26bc63b0ed0"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("corpus work digest = %s, want %s", got, want)
	}
}

// TestPinnedEventCounts pins the event counts of a few programs explicitly.
func TestPinnedEventCounts(t *testing.T) {
	cases := []struct {
		name, src string
		arena     int
		want      string
	}{
		{"fib15", `(= fib (fn (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))) (print (fib 15))`, 1 << 16, "610\n|0|[8880 17758 27620 1973 3946 9064 227 8058]|{Cells:8058 Used:1233 Free:6825 GCCount:1 GCStack:4 GCStackCap:256}"},
		{"macro", `(= inc (mac (x) (list '= x (list '+ x 1)))) (= i 0) (while (< i 500) (inc i)) (print i)`, 4096, "500\n|0|[1511 3518 2521 0 1003 699 372 756]|{Cells:378 Used:315 Free:63 GCCount:2 GCStack:4 GCStackCap:256}"},
		{"strings", `(= l nil) (= i 0) (while (< i 300) (= l (cons "a string of some length" l)) (= i (+ i 1))) (print (car l))`, 4096, "error: out of memory\n=> (+ i 1)\n=> (= i (+ i 1))\n=> (while (< i 300) (= l (cons \"a string of some length\" l)) (= i \n|1|[993 2381 1587 0 596 581 3199 3402]|{Cells:378 Used:378 Free:0 GCCount:9 GCStack:4 GCStackCap:256}"},
	}
	for _, c := range cases {
		got := pinRun([]byte(c.src), "file", c.arena)
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// hookMeter is a step hook with a Meter's documented semantics.
func hookMeter(m *Meter) StepHook {
	return func(ev Event) error {
		m.Total += m.Costs[ev]
		if m.Total > m.Limit {
			m.Limit = ^uint64(0)
			return m.Err
		}
		return nil
	}
}

// TestMeterMatchesHook checks that a Meter behaves exactly like the
// equivalent step hook on every corpus program, with limits spread over the
// run: same output, event counts, statistics and final total.
func TestMeterMatchesHook(t *testing.T) {
	dir := corpusDir(t)
	costs := [NumEvents]uint64{38, 385, 64, 800, 80, 170, 150, 151}
	stop := errors.New("meter: stop")
	for _, r := range readManifest(t, dir) {
		src, err := os.ReadFile(filepath.Join(dir, r.name+".fe"))
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		full := &Meter{Costs: costs, Limit: ^uint64(0), Err: stop}
		pinRun(src, r.mode, r.arena, WithMeter(full))
		for _, limit := range []uint64{^uint64(0), 0, full.Total / 5, full.Total / 2, full.Total - 1} {
			for _, ext := range [][]Option{nil, {WithExtensions(), WithModel(Model64())}} {
				m1 := &Meter{Costs: costs, Limit: limit, Err: stop}
				m2 := &Meter{Costs: costs, Limit: limit, Err: stop}
				got := pinRun(src, r.mode, r.arena, append([]Option{WithMeter(m1)}, ext...)...)
				want := pinRun(src, r.mode, r.arena, append([]Option{WithStepHook(hookMeter(m2))}, ext...)...)
				if got != want || m1.Total != m2.Total || m1.Limit != m2.Limit {
					t.Errorf("%s limit %d: meter %q total %d, hook %q total %d", r.name, limit, got, m1.Total, want, m2.Total)
				}
			}
		}
	}
}
