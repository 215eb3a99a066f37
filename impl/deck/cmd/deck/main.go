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
	"os"

	"anchorage/impl/deck"
)

func main() {
	script := flag.String("script", "", "key script to replay")
	dump := flag.Bool("dump", false, "print the final screen and cycle count")
	cpi := flag.Float64("cpi", deck.DefaultCPI, "cycles per instruction")
	flag.Parse()
	d, err := deck.New(deck.Config{CPI: *cpi})
	if err != nil {
		fmt.Fprintln(os.Stderr, "deck:", err)
		os.Exit(1)
	}
	if *dump || *script != "" {
		if err := deck.RunScript(d, *script); err != nil {
			fmt.Fprintln(os.Stderr, "deck:", err)
			os.Exit(1)
		}
		fmt.Print(deck.DumpWithCycles(d))
		return
	}
	in := bufio.NewScanner(os.Stdin)
	fmt.Print(d.Dump())
	for in.Scan() {
		if err := deck.RunScript(d, in.Text()); err != nil {
			fmt.Fprintln(os.Stderr, "deck:", err)
		}
		fmt.Print(deck.DumpWithCycles(d))
	}
}
