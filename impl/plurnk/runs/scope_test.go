package runs

import "testing"

// An abort that lands before a stream has wired its kill still kills it
// (it runs at bind), and a scope is only replaced once aborted.
func TestScopeBindRechecksAbort(t *testing.T) {
	sc := NewScope()
	kills := 0
	sc.Bind(func() { kills++ })
	if kills != 0 {
		t.Fatal("a live scope ran the kill at bind")
	}
	if sc.Renew() != sc {
		t.Fatal("a live scope was replaced")
	}
	sc.Abort()
	if kills != 1 || sc.Context().Err() == nil {
		t.Fatalf("abort ran %d kills, context err %v", kills, sc.Context().Err())
	}
	sc.Bind(func() { kills++ })
	if kills != 2 {
		t.Fatalf("a bind after the abort did not kill (kills %d)", kills)
	}
	next := sc.Renew()
	if next == sc || next.Aborted() {
		t.Fatal("an aborted scope was not replaced by a live one")
	}
}
