package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"anchorage/impl/plurnk/store"
	"anchorage/sim/llm"

	"pgregory.net/rapid"
)

// emission draws one scripted model reply: a PLAN (sometimes missing), a
// few ops, and a terminal SEND (sometimes missing), or plain garbage.
func emission(t *rapid.T, label string) string {
	if rapid.IntRange(0, 9).Draw(t, label+"-garbage") == 0 {
		return rapid.SampledFrom([]string{"", "no statements at all", "<<EDIT(known:///x.md:broken:EDIT", "<<PLAN:unclosed"}).Draw(t, label+"-text")
	}
	var b strings.Builder
	if rapid.IntRange(0, 9).Draw(t, label+"-noplan") > 0 {
		b.WriteString("<<PLAN:step:PLAN\n")
	}
	n := rapid.IntRange(0, 4).Draw(t, label+"-ops")
	for i := 0; i < n; i++ {
		k := rapid.IntRange(0, 5).Draw(t, fmt.Sprintf("%s-k%d", label, i))
		name := rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("%s-n%d", label, i))
		switch k {
		case 0:
			size := rapid.IntRange(1, 400).Draw(t, fmt.Sprintf("%s-s%d", label, i))
			fmt.Fprintf(&b, "<<EDIT(known:///n%d.md):%s:EDIT\n", name, strings.Repeat("word ", size))
		case 1:
			fmt.Fprintf(&b, "<<READ(known:///n%d.md)::READ\n", name)
		case 2:
			fmt.Fprintf(&b, "<<FOLD(log:///1/%d/1)::FOLD\n", name)
		case 3:
			fmt.Fprintf(&b, "<<OPEN(log:///1/%d/1)::OPEN\n", name)
		case 4:
			fmt.Fprintf(&b, "<<KILL(known:///n%d.md)::KILL\n", name)
		case 5:
			fmt.Fprintf(&b, "<<READ(nowhere:///n%d)::READ\n", name)
		}
	}
	if rapid.IntRange(0, 9).Draw(t, label+"-noterm") > 0 {
		code := rapid.SampledFrom([]int{102, 102, 102, 200, 202, 499}).Draw(t, label+"-code")
		fmt.Fprintf(&b, "<<SEND[%d]:said:SEND\n", code)
	}
	return b.String()
}

var terminalStatuses = map[int]bool{200: true, 202: true, 413: true, 429: true, 499: true, 500: true, 508: true}

// TestLoopMachine drives random scripted emissions through loops and checks
// the engine's invariants after every loop.
func TestLoopMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		env := map[string]string{}
		if mt := rapid.IntRange(-1, 6).Draw(t, "maxTurns"); mt != 0 {
			env["PLURNK_MAX_TURNS"] = fmt.Sprint(mt)
		}
		f := newFixture(t, env)
		f.llm.Context = rapid.SampledFrom([]int{0, 600, 900, 1500, 4000}).Draw(t, "context")
		if rapid.Bool().Draw(t, "child") {
			child, err := f.st.AddRun(f.ss, "child")
			if err != nil {
				t.Fatal(err)
			}
			f.st.BeginLoop(child).Status = rapid.SampledFrom([]int{100, 102, 200}).Draw(t, "childStatus")
			f.eng.AdoptChild(f.run, child)
		}
		loops := rapid.IntRange(1, 3).Draw(t, "loops")
		for l := 0; l < loops; l++ {
			m := &llm.Mock{Context: f.llm.Context}
			for i, n := 0, rapid.IntRange(0, 8).Draw(t, "replies"); i < n; i++ {
				m.Add(llm.Reply{Content: emission(t, fmt.Sprintf("l%dr%d", l, i))})
			}
			f.eng.Provider = m
			f.eng.Ops.Tokens = m.CountTokens
			res, err := f.eng.Run(context.Background(), Request{Session: f.ss, Run: f.run, Prompt: "do the thing"})
			if err != nil {
				t.Fatal(err)
			}
			if !terminalStatuses[res.Status] || res.Loop.Status != res.Status {
				t.Fatalf("loop %d ended with %d, stored %d", l, res.Status, res.Loop.Status)
			}
			for _, p := range res.Packets() {
				h := p.Headline
				if h.Bounded && (h.Usage > h.Ceiling || h.Percent > 100 || h.Free < 0) {
					t.Fatalf("turn %d delivered over budget: %s", p.Turn, h)
				}
				if h.Bounded && m.CountTokens(p.System)+m.CountTokens(p.User) > h.Ceiling {
					t.Fatalf("turn %d: the delivered text counts more than the ceiling %d", p.Turn, h.Ceiling)
				}
				low := strings.ToLower(p.Text())
				for _, w := range []string{"strike", "turnerrors", "cycle"} {
					if strings.Contains(low, w) {
						t.Fatalf("turn %d packet mentions %q", p.Turn, w)
					}
				}
			}
			checkCoordinates(t, f.run)
		}
	})
}

// checkCoordinates checks that the run's log coordinates are ordered by
// loop and turn and dense within each turn (1, 2, …).
func checkCoordinates(t *rapid.T, r *store.Run) {
	prevLoop, prevTurn, prevSeq := 0, -1, 0
	for _, row := range r.Log {
		switch {
		case row.Loop == prevLoop && row.Turn == prevTurn:
			if row.Seq != prevSeq+1 {
				t.Fatalf("row log:///%s follows seq %d", row.Coord(), prevSeq)
			}
		case row.Loop > prevLoop || (row.Loop == prevLoop && row.Turn > prevTurn):
			if row.Seq != 1 {
				t.Fatalf("row log:///%s opens its turn at seq %d", row.Coord(), row.Seq)
			}
		default:
			t.Fatalf("row log:///%s comes after %d/%d/%d", row.Coord(), prevLoop, prevTurn, prevSeq)
		}
		prevLoop, prevTurn, prevSeq = row.Loop, row.Turn, row.Seq
	}
}
