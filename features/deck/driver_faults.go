package deck

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"anchorage/features/kit"
)

// faultProcSteps are the steps of fault_steps.go (and the power-on givens
// that configure the board) as the line protocol expresses them: board
// options on the command line, flash faults and the deck-state image
// through the FLASH and IMAGE lines, refusals as `-- error:` lines.
func faultProcSteps() map[string]func(p *procDeck, a ...string) error {
	graduated := func(p *procDeck, rep string, state ...string) error {
		return p.start(append([]string{"-handle", "OPERATOR", "-credits", "100", "-reputation", rep, "-graduated"}, state...)...)
	}
	return map[string]func(p *procDeck, a ...string) error{
		`^a graduated deck running at a CPI of ([\d.]+)$`: func(p *procDeck, a ...string) error {
			p.power = append(p.power, "-cpi", a[0])
			return graduated(p, "0")
		},
		`^the deck is powered off and on again at a CPI of ([\d.]+)$`: func(p *procDeck, a ...string) error {
			var power []string
			for i := 0; i < len(p.power); i += 2 {
				if p.power[i] != "-cpi" {
					power = append(power, p.power[i], p.power[i+1])
				}
			}
			p.power = append(power, "-cpi", a[0])
			p.stop()
			return p.start()
		},
		`^a graduated deck with reputation (\d+) whose Mission Board is seeded with (\d+)$`: func(p *procDeck, a ...string) error {
			p.power = append(p.power, "-seed", a[1])
			return graduated(p, a[0])
		},
		`^a graduated deck whose Mission Board seed is (\d+)$`: func(p *procDeck, a ...string) error {
			p.power = append(p.power, "-seed", a[0])
			return graduated(p, "0")
		},
		`^a graduated deck whose Cipher seed is (\d+)$`: func(p *procDeck, a ...string) error {
			return graduated(p, "0", "-cipher-seed", a[0])
		},
		`^a graduated deck on the (\S+) board$`: func(p *procDeck, a ...string) error {
			p.power = append(p.power, "-part", a[0])
			return graduated(p, "0")
		},
		`^powering on a deck on the (\S+) board is refused$`: func(p *procDeck, a ...string) error {
			p.power = append(p.power, "-part", a[0])
			err := p.start()
			var refused powerRefused
			switch {
			case err == nil:
				return fmt.Errorf("the deck powered on; row 0 reads %q", p.now.rows[rowStatus])
			case !errors.As(err, &refused):
				return err
			}
			p.refusal = refused.msg
			return nil
		},
		`^the deck has counted (\d+) cycles since power on$`: func(p *procDeck, a ...string) error {
			return want("cycles since power on", fmt.Sprint(p.now.cycles), a[0])
		},
		`^the flash starts failing with (torn-write|short-write|write-error|enospc|rename-fail)$`: func(p *procDeck, a ...string) error {
			return p.send("FLASH FAIL " + a[0])
		},
		`^the flash works again$`: func(p *procDeck, _ ...string) error { return p.send("FLASH OK") },
		`^the flash holds only "([^"]*)"$`: func(p *procDeck, a ...string) error {
			if err := p.send("FLASH LIST"); err != nil {
				return err
			}
			var got []string
			for _, v := range p.now.lines["flash"] {
				name, _, _ := strings.Cut(v, " ")
				got = append(got, name)
			}
			return want("files in the flash", strings.Join(got, " "), a[0])
		},
		`^pressing "([^"]*)" is refused$`: func(p *procDeck, a ...string) error { return p.refused(a[0]) },
		`^composing "(.*)" is refused$`:   func(p *procDeck, a ...string) error { return p.refused("COMPOSE " + expand(a[0])) },
		`^the refusal names "(.*)"$`:      func(p *procDeck, a ...string) error { return refusalNames(p.refusal, a[0]) },
		`^setting the operator handle to "([^"]*)" is refused$`: func(p *procDeck, a ...string) error {
			return p.refused("HANDLE " + a[0])
		},
		`^the operator handle is set to "([^"]*)"$`: func(p *procDeck, a ...string) error { return p.send("HANDLE " + a[0]) },
		`^the deck-state image in flash gets (the magic "[^"]*"|version \d+|a history length of \d+|a snippet length of \d+|a first handle byte of 0x[0-9a-f]{2}|a tutorial byte of 0x[0-9a-f]{2}|a Cipher seed of 0x[0-9a-f]+) under a matching checksum$`: func(p *procDeck, a ...string) error {
			return p.editImage(func(img []byte) error { return editImage(img, a[0]) })
		},
		regionStep: func(p *procDeck, a ...string) error {
			edit, err := regionEdit(a[0], a[1])
			if err != nil {
				return err
			}
			return p.editImage(edit)
		},
		`^one byte of the deck-state image in flash is flipped$`: func(p *procDeck, _ ...string) error {
			return p.editImage(flipByte)
		},
		`^the deck state is that of a new deck$`: func(p *procDeck, _ ...string) error {
			got, err := p.stateOf("deckstate")
			if err != nil {
				return err
			}
			fresh, err := p.newDeckState()
			if err != nil {
				return err
			}
			return sameImage(got, fresh)
		},
	}
}

// editImage reads the deck-state image from the deck's flash (IMAGE),
// edits it and writes it back (IMAGE HEX), for the next power on to read.
func (p *procDeck) editImage(edit func(img []byte) error) error {
	if err := p.send("IMAGE"); err != nil {
		return err
	}
	dumps := p.now.lines["image"]
	if len(dumps) != 1 {
		return fmt.Errorf("IMAGE answered %d image lines, want 1", len(dumps))
	}
	img, err := hex.DecodeString(dumps[0])
	if err != nil {
		return fmt.Errorf("IMAGE: %w", err)
	}
	if err := edit(img); err != nil {
		return err
	}
	return p.send("IMAGE " + hex.EncodeToString(img))
}

// newDeckState is the oracle of "that of a new deck": a second deck of the
// same board, powered on with nothing written on its own empty flash, and
// its deck state as STATE tells.
func (p *procDeck) newDeckState() (string, error) {
	dir, err := os.MkdirTemp("", "deck-flash-")
	if err != nil {
		return "", fmt.Errorf("flash directory of a new deck: %w", err)
	}
	q := &procDeck{cmd: p.cmd, dir: dir, power: p.power, logf: p.logf}
	defer func() {
		q.stop()
		_ = kit.RemoveTemp(dir, "deck-flash-")
	}()
	if err := q.start(); err != nil {
		return "", fmt.Errorf("power on a new deck: %w", err)
	}
	return q.stateOf("deckstate")
}

// sameImage compares two deck-state images given in hex, naming the first
// byte where they differ.
func sameImage(got, wantHex string) error {
	if got == wantHex {
		return nil
	}
	g, _ := hex.DecodeString(got)
	w, _ := hex.DecodeString(wantHex)
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Errorf("deck state differs from a new deck's at byte %d: %#02x, want %#02x", i, g[i], w[i])
		}
	}
	return fmt.Errorf("deck state is %d bytes, a new deck's %d", len(g), len(w))
}
