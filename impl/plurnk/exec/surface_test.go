package exec

import (
	"strconv"
	"strings"
	"testing"

	"anchorage/impl/plurnk/store"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestSurfaceAcrossTurns(t *testing.T) {
	const target = "sh:///1/1/2#stdout"
	ch := store.Channel{Content: "one\ntwo\nthr", State: store.StateActive}
	s1, cur, ok := Surface(target, ch, Cursor{})
	want1 := Surfacing{Target: target, Channel: "stdout", State: store.StateActive, StartLine: 1, Lines: 2,
		Text: "one\ntwo\n", Numbered: "1:\tone\n2:\ttwo\n", Folded: true}
	if d := cmp.Diff(want1, s1); !ok || d != "" {
		t.Fatalf("turn 1 (-want +got):\n%s", d)
	}
	if _, _, ok := Surface(target, ch, cur); ok {
		t.Fatal("a partial line was surfaced while streaming")
	}
	ch.Content += "ee\nfour"
	ch.State = store.StateClosed
	s2, cur, ok := Surface(target, ch, cur)
	want2 := Surfacing{Target: target, Channel: "stdout", State: store.StateClosed, StartLine: 3, Lines: 2,
		Text: "three\nfour", Numbered: "3:\tthree\n4:\tfour\n", Final: true}
	if d := cmp.Diff(want2, s2); !ok || d != "" {
		t.Fatalf("turn 2 (-want +got):\n%s", d)
	}
	if _, _, ok := Surface(target, ch, cur); ok {
		t.Fatal("surfaced again after the final slice")
	}
}

func TestSurfaceClosedWithNothingNew(t *testing.T) {
	ch := store.Channel{Content: "a\n", State: store.StateActive}
	_, cur, _ := Surface("sh:///1/1/1#stdout", ch, Cursor{})
	ch.State = store.StateErrored
	s, _, ok := Surface("sh:///1/1/1#stdout", ch, cur)
	if !ok || !s.Final || s.Folded || s.Lines != 0 || s.StartLine != 2 {
		t.Fatalf("got %+v %v, want an empty opened final slice starting at line 2", s, ok)
	}
}

func TestCursorsNext(t *testing.T) {
	e := &store.Entry{Key: store.Key{Scope: store.ScopeSession, Scheme: "sh", Path: "/1/1/2"}, Channels: map[string]store.Channel{
		"stdout": {Content: "a\nb\n", State: store.StateActive},
		"stderr": {Content: "", State: store.StateActive},
	}}
	c := NewCursors()
	got := c.Next(e)
	if len(got) != 1 || got[0].Target != "sh:///1/1/2#stdout" || got[0].Lines != 2 {
		t.Fatalf("first: %+v", got)
	}
	e.Channels["stdout"] = store.Channel{Content: "a\nb\nc\n", State: store.StateClosed}
	e.Channels["stderr"] = store.Channel{Content: "oops\n", State: store.StateClosed}
	got = c.Next(e)
	want := []string{"sh:///1/1/2#stderr 1 1 false", "sh:///1/1/2#stdout 3 1 false"}
	var have []string
	for _, s := range got {
		have = append(have, s.Target+" "+strconv.Itoa(s.StartLine)+" "+strconv.Itoa(s.Lines)+" "+strconv.FormatBool(s.Folded))
	}
	if d := cmp.Diff(want, have); d != "" {
		t.Errorf("second (-want +got):\n%s", d)
	}
}

// Surfacing a stream at arbitrary moments, however it was chunked, hands
// out the stream exactly once, in order, with dense line numbers.
func TestSurfaceReassemblesStream(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		chunks := rapid.SliceOf(rapid.StringMatching(`[ab\n]{0,6}`)).Draw(t, "chunks")
		peeks := rapid.SliceOfN(rapid.Bool(), len(chunks), len(chunks)).Draw(t, "peeks")
		state := rapid.SampledFrom([]store.State{store.StateClosed, store.StateErrored}).Draw(t, "end")
		ch := store.Channel{State: store.StateActive}
		var cur Cursor
		var text, numbered strings.Builder
		take := func() {
			s, next, ok := Surface("sh:///1/1/1#stdout", ch, cur)
			if ok {
				if s.StartLine != cur.Lines+1 {
					t.Fatalf("startLine %d after %d lines", s.StartLine, cur.Lines)
				}
				if s.Folded == s.Final {
					t.Fatalf("folded %v final %v", s.Folded, s.Final)
				}
				text.WriteString(s.Text)
				numbered.WriteString(s.Numbered)
			}
			cur = next
		}
		for i, c := range chunks {
			ch.Content += c
			if peeks[i] {
				take()
			}
		}
		ch.State = state
		take()
		if text.String() != ch.Content {
			t.Fatalf("reassembled %q, want %q", text.String(), ch.Content)
		}
		var want strings.Builder
		for i, l := range splitLines(ch.Content) {
			want.WriteString(strconv.Itoa(i+1) + ":\t" + l + "\n")
		}
		if numbered.String() != want.String() {
			t.Fatalf("numbered %q, want %q", numbered.String(), want.String())
		}
	})
}
