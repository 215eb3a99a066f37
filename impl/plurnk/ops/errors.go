package ops

import "anchorage/impl/plurnk/store"

// Pointer is the errors section's pointer at a failed row (the
// action_failure kind of §telemetry): the row's coordinate, its op
// ("error" for a parse failure), its status and its target (nil when it
// has none). Its fields are the ones the seed requires; the full message
// stays on the foldable row.
//
// Its fields are in name order, so its JSON is canonical (sorted keys).
type Pointer struct {
	Coordinate string  `json:"coordinate"`
	Kind       string  `json:"kind"`
	Op         string  `json:"op"`
	Status     int     `json:"status"`
	Target     *string `json:"target"`
}

// Pointers returns the pointers at the rows of a run's turn whose status
// is 400 or above, in log order.
func Pointers(r *store.Run, loop, turn int) []Pointer {
	var out []Pointer
	for _, row := range r.Log {
		if row.Loop != loop || row.Turn != turn || row.Status < 400 {
			continue
		}
		p := Pointer{Kind: "action_failure", Coordinate: row.Coord(), Op: row.Op, Status: row.Status}
		if row.Target != "" {
			t := row.Target
			p.Target = &t
		}
		out = append(out, p)
	}
	return out
}
