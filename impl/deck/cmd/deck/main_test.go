package main

import (
	"bytes"
	"strings"
	"testing"

	"anchorage/golden"
)

// TestScriptDumpGoldens runs `deck -script KEYS -dump` for every reviewed
// screen golden of golden/deck and compares the output byte for byte.
func TestScriptDumpGoldens(t *testing.T) {
	cases := map[string]string{
		"home-first-run.txt":            "",
		"tutorial-stage1.txt":           "EVAL EVAL",
		"tutorial-stage4-narration.txt": "EVAL EVAL EVAL EVAL EVAL EVAL EVAL EVAL WAIT:3000 EVAL",
		"graduated-credits.txt":         "EVAL BACK BACK EVAL PICK:() PICK:get-credits EVAL",
		"gated-credit-add.txt":          "EVAL BACK BACK EVAL PICK:() TYPE:credit-add TYPE:100 EVAL",
		"palette-open.txt":              "EVAL BACK BACK EVAL PICK:() CONS CDR CDR",
		"literal-entry.txt":             "EVAL BACK BACK EVAL PICK:() LAMBDA 4 4 3 3 8",
		"cart-prompt.txt":               "EVAL BACK BACK EVAL INSERT:null:32",
	}
	for name, script := range cases {
		var out, errs bytes.Buffer
		if code := run([]string{"-script", script, "-dump"}, strings.NewReader(""), &out, &errs); code != 0 {
			t.Fatalf("%s: deck -script %q -dump exited %d: %s", name, script, code, errs.String())
		}
		if err := golden.Check("deck/"+name, out.Bytes()); err != nil {
			t.Error(err)
		}
	}
}

func TestBadKeyIsAnErrorNotACrash(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-script", "EVAL FLY", "-dump"}, strings.NewReader(""), &out, &errs); code != 1 || !strings.Contains(errs.String(), "deck:") {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
}

func TestLineModeReadsKeysFromStdin(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run(nil, strings.NewReader("EVAL\nEVAL\n"), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if n := strings.Count(out.String(), "\n"); n < 3*25 {
		t.Fatalf("expected three screens, got %d lines:\n%s", n, out.String())
	}
}

// TestLineProtocol drives the line protocol DECK_CMD speaks: one frame (25
// rows and the cycles line) per input line, COMPOSE, STATE, in-band errors,
// state written at power on, and the flash kept in -dir across runs.
func TestLineProtocol(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	in := "EVAL\nCOMPOSE (+ 1 2)\nEVAL\nFLY\nSTATE\n"
	if code := run([]string{"-dir", dir, "-handle", "NEO", "-credits", "7", "-reputation", "3", "-graduated"}, strings.NewReader(in), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	frames, extra, sramSeen := 0, []string{}, false
	for i := 0; i < len(lines); {
		if sram, ok := strings.CutPrefix(lines[i], "-- state sram "); ok {
			// The REPL's arena is the spec's 24 KB; the other consumers'
			// sizes are the budget table's business.
			if !strings.Contains(" "+sram+" ", " repl=24576 ") {
				t.Errorf("SRAM while the REPL is open: %q", sram)
			}
			sramSeen = true
			i++
			continue
		}
		if strings.HasPrefix(lines[i], "-- error: ") || strings.HasPrefix(lines[i], "-- state ") {
			extra = append(extra, lines[i])
			i++
			continue
		}
		if i+25 >= len(lines) || !strings.HasPrefix(lines[i+25], "-- cycles ") {
			t.Fatalf("no frame at line %d:\n%s", i, out.String())
		}
		if frames == 3 && (lines[i+2] != " > (+ 1 2)" || lines[i+3] != " => 3") {
			t.Errorf("scrollback after EVAL: %q %q", lines[i+2], lines[i+3])
		}
		frames++
		i += 26
	}
	if !sramSeen {
		t.Errorf("STATE gave no sram line")
	}
	if frames != 6 {
		t.Errorf("%d frames for 5 lines, want 6 (one at power on)", frames)
	}
	want := []string{
		`-- error: script token "FLY": deck: no key "FLY"`,
		"-- state tutorial graduated",
		`-- state result "3"`,
		"-- state persisted-history 0 0",
		"-- state history 1 (+ 1 2)",
		"-- state focus prompt",
		"-- state clipboard ",
		"-- state part RP2350",
	}
	// Then the regions, the REPL's VM, the last evaluation's events and the
	// deck-state image, whose figures the features judge.
	for _, prefix := range []string{"-- state regions ", "-- state vm-repl 24576 2938 ", "-- state events pair=1 arg=2 lookup=1 call=0 atom=2 ", "-- state deckstate 4445434b"} {
		if n := len(want); n < len(extra) && strings.HasPrefix(extra[n], prefix) {
			extra = append(extra[:n], extra[n+1:]...)
		} else {
			t.Errorf("no line %q after %q", prefix, want)
		}
	}
	if strings.Join(extra, "\n") != strings.Join(want, "\n") {
		t.Errorf("in-band lines:\n%s\nwant:\n%s", strings.Join(extra, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(lines[0], " NEO  CR 7  REP 3") {
		t.Errorf("status row %q: the state written at power on is not shown", lines[0])
	}
	// The same flash, powered on again without writing state: still NEO.
	out.Reset()
	if code := run([]string{"-dir", dir}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("second power on: exit %d: %s", code, errs.String())
	}
	if !strings.HasPrefix(out.String(), " NEO  CR 7  REP 3") {
		t.Errorf("after a power cycle row 0 is %q", strings.SplitN(out.String(), "\n", 2)[0])
	}
}

// TestCommandLine pins each bad input: its exit status and its message.
func TestCommandLine(t *testing.T) {
	over := strings.Repeat("EVAL ", 64<<10/5+1) + "\n" // 65,545 bytes
	justUnder := strings.Repeat("0", 64<<10-1) + "\n"
	cases := []struct {
		name  string
		args  []string
		stdin string
		code  int
		out   string
		err   string // "" for -h: nothing at all
	}{
		{"help", []string{"-h"}, "", 0, "usage: deck", ""},
		{"unknown flag", []string{"-fast"}, "", 2, "", "flag provided but not defined: -fast"},
		{"stray argument", []string{"EVAL"}, "", 2, "", `deck: unexpected argument "EVAL"`},
		{"line over 64 KiB", nil, "EVAL\n" + over, 1, "", "deck: standard input line 2 is longer than 65536 bytes"},
	}
	for _, c := range cases {
		var out, errs bytes.Buffer
		code := run(c.args, strings.NewReader(c.stdin), &out, &errs)
		errOK := strings.Contains(errs.String(), c.err) && (c.err != "" || errs.Len() == 0)
		if code != c.code || !strings.Contains(out.String(), c.out) || !errOK {
			t.Errorf("%s: exit %d (want %d)\nstdout %.200q (want %q)\nstderr %q (want %q)", c.name, code, c.code, out.String(), c.out, errs.String(), c.err)
		}
	}
	var out, errs bytes.Buffer
	if code := run(nil, strings.NewReader(justUnder), &out, &errs); code != 0 || strings.Contains(errs.String(), "longer than") {
		t.Errorf("a line just under 64 KiB: exit %d, stderr %.200q", code, errs.String())
	}
}

// TestDebugPort drives the debug port's lines: the handle, the deck-state
// image read and written back, flash faults, cartridges by bytes, EJECT, and
// a board too small to power on.
func TestDebugPort(t *testing.T) {
	dir := t.TempDir()
	session := func(args []string, in string) []string {
		t.Helper()
		var out, errs bytes.Buffer
		if code := run(append([]string{"-dir", dir}, args...), strings.NewReader(in), &out, &errs); code != 0 {
			t.Fatalf("exit %d: %s", code, errs.String())
		}
		var extra []string
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "-- ") && !strings.HasPrefix(l, "-- cycles ") && !strings.HasPrefix(l, "-- state ") {
				extra = append(extra, l)
			}
		}
		return extra
	}
	got := session([]string{"-graduated"}, "HANDLE SEVENTEEN-LETTERS\nHANDLE NEO\nIMAGE\nFLASH LIST\n")
	if len(got) != 3 || !strings.Contains(got[0], "-- error: ") || !strings.Contains(got[0], "longer than 16 bytes") {
		t.Fatalf("in-band lines %.300q", got)
	}
	img, ok := strings.CutPrefix(got[1], "-- image ")
	if !ok || len(img) != 2*4670 || got[2] != "-- flash deckstate.bin 4670" {
		t.Fatalf("IMAGE %.40q, FLASH LIST %q", got[1], got[2])
	}
	// Byte 5 is the handle's first: "NEO" becomes "~EO" under the same
	// checksum, so the image is refused at the next power on.
	bad := img[:10] + "7e" + img[12:]
	got = session(nil, "IMAGE "+bad+"\nFLASH FAIL write-error\nEVAL\nCOMPOSE (+ 1 2)\nEVAL\nBACK BACK EVAL\nFLASH OK\nFLASH FAIL stale-write\n")
	if len(got) != 2 || !strings.Contains(got[0], "save state") || !strings.Contains(got[1], "unknown failpoint") {
		t.Errorf("in-band lines %.300q", got)
	}
	var out, errs bytes.Buffer
	if code := run([]string{"-dir", dir}, strings.NewReader(""), &out, &errs); code != 0 || !strings.Contains(out.String(), "corrupt image") {
		t.Errorf("power on after a damaged image: exit %d, screen %.300q", code, out.String())
	}
	got = session([]string{"-part", "STM32F401RE", "-graduated"}, "INSERT:null:28097B\nINSERT:null:28096B\nEJECT\nINSERT:null:1:2:3\n")
	if len(got) != 2 || !strings.Contains(got[0], "28097 bytes refused") || !strings.Contains(got[1], "want INSERT:name:kb") {
		t.Errorf("in-band lines %.300q", got)
	}
	out.Reset()
	errs.Reset()
	if code := run([]string{"-part", "nRF52832"}, strings.NewReader("EVAL\n"), &out, &errs); code != 1 || !strings.HasPrefix(out.String(), "-- error: ") || strings.Contains(out.String(), "-- cycles") {
		t.Errorf("a 64 KB board: exit %d, stdout %q", code, out.String())
	}
}
