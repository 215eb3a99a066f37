package ops

import (
	"fmt"

	"anchorage/impl/plurnk/store"
)

// ErrorPointers lists the failed actions of a run's turn as the errors
// section points at them: one `<status> log:///<loop>/<turn>/<seq>` line per
// row whose status is 400 or above, in log order.
func ErrorPointers(r *store.Run, loop, turn int) []string {
	var out []string
	for _, row := range r.Log {
		if row.Loop == loop && row.Turn == turn && row.Status >= 400 {
			out = append(out, fmt.Sprintf("%d log:///%s", row.Status, row.Coord()))
		}
	}
	return out
}
