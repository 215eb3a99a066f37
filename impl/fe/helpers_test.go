package fe

// Collect runs a full collection now, as only the tests need: the VM itself
// collects only when an allocation finds the free list empty. Only the GC
// stack (as left by the last top-level evaluation) and the symbol list are
// roots.
func (vm *VM) Collect() error {
	if err := vm.protect(vm.collect); err != nil {
		return err
	}
	return nil
}
