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
// input and prints a frame after each line (a line-mode terminal; the keys
// are typed by name): the 25 rows, then `-- cycles N  clock +D`. A line
// `COMPOSE form` builds form on the focused prompt with key presses; a token
// the deck refuses is reported as a line `-- error: message` before the
// frame; a line `STATE` answers with `-- state KEY VALUE` lines before the
// frame (the deck state a debug port would show). -dir keeps the deck's flash in a real directory (so a later run on
// the same directory powers the same deck on again), and -handle, -credits,
// -reputation and -graduated write the deck state at power on. This is the
// protocol DECK_CMD speaks in features/README.md. A line longer than 64 KiB
// ends the run with a message on stderr and exit status 1; -h prints the
// usage on stdout and exits 0; a bad flag or a stray argument exits 2.
//
// Imports: the standard library, afero and anchorage/impl/deck.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/afero"

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
	dir := fl.String("dir", "", "keep the deck's flash in this directory (default: in memory)")
	handle := fl.String("handle", "", "at power on, set the operator handle")
	credits := fl.Int("credits", -1, "at power on, set the credits")
	reputation := fl.Int("reputation", 0, "at power on, set the reputation (with -handle or -credits)")
	graduated := fl.Bool("graduated", false, "at power on, mark the tutorial done")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "usage: deck [-script KEYS] [-dump] [-cpi N] [-dir DIR] [-handle NAME] [-credits N] [-reputation N] [-graduated]\n\nwithout -script/-dump: type key names on standard input, one or more a line")
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
	cfg := deck.Config{CPI: *cpi}
	if *dir != "" {
		cfg.Fs = afero.NewBasePathFs(afero.NewOsFs(), *dir)
	}
	d, err := deck.New(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "deck:", err)
		return 1
	}
	if *handle != "" || *credits >= 0 || *graduated {
		st := d.State()
		if *handle != "" {
			st.Handle = *handle
		}
		if *credits >= 0 {
			st.Credits, st.Reputation = uint32(*credits), int32(*reputation)
		}
		if *graduated {
			st.Tutorial = deck.TutFirstBoot | deck.TutCarCdr | deck.TutQuoteEval | deck.TutLambda | deck.TutGraduated
		}
		if err := d.SetState(st); err != nil {
			fmt.Fprintln(stderr, "deck:", err)
			return 1
		}
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
	fmt.Fprint(stdout, deck.DumpWithCycles(d))
	n := 0
	for in.Scan() {
		n++
		line := in.Text()
		var err error
		if form, ok := strings.CutPrefix(line, "COMPOSE "); ok {
			err = d.Compose(form)
		} else if line == "STATE" {
			err = writeState(stdout, d)
		} else {
			err = deck.RunScript(d, line)
		}
		if err != nil {
			fmt.Fprintf(stdout, "-- error: %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		}
		fmt.Fprint(stdout, deck.DumpWithCycles(d))
	}
	if err := in.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			fmt.Fprintf(stderr, "deck: standard input line %d is longer than %d bytes: stopped\n", n+1, maxLine)
		} else {
			fmt.Fprintln(stderr, "deck: reading standard input:", err)
		}
		return 1
	}
	return 0
}

// maxLine bounds one line of standard input (64 KiB).
const maxLine = 64 << 10

// writeState prints what a debug port shows of the deck: the tutorial
// cursor, the last evaluation's whole result, the persisted history region, the REPL's history and focus, the
// editor's buffer, the clipboard, the SRAM allocations and the cartridge slot, one `-- state KEY VALUE` line each.
func writeState(w io.Writer, d *deck.Deck) error {
	st := d.State()
	cursor := "none"
	for i, n := range deck.TutorialNames() {
		if st.Tutorial&(1<<i) != 0 {
			cursor = n
		}
	}
	fmt.Fprintf(w, "-- state tutorial %s\n", cursor)
	if ev := d.Last(); ev.Expr != "" {
		// The whole result, where the screen cuts it at column 80; quoted
		// as a Go string so a newline in it cannot break the frame.
		fmt.Fprintf(w, "-- state result %s\n", strconv.Quote(ev.Result))
	}
	persisted, err := deck.DecodeHistory(st.History)
	if err != nil {
		return fmt.Errorf("persisted history: %w", err)
	}
	fmt.Fprintf(w, "-- state persisted-history %d %d\n", len(st.History), len(persisted))
	if s := d.Session(); s != nil {
		h := s.History()
		newest := ""
		if len(h) > 0 {
			newest = h[0].Expr
		}
		fmt.Fprintf(w, "-- state history %d %s\n", len(h), newest)
		focus := "prompt"
		if s.Focus() == deck.FocusScroll {
			focus = "scrollback"
		}
		fmt.Fprintf(w, "-- state focus %s\n", focus)
	}
	if e := d.Editor(); e != nil && e.Buffer() != nil {
		fmt.Fprintf(w, "-- state editor %s\n", e.Buffer().String())
	}
	fmt.Fprintf(w, "-- state clipboard %s\n", d.Clipboard())
	var sram []string
	for _, c := range d.SRAM().Live() {
		sram = append(sram, fmt.Sprintf("%s=%d", c, d.SRAM().Size(c)))
	}
	fmt.Fprintf(w, "-- state sram %s\n", strings.Join(sram, " "))
	if c := d.Cart(); c != nil {
		fmt.Fprintf(w, "-- state cartridge loaded %s\n", c.Name)
	} else if c := d.PendingCart(); c != nil {
		fmt.Fprintf(w, "-- state cartridge waiting %s\n", c.Name)
	}
	return nil
}
