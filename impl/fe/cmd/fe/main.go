// Command fe runs Fe programs on the Go VM in package anchorage/impl/fe,
// behaving like the stock rxi/fe standalone binary (spec: Fe 1.0, as the
// harness of impl/fe/testdata/corpus runs it): `fe [-arena BYTES] FILE` runs a file and exits
// with status 1 after printing an error and traceback; `fe [-arena BYTES]`
// runs the stdin REPL. -h prints the usage on stdout and exits 0; a bad
// flag or more than one FILE exits 2. It imports only the standard library,
// afero and impl/fe.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/spf13/afero"

	"anchorage/impl/fe"
)

func main() {
	os.Exit(run(os.Args[1:], afero.NewOsFs(), os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, fs afero.Fs, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("fe", flag.ContinueOnError)
	var flagOut bytes.Buffer // the usage goes to stdout for -h, to stderr for a mistake
	flags.SetOutput(&flagOut)
	arena := flags.Int("arena", 64000, "arena size in bytes (context and cells)")
	deck := flags.Bool("deck", false, "enable the deck extension layer (eval, lambda, keywords, describe, type-of, try)")
	newlib := flags.Bool("m33", false, "print every NaN as nan, like the Cortex-M33 newlib build")
	model64 := flags.Bool("64", false, "use the 64-bit layout (16-byte cells) instead of the 32-bit one")
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "usage: fe [-arena BYTES] [-deck] [-m33] [-64] [FILE]\n\nruns FILE, or the REPL on standard input without one")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			stdout.Write(flagOut.Bytes())
			return 0
		}
		stderr.Write(flagOut.Bytes())
		return 2
	}
	if flags.NArg() > 1 {
		fmt.Fprintf(stderr, "fe: one FILE at most, got %d\n", flags.NArg())
		return 2
	}
	var opts []fe.Option
	if *deck {
		opts = append(opts, fe.WithExtensions())
	}
	if *newlib {
		opts = append(opts, fe.WithNaNStyle(fe.NaNNewlib))
	}
	if *model64 {
		opts = append(opts, fe.WithModel(fe.Model64()))
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	errw := &flushWriter{w: stderr, before: out}
	opts = append(opts, fe.WithOutput(out))
	vm, err := fe.New(*arena, opts...)
	if err != nil {
		fmt.Fprintf(errw, "error: %v\n", err)
		return 1
	}
	if flags.NArg() == 0 {
		vm.RunREPL(stdin, out, errw)
		return 0
	}
	f, err := fs.Open(flags.Arg(0))
	if err != nil {
		fmt.Fprintln(errw, "error: could not open input file")
		return 1
	}
	defer f.Close()
	return vm.RunFile(f, out, errw)
}

// flushWriter flushes buffered stdout before each stderr write, so the two
// streams interleave in program order.
type flushWriter struct {
	w      io.Writer
	before *bufio.Writer
}

func (f *flushWriter) Write(p []byte) (int, error) {
	if err := f.before.Flush(); err != nil {
		return 0, fmt.Errorf("flush stdout: %w", err)
	}
	return f.w.Write(p)
}
