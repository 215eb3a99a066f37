package fe

import "testing"

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
