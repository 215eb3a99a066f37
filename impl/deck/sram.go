package deck

import (
	"fmt"
	"sort"
)

// KB is 1024 bytes.
const KB = 1024

// SRAMBytes is the part's SRAM: 520 KB.
const SRAMBytes = 520 * KB

// Consumer names an SRAM consumer of the budget table.
type Consumer string

// The consumers of the budget table.
const (
	CoreVM    Consumer = "core+vm"   // resident firmware code and data, Fe VM included
	DeckState Consumer = "deckstate" // the RAM mirror of the flash deck state
	REPLArena Consumer = "repl"      // the Dev REPL arena
	EditArena Consumer = "editor"    // the nEmacs arena
	CartArena Consumer = "cartridge" // the active cartridge's arena
	Mission   Consumer = "mission"   // a scripted mission's sub-arena, inside the cartridge arena
)

// Budget is one row of the budget table: the sizes a consumer may take.
type Budget struct {
	Min, Max  int  // bytes
	Exclusive bool // one of the mutually exclusive arenas
}

// Budgets returns the budget table.
func Budgets() map[Consumer]Budget {
	return map[Consumer]Budget{
		CoreVM:    {Min: 64 * KB, Max: 64 * KB},
		DeckState: {Min: 4 * KB, Max: 4 * KB},
		REPLArena: {Min: 24 * KB, Max: 24 * KB, Exclusive: true},
		EditArena: {Min: 16 * KB, Max: 16 * KB, Exclusive: true},
		CartArena: {Min: 16 * KB, Max: 32 * KB, Exclusive: true},
		Mission:   {Min: 4 * KB, Max: 8 * KB},
	}
}

// BudgetError is a refused allocation. It names the consumer and the budget.
type BudgetError struct {
	Consumer Consumer
	Size     int
	Budget   string // the rule that refused it
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("sram: %s: %d bytes refused: %s", e.Consumer, e.Size, e.Budget)
}

// SRAM is the allocation map of the part. The zero value is not usable;
// use NewSRAM.
type SRAM struct {
	capacity int
	budgets  map[Consumer]Budget
	live     map[Consumer]int
}

// NewSRAM returns an SRAM of capacity bytes (SRAMBytes for the real part)
// with nothing allocated.
func NewSRAM(capacity int) *SRAM {
	return &SRAM{capacity: capacity, budgets: Budgets(), live: make(map[Consumer]int)}
}

// Used returns the bytes allocated.
func (s *SRAM) Used() int {
	n := 0
	for c, b := range s.live {
		if c != Mission { // the mission sub-arena is carved from the cartridge arena
			n += b
		}
	}
	return n
}

// Capacity returns the part's SRAM size.
func (s *SRAM) Capacity() int { return s.capacity }

// Size returns the bytes held by c (0 if none).
func (s *SRAM) Size(c Consumer) int { return s.live[c] }

// Has reports whether c is allocated.
func (s *SRAM) Has(c Consumer) bool { _, ok := s.live[c]; return ok }

// Live returns the allocated consumers, sorted.
func (s *SRAM) Live() []Consumer {
	out := make([]Consumer, 0, len(s.live))
	for c := range s.live {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Alloc gives size bytes to c, or refuses with a *BudgetError: an unknown
// consumer, a size outside its budget, a second allocation, a second
// exclusive arena, a mission outside a cartridge or larger than it, or a
// total beyond the part's SRAM.
func (s *SRAM) Alloc(c Consumer, size int) error {
	b, ok := s.budgets[c]
	if !ok {
		return &BudgetError{c, size, "no such consumer in the budget table"}
	}
	if size < b.Min || size > b.Max {
		return &BudgetError{c, size, fmt.Sprintf("budget is %d–%d KB", b.Min/KB, b.Max/KB)}
	}
	if s.Has(c) {
		return &BudgetError{c, size, "already allocated"}
	}
	if b.Exclusive {
		for other := range s.live {
			if s.budgets[other].Exclusive {
				return &BudgetError{c, size, fmt.Sprintf("mutually exclusive with %s, which is allocated", other)}
			}
		}
	}
	if c == Mission {
		cart, ok := s.live[CartArena]
		if !ok {
			return &BudgetError{c, size, "lives inside the cartridge arena, which is not allocated"}
		}
		if size > cart {
			return &BudgetError{c, size, fmt.Sprintf("larger than the %d KB cartridge arena", cart/KB)}
		}
	} else if s.Used()+size > s.capacity {
		return &BudgetError{c, size, fmt.Sprintf("SRAM is %d KB and %d KB are in use", s.capacity/KB, s.Used()/KB)}
	}
	s.live[c] = size
	return nil
}

// Free releases c. Freeing the cartridge arena frees a mission inside it.
func (s *SRAM) Free(c Consumer) error {
	if !s.Has(c) {
		return &BudgetError{c, 0, "free of an unallocated consumer"}
	}
	delete(s.live, c)
	if c == CartArena {
		delete(s.live, Mission)
	}
	return nil
}

// Check verifies the invariants: total within capacity, at most one
// exclusive arena, a mission only inside a cartridge.
func (s *SRAM) Check() error {
	if s.Used() > s.capacity {
		return fmt.Errorf("sram: %d bytes used of %d", s.Used(), s.capacity)
	}
	n := 0
	for c := range s.live {
		if s.budgets[c].Exclusive {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("sram: %d exclusive arenas allocated: %v", n, s.Live())
	}
	if s.Has(Mission) && !s.Has(CartArena) {
		return fmt.Errorf("sram: mission arena without a cartridge")
	}
	return nil
}
