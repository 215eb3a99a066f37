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
	other.Systems[0].Anchors[0].Verdict, other.Systems[0].Anchors[0].DiffersOn = Differs, []string{"§deck-x"}
	m := BuildMatrix([]*Report{ref, other})
	got := [][]string{}
	for _, s := range m.Systems {
		for _, r := range s.Rows {
			got = append(got, append([]string{r.ID}, r.Cells...))
		}
	}
	want := [][]string{{"deck-a", Keeps, "keeps, differs on 1"}, {"deck-b", Keeps, Pend}, {"jace-a", Keeps, NotThisTarget}}
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
	for _, s := range []string{"| reference |", "| bridge | deck: `DECK_CMD=/x` |", "| **keep the spec / anchors** | 2 / 2 | 1 / 2 (1 differ on decisions) |", "| `§deck-a` | keeps | keeps, differs on 1 (§deck-x) |"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
	var html strings.Builder
	if err := m.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `<td class="differs" title="differs on §deck-x">keeps, differs on 1</td>`) {
		t.Errorf("html lacks the differing cell:\n%s", html.String())
	}
	if !strings.Contains(html.String(), `<td class="none">·</td>`) {
		t.Errorf("html lacks the not-this-target cell")
	}
}
