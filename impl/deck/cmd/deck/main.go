// Command deck runs the deck simulator (package anchorage/impl/deck, spec
// features/deck/SPEC.md).
//
//	deck -script "EVAL EVAL EVAL" -dump
//
// replays a key script from power on and prints the final 25-line screen
// followed by the cycle counter and the simulated clock. Script tokens are
// separated by spaces:
//
//	CAR CDR CONS QUOTE EVAL BACK LAMBDA ATOM NIL   the Lisp keys
//	0 … 9                                          keypad digits (multi-tap)
//	TYPE:text                                      LAMBDA, the taps that type text, EVAL
//	PICK:token                                     CONS, CDR until token is highlighted, EVAL
//	INSERT:name:kb                                 insert a cartridge with a kb arena
//	WAIT:ms                                        let simulated time pass
//
// Without -dump it reads the same tokens, one line at a time, from standard
// input and prints the screen after each line (a line-mode terminal; the
// keys are typed by name). A line longer than 64 KiB is an error (exit 1),
// as is a key it does not know in -script. -h prints the usage on stdout and
// exits 0; a bad flag or a stray argument exits 2.
//
// Imports: the standard library and anchorage/impl/deck.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"anchorage/impl/deck"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command with its arguments and streams, so tests drive exactly
// what a person runs.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("deck", flag.ContinueOnError)
	var flagOut bytes.Buffer // the usage goes to stdout for -h, to stderr for a mistake
	fl.SetOutput(&flagOut)
	script := fl.String("script", "", "key script to replay")
	dump := fl.Bool("dump", false, "print the final screen and cycle count")
	cpi := fl.Float64("cpi", deck.DefaultCPI, "cycles per instruction")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "usage: deck [-script KEYS] [-dump] [-cpi N]\n\nwithout -script/-dump: type key names on standard input, one or more a line")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			stdout.Write(flagOut.Bytes())
			return 0
		}
		stderr.Write(flagOut.Bytes())
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "deck: unexpected argument %q (keys go in -script or on standard input)\n", fl.Arg(0))
		return 2
	}
	d, err := deck.New(deck.Config{CPI: *cpi})
	if err != nil {
		fmt.Fprintln(stderr, "deck:", err)
		return 1
	}
	if *dump || *script != "" {
		if err := deck.RunScript(d, *script); err != nil {
			fmt.Fprintln(stderr, "deck:", err)
			return 1
		}
		fmt.Fprint(stdout, deck.DumpWithCycles(d))
		return 0
	}
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 0, 4096), maxLine)
	fmt.Fprint(stdout, d.Dump())
	line := 0
	for in.Scan() {
		line++
		if err := deck.RunScript(d, in.Text()); err != nil {
			fmt.Fprintln(stderr, "deck:", err)
		}
		fmt.Fprint(stdout, deck.DumpWithCycles(d))
	}
	if err := in.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			fmt.Fprintf(stderr, "deck: standard input line %d is longer than %d bytes: stopped\n", line+1, maxLine)
		} else {
			fmt.Fprintln(stderr, "deck: reading standard input:", err)
		}
		return 1
	}
	return 0
}

// maxLine bounds one line of keys on standard input (64 KiB).
const maxLine = 64 << 10
