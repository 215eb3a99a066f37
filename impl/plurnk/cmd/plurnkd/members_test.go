package main

import (
	"context"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"anchorage/impl/plurnk/rpc"

	"github.com/tidwall/gjson"
)

// TestMembershipEndToEnd: plurnkd keeps a membership over -root with the
// real git binary: tracked files are members, an existing untracked file
// answers 403 to an EDIT until session.constrain picks it, and the pick
// survives a restart under -state.
func TestMembershipEndToEnd(t *testing.T) {
	if _, err := osexec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	root, state := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{"main.go": "package main\n", "notes.md": "scratch\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "--", "main.go"}} {
		cmd := osexec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = noGitVars(os.Environ())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(addr string) *rpc.Client { t.Helper(); return dialDaemon(t, ctx, addr) }
	call := func(c *rpc.Client, method string, params any) gjson.Result {
		t.Helper()
		return callOK(t, ctx, c, method, params)
	}

	addr, stop := startDaemon(t, script, "-root", root, "-state", state)
	c := dial(addr)
	sess := call(c, "session.create", map[string]any{"name": "members"})
	if got := call(c, "session.members", nil).Get("members").Raw; got != `[{"path":"main.go","effect":"member"}]` {
		t.Fatalf("session.members %s, want main.go alone", got)
	}
	if got := call(c, "op.edit", map[string]any{"target": "file:///notes.md", "body": "changed"}).Get("status").Int(); got != 403 {
		t.Fatalf("op.edit of an untracked file: status %d, want 403", got)
	}
	call(c, "session.constrain", map[string]any{"effect": "pick", "pattern": "notes.md"})
	c.Close()
	stop()

	addr, stop = startDaemon(t, script, "-root", root, "-state", state)
	defer stop()
	c = dial(addr)
	defer c.Close()
	call(c, "session.attach", map[string]any{"id": sess.Get("id").Int()})
	if got := call(c, "session.members", nil).Get("members").Raw; got != `[{"path":"main.go","effect":"member"},{"path":"notes.md","effect":"member"}]` {
		t.Fatalf("session.members after the restart %s, want main.go and the picked notes.md", got)
	}
	if got := call(c, "op.edit", map[string]any{"target": "file:///notes.md", "body": "changed"}).Get("status").Int(); got != 200 {
		t.Fatalf("op.edit of the picked file after the restart: status %d, want 200", got)
	}
	b, err := os.ReadFile(filepath.Join(root, "notes.md"))
	if err != nil || string(b) != "changed" {
		t.Fatalf("notes.md holds %q (%v), want the edit", b, err)
	}
}

// noGitVars is env without the GIT_* variables that would point git at
// another repository than the test's.
func noGitVars(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	return out
}
