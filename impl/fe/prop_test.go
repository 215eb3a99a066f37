package fe

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// datum is a generated Fe value with its expected printed form.
type datum struct {
	text string // printed form inside a list (strings quoted)
}

// datumGen generates data up to the given depth: numbers with an exact
// %.7g form, symbols that can never read as numbers, strings without
// backslash or NUL (the printer does not escape backslash), and proper or
// dotted lists.
func datumGen(depth int) *rapid.Generator[datum] {
	atom := rapid.OneOf(
		rapid.Map(rapid.IntRange(-9999999, 9999999), func(n int) datum {
			return datum{text: strconv.Itoa(n)}
		}),
		rapid.Map(rapid.IntRange(-99999, 99999), func(n int) datum {
			f := float32(n) + 0.5
			return datum{text: strconv.FormatFloat(float64(f), 'g', 7, 64)}
		}),
		rapid.Map(rapid.StringMatching(`s[a-z0-9*+!?<>=/-]{0,12}`), func(s string) datum {
			return datum{text: s}
		}),
		rapid.Map(rapid.StringOfN(rapid.RuneFrom([]rune(stringChars)), 0, 20, 40), func(s string) datum {
			return datum{text: `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`}
		}),
		rapid.Just(datum{text: "nil"}),
	)
	if depth == 0 {
		return atom
	}
	inner := datumGen(depth - 1)
	list := rapid.Custom(func(t *rapid.T) datum {
		items := rapid.SliceOfN(inner, 0, 5).Draw(t, "items")
		if len(items) == 0 {
			return datum{text: "nil"}
		}
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = it.text
		}
		text := "(" + strings.Join(parts, " ")
		if rapid.Bool().Draw(t, "dotted") {
			tail := atom.Draw(t, "tail")
			if tail.text != "nil" {
				text += " . " + tail.text
			}
		}
		return datum{text: text + ")"}
	})
	return rapid.OneOf(atom, list, list)
}

// stringChars is printable ASCII plus tab and newline, minus the backslash.
const stringChars = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~\t\n"

func TestPropReadPrintRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := datumGen(4).Draw(t, "datum")
		vm, err := New(64000)
		if err != nil {
			t.Fatal(err)
		}
		// Wrap in a list so strings print quoted.
		text := "(" + d.text + ")"
		got, err := vm.Eval("'" + text)
		if err != nil {
			t.Fatalf("read %q: %v", text, err)
		}
		if got != text {
			t.Fatalf("round trip:\n in: %q\nout: %q", text, got)
		}
		again, err := vm.Eval("'" + got)
		if err != nil || again != got {
			t.Fatalf("second round trip: %q, %v", again, err)
		}
	})
}

// program builds a random allocation-heavy program that keeps some data in
// globals k0..k{n-1} and throws the rest away.
func programGen() *rapid.Generator[[]string] {
	return rapid.Custom(func(t *rapid.T) []string {
		var forms []string
		n := rapid.IntRange(1, 4).Draw(t, "globals")
		for i := 0; i < n; i++ {
			d := datumGen(3).Draw(t, "data")
			forms = append(forms, fmt.Sprintf("(= k%d '(%s))", i, d.text))
		}
		loops := rapid.IntRange(0, 3).Draw(t, "loops")
		for i := 0; i < loops; i++ {
			count := rapid.IntRange(1, 200).Draw(t, "count")
			body := rapid.SampledFrom([]string{
				`(cons i (list i i))`,
				`(list "garbage string of some length" i)`,
				`((fn (a b) (cons a b)) i (+ i 1))`,
				`(do (let x (list i i i)) (car x))`,
			}).Draw(t, "body")
			forms = append(forms, fmt.Sprintf("(= i 0) (while (< i %d) %s (= i (+ i 1)))", count, body))
		}
		return forms
	})
}

func TestPropLiveDataSurvivesGC(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		forms := programGen().Draw(t, "program")
		vm, err := New(16384)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range forms {
			if strings.HasPrefix(f, "(= k") {
				n++
			}
		}
		before := make([]string, n)
		for _, f := range forms {
			if _, err := vm.Eval(f); err != nil {
				if errors.Is(err, ErrOutOfMemory) {
					t.Skip("program does not fit the arena")
				}
				t.Fatalf("eval %q: %v", f, err)
			}
		}
		for i := range before {
			before[i] = mustEvalRapid(t, vm, fmt.Sprintf("k%d", i))
		}
		// Churn through the arena several times, then collect.
		mustEvalRapid(t, vm, "(= j 0) (while (< j 3000) (cons j j) (= j (+ j 1)))")
		if err := vm.Collect(); err != nil {
			t.Fatal(err)
		}
		if vm.pinStats().GCCount < 2 {
			t.Fatalf("expected collections, got %d", vm.pinStats().GCCount)
		}
		for i, want := range before {
			if got := mustEvalRapid(t, vm, fmt.Sprintf("k%d", i)); got != want {
				t.Fatalf("k%d changed across GC:\nbefore %q\nafter  %q", i, want, got)
			}
		}
		st := vm.pinStats()
		if st.Free+st.Used != st.Cells {
			t.Fatalf("free %d + used %d != cells %d", st.Free, st.Used, st.Cells)
		}
	})
}

func TestPropNoLeakAfterBindingsDrop(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		forms := programGen().Draw(t, "program")
		vm, err := New(64000)
		if err != nil {
			t.Fatal(err)
		}
		run := func() int {
			for _, f := range forms {
				mustEvalRapid(t, vm, f)
			}
			mustEvalRapid(t, vm, "(= k0 nil) (= k1 nil) (= k2 nil) (= k3 nil) (= i nil)")
			if err := vm.Collect(); err != nil {
				t.Fatal(err)
			}
			st := vm.pinStats()
			if st.Free+st.Used != st.Cells {
				t.Fatalf("free %d + used %d != cells %d", st.Free, st.Used, st.Cells)
			}
			return st.Used
		}
		// The first run interns every symbol (symbols are never freed);
		// after that, running the same program must leave nothing behind.
		first := run()
		second := run()
		if first != second {
			t.Fatalf("cells in use after dropping bindings: first run %d, second run %d", first, second)
		}
		third := run()
		if third != second {
			t.Fatalf("cells in use: second %d, third %d", second, third)
		}
	})
}

func TestPropOOMRecovers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		arena := rapid.IntRange(4096, 12000).Draw(t, "arena")
		elem := rapid.SampledFrom([]string{`1`, `"abcdefg"`, `(list 1 2)`, `(fn () 1)`, `l`}).Draw(t, "elem")
		vm, err := New(arena)
		if err != nil {
			t.Fatal(err)
		}
		mustEvalRapid(t, vm, "(= l nil)")
		_, err = vm.Eval(fmt.Sprintf("(while t (= l (cons %s l)))", elem))
		if !errors.Is(err, ErrOutOfMemory) {
			t.Fatalf("filling the arena: err = %v, want out of memory", err)
		}
		st := vm.pinStats()
		if st.Free+st.Used != st.Cells {
			t.Fatalf("free %d + used %d != cells %d", st.Free, st.Used, st.Cells)
		}
		mustEvalRapid(t, vm, "(= l nil)")
		if got := mustEvalRapid(t, vm, "(do (let f (fn (n) (* n n))) (f 12))"); got != "144" {
			t.Fatalf("after OOM recovery: %q", got)
		}
	})
}

func mustEvalRapid(t *rapid.T, vm *VM, src string) string {
	got, err := vm.Eval(src)
	if err != nil {
		t.Fatalf("Eval(%q): %v", src, err)
	}
	return got
}
