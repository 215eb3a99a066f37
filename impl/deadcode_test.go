// Package impl_test checks what the reference implementations hold: every
// function under impl/ is reachable from a command's main (replserve, jace,
// fe, deck, plurnkd, plurnk, and the scripted model server llmserve that
// plurnk's scenarios talk to), but the few the README lists, each with its
// reason. A function only tests call belongs in the tests or in sim/, not
// in impl/.
package impl_test

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestNothingInImplIsUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("go tool deadcode takes a while: not with -short")
	}
	// The commands whose reach defines what impl/ may hold.
	mains := []string{
		"./impl/chatlog/cmd/replserve", "./impl/jace/cmd/jace", "./impl/fe/cmd/fe", "./impl/deck/cmd/deck",
		"./impl/plurnk/cmd/plurnkd", "./impl/plurnk/cmd/plurnk", "./sim/llm/cmd/llmserve",
	}
	unreachableRE := regexp.MustCompile(`^(impl/\S+\.go):\d+:\d+: unreachable func: (\S+)$`)
	cmd := exec.Command("go", append([]string{"tool", "deadcode"}, mains...)...)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool deadcode: %v\n%s", err, out)
	}
	var found []string
	for _, line := range strings.Split(string(out), "\n") {
		if m := unreachableRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			found = append(found, m[1]+" "+m[2])
		}
	}
	allowed := readAllowed(t, "../README.md")
	if len(allowed) > 10 {
		t.Errorf("the README lists %d unreachable functions; at most 10 may stay", len(allowed))
	}
	for _, f := range found {
		if !slices.Contains(allowed, f) {
			t.Errorf("%s: no command reaches it: delete it, move it into the tests or sim/, or list it in the README with its reason", f)
		}
	}
	for _, a := range allowed {
		if !slices.Contains(found, a) {
			t.Errorf("the README lists %s as unreachable, but a command reaches it (or it is gone): take it off the list", a)
		}
	}
}

// readAllowed reads the README's table of functions impl/ keeps that no
// command reaches: rows "| `impl/FILE.go` | `Name` | why |" under the
// heading that names them.
func readAllowed(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile("^\\| `(impl/[^`]+\\.go)` \\| `([^`]+)` \\|")
	var out []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			in = strings.Contains(line, "no command reaches")
			continue
		}
		if m := row.FindStringSubmatch(line); in && m != nil {
			out = append(out, m[1]+" "+m[2])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
