package fe

// Collect runs a full collection now, as only the tests need. The VM itself
// collects only when an allocation finds the free list empty, and its sweep
// relies on that (every cell is in use), so Collect first takes the free
// cells as garbage. Only the GC stack (as left by the last top-level
// evaluation) and the symbol list are roots.
func (vm *VM) Collect() error {
	return vm.guard(func() {
		for vm.freelist != Nil {
			c := vm.mem.at(vm.freelist)
			vm.freelist = c.cdr
			c.typ = TNumber
		}
		vm.collect()
	})
}

// pinStats is what the tests pin about the arena: what Stats gives, and
// what only the tests look at.
type pinStats struct {
	Cells      int // cells in the arena
	Used       int // cells not on the free list (live or awaiting collection)
	Free       int // cells on the free list
	GCCount    int // collections so far
	GCStack    int // GC root stack entries in use
	GCStackCap int // GC root stack size
}

func (vm *VM) pinStats() pinStats {
	st := vm.Stats()
	gcs := 0
	if st.Cells > 0 {
		gcs = int(vm.counts[EvSweep]) / st.Cells // each collection sweeps every cell
	}
	return pinStats{
		Cells:      st.Cells,
		Used:       st.Cells - st.Free,
		Free:       st.Free,
		GCCount:    gcs,
		GCStack:    vm.gcIdx,
		GCStackCap: len(vm.gcstack),
	}
}
