// Package golden compares test output with reviewed files under golden/.
//
// A golden file is written only when ANCHORAGE_UPDATE_GOLDEN=1 (make golden),
// and make golden then shows the diff for review: a golden file is never
// accepted without being read. Otherwise a mismatch fails with a go-cmp
// diff, line by line.
//
// It may import the standard library and go-cmp.
package golden

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// UpdateEnv is the environment variable that makes Check write files.
const UpdateEnv = "ANCHORAGE_UPDATE_GOLDEN"

// Dir returns the absolute path of the golden/ directory.
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "golden"
	}
	return filepath.Dir(file)
}

// Path returns the absolute path of the golden file name (slash-separated,
// relative to golden/, e.g. "chatlog/timeout.md").
func Path(name string) string { return filepath.Join(Dir(), filepath.FromSlash(name)) }

// Check compares got with the golden file name. With UpdateEnv=1 it writes
// got instead and reports no error. A missing file is an error that says how
// to create it.
func Check(name string, got []byte) error {
	p := Path(name)
	if os.Getenv(UpdateEnv) == "1" {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("golden: %w", err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			return fmt.Errorf("golden: %w", err)
		}
		return nil
	}
	want, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("golden: golden/%s does not exist: run `make golden` and review the new file", name)
	}
	if err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	if string(want) == string(got) {
		return nil
	}
	diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n"))
	return fmt.Errorf("golden/%s differs (-golden +got); if the change is intended, run `make golden` and review it:\n%s", name, diff)
}
