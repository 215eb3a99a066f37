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
//	INSERT:name:kb[:mission]                       insert a cartridge with a kb arena (NB: N bytes),
//	                                               and a scripted mission of that many bytes
//	EJECT                                          pull the cartridge out
//	WAIT:ms                                        let simulated time pass
//
// Without -dump it reads the same tokens, one line at a time, from standard
// input and prints a frame after each line (a line-mode terminal; the keys
// are typed by name): the 25 rows, then `-- cycles N  clock +D`. A line
// `COMPOSE form` builds form on the focused prompt with key presses; a token
// the deck refuses is reported as a line `-- error: message` before the
// frame. The lines of a debug port answer before the frame too: `STATE`
// with `-- state KEY VALUE` lines (the deck state, SRAM regions, the Fe VMs,
// the last evaluation's events); `HANDLE name` sets the operator handle;
// `IMAGE` prints the deck-state image in flash as `-- image HEX` and `IMAGE
// HEX` writes one for the next power on; `FLASH FAIL point` makes the flash
// fail (torn-write, short-write, write-error, enospc, rename-fail) until
// `FLASH OK`; `FLASH LIST` prints `-- flash NAME BYTES` for each file of the
// flash. -dir keeps the deck's flash in a real directory (so a later run on
// the same directory powers the same deck on again); -part, -cpi and -seed
// configure the board; -handle, -credits, -reputation, -graduated and
// -cipher-seed write the deck state at power on; -vary runs the deck with
// spec-permitted variations of the reference's decisions (all, or names:
// -h lists them). A deck that cannot power
// on (a board too small for its resident consumers) prints `-- error:
// message` and exits 1. This is the protocol DECK_CMD speaks in
// features/README.md. A line longer than 64 KiB ends the run with a message
// on stderr and exit status 1; -h prints the usage on stdout and exits 0; a
// bad flag or a stray argument exits 2.
//
// Imports: the standard library, afero, anchorage/impl/deck, anchorage/impl/fe
// (the event names), anchorage/impl/vary (the -vary list) and
// anchorage/sim/vfs (the flash faults).
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/spf13/afero"

	"anchorage/impl/deck"
	"anchorage/impl/fe"
	"anchorage/impl/vary"
	"anchorage/sim/vfs"
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
	part := fl.String("part", "", "the board model: RP2350 (default), STM32F401RE or nRF52832")
	seed := fl.Uint64("seed", 0, "seed of the Mission Board model")
	dir := fl.String("dir", "", "keep the deck's flash in this directory (default: in memory)")
	handle := fl.String("handle", "", "at power on, set the operator handle")
	credits := fl.Int("credits", -1, "at power on, set the credits")
	reputation := fl.Int("reputation", 0, "at power on, set the reputation (with -handle or -credits)")
	graduated := fl.Bool("graduated", false, "at power on, mark the tutorial done")
	cipherSeed := fl.Int64("cipher-seed", -1, "at power on, set the Cipher seed (24 bits)")
	varyList := fl.String("vary", "", vary.Usage(deck.Variations()))
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "usage: deck [-script KEYS] [-dump] [-cpi N] [-part NAME] [-seed N] [-dir DIR] [-handle NAME] [-credits N] [-reputation N] [-graduated] [-cipher-seed N] [-vary LIST]\n\nwithout -script/-dump: type key names on standard input, one or more a line")
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
	lineMode := !*dump && *script == ""
	// refuse reports a deck that cannot power on: on stderr, and in line
	// mode also as the protocol's error line (no frame follows).
	refuse := func(err error) int {
		if lineMode {
			fmt.Fprintf(stdout, "-- error: %s\n", oneLine(err.Error()))
		}
		fmt.Fprintln(stderr, "deck:", err)
		return 1
	}
	variations, err := vary.Parse(*varyList, deck.Variations())
	if err != nil {
		fmt.Fprintln(stderr, "deck: -vary:", err)
		return 2
	}
	var base afero.Fs = afero.NewMemMapFs()
	if *dir != "" {
		base = afero.NewBasePathFs(afero.NewOsFs(), *dir)
	}
	flash := vfs.NewFaulty(base, *seed) // FLASH FAIL arms its failpoints
	cfg := deck.Config{CPI: *cpi, Fs: flash, Seed: *seed, Vary: variations}
	if *part != "" {
		p, err := deck.PartNamed(*part)
		if err != nil {
			fmt.Fprintln(stderr, "deck:", err)
			return 2
		}
		cfg.Part = p
	}
	d, err := deck.New(cfg)
	if err != nil {
		return refuse(err)
	}
	if *handle != "" || *credits >= 0 || *graduated || *cipherSeed >= 0 {
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
		if *cipherSeed >= 0 {
			st.CipherSeed = uint32(*cipherSeed)
		}
		if err := d.SetState(st); err != nil {
			return refuse(err)
		}
	}
	if !lineMode {
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
		if err := serve(stdout, d, flash, in.Text()); err != nil {
			fmt.Fprintf(stdout, "-- error: %s\n", oneLine(err.Error()))
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

// serve answers one input line of the protocol: the lines a debug port
// understands (COMPOSE, STATE, HANDLE, IMAGE, FLASH), else key tokens. What
// it prints goes before the line's frame.
func serve(w io.Writer, d *deck.Deck, flash *vfs.Faulty, line string) error {
	if form, ok := strings.CutPrefix(line, "COMPOSE "); ok {
		return d.Compose(form)
	}
	if name, ok := strings.CutPrefix(line, "HANDLE "); ok {
		st := d.State()
		st.Handle = name
		return d.SetState(st)
	}
	if hexImg, ok := strings.CutPrefix(line, "IMAGE "); ok {
		img, err := hex.DecodeString(strings.TrimSpace(hexImg))
		if err != nil {
			return fmt.Errorf("IMAGE: %w", err)
		}
		if err := afero.WriteFile(flash, deck.StatePath, img, 0o644); err != nil {
			return fmt.Errorf("IMAGE: %w", err)
		}
		return nil
	}
	if point, ok := strings.CutPrefix(line, "FLASH FAIL "); ok {
		return flash.Arm(vfs.Fault{Point: vfs.Failpoint(strings.TrimSpace(point))})
	}
	switch line {
	case "STATE":
		return writeState(w, d)
	case "IMAGE":
		img, err := afero.ReadFile(flash, deck.StatePath)
		if err != nil {
			return fmt.Errorf("IMAGE: %w", err)
		}
		fmt.Fprintf(w, "-- image %s\n", hex.EncodeToString(img))
		return nil
	case "FLASH OK":
		for _, p := range vfs.Failpoints() {
			flash.Disarm(p)
		}
		return nil
	case "FLASH LIST":
		files, err := afero.ReadDir(flash, path.Dir(deck.StatePath))
		if err != nil {
			return fmt.Errorf("FLASH LIST: %w", err)
		}
		for _, fi := range files {
			fmt.Fprintf(w, "-- flash %s %d\n", fi.Name(), fi.Size())
		}
		return nil
	}
	return deck.RunScript(d, line)
}

// oneLine keeps a message on one protocol line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

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
	fmt.Fprintf(w, "-- state part %s\n", d.SRAM().Part().Name)
	var regions []string
	for _, c := range d.SRAM().Live() {
		r := d.SRAM().Region(c)
		regions = append(regions, fmt.Sprintf("%s:%d:%d", c, r.Base, r.Bytes()))
	}
	fmt.Fprintf(w, "-- state regions %s\n", strings.Join(regions, " "))
	vms := []struct {
		name string
		vm   *fe.VM
	}{{"repl", nil}, {"editor-eval", d.EditorVM()}, {"mission", nil}}
	if s := d.Session(); s != nil {
		vms[0].vm = s.VM()
	}
	if m := d.Mission(); m != nil {
		vms[2].vm = m.VM
		fmt.Fprintf(w, "-- state mission %s\n", strconv.Quote(m.Result))
	}
	for _, v := range vms {
		if v.vm != nil {
			st := v.vm.Stats()
			fmt.Fprintf(w, "-- state vm-%s %d %d %d\n", v.name, v.vm.ArenaBytes(), st.Cells, st.Free)
		}
	}
	if ev := d.Last(); ev.Expr != "" {
		var events []string
		for e := fe.Event(0); e < fe.NumEvents; e++ {
			events = append(events, fmt.Sprintf("%s=%d", e, ev.Events[e]))
		}
		fmt.Fprintf(w, "-- state events %s read=%d print=%d cycles=%d\n", strings.Join(events, " "), ev.ReadInstr, ev.PrintInstr, ev.Cycles)
	}
	img, err := st.Encode()
	if err != nil {
		return fmt.Errorf("deck state image: %w", err)
	}
	fmt.Fprintf(w, "-- state deckstate %s\n", hex.EncodeToString(img))
	return nil
}
