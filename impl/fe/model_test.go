package fe

import "testing"

// TestNewModelBounds pins the machine models New accepts: pointers of 4 or
// 8 bytes and a GC root stack deep enough for the interpreter's own setup,
// which roots nine values before any program runs.
func TestNewModelBounds(t *testing.T) {
	for _, tc := range []struct {
		m  Model
		ok bool
	}{
		{Model{PtrSize: 8, GCStackSize: 9}, true},
		{Model{PtrSize: 4, GCStackSize: 9}, true},
		{Model{PtrSize: 8, GCStackSize: 8}, false},
		{Model{PtrSize: 8, GCStackSize: 1}, false},
		{Model{PtrSize: 8, GCStackSize: 0}, false},
		{Model{PtrSize: 8, GCStackSize: -1}, false},
		{Model{PtrSize: 2, GCStackSize: 256}, false},
		{Model{PtrSize: 16, GCStackSize: 256}, false},
	} {
		_, err := New(1<<16, WithModel(tc.m))
		if (err == nil) != tc.ok {
			t.Errorf("New with %+v: err %v, want ok %v", tc.m, err, tc.ok)
		}
	}
}
