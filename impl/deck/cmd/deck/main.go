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
// keys are typed by name).
//
// Imports: the standard library and anchorage/impl/deck.
package main

import (
	"bufio"
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
	fl.SetOutput(stderr)
	script := fl.String("script", "", "key script to replay")
	dump := fl.Bool("dump", false, "print the final screen and cycle count")
	cpi := fl.Float64("cpi", deck.DefaultCPI, "cycles per instruction")
	if err := fl.Parse(args); err != nil {
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
	fmt.Fprint(stdout, d.Dump())
	for in.Scan() {
		if err := deck.RunScript(d, in.Text()); err != nil {
			fmt.Fprintln(stderr, "deck:", err)
		}
		fmt.Fprint(stdout, deck.DumpWithCycles(d))
	}
	return 0
}
