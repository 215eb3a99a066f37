package membership

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"
)

// newRepo makes a real git repository in a temporary directory with files
// (path → content) and tracks the ones listed in tracked. It fails the test
// with a clear message when the git binary is missing.
func newRepo(t *testing.T, files map[string]string, tracked ...string) string {
	t.Helper()
	if err := (GitCLI{}).Available(); err != nil {
		t.Fatalf("membership tests run the real git binary and cannot run without it: %v", err)
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	git(t, dir, "config", "user.email", "test@example.com")
	git(t, dir, "config", "user.name", "test")
	writeFiles(t, dir, files)
	if len(tracked) > 0 {
		git(t, dir, append([]string{"add", "--"}, tracked...)...)
	}
	return dir
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := osexec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = GitCLI{}.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
