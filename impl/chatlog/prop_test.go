package chatlog

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"anchorage/impl/chatlog/logparse"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"pgregory.net/rapid"
)

// entry is one generated log entry with what the parser must read back.
type entry struct {
	req   *logparse.ReportRequest
	reply *logparse.ReportReply
	text  string
}

func genName(t *rapid.T, label string) string {
	return rapid.StringMatching(`[a-z][a-z0-9-]{0,7}`).Draw(t, label)
}

func genClock(t *rapid.T, label string) string {
	return fmt.Sprintf("%02d:%02d:%02d", rapid.IntRange(0, 23).Draw(t, label+"h"),
		rapid.IntRange(0, 59).Draw(t, label+"m"), rapid.IntRange(0, 59).Draw(t, label+"s"))
}

// genCode makes code lines that may look like fences, headers or
// placeholders: inside a fence none of that counts.
func genCode(t *rapid.T) string {
	n := rapid.IntRange(0, 4).Draw(t, "codeLines")
	lines := make([]string, n)
	for i := range lines {
		lines[i] = rapid.SampledFrom([]string{
			"12+13", "```", "````js", "~~~", "   ```", "**a** to b at 10:00:00", "executing ...",
			"let x = `y`", "", "  indented", "throw new Error('x')", "**p** to a at 01:02:03 (5ms)",
		}).Draw(t, "codeLine")
	}
	return strings.Join(lines, "\n")
}

func genEntries(t *rapid.T) []entry {
	n := rapid.IntRange(0, 12).Draw(t, "entries")
	var out []entry
	for i := 0; i < n; i++ {
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0, 1:
			r := &logparse.ReportRequest{Agent: genName(t, "agent"), Page: genName(t, "page"), At: genClock(t, "at"),
				Lang: rapid.SampledFrom([]string{"JS", "js", "Lisp"}).Draw(t, "lang"), Code: genCode(t), Closed: true}
			out = append(out, entry{req: r, text: renderRequest(r.Agent, r.Page, r.At, r.Lang, r.Code)})
		case 2:
			rp := &logparse.ReportReply{Page: genName(t, "page"), Agent: genName(t, "agent"), At: genClock(t, "at")}
			ms := int64(-1)
			if rapid.Bool().Draw(t, "hasDur") {
				ms = rapid.Int64Range(0, 200000).Draw(t, "ms")
				rp.DurationMS = &ms
			}
			o := Outcome{OK: !rapid.Bool().Draw(t, "err")}
			if o.OK {
				o.IsJSON, o.JSON = true, genCode(t)
			} else {
				o.Stack = genCode(t)
			}
			if rapid.Bool().Draw(t, "bg") {
				o.Errors = []string{genCode(t), "TypeError: x */ y"}
			}
			var marks []string
			if rapid.Bool().Draw(t, "late") {
				marks = append(marks, "late")
				rp.Late = true
			}
			rp.Error = !o.OK
			if ms < 0 && !rp.Error && len(marks) == 0 {
				// a header with nothing in parentheses followed by a JSON
				// fence is still a reply
			}
			out = append(out, entry{reply: rp, text: renderReply(rp.Page, rp.Agent, rp.At, ms, o, marks...)})
		default:
			out = append(out, entry{text: rapid.SampledFrom([]string{"\n", "some prose\n", "# heading\n"}).Draw(t, "prose")})
		}
	}
	return out
}

func render(es []entry) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.text)
	}
	return b.String()
}

// Rendering a sequence of requests and replies and parsing it gives the
// sequence back.
func TestRenderParseRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		es := genEntries(t)
		rep := Report(Parse([]byte(render(es))), time.Time{})
		var wantReq []logparse.ReportRequest
		var wantRep []logparse.ReportReply
		for _, e := range es {
			if e.req != nil {
				wantReq = append(wantReq, *e.req)
			}
			if e.reply != nil {
				wantRep = append(wantRep, *e.reply)
			}
		}
		ignore := cmpOpts()
		if d := cmp.Diff(wantReq, rep.Requests, ignore...); d != "" {
			t.Fatalf("requests (-want +got):\n%s\nlog:\n%s", d, render(es))
		}
		if d := cmp.Diff(wantRep, rep.Replies, ignore...); d != "" {
			t.Fatalf("replies (-want +got):\n%s\nlog:\n%s", d, render(es))
		}
	})
}

// The server only appends: every byte of a log before a server write is
// still there, unchanged, after it, whatever the log held (drafts, torn
// lines, junk).
func TestAppendOnlyProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := newHarness(t, Config{Seed: rapid.Uint64().Draw(rt, "seed")})
		reg, err := h.srv.Rejoin("", rapid.String().Draw(rt, "title"), "http://x/", "JS")
		if err != nil {
			rt.Fatal(err)
		}
		h.appendText(reg.Path, rapid.SampledFrom([]string{"", "junk without newline", "```\nopen fence\n", "**a** to b at 10:00:00\n"}).Draw(rt, "prefix"))
		steps := rapid.IntRange(1, 6).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			before := h.read(reg.Path)
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0:
				h.appendText(reg.Path, renderRequest("agent", reg.ID, Clock(h.clk.Now()), "JS", genCode(rt)))
			case 1:
				if task, _ := h.poll(reg.ID, reg.Token); task != nil {
					h.clk.Advance(rapid.SampledFrom([]time.Duration{time.Millisecond, 3 * time.Second, 61 * time.Second}).Draw(rt, "work"))
					_ = h.srv.Result(reg.ID, reg.Token, task.JobID, Outcome{OK: rapid.Bool().Draw(rt, "ok"), IsJSON: true, JSON: "1", Stack: "E", Errors: []string{"bg"}})
				}
			case 2:
				h.clk.Advance(rapid.SampledFrom([]time.Duration{10 * time.Millisecond, 200 * time.Millisecond, 61 * time.Second}).Draw(rt, "adv"))
			case 3:
				h.clk.Advance(time.Second) // the watcher notices and parses
			}
			after := h.read(reg.Path)
			if !strings.HasPrefix(after, before) {
				rt.Fatalf("server changed existing bytes:\nbefore %q\nafter  %q", before, after)
			}
		}
	})
}

// The fence open/close lines the parser finds agree with goldmark's
// CommonMark reading of the same text (goldmark only as the oracle).
func TestFencesAgreeWithGoldmark(t *testing.T) {
	lineGen := rapid.SampledFrom([]string{
		"```", "```JS", "``` js extra", "````", "`````", "~~~", "~~~~", "~~~ `info`", "``` `bad`",
		" ```", "   ```", "    ```", "```   ", "`` not", "text", "", "**a** to b at 10:00:00",
		"executing ...", "# title", "   ~~~", "````JSON", "```Error", "\t```", "plain `code` span",
	})
	rapid.Check(t, func(t *rapid.T) {
		lines := rapid.SliceOfN(lineGen, 0, 30).Draw(t, "lines")
		src := strings.Join(lines, "\n")
		if rapid.Bool().Draw(t, "finalNewline") {
			src += "\n"
		}
		got := fenceContent(src)
		want := goldmarkFenceContent([]byte(src))
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("fence content lines (-goldmark +parser):\n%s\nsource:\n%s", d, src)
		}
	})
}

// fenceContent lists, per top-level fence, the content line numbers the
// parser's fence rules give (logparse.OpenFence and ClosesFence, as the
// parser's scanner and the server's healing use them).
func fenceContent(src string) [][]int {
	var out [][]int
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if src == "" {
		lines = nil
	}
	for i := 0; i < len(lines); i++ {
		ch, n, ok := logparse.OpenFence([]byte(lines[i]))
		if !ok {
			continue
		}
		var ls []int
		for i++; i < len(lines) && !logparse.ClosesFence(ch, n, []byte(lines[i])); i++ {
			ls = append(ls, i+1)
		}
		out = append(out, ls)
	}
	return out
}

func goldmarkFenceContent(src []byte) [][]int {
	md := goldmark.New()
	doc := md.Parser().Parse(text.NewReader(src))
	lineOf := func(off int) int { return 1 + bytes.Count(src[:off], []byte{'\n'}) }
	var out [][]int
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !ok {
			continue
		}
		var ls []int
		for i := 0; i < fc.Lines().Len(); i++ {
			ls = append(ls, lineOf(fc.Lines().At(i).Start))
		}
		out = append(out, ls)
	}
	return out
}

// Parsing only the tail of a log (resyncing on its first header) finds the
// same entries as parsing the whole log, for the entries in that tail.
func TestTailParseEqualsFullParse(t *testing.T) {
	// headerLike is the shape of a request or reply header.
	headerLike := regexp.MustCompile(`^\*\*.+\*\* to .+ at \d\d:\d\d:\d\d`)
	rapid.Check(t, func(t *rapid.T) {
		es := genEntries(t)
		src := []byte(render(es))
		// The resync heuristic assumes no header-like line inside a fence;
		// logs that have one are outside this property.
		full0 := Parse(src)
		known := map[int]bool{}
		for _, r := range full0.Requests {
			known[r.Line] = true
		}
		for _, r := range full0.Replies {
			known[r.Line] = true
		}
		for i, l := range strings.Split(string(src), "\n") {
			if headerLike.MatchString(l) && !known[i+1] {
				t.Skip("header-like line inside a fence")
			}
		}
		cut := rapid.IntRange(0, len(src)).Draw(t, "cut")
		full := Parse(src)
		start := TailStart(src[cut:], cut == 0)
		tail := ParseAt(src[cut+start:], int64(cut+start))
		var wantReq []int64
		for _, r := range full.Requests {
			if r.Offset >= int64(cut+start) {
				wantReq = append(wantReq, r.Offset)
			}
		}
		var gotReq []int64
		for _, r := range tail.Requests {
			gotReq = append(gotReq, r.Offset)
		}
		var wantRep, gotRep []int64
		for _, r := range full.Replies {
			if r.Offset >= int64(cut+start) {
				wantRep = append(wantRep, r.Offset)
			}
		}
		for _, r := range tail.Replies {
			gotRep = append(gotRep, r.Offset)
		}
		if !cmp.Equal(wantReq, gotReq) || !cmp.Equal(wantRep, gotRep) {
			t.Fatalf("tail from %d: requests %v vs %v, replies %v vs %v\n%s", cut+start, wantReq, gotReq, wantRep, gotRep, src)
		}
	})
}
