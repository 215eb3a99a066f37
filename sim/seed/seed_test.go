package seed

import (
	"testing"
)

func TestStreamsDependOnlyOnMasterAndName(t *testing.T) {
	a, b := New(7), New(7)
	_ = a.Rand("other").Uint64() // asking for another stream first changes nothing
	if x, y := a.Rand("s").Uint64(), b.Rand("s").Uint64(); x != y {
		t.Fatalf("same master and name gave %d and %d", x, y)
	}
	if New(7).Derive("s") == New(8).Derive("s") {
		t.Fatal("different masters gave the same stream seed")
	}
	if New(7).Derive("s") == New(7).Derive("t") {
		t.Fatal("different names gave the same stream seed")
	}
}

func TestResolve(t *testing.T) {
	t.Setenv(EnvVar, "")
	s, err := Resolve("")
	if err != nil || s.Master() != Default {
		t.Fatalf("default: %v %v", s.Master(), err)
	}
	t.Setenv(EnvVar, "42")
	if s, _ := Resolve(""); s.Master() != 42 {
		t.Fatalf("env seed: got %d", s.Master())
	}
	if s, _ := Resolve("9"); s.Master() != 9 {
		t.Fatalf("flag beats env: got %d", s.Master())
	}
	if _, err := Resolve("x1"); err == nil {
		t.Fatal("a bad seed was accepted")
	}
}

func TestReplay(t *testing.T) {
	got := New(5).Replay("./features", "TestFeatures/chatlog", "-feature=features/chatlog/a.feature:3")
	want := "ANCHORAGE_SEED=5 go test ./features -run 'TestFeatures/chatlog' -args -feature=features/chatlog/a.feature:3"
	if got != want {
		t.Fatalf("replay line\n got %s\nwant %s", got, want)
	}
}
