package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	name := "golden-selftest.txt"
	p := Path(name)
	t.Cleanup(func() { os.Remove(p) })

	t.Setenv(UpdateEnv, "")
	if err := Check(name, []byte("a\n")); err == nil || !strings.Contains(err.Error(), "make golden") {
		t.Fatalf("missing golden: %v", err)
	}
	t.Setenv(UpdateEnv, "1")
	if err := Check(name, []byte("a\nb\n")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(UpdateEnv, "")
	if err := Check(name, []byte("a\nb\n")); err != nil {
		t.Fatalf("equal content: %v", err)
	}
	err := Check(name, []byte("a\nc\n"))
	if err == nil || !strings.Contains(err.Error(), `"b"`) || !strings.Contains(err.Error(), `"c"`) {
		t.Fatalf("diff should name the changed line: %v", err)
	}
	if filepath.Base(Dir()) != "golden" {
		t.Fatalf("Dir() = %s", Dir())
	}
}
