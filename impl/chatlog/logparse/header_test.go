package logparse

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// headerRE is the regular expression splitHeader replaces; it stays here as
// the differential oracle.
var headerRE = regexp.MustCompile(`^\*\*([^*]+)\*\* to (\S(?:.*?\S)??)(?: at ([0-9]{2}:[0-9]{2}:[0-9]{2}))?(?: \(([^()]*)\))?[ \t]*$`)

// checkSplitHeader fails unless splitHeader and headerRE agree on line: the
// same verdict and, on a match, the same four parts (the parenthesis present
// or not, even when empty).
func checkSplitHeader(t testing.TB, line []byte) {
	t.Helper()
	m := headerRE.FindSubmatch(line)
	got := splitHeader(line)
	ok := len(got.from) > 0
	if ok != (m != nil) {
		t.Fatalf("%q: splitHeader ok=%v, regexp match=%v", line, ok, m != nil)
	}
	if !ok {
		return
	}
	if !bytes.Equal(got.from, m[1]) || !bytes.Equal(got.to, m[2]) || !bytes.Equal(got.at, m[3]) ||
		got.hasParen != (m[4] != nil) || !bytes.Equal(got.paren, m[4]) {
		t.Fatalf("%q: splitHeader from=%q to=%q at=%q paren=%q(%v), regexp %q %q %q %q(%v)",
			line, got.from, got.to, got.at, got.paren, got.hasParen, m[1], m[2], m[3], m[4], m[4] != nil)
	}
}

// headerCases are lines near every edge of the header grammar.
var headerCases = []string{
	"**agent** to index-7-zen at 22:52:47",
	"**agent** to index-7-zen",
	"**agent** to index-7-zen (17ms)",
	"**p** to a at 10:00:00 (**ERROR** after 16ms, late)",
	"**p** to a at 10:00:00 (1ms) \t ",
	"**p** to a at 10:00:00 (1ms)x",
	"**p** to a b c at 10:00:00",
	"**p** to a at 10:00:00 at 11:00:00",
	"**p** to a at 10:00:00 (x) (y)",
	"**p** to a (x) at 10:00:00",
	"**p** to a ((x))",
	"**p** to a ()",
	"**p** to a at 10:00:0 (x)",
	"**p** to  a",
	"**p** to a\r",
	"**p** to a\n b",
	"**p** to a \n",
	"**p** to a\f",
	"**p**  to a",
	"*** to a",
	"**** to a",
	"** to a",
	"**p** to ",
	"**p** to a",
	"**p** to (x)",
	"**p** to  (x)",
	"**p** to a (x",
	"**p** to a x)",
	"**p** to a\t(x)",
	"**p** to at 10:00:00",
	"**p** to a at 10:00:00(x)",
	"**p\xff** to \xe2\x82 at 10:00:00",
	"**p** to \xe2\x82\xac (x)",
	"**p** to a\x00 (x)",
	"**p** to a at 99:99:99 (1.s)",
	"**\n** to a",
	"**p** to a (\n)",
	"**p** to a at 10:00:00 (",
	"**p** to a at 10:00:00 )",
	"**p** to at 10:00:00 at 10:00:00 (x)",
	"**p** to a  at 10:00:00",
	"**p** to a at 10:00:00 ",
	"**p** to a at 10:00:00 ()",
	"**p** to ( (x)",
	"**p** to a) (x)",
	"**p** to a( (x)",
}

func TestSplitHeaderMatchesRegexp(t *testing.T) {
	for _, c := range headerCases {
		checkSplitHeader(t, []byte(c))
		// Every prefix, and the line with spaces and tabs appended.
		for i := range len(c) {
			checkSplitHeader(t, []byte(c[:i]))
		}
		checkSplitHeader(t, []byte(c+" \t "))
	}
	// Every pair of the pieces the grammar is made of.
	pieces := []string{"**", "*", " to ", " at ", "10:00:00", " (", ")", "(", " ", "\t", "a", "\r", "\n", "x y"}
	for _, a := range pieces {
		for _, b := range pieces {
			for _, c := range pieces {
				checkSplitHeader(t, []byte("**p** to "+a+b+c))
				checkSplitHeader(t, []byte("**"+a+b+c))
				checkSplitHeader(t, []byte("**p** to q"+a+b+" at 10:00:00"+c))
			}
		}
	}
	checkSplitHeader(t, []byte("**p** to "+strings.Repeat("a (", 100)+"x)"))
}

// FuzzSplitHeader is the differential fuzz test of the header scanner
// against the regular expression it replaces.
func FuzzSplitHeader(f *testing.F) {
	for _, c := range headerCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkSplitHeader(t, line) })
}
