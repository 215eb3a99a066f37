package deck

import (
	"fmt"
	"sort"
	"strings"
)

// The allocator's invariants and its map, for the tests: the features judge
// the same invariants from the regions the deck shows (STATE's regions).

// checkSRAM verifies the invariants: every region within its budget and inside
// its parent, no two regions of one parent overlapping, the total within
// the part, at most one exclusive arena.
func checkSRAM(s *SRAM) error {
	if s.Used() > s.part.SRAM {
		return fmt.Errorf("sram: %d bytes used of %d", s.Used(), s.part.SRAM)
	}
	n := 0
	byParent := map[Consumer][]*Region{}
	for c, r := range s.live {
		b := s.budgets[c]
		if b.Exclusive {
			n++
		}
		if r.size < b.Min || r.size > b.Max {
			return fmt.Errorf("sram: %s holds %d bytes, budget %s", c, r.size, b)
		}
		lo, hi := 0, s.part.SRAM
		if b.Parent != "" {
			p, ok := s.live[b.Parent]
			if !ok {
				return fmt.Errorf("sram: %s without its %s", c, b.Parent)
			}
			lo, hi = p.Base, p.Base+p.size
		}
		if r.Base < lo || r.Base+r.size > hi {
			return fmt.Errorf("sram: %s at %#x+%d outside [%#x,%#x)", c, r.Base, r.size, lo, hi)
		}
		byParent[b.Parent] = append(byParent[b.Parent], r)
	}
	if n > 1 {
		return fmt.Errorf("sram: %d exclusive arenas allocated: %v", n, s.Live())
	}
	for _, rs := range byParent {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Base < rs[j].Base })
		for i := 1; i < len(rs); i++ {
			if rs[i-1].Base+rs[i-1].size > rs[i].Base {
				return fmt.Errorf("sram: %s and %s overlap", rs[i-1].Consumer, rs[i].Consumer)
			}
		}
	}
	return nil
}

// sramMap draws the allocation map, one line per region in address order,
// regions inside another indented under it, then the free bytes.
func sramMap(s *SRAM) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s SRAM %d bytes, %d used, %d free\n", s.part.Name, s.part.SRAM, s.Used(), s.FreeIn(""))
	var walk func(parent Consumer, depth int)
	walk = func(parent Consumer, depth int) {
		var rs []*Region
		for c, r := range s.live {
			if s.budgets[c].Parent == parent {
				rs = append(rs, r)
			}
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i].Base < rs[j].Base })
		for _, r := range rs {
			fmt.Fprintf(&b, "%s%#07x %-13s %6d\n", strings.Repeat("  ", depth), r.Base, r.Consumer, r.size)
			walk(r.Consumer, depth+1)
		}
	}
	walk("", 0)
	return b.String()
}

// Used returns the bytes allocated at the top level (regions inside
// another consumer are part of it).
func (s *SRAM) Used() int { return s.usedIn("") }
