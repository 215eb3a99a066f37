// Package chatlog holds the fuzz targets for the chat-log parser of
// anchorage/impl/chatlog (seed 000_8e263a46ca5a55fb): the full-file parse
// and the tail parse must accept any input, never panic, and finish in time
// bounded by the input's size. It imports the standard library and
// anchorage/impl/logparse.
package chatlog

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"anchorage/impl/chatlog/logparse"
)

const req = "**agent** to index-7-zen at 22:52:47\n```JS\n12+13\n```\n"

// seeds is the fuzzing corpus: small, representative inputs, among them
// small versions of each pathological input. The large ones are regression
// tests (TestPathological) and benchmarks (BenchmarkPathological): mutating
// and minimizing inputs of a megabyte stalls the fuzzing engine at 0 execs/s.
func seeds() [][]byte {
	return [][]byte{
		[]byte(req),
		[]byte(strings.Repeat("`", 64)),
		[]byte("**a** to b at 10:00:00\n" + strings.Repeat("`", 64) + "JS\nx\n"),
		[]byte("**a** to b at 10:00:00\n```JS\nunclosed\n"),
		[]byte(strings.ReplaceAll(req, "\n", "\r\n")),
		[]byte("**a** to b at 10:00:00\n```JS\n\x00\x00\n```\n"),
		[]byte("**a\xff** to b at 10:00:00\n```JS\n\xfe\xff\n```\n"),
		[]byte("**a** to b at 10:00:00\n```JS\n" + strings.Repeat("x", 100) + "\n```\n"),
		[]byte(strings.Repeat("**a** to b at 10:00:00\n", 4)),
		[]byte(strings.Repeat(req, 3)),
		[]byte(strings.Repeat("**p** to a at 10:00:00 (**ERROR** after 16ms, late)\n", 3)),
		[]byte("**p** to a at 99:99:99 (1.s)\n```\n"),
		[]byte("~~~\n```\n~~~~\n"),
		[]byte(strings.Repeat("**a** to b at 10:00:00\n```JS\n1\n```\n**b** to a at 10:00:00 (1ms)\n```JSON\n1\n```\n", 2)),
	}
}

// pathological holds the large inputs, each checked by TestPathological and
// timed per byte by BenchmarkPathological.
func pathological() map[string][]byte {
	return map[string][]byte{
		"backticks":         []byte(strings.Repeat("`", 10000)),
		"long_fence":        []byte("**a** to b at 10:00:00\n" + strings.Repeat("`", 10000) + "JS\nx\n"),
		"megabyte_body":     []byte("**a** to b at 10:00:00\n```JS\n" + strings.Repeat("x", 1<<20) + "\n```\n"),
		"headers_only":      []byte(strings.Repeat("**a** to b at 10:00:00\n", 5000)),
		"requests":          []byte(strings.Repeat(req, 2000)),
		"error_replies":     []byte(strings.Repeat("**p** to a at 10:00:00 (**ERROR** after 16ms, late)\n", 3000)),
		"request_replies":   []byte(strings.Repeat("**a** to b at 10:00:00\n```JS\n1\n```\n**b** to a at 10:00:00 (1ms)\n```JSON\n1\n```\n", 1000)),
		"megabyte_unclosed": []byte("**a** to b at 10:00:00\n```JS\n" + strings.Repeat("y\n", 1<<19)),
	}
}

// fatalf is what the checks need of a test: the standard library's T and B
// have it, and so has the testing package of the libFuzzer build (see
// .clusterfuzzlite), which has no TB or B. The benchmarks live in
// bench_test.go for the same reason.
type fatalf interface {
	Fatalf(format string, args ...any)
}

func FuzzParse(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) { parseCheck(t, data) })
}

// parseCheck is the body of FuzzParse: the parse of any input stays in
// range. How long it takes is measured, never asserted: BenchmarkPathological
// (ns/B per input) here, the fuzzing engine's per-input timeout under
// ClusterFuzzLite.
func parseCheck(t fatalf, data []byte) {
	lg := logparse.Parse(data)
	_ = logparse.Report(lg, time.Time{}).JSON()
	_ = logparse.ValidateText(data)
	for _, r := range lg.Requests {
		if r.Line < 1 || r.Offset < 0 || r.Offset > int64(len(data)) {
			t.Fatalf("request out of range: %+v", r)
		}
	}
	for _, rp := range lg.Replies {
		if rp.Request >= len(lg.Requests) {
			t.Fatalf("reply pairs with request %d of %d", rp.Request, len(lg.Requests))
		}
	}
	if lg.Resume < 0 || lg.Resume > int64(len(data)) {
		t.Fatalf("resume %d outside 0..%d", lg.Resume, len(data))
	}
}

// TestPathological runs the large inputs through both fuzz bodies; the tail
// parse is cut at the start, in the middle and near the end.
func TestPathological(t *testing.T) {
	inputs := pathological()
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		data := inputs[name]
		t.Run(name, func(t *testing.T) {
			parseCheck(t, data)
			for _, cut := range []int{0, len(data) / 2, len(data) - 10} {
				tailCheck(t, data, uint16(min(max(cut, 0), 65535)))
			}
		})
	}
}

func FuzzTailParse(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s, uint16(0))
		f.Add(s, uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) { tailCheck(t, data, cut) })
}

// tailCheck is the body of FuzzTailParse: the tail parse of any input stays
// in range, and resuming from its Resume point finds the same requests.
func tailCheck(t fatalf, data []byte, cut uint16) {
	c := int(cut)
	if c > len(data) {
		c = len(data)
	}
	ts := logparse.TailStart(data[c:], c == 0)
	if ts >= 0 {
		if ts > len(data)-c {
			t.Fatalf("tail start %d beyond chunk of %d", ts, len(data)-c)
		}
		lg := logparse.ParseAt(data[c+ts:], int64(c+ts))
		// Incremental parsing from Resume finds the same requests as
		// parsing the tail in one go, for requests after Resume.
		rest := logparse.ParseAt(data[lg.Resume:], lg.Resume)
		var want []int64
		for _, r := range lg.Requests {
			if r.Offset >= lg.Resume {
				want = append(want, r.Offset)
			}
		}
		var got []int64
		for _, r := range rest.Requests {
			got = append(got, r.Offset)
		}
		if !equal(want, got) {
			t.Fatalf("resume at %d: requests %v then %v", lg.Resume, want, got)
		}
	}
}

func equal(a, b []int64) bool {
	return slices.Equal(a, b)
}
