package fe

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkFib30 runs (fib 30) in Fe: about 1.6 million non-tail calls. The
// recursion is only 30 deep, well inside the gc stack limit.
func BenchmarkFib30(b *testing.B) {
	vm, err := New(1 << 20)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := vm.Eval(`(= fib (fn (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))))`); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := vm.Eval("(fib 30)")
		if err != nil {
			b.Fatal(err)
		}
		if got != "832040" {
			b.Fatalf("fib 30 = %s, want 832040", got)
		}
	}
}

// benchPrograms are the programs the Go VM is timed on against the C
// interpreter: whole files run the way the stock `fe FILE` runs them, in the
// stock 64000-byte arena. fib30 is the classic benchmark; qsort is the
// corpus program prog_quicksort sorting its list 20,000 times (list
// allocation: append and cons on every step); gc is the corpus program
// gc_reclaims_garbage_small_arena with its loop run a million times (four
// cells of garbage per turn, so the collector runs every few thousand
// turns).
var benchPrograms = []struct{ name, src, out string }{
	{"fib30", `(= fib (fn (n)
  (if (<= 2 n)
    (+ (fib (- n 1)) (fib (- n 2)))
    n
  )
))
(print (fib 30))
`, "832040\n"},
	{"qsort", `(= append (fn (a b)
  (if a (cons (car a) (append (cdr a) b)) b)))
(= qsort (fn (l)
  (if (not l) nil
    (do
      (let p (car l))
      (let lo nil) (let hi nil)
      (let r (cdr l))
      (while r
        (if (< (car r) p) (= lo (cons (car r) lo)) (= hi (cons (car r) hi)))
        (= r (cdr r)))
      (append (qsort lo) (cons p (qsort hi)))))))
(= i 0)
(while (< i 20000)
  (qsort '(3 1 4 1 5 9 2 6 5 3 5 8 9 7 9))
  (= i (+ i 1)))
(print (qsort '(3 1 4 1 5 9 2 6 5 3 5 8 9 7 9)))
`, "(1 1 2 3 3 4 5 5 5 6 7 8 9 9 9)\n"},
	{"gc", `(= i 0)
(while (< i 1000000)
  (list i i i i)
  (= i (+ i 1)))
(print "done" i)
`, "done 1000000\n"},
}

// runBenchProgram runs src as `fe FILE` does, in the stock arena.
func runBenchProgram(tb testing.TB, src, want string, opts ...Option) {
	var out bytes.Buffer
	vm, err := New(64000, append([]Option{WithOutput(&out)}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	if status := vm.RunFile(strings.NewReader(src), &out, &out); status != 0 || out.String() != want {
		tb.Fatalf("status %d, output %q, want %q", status, out.String(), want)
	}
}

// BenchmarkProgram times each bench program on the Go VM alone.
func BenchmarkProgram(b *testing.B) {
	for _, p := range benchPrograms {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				runBenchProgram(b, p.src, p.out)
			}
		})
	}
}

// BenchmarkVsC times each bench program on the Go VM and on the C
// interpreter named by FE_REF (the stock rxi/fe binary, built as its own
// build.sh does), alternating run by run so that both see the same load.
// It reports the ratio go/c of the median CPU times (user+system: the C
// process's own, the Go process's during the Go run), which a machine
// shared with other jobs disturbs far less than wall time, and the ratio of
// the median wall times (go/c-wall). The C figures include starting its
// process (about a millisecond, against runs of a hundred milliseconds or
// more). Without FE_REF the benchmark is skipped.
//
//	FE_REF=/path/to/rxi-fe go test -run '^$' -bench VsC -benchtime 10x ./impl/fe
func BenchmarkVsC(b *testing.B) {
	ref := os.Getenv("FE_REF")
	if ref == "" {
		b.Skip("FE_REF (the C interpreter) not set")
	}
	dir := b.TempDir()
	for _, p := range benchPrograms {
		file := filepath.Join(dir, p.name+".fe")
		if err := os.WriteFile(file, []byte(p.src), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(p.name, func(b *testing.B) {
			var goCPU, cCPU, goWall, cWall []time.Duration
			for b.Loop() {
				cmd := exec.Command(ref, file)
				start := time.Now()
				out, err := cmd.CombinedOutput()
				cWall = append(cWall, time.Since(start))
				if err != nil || string(out) != p.out {
					b.Fatalf("%s %s: %v, output %q", ref, file, err, out)
				}
				cCPU = append(cCPU, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
				cpu0, start := cpuTime(b), time.Now()
				runBenchProgram(b, p.src, p.out)
				goWall = append(goWall, time.Since(start))
				goCPU = append(goCPU, cpuTime(b)-cpu0)
			}
			b.ReportMetric(ratio(goCPU, cCPU), "go/c")
			b.ReportMetric(ratio(goWall, cWall), "go/c-wall")
			b.ReportMetric(median(goCPU).Seconds()*1000, "go-cpu-ms")
			b.ReportMetric(median(cCPU).Seconds()*1000, "c-cpu-ms")
		})
	}
}

// cpuTime is the CPU time (user+system) this process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ratio(a, b []time.Duration) float64 {
	return float64(median(a)) / float64(median(b))
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
