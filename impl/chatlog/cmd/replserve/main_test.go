package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func runParse(t *testing.T, content []byte) (int, string, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "log.md")
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	mt := time.Date(2026, 1, 1, 12, 34, 56, 0, time.Local)
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"parse", p}, &out, &errb)
	return code, out.String(), errb.String()
}

func TestParseCommand(t *testing.T) {
	log := "**agent** to index-7-zen at 22:52:47\n```JS\n12+13\n```\n" +
		"**index-7-zen** to agent at 22:52:48 (17ms)\n```JSON\n25\n```\n" +
		"**agent** to index-7-zen\n```JS\ndraft\n"
	code, out, errs := runParse(t, []byte(log))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `{"requests":[{"line":1,"agent":"agent","page":"index-7-zen","at":"22:52:47","lang":"JS","code":"12+13","closed":true},` +
		`{"line":9,"agent":"agent","page":"index-7-zen","at":"12:34:56","lang":"JS","code":"draft","closed":false}],` +
		`"replies":[{"line":5,"page":"index-7-zen","agent":"agent","at":"22:52:48","duration_ms":17,"error":false,"late":false,"request_line":1}]}` + "\n"
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
}

func TestParseCommandRejectsBadInput(t *testing.T) {
	for name, in := range map[string][]byte{
		"nul":       []byte("**a** to b at 10:00:00\n```JS\n\x00\n```\n"),
		"invalid":   []byte("ok\n\xff\xfe\n"),
		"huge line": []byte(strings.Repeat("x", maxLine+1)),
	} {
		code, out, errs := runParse(t, in)
		if code != 2 || out != "" || !strings.Contains(errs, "line ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, code, out, errs)
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"parse", filepath.Join(t.TempDir(), "missing.md")}, &out, &errb); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
}

// TestVaryFlag: -vary takes the variations' names or all, and its help
// lists them; an unknown name is a usage error.
func TestVaryFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "-vary") || !strings.Contains(out.String(), "blank-lines") {
		t.Errorf("-h: exit %d, help without the variations:\n%s", code, out.String())
	}
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), []string{"-vary", "wording", "-dir", t.TempDir()}, &out, &errb); code != 2 || !strings.Contains(errb.String(), `no variation "wording"`) {
		t.Errorf("-vary wording: exit %d, stderr %q", code, errb.String())
	}
}
