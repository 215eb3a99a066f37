package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLine pins each bad input: its exit status and its message.
func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "EMPTY.js")
	broken := filepath.Join(dir, "broken.js")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte("export default {"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		out  string
		err  string // "" for -h: nothing at all
	}{
		{[]string{"-h"}, 0, "usage: jace", ""},
		{[]string{"a.js", "b.js"}, 2, "", "jace: at most one module file, got 2"},
		{[]string{"/nonexistent/module.js"}, 2, "", "jace: reading module"},
		{[]string{empty}, 2, "", "jace: module " + empty + " is empty: refused"},
		{[]string{broken}, 2, "", "jace: module " + broken + " refused"},
		{[]string{"-timeout", "soon"}, 2, "", `invalid value "soon" for flag -timeout`},
		{[]string{"-vary", "wording"}, 2, "", `jace: -vary: no variation "wording": want all or some of messages,codes,`},
		{[]string{"-addr", "256.0.0.1:99999"}, 1, "", "jace: listening on 256.0.0.1:99999"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := exitCode(run(c.args, &stdout, &stderr), &stderr)
		errOK := strings.Contains(stderr.String(), c.err) && (c.err != "" || stderr.Len() == 0)
		if code != c.code || !strings.Contains(stdout.String(), c.out) || !errOK {
			t.Errorf("jace %q: exit %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", c.args, code, c.code, stdout.String(), c.out, stderr.String(), c.err)
		}
	}
}
