package fe

import "testing"

// A collection before the free list ever ran out finds cells that were never
// allocated: they must be known as free, not freed a second time.
func TestCollectFreshArena(t *testing.T) {
	vm, err := New(4096)
	if err != nil {
		t.Fatal(err)
	}
	before := vm.Stats()
	if err := vm.Collect(); err != nil {
		t.Fatal(err)
	}
	after := vm.Stats()
	if after.Free > after.Cells || after.Free < before.Free {
		t.Fatalf("free cells %d after a collection of a fresh %d-cell arena (were %d)", after.Free, after.Cells, before.Free)
	}
	// Every free cell can be taken once, and then the arena is full.
	if _, err := vm.Eval("(= l nil) (while t (= l (cons 1 l)))"); err == nil {
		t.Fatal("filling the arena did not run out of memory")
	}
	if st := vm.Stats(); st.Free > st.Cells {
		t.Fatalf("stats after filling: %+v", st)
	}
}
