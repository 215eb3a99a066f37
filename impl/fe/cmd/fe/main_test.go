package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

func TestRunFileMode(t *testing.T) {
	fs := afero.NewMemMapFs()
	if err := afero.WriteFile(fs, "prog.fe", []byte("(print \"hi\")\n(car 5)\n(print 2)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	status := run([]string{"-arena", "24576", "prog.fe"}, fs, strings.NewReader(""), &out, &out)
	if status != 1 {
		t.Errorf("status %d, want 1", status)
	}
	want := "hi\nerror: expected pair, got number\n=> (car 5)\n"
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("output (-want +got):\n%s", d)
	}
}

func TestRunREPLMode(t *testing.T) {
	var out bytes.Buffer
	status := run(nil, afero.NewMemMapFs(), strings.NewReader("(+ 1 2)\n(car 1)\n\"s\"\n"), &out, &out)
	if status != 0 {
		t.Errorf("status %d, want 0", status)
	}
	want := "> 3\n> error: expected pair, got number\n> s\n> "
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("output (-want +got):\n%s", d)
	}
}

func TestRunMissingFile(t *testing.T) {
	var out bytes.Buffer
	if status := run([]string{"nope.fe"}, afero.NewMemMapFs(), strings.NewReader(""), &out, &out); status != 1 {
		t.Errorf("status %d, want 1", status)
	}
	if out.String() != "error: could not open input file\n" {
		t.Errorf("output %q", out.String())
	}
}

func TestRunDeckFlag(t *testing.T) {
	var out bytes.Buffer
	run([]string{"-deck"}, afero.NewMemMapFs(), strings.NewReader("((lambda (x) (* x x)) 5)\n(eval '(+ 1 2))\n"), &out, &out)
	if want := "> 25\n> 3\n> "; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}

// TestCommandLine pins -h and the bad command lines: exit status and message.
func TestCommandLine(t *testing.T) {
	cases := []struct {
		args []string
		code int
		out  string
		err  string // "" for -h: nothing at all
	}{
		{[]string{"-h"}, 0, "usage: fe", ""},
		{[]string{"-arena"}, 2, "", "flag needs an argument: -arena"},
		{[]string{"-arena", "big"}, 2, "", `invalid value "big" for flag -arena`},
		{[]string{"a.fe", "b.fe"}, 2, "", "fe: one FILE at most, got 2"},
		{[]string{"/nonexistent/prog.fe"}, 1, "", "error: could not open input file"},
	}
	for _, c := range cases {
		var out, errs bytes.Buffer
		code := run(c.args, afero.NewMemMapFs(), strings.NewReader(""), &out, &errs)
		errOK := strings.Contains(errs.String(), c.err) && (c.err != "" || errs.Len() == 0)
		if code != c.code || !strings.Contains(out.String(), c.out) || !errOK {
			t.Errorf("fe %q: exit %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", c.args, code, c.code, out.String(), c.out, errs.String(), c.err)
		}
	}
}

// TestRunLimits pins what fe does at the edges of its input and its arena,
// where the deck never goes: each case is the command's output and exit
// status for a program given on standard input or in a file.
func TestRunLimits(t *testing.T) {
	cases := []struct {
		name string
		args []string
		file string // written to prog.fe and run when args end with it
		in   string
		code int
		out  string
	}{
		// An arena too small for fe_open's setup (t and the 26
		// primitives): the VM never opens, as stock fe fails in fe_open.
		{"arena too small", []string{"-arena", "2000", "prog.fe"}, "", "", 1, "error: out of memory\n"},
		// The largest arena whose cells 32-bit values can address is one
		// cell short of 134,217,727: more is refused before any memory is
		// taken.
		{"arena past 32-bit values", []string{"-arena", "1073742884", "prog.fe"}, "", "", 1, "error: fe: new: arena of 1073742884 bytes: more cells than values can address\n"},
		// Tab and carriage return separate tokens, as space and newline do.
		{"tab and carriage return", []string{"prog.fe"}, "(print\t1\r2\r\n3)", "", 0, "1 2 3\n"},
		// Quotes nested to the reader's bound of 100,000 (the C reader
		// would exhaust its stack) are an error, not a crash; one fewer
		// are read, and building their quote forms overflows the GC stack
		// (each cons of the reader is rooted there, as in C).
		{"quotes nested too deep", []string{"prog.fe"}, strings.Repeat("'", 100000) + "x", "", 1, "error: nesting too deep\n"},
		{"quotes nested just within", []string{"prog.fe"}, strings.Repeat("'", 99999) + "x", "", 1, "error: gc stack overflow\n"},
		// The 64-bit layout keeps 7 string bytes a cell: a string of 8
		// fills one cell and starts the next.
		{"64-bit string cells", []string{"-64"}, "", "\"abcdefgh\"\n(print \"1234567\" \"12345678901234\")\n(quote (abcdefgh))\n", 0, "> abcdefgh\n> 1234567 12345678901234\nnil\n> (abcdefgh)\n> "},
	}
	for _, c := range cases {
		fs := afero.NewMemMapFs()
		if err := afero.WriteFile(fs, "prog.fe", []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		code := run(c.args, fs, strings.NewReader(c.in), &out, &out)
		if code != c.code || out.String() != c.out {
			t.Errorf("%s: fe %q: exit %d (want %d), output %q (want %q)", c.name, c.args, code, c.code, out.String(), c.out)
		}
	}
}
