package coverage

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuildMatrixMarksSystemsNotRunAgainstTheTarget(t *testing.T) {
	sys := func(name string, statuses ...string) System {
		s := System{System: name}
		for i, st := range statuses {
			s.Anchors = append(s.Anchors, Anchor{ID: name + "-" + string(rune('a'+i)), Status: st})
		}
		return s
	}
	ref := &Report{Systems: []System{sys("deck", Pass, Pass, RetiredSt), sys("jace", Pass)}}
	other := &Report{Target: "bridge", Drivers: map[string]string{"deck": "DECK_CMD=/x", "jace": "embedded"},
		Systems: []System{sys("deck", Pass, Pend), sys("jace", Pass)}}
	m := BuildMatrix([]*Report{ref, other})
	got := [][]string{}
	for _, s := range m.Systems {
		for _, r := range s.Rows {
			got = append(got, append([]string{r.ID}, r.Cells...))
		}
	}
	want := [][]string{{"deck-a", Pass, Pass}, {"deck-b", Pass, Pend}, {"jace-a", Pass, NotThisTarget}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("cells (-want +got):\n%s", d)
	}
	if c := m.Targets[1].Counts["deck"]; c.Pass != 1 || c.Total != 2 {
		t.Errorf("bridge deck counts %+v, want 1 pass of 2", c)
	}
	if c := m.Targets[1].Counts["jace"]; c.Total != 0 {
		t.Errorf("bridge ran jace embedded, yet counts %+v", c)
	}
	md := m.Markdown()
	for _, s := range []string{"| reference |", "| bridge | deck: `DECK_CMD=/x` |", "| **pass / anchors** | 2 / 2 | 1 / 2 |"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
	var html strings.Builder
	if err := m.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `<td class="none">·</td>`) {
		t.Errorf("html lacks the not-this-target cell")
	}
}
