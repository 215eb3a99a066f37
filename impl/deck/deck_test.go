package deck

import (
	"errors"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
	"pgregory.net/rapid"

	"anchorage/golden"
	"anchorage/impl/vary"
)

func TestSRAMStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := newSRAM(rapid.SampledFrom(Parts()).Draw(t, "part"), wordingFor(vary.Set{}))
		var consumers []Consumer
		for c := range Budgets() {
			consumers = append(consumers, c)
		}
		sort.Slice(consumers, func(i, j int) bool { return consumers[i] < consumers[j] })
		consumers = append(consumers, "gpu")
		for i := 0; i < 60; i++ {
			c := rapid.SampledFrom(consumers).Draw(t, "consumer")
			if rapid.Bool().Draw(t, "free") {
				// The deck frees only the region it allocated last in its
				// parent (Alloc packs a parent's regions from its start).
				if !lastInParent(s, c) {
					continue
				}
				s.Free(c)
				for _, l := range s.Live() {
					if l == c || Budgets()[l].Parent == c {
						t.Fatalf("free %s: %s still allocated", c, l)
					}
				}
			} else {
				b := Budgets()[c]
				size := rapid.IntRange(b.Min-KB, b.Max+KB).Draw(t, "size")
				before, free := s.Used(), s.FreeIn(b.Parent)
				r, err := s.Alloc(c, size)
				var be *BudgetError
				if err != nil && (!errors.As(err, &be) || !strings.Contains(err.Error(), string(c)) || be.Free != free) {
					t.Fatalf("alloc error does not name the consumer and the free bytes (%d): %v", free, err)
				}
				if err == nil && b.Parent == "" && s.Used() != before+size {
					t.Fatalf("used %d, want %d", s.Used(), before+size)
				}
				if err == nil && (r.Bytes() != size || size > free || size < b.Min || size > b.Max) {
					t.Fatalf("granted %d bytes for %d asked, %d free, budget %s", r.Bytes(), size, free, b)
				}
			}
			if err := checkSRAM(s); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// lastInParent reports whether c is not allocated or lies after every
// other region of its parent.
func lastInParent(s *SRAM, c Consumer) bool {
	r := s.Region(c)
	for _, o := range s.Live() {
		if r != nil && o != c && Budgets()[o].Parent == Budgets()[c].Parent && s.Region(o).Base > r.Base {
			return false
		}
	}
	return true
}

func TestHistoryRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var in []Entry
		n := rapid.IntRange(0, 40).Draw(t, "n")
		for i := 0; i < n; i++ {
			in = append(in, Entry{
				Expr:    rapid.StringMatching(`\([a-z+ 0-9']{0,40}\)`).Draw(t, "expr"),
				Result:  rapid.StringMatching(`[a-z0-9() ]{0,30}`).Draw(t, "res"),
				Grabbed: rapid.Bool().Draw(t, "grab"),
			})
		}
		b, kept := EncodeHistory(in, HistoryBytes)
		if len(b) > HistoryBytes {
			t.Fatalf("encoded %d bytes", len(b))
		}
		out, err := DecodeHistory(b)
		if err != nil {
			t.Fatal(err)
		}
		if kept != len(out) {
			t.Fatalf("kept %d decoded %d", kept, len(out))
		}
		if diff := cmp.Diff(in[:kept], out); len(out) > 0 && diff != "" {
			t.Fatalf("newest entries differ (-in +out):\n%s", diff)
		}
	})
}

func TestStateImageCorruptIsReset(t *testing.T) {
	fs := afero.NewMemMapFs()
	d, err := New(Config{Fs: fs})
	if err != nil {
		t.Fatal(err)
	}
	st := d.State()
	st.Credits = 777
	if err := d.SetState(st); err != nil {
		t.Fatal(err)
	}
	img, _ := afero.ReadFile(fs, StatePath)
	img[30] ^= 0xFF
	_ = afero.WriteFile(fs, StatePath, img, 0o644)
	d2, err := New(Config{Fs: fs})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d2.refused, ErrCorrupt.Error()) || d2.State().Credits != NewState().Credits {
		t.Fatalf("corrupt image not reset: refusal %q credits %d", d2.refused, d2.State().Credits)
	}
}

func graduated(t *testing.T) *Deck {
	t.Helper()
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	st := d.State()
	st.Tutorial = TutFirstBoot | TutCarCdr | TutQuoteEval | TutLambda | TutGraduated
	if err := d.SetState(st); err != nil {
		t.Fatal(err)
	}
	if err := d.Press(KeyEval); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestWatchdogStopsRunaway(t *testing.T) {
	d := graduated(t)
	d.words.watchdog = 2_000_000
	if err := d.Compose("(while t nil)"); err != nil {
		t.Fatal(err)
	}
	if err := d.Press(KeyEval); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.Last().Result, "(error watchdog") || d.Last().Cycles < 2_000_000 {
		t.Fatalf("last = %+v", d.Last())
	}
	if err := d.Compose("(+ 1 2)"); err != nil {
		t.Fatal(err)
	}
	_ = d.Press(KeyEval)
	if d.Last().Result != "3" {
		t.Fatalf("REPL unusable after watchdog: %+v", d.Last())
	}
}

func TestScreenGoldens(t *testing.T) {
	cases := map[string]string{
		"home-first-run.txt":            "",
		"tutorial-stage1.txt":           "EVAL EVAL",
		"tutorial-stage4-narration.txt": "EVAL EVAL EVAL EVAL EVAL EVAL EVAL EVAL WAIT:3000 EVAL",
		"graduated-credits.txt":         "EVAL BACK BACK EVAL PICK:() PICK:get-credits EVAL",
		"gated-credit-add.txt":          "EVAL BACK BACK EVAL PICK:() TYPE:credit-add TYPE:100 EVAL",
		"palette-open.txt":              "EVAL BACK BACK EVAL PICK:() CONS CDR CDR",
		"literal-entry.txt":             "EVAL BACK BACK EVAL PICK:() LAMBDA 4 4 3 3 8",
		"cart-prompt.txt":               "EVAL BACK BACK EVAL INSERT:null:32",
	}
	for name, script := range cases {
		d, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		if err := RunScript(d, script); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := golden.Check("deck/"+name, []byte(DumpWithCycles(d))); err != nil {
			t.Error(err)
		}
	}
}

func BenchmarkSimulatedCyclesPerSecond(b *testing.B) {
	d, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	d.words.watchdog = 1 << 50
	st := d.State()
	st.Tutorial = 0x1F
	_ = d.SetState(st)
	_ = d.Press(KeyEval)
	s := d.Session()
	fib, _ := Parse("(do (= fib (fn (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))) (fib 15))")
	b.ResetTimer()
	start, cpu0 := d.Cycles(), cpuTime(b)
	for i := 0; i < b.N; i++ {
		ev := d.evaluate(s.VM(), fib)
		if ev.Result != "610" {
			b.Fatalf("fib 15 = %s", ev.Result)
		}
	}
	cycles := float64(d.Cycles() - start)
	secs := b.Elapsed().Seconds()
	b.ReportMetric(cycles/secs, "simcycles/s")
	b.ReportMetric(cycles/secs/ClockHz, "x-realtime")
	// The same ratio per second of CPU time (user+system) this process
	// used, which other jobs on a shared machine disturb far less than the
	// wall clock.
	b.ReportMetric(cycles/(cpuTime(b)-cpu0).Seconds()/ClockHz, "x-realtime-cpu")
}

// cpuTime is the CPU time (user+system) this process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestCP437 checks the code page against its published glyphs at the
// bytes the deck draws with, and that text survives the round trip.
func TestCP437(t *testing.T) {
	glyphs := cp437()
	if len(glyphs) != 256 {
		t.Fatalf("%d glyphs", len(glyphs))
	}
	for b, want := range map[int]rune{0x01: '☺', 0x10: '►', 0x11: '◄', 0x20: ' ', 0x41: 'A', 0x7E: '~', 0x7F: '⌂', 0x80: 'Ç', 0xAE: '«', 0xAF: '»', 0xC4: '─', 0xDB: '█', 0xFA: '·', 0xFF: '\u00a0'} {
		if glyphs[b] != want {
			t.Errorf("byte %#x is %q, want %q", b, glyphs[b], want)
		}
	}
	text := "KINOSHITA DEV REPL ─ Fe VM v1.0 «►car» · █"
	if got := DecodeCP437(EncodeCP437(text)); got != text {
		t.Errorf("round trip: %q", got)
	}
	if got := EncodeCP437("—é€"); string(got) != "?\x82?" {
		t.Errorf("encode: %q", got)
	}
}
