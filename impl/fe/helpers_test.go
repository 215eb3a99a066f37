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
