package packet

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"anchorage/impl/plurnk/store"
)

// Handle returns a row's handle, log:///<loop>/<turn>/<seq>/<op>.
func Handle(r *store.LogRow) string { return "log:///" + r.Coord() + "/" + r.Op }

// RenderRow renders one log row. Its meta line names the handle, the
// status and the target; a folded row is its meta line alone, marked
// folded. An expanded row adds its reason, then its body: a READ or FIND at
// 200 shows the body it returned under the query's fence, `<<target:` …
// `:target` (§render-rule-find-renders-result); an EDIT shows the span it
// produced, numbered, fenced by `:::` lines (§edit-result-render); any
// other row with content shows it `:::`-fenced; a row with none re-emits
// its statement.
func RenderRow(r *store.LogRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "* %s %d", Handle(r), r.Status)
	if r.Target != "" {
		b.WriteString(" " + r.Target)
	}
	if r.Origin != "" && r.Origin != "model" {
		b.WriteString(" origin=" + r.Origin)
	}
	if !r.Expanded {
		b.WriteString(" (folded)\n")
		return b.String()
	}
	b.WriteString("\n")
	if r.Reason != "" {
		b.WriteString("  reason: " + strings.ReplaceAll(r.Reason, "\n", " ") + "\n")
	}
	switch {
	case (r.Op == "READ" || r.Op == "FIND") && r.Status == 200 && r.Content != "":
		// The returned body under the query's fence, named by its target.
		fmt.Fprintf(&b, "<<%s:\n%s\n:%s\n", r.Target, strings.TrimSuffix(r.Content, "\n"), r.Target)
	case r.Op == "EDIT" && r.Span != "":
		b.WriteString(":::\n" + strings.TrimSuffix(r.Span, "\n") + "\n:::\n")
	case r.Content != "":
		b.WriteString(":::\n" + strings.TrimSuffix(r.Content, "\n") + "\n:::\n")
	case r.Tx != "":
		b.WriteString(r.Tx + "\n")
	}
	return b.String()
}

// Weighed is one rendered row and its render weight in tokens.
type Weighed struct {
	Row    *store.LogRow
	Text   string
	Tokens int
}

// RenderLog renders rows in log order and weighs each with count.
func RenderLog(rows []*store.LogRow, count func(string) int) (string, []Weighed) {
	var b strings.Builder
	ws := make([]Weighed, 0, len(rows))
	for _, r := range rows {
		t := RenderRow(r)
		b.WriteString(t)
		ws = append(ws, Weighed{Row: r, Text: t, Tokens: count(t)})
	}
	return b.String(), ws
}

// HeaviestCount is how many rows the heaviest-entries table lists.
const HeaviestCount = 10

// BudgetTables renders the turn-weight table (render weight per
// loop/turn, oldest first) and the heaviest-entries table (the
// HeaviestCount heaviest rows, heaviest first, by handle; ties by log
// order).
func BudgetTables(ws []Weighed) string {
	if len(ws) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| turn | tokens |\n|---|---|\n")
	type turn struct{ loop, turn int }
	var order []turn
	sums := map[turn]int{}
	for _, w := range ws {
		k := turn{w.Row.Loop, w.Row.Turn}
		if _, ok := sums[k]; !ok {
			order = append(order, k)
		}
		sums[k] += w.Tokens
	}
	slices.SortFunc(order, func(x, y turn) int { return cmp.Or(cmp.Compare(x.loop, y.loop), cmp.Compare(x.turn, y.turn)) })
	for _, k := range order {
		fmt.Fprintf(&b, "| %d/%d | %d |\n", k.loop, k.turn, sums[k])
	}
	heavy := append([]Weighed(nil), ws...)
	sort.SliceStable(heavy, func(i, j int) bool { return heavy[i].Tokens > heavy[j].Tokens })
	heavy = heavy[:min(len(heavy), HeaviestCount)]
	b.WriteString("\n| entry | tokens |\n|---|---|\n")
	for _, w := range heavy {
		fmt.Fprintf(&b, "| %s | %d |\n", Handle(w.Row), w.Tokens)
	}
	return b.String()
}
