package deck

import (
	"fmt"
	"strings"
	"testing"
)

// TestPinnedCycles pins the simulated cycles of a few evaluations, including
// watchdog aborts landing mid-evaluation and inside a collection. The
// figures were recorded before the simulator was optimised and must never
// move: they are what the screen goldens show.
func TestPinnedCycles(t *testing.T) {
	type step struct {
		watchdog uint64
		src      string
	}
	steps := []step{
		{DefaultWatchdog, "(+ 1 2)"},
		{DefaultWatchdog, "(do (= fib (fn (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))) (fib 12))"},
		{DefaultWatchdog, "(do (= l nil) (= i 0) (while (< i 400) (= l (cons i l)) (= i (+ i 1))) (car l))"},
		{1_234_567, "(while t nil)"},
		{777_777, "(do (= i 0) (while t (= i (cons i i))))"},
		{DefaultWatchdog, "(= i nil)"},
		{3_000_001, "(fib 25)"},
		{DefaultWatchdog, "(fib 10)"},
	}
	d := graduated(t)
	var b strings.Builder
	for _, s := range steps {
		d.words.watchdog = s.watchdog
		if err := d.Compose(s.src); err != nil {
			t.Fatal(err)
		}
		if err := d.Press(KeyEval); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s => %s [%d]\n", s.src, d.Last().Result, d.Last().Cycles)
	}
	fmt.Fprintf(&b, "total %d\n", d.Cycles())
	const want = `(+ 1 2) => 3 [8581]
(do (= fib (fn (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))) (fib 12)) => 144 [534998]
(do (= l nil) (= i 0) (while (< i 400) (= l (cons i l)) (= i (+ i 1))) (car l)) => 399 [533415]
(while t nil) => (error watchdog :message "watchdog: cycle budget exceeded") [1240356]
(do (= i 0) (while t (= i (cons i i)))) => (error watchdog :message "watchdog: cycle budget exceeded") [895004]
(= i nil) => nil [126259]
(fib 25) => (error watchdog :message "watchdog: cycle budget exceeded") [3005830]
(fib 10) => 55 [199948]
total 7052989
`
	if got := b.String(); got != want {
		t.Errorf("cycles moved:\n got %s\nwant %s", got, want)
	}
}
