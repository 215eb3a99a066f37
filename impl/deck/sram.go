package deck

import (
	"fmt"
	"slices"
	"strings"
)

// KB is 1024 bytes.
const KB = 1024

// SRAMBytes is the SRAM of the part the digest fixes: 520 KB.
const SRAMBytes = 520 * KB

// Part is a board model: a microcontroller and its SRAM.
type Part struct {
	Name string
	SRAM int // bytes
}

// RP2350 is the part the digest fixes. The smaller board models show the
// capacity rule firing: on the STM32F401RE (96 KB) the resident consumers
// leave too little for a 32 KB cartridge, and the nRF52832 (64 KB) cannot
// even hold them.
func RP2350() Part { return Part{"RP2350", SRAMBytes} }

// STM32F401RE is a 96 KB board model.
func STM32F401RE() Part { return Part{"STM32F401RE", 96 * KB} }

// NRF52832 is a 64 KB board model.
func NRF52832() Part { return Part{"nRF52832", 64 * KB} }

// Parts lists the board models.
func Parts() []Part { return []Part{RP2350(), STM32F401RE(), NRF52832()} }

// PartNamed returns the board model called name.
func PartNamed(name string) (Part, error) {
	for _, p := range Parts() {
		if strings.EqualFold(p.Name, name) {
			return p, nil
		}
	}
	return Part{}, fmt.Errorf("sram: no board model %q", name)
}

// Consumer names an SRAM consumer of the budget table.
type Consumer string

// The consumers of the budget table. The first six are the seed's table;
// the others are the owned-data regions carved out of them.
const (
	CoreVM     Consumer = "core+vm"       // resident firmware code and data, Fe VM included
	DeckState  Consumer = "deckstate"     // the RAM mirror of the flash deck state
	REPLArena  Consumer = "repl"          // the Dev REPL arena
	EditArena  Consumer = "editor"        // the nEmacs arena
	CartArena  Consumer = "cartridge"     // the active cartridge's arena
	Mission    Consumer = "mission"       // a scripted mission's sub-arena, inside the cartridge arena
	Clipboard  Consumer = "clipboard"     // the shared clipboard, in the resident data
	History    Consumer = "history"       // the persisted *history* region, in the deck-state mirror
	Snippets   Consumer = "snippets"      // the snippet library, in the deck-state mirror
	EditBuffer Consumer = "editor-buffer" // the nEmacs buffer, in the editor arena
	EditEval   Consumer = "editor-eval"   // the transient evaluator of eval-from-editor, in the editor arena
)

// Sizes fixed by the budget table and the owned-data decisions.
const (
	CoreBytes       = 64 * KB // ~48 KB code + ~16 KB data
	REPLBytes       = 24 * KB
	EditorBytes     = 16 * KB
	ClipboardBytes  = 1 * KB
	EditBufferBytes = 8 * KB
	EditEvalBytes   = 8 * KB
)

// Budget is one row of the budget table: the sizes a consumer may take,
// whether it is one of the mutually exclusive arenas and, for a region
// carved out of another consumer, that consumer.
type Budget struct {
	Min, Max  int // bytes
	Exclusive bool
	Parent    Consumer
}

func (b Budget) String() string {
	if b.Min == b.Max {
		return fmt.Sprintf("%d bytes", b.Max)
	}
	return fmt.Sprintf("%d to %d bytes", b.Min, b.Max)
}

// Budgets returns the budget table.
func Budgets() map[Consumer]Budget {
	return map[Consumer]Budget{
		CoreVM:     {Min: CoreBytes, Max: CoreBytes},
		DeckState:  {Min: 4 * KB, Max: 5 * KB},
		REPLArena:  {Min: REPLBytes, Max: REPLBytes, Exclusive: true},
		EditArena:  {Min: EditorBytes, Max: EditorBytes, Exclusive: true},
		CartArena:  {Min: 16 * KB, Max: 32 * KB, Exclusive: true},
		Mission:    {Min: 4 * KB, Max: 8 * KB, Parent: CartArena},
		Clipboard:  {Min: ClipboardBytes, Max: ClipboardBytes, Parent: CoreVM},
		History:    {Min: HistoryBytes, Max: HistoryBytes, Parent: DeckState},
		Snippets:   {Min: SnippetBytes, Max: SnippetBytes, Parent: DeckState},
		EditBuffer: {Min: EditBufferBytes, Max: EditBufferBytes, Parent: EditArena},
		EditEval:   {Min: EditEvalBytes, Max: EditEvalBytes, Parent: EditArena},
	}
}

// BudgetError is a refused allocation or write. It names the consumer, its
// budget, the bytes asked for and the bytes free where they were asked.
type BudgetError struct {
	Consumer Consumer
	Size     int
	Budget   Budget
	Free     int
	Rule     string // why it was refused

	text, short func(*BudgetError) string // the deck's wording of a refusal
}

func (e *BudgetError) Error() string { return e.text(e) }

// Short is the refusal as a screen readout.
func (e *BudgetError) Short() string { return e.short(e) }

// Region is an allocated block of SRAM: the only source of the deck's
// arenas and buffers. Its size is the size the allocator granted.
type Region struct {
	Consumer Consumer
	Base     int // offset from the start of SRAM
	size     int
}

// Bytes returns the region's size (fe.Arena).
func (r *Region) Bytes() int { return r.size }

// SRAM is the allocation map of the part. The zero value is not usable;
// use NewSRAM.
type SRAM struct {
	part    Part
	budgets map[Consumer]Budget
	live    map[Consumer]*Region
	words   wording // how a refusal reads
}

// newSRAM returns the SRAM of part with nothing allocated, its refusals
// worded as w words them.
func newSRAM(part Part, w wording) *SRAM {
	return &SRAM{part: part, budgets: Budgets(), live: make(map[Consumer]*Region), words: w}
}

// refusal is a refused allocation or write of size bytes to c.
func (s *SRAM) refusal(c Consumer, size int, b Budget, free int, rule string) *BudgetError {
	return &BudgetError{Consumer: c, Size: size, Budget: b, Free: free, Rule: rule, text: s.words.budgetError, short: s.words.budgetShort}
}

// Part returns the board model.
func (s *SRAM) Part() Part { return s.part }

func (s *SRAM) usedIn(parent Consumer) int {
	n := 0
	for c, r := range s.live {
		if s.budgets[c].Parent == parent {
			n += r.size
		}
	}
	return n
}

// FreeIn returns the bytes free in parent ("" for the part itself).
func (s *SRAM) FreeIn(parent Consumer) int { return s.capacity(parent) - s.usedIn(parent) }

// capacity is the size of parent: the part's SRAM for "", the region's
// size for an allocated consumer, 0 for one that is not allocated.
func (s *SRAM) capacity(parent Consumer) int {
	if parent == "" {
		return s.part.SRAM
	}
	if p, ok := s.live[parent]; ok {
		return p.size
	}
	return 0
}

// Size returns the bytes held by c (0 if none).
func (s *SRAM) Size(c Consumer) int {
	if r, ok := s.live[c]; ok {
		return r.size
	}
	return 0
}

// Has reports whether c is allocated.
func (s *SRAM) Has(c Consumer) bool { _, ok := s.live[c]; return ok }

// Region returns c's region, or nil.
func (s *SRAM) Region(c Consumer) *Region { return s.live[c] }

// Live returns the allocated consumers, sorted.
func (s *SRAM) Live() []Consumer {
	out := make([]Consumer, 0, len(s.live))
	for c := range s.live {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// Alloc gives size bytes to c, or refuses with a *BudgetError: an unknown
// consumer, a size outside its budget, a second allocation, a second
// exclusive arena, a region whose parent is not allocated, or more bytes
// than are free in the parent (the part itself for a top-level consumer).
func (s *SRAM) Alloc(c Consumer, size int) (*Region, error) {
	b, ok := s.budgets[c]
	if !ok {
		return nil, s.refusal(c, size, Budget{}, s.FreeIn(""), "no such consumer in the budget table")
	}
	refuse := func(rule string) error { return s.refusal(c, size, b, s.FreeIn(b.Parent), rule) }
	if size < b.Min || size > b.Max {
		return nil, refuse("outside its budget")
	}
	if s.Has(c) {
		return nil, refuse("already allocated")
	}
	if b.Exclusive {
		for other := range s.live {
			if s.budgets[other].Exclusive {
				return nil, refuse(fmt.Sprintf("mutually exclusive with %s, which is allocated", other))
			}
		}
	}
	if b.Parent != "" && !s.Has(b.Parent) {
		return nil, refuse(fmt.Sprintf("lives inside the %s region, which is not allocated", b.Parent))
	}
	if size > s.FreeIn(b.Parent) {
		where := s.part.Name + " SRAM"
		if b.Parent != "" {
			where = string(b.Parent) + " region"
		}
		return nil, refuse("more than is free in the " + where)
	}
	// A parent's regions are packed from its start: the deck frees only
	// the region allocated last in a parent (an exclusive arena, the
	// mission), so its free bytes are one gap at its end.
	r := &Region{Consumer: c, Base: s.start(b.Parent) + s.usedIn(b.Parent), size: size}
	s.live[c] = r
	return r, nil
}

// start is the offset of parent's first byte ("" for the part itself).
func (s *SRAM) start(parent Consumer) int {
	if parent == "" {
		return 0
	}
	return s.live[parent].Base
}

// Free releases c and every region carved out of it; a consumer that is
// not allocated has nothing to release. The deck frees only the region it
// allocated last in its parent (see Alloc).
func (s *SRAM) Free(c Consumer) {
	for other := range s.live {
		if s.budgets[other].Parent == c {
			s.Free(other)
		}
	}
	delete(s.live, c)
}
