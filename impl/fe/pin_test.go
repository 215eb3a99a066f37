package fe

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tests in this file pin the interpreter's observable work: the event
// counts (the deck's cycle model is built on them), the collection count,
// the arena statistics and the exact points where a meter aborts. They
// were recorded before the VM was optimised (with a step hook the VM then
// had, called at every event, where the unit-cost meters below stand) and
// must never move. The corpus digest was recorded again once, when a VM
// with a meter stopped keeping the call list: with the traceback lines of
// the metered runs left out, the digests before and after that change
// were the same.

// pinRun runs one program and describes everything observable about the
// run: output, exit status, event counts and arena statistics.
func pinRun(src []byte, mode string, arena int, opts ...Option) string {
	s, _ := pinRunCounts(src, mode, arena, opts...)
	return s
}

// pinRunCounts is pinRun, also returning the event counts.
func pinRunCounts(src []byte, mode string, arena int, opts ...Option) (string, [NumEvents]uint64) {
	var out bytes.Buffer
	vm, err := New(arena, opts...)
	if err != nil {
		return "new: " + err.Error(), [NumEvents]uint64{}
	}
	status := 0
	if mode == "repl" {
		vm.RunREPL(bytes.NewReader(src), &out, &out)
	} else {
		status = vm.RunFile(bytes.NewReader(src), &out, &out)
	}
	return fmt.Sprintf("%s|%d|%v|%+v", maskPointers(out.String()), status, vm.Counts(), vm.pinStats()), vm.Counts()
}

// unitMeter prices every event at 1 and stops at event limit+1.
func unitMeter(limit uint64, err error) *Meter {
	m := &Meter{Limit: limit, Err: err}
	for i := range m.Costs {
		m.Costs[i] = 1
	}
	return m
}

// abortAfter returns a meter that aborts at the k-th event.
func abortAfter(k int) *Meter { return unitMeter(uint64(k-1), errors.New("pin: abort")) }

func total(c [NumEvents]uint64) uint64 {
	var s uint64
	for _, n := range c {
		s += n
	}
	return s
}

// TestPinnedEventCountsCorpus hashes the observable work of every corpus
// program in several configurations, including meters aborting part way.
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
		// With a meter that never stops the counts must be the same, and a
		// unit-cost meter must price every event.
		all := unitMeter(^uint64(0), nil)
		got := pinRun(src, r.mode, r.arena, WithMeter(all))
		fmt.Fprintf(h, "%s|%d\n", got, all.Total)
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
			fmt.Fprintf(h, "%d:%s\n", k, pinRun(src, r.mode, r.arena, WithMeter(abortAfter(k))))
		}
	}
	const want = "4686cf85ab2c91a55fbef30d9a442a46cd0b11756263a661ba97cdd94cb202c5"
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

// TestMeterStopsAtFirstEventPastLimit checks that a meter with unequal
// costs stops every corpus program run from a file (where the run ends at
// the stop) at the first event that takes its total
// past the limit (or at the end of the collection running then), with
// limits spread over the run. The oracle is the unit-cost meter, whose stops
// the corpus digest above pins: the priced run must end in exactly the
// state of the unit-cost run stopped after as many events, its total must
// be those events priced, and one event fewer must be within the limit.
func TestMeterStopsAtFirstEventPastLimit(t *testing.T) {
	dir := corpusDir(t)
	costs := [NumEvents]uint64{38, 385, 64, 800, 80, 170, 150, 151}
	price := func(c [NumEvents]uint64) uint64 {
		var s uint64
		for ev, n := range c {
			s += n * costs[ev]
		}
		return s
	}
	stop := errors.New("meter: stop")
	for _, r := range readManifest(t, dir) {
		if r.mode != "file" {
			continue // a REPL goes on after the stop: its counts are not the stop's
		}
		src, err := os.ReadFile(filepath.Join(dir, r.name+".fe"))
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		full := &Meter{Costs: costs, Limit: ^uint64(0), Err: stop}
		pinRun(src, r.mode, r.arena, WithMeter(full))
		for _, limit := range []uint64{^uint64(0), 0, full.Total / 5, full.Total / 2, full.Total - 1} {
			for _, ext := range [][]Option{nil, {WithExtensions(), WithModel(Model64())}} {
				m := &Meter{Costs: costs, Limit: limit, Err: stop}
				got, counts := pinRunCounts(src, r.mode, r.arena, append([]Option{WithMeter(m)}, ext...)...)
				if strings.HasPrefix(got, "new: ") {
					continue // the VM could not be opened: nothing was run
				}
				if m.Total != price(counts) {
					t.Errorf("%s limit %d: total %d, the counted events price %d", r.name, limit, m.Total, price(counts))
				}
				if m.Total <= limit {
					if want := pinRun(src, r.mode, r.arena, append([]Option{WithMeter(unitMeter(^uint64(0), stop))}, ext...)...); got != want {
						t.Errorf("%s limit %d: run within the limit %q, unmetered %q", r.name, limit, got, want)
					}
					continue
				}
				n := total(counts)
				if want := pinRun(src, r.mode, r.arena, append([]Option{WithMeter(unitMeter(n-1, stop))}, ext...)...); got != want {
					t.Errorf("%s limit %d: priced stop %q, unit-cost stop after %d events %q", r.name, limit, got, n, want)
				}
				if n < 2 {
					continue
				}
				_, before := pinRunCounts(src, r.mode, r.arena, append([]Option{WithMeter(unitMeter(n-2, stop))}, ext...)...)
				if before != counts && price(before) > limit {
					t.Errorf("%s limit %d: one event earlier the total %d was already past the limit", r.name, limit, price(before))
				}
			}
		}
	}
}
