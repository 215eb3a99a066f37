package main

import (
	"bytes"
	"os"
	"testing"
)

// TestUpToDate checks that eval_quiet.go is what quietgen makes of eval.go
// now (go generate ./impl/fe rewrites it).
func TestUpToDate(t *testing.T) {
	src, err := os.ReadFile("../../eval.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Source(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../eval_quiet.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("eval_quiet.go is stale: run go generate ./impl/fe")
	}
}
