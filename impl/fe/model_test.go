package fe

import (
	"errors"
	"testing"
)

// TestNewModelBounds pins the smallest GC root stack New can open a VM
// with: the interpreter's own setup roots nine values before any program
// runs, so eight entries overflow.
func TestNewModelBounds(t *testing.T) {
	for _, tc := range []struct {
		m  Model
		ok bool
	}{
		{Model{ptrSize: 8, gcStackSize: 9}, true},
		{Model{ptrSize: 4, gcStackSize: 9}, true},
		{Model{ptrSize: 8, gcStackSize: 8}, false},
		{Model{ptrSize: 4, gcStackSize: 1}, false},
		{Model{ptrSize: 4, gcStackSize: 0}, false},
	} {
		_, err := New(1<<16, WithModel(tc.m))
		if tc.ok && err != nil || !tc.ok && !errors.Is(err, ErrGCStackOverflow) {
			t.Errorf("New with %+v: err %v, want ok %v", tc.m, err, tc.ok)
		}
	}
}
