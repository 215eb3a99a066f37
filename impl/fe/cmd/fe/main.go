// Command fe runs Fe programs on the Go VM in package anchorage/impl/fe,
// behaving like the stock rxi/fe standalone binary (spec: Fe 1.0, as the
// harness of impl/fe/testdata/corpus runs it): `fe [-arena BYTES] FILE` runs a file and exits
// with status 1 after printing an error and traceback; `fe [-arena BYTES]`
// runs the stdin REPL. It imports only the standard library, afero and
// impl/fe.
package main

import (
	"bufio"
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
	flags.SetOutput(stderr)
	arena := flags.Int("arena", 64000, "arena size in bytes (context and cells)")
	deck := flags.Bool("deck", false, "enable the deck extension layer (eval, lambda, keywords, describe, type-of, try)")
	newlib := flags.Bool("m33", false, "print every NaN as nan, like the Cortex-M33 newlib build")
	model64 := flags.Bool("64", false, "use the 64-bit layout (16-byte cells) instead of the 32-bit one")
	if err := flags.Parse(args); err != nil {
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
