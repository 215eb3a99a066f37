package deck

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/afero"

	"anchorage/impl/deck"
	"anchorage/sim/vfs"
)

// statePath is the simulator's flash file.
const statePath = deck.StatePath

// The deck-state image layout as the digest's table gives it (SPEC.md,
// Decision §deck-tutorial-latch): offsets of the fields the scenarios
// damage, and the checksum at the end over everything before it.
const (
	imageSize        = 4670
	offMagic         = 0
	offVersion       = 4
	offHandle        = 5
	offTutorial      = 33
	offCipherSeed    = 34
	offHistoryLength = 54
	offSnippetLength = 568
	offChecksum      = 4666
)

// faultSteps are the steps that damage the deck's flash, configure the
// simulated part, or expect the deck to refuse an input.
func faultSteps(step func(expr string, f func(w *world, args ...string) error)) {
	step(`^a graduated deck running at a CPI of ([\d.]+)$`, func(w *world, a ...string) error {
		cpi, err := strconv.ParseFloat(a[0], 64)
		if err != nil {
			return err
		}
		w.cpi = cpi
		return w.graduated("OPERATOR", 100, 0)
	})
	step(`^the deck is powered off and on again at a CPI of ([\d.]+)$`, func(w *world, a ...string) error {
		cpi, err := strconv.ParseFloat(a[0], 64)
		if err != nil {
			return err
		}
		w.cpi = cpi
		return w.power()
	})
	step(`^a graduated deck with reputation (\d+) whose Mission Board is seeded with (\d+)$`, func(w *world, a ...string) error {
		w.seed = uint64(atoi(a[1]))
		return w.graduated("OPERATOR", 100, atoi(a[0]))
	})
	step(`^the deck has counted (\d+) cycles since power on$`, func(w *world, a ...string) error {
		return want("cycles since power on", fmt.Sprint(w.d.Cycles()), a[0])
	})
	step(`^the flash starts failing with (torn-write|short-write|write-error|enospc|rename-fail)$`, func(w *world, a ...string) error {
		return w.flash.Arm(vfs.Fault{Point: vfs.Failpoint(a[0])})
	})
	step(`^the flash works again$`, func(w *world, _ ...string) error {
		for _, p := range vfs.Failpoints() {
			w.flash.Disarm(p)
		}
		return nil
	})
	step(`^the flash holds only "([^"]*)"$`, func(w *world, a ...string) error {
		names, err := afero.ReadDir(w.fs, "/")
		if err != nil {
			return fmt.Errorf("list the flash: %w", err)
		}
		var got []string
		for _, fi := range names {
			got = append(got, fi.Name())
		}
		return want("files in the flash", strings.Join(got, " "), a[0])
	})
	step(`^pressing "([^"]*)" is refused$`, func(w *world, a ...string) error {
		return w.refused(deck.RunScript(w.d, a[0]),
			fmt.Sprintf("the keys %q were taken without an error (mode %s)", a[0], w.mode()))
	})
	step(`^composing "(.*)" is refused$`, func(w *world, a ...string) error {
		return w.refused(w.d.Compose(expand(a[0])),
			fmt.Sprintf("composing %q was taken (mode %s)", a[0], w.mode()))
	})
	step(`^setting the operator handle to "([^"]*)" is refused$`, func(w *world, a ...string) error {
		st := w.d.State()
		st.Handle = a[0]
		return w.refused(w.d.SetState(st), fmt.Sprintf("the handle %q was taken", a[0]))
	})
	step(`^the refusal names "(.*)"$`, func(w *world, a ...string) error { return refusalNames(w.refusal, a[0]) })
	step(`^the operator handle is set to "([^"]*)"$`, func(w *world, a ...string) error {
		st := w.d.State()
		st.Handle = a[0]
		return w.d.SetState(st)
	})
	step(`^the deck-state image in flash gets (the magic "[^"]*"|version \d+|a history length of \d+|a snippet length of \d+|a first handle byte of 0x[0-9a-f]{2}|a tutorial byte of 0x[0-9a-f]{2}|a Cipher seed of 0x[0-9a-f]+) under a matching checksum$`, func(w *world, a ...string) error {
		return w.editFlash(func(img []byte) error { return editImage(img, a[0]) })
	})
}

// editImage makes one edit of the step's list to a deck-state image, at the
// offsets of the digest's layout, and signs it with a matching checksum.
func editImage(img []byte, edit string) error {
	if len(img) != imageSize {
		return fmt.Errorf("flash image is %d bytes, the digest's layout %d", len(img), imageSize)
	}
	num := func() uint16 {
		n, _ := strconv.Atoi(regexp.MustCompile(`\d+$`).FindString(edit))
		return uint16(n)
	}
	switch {
	case strings.HasPrefix(edit, "the magic "):
		magic := strings.Trim(strings.TrimPrefix(edit, "the magic "), `"`)
		if len(magic) != 4 {
			return fmt.Errorf("a magic is 4 bytes, not %q", magic)
		}
		copy(img[offMagic:], magic)
	case strings.HasPrefix(edit, "version "):
		img[offVersion] = byte(num())
	case strings.HasPrefix(edit, "a first handle byte of 0x"):
		b, _ := strconv.ParseUint(strings.TrimPrefix(edit, "a first handle byte of 0x"), 16, 8)
		img[offHandle] = byte(b)
	case strings.HasPrefix(edit, "a tutorial byte of 0x"):
		b, _ := strconv.ParseUint(strings.TrimPrefix(edit, "a tutorial byte of 0x"), 16, 8)
		img[offTutorial] = byte(b)
	case strings.HasPrefix(edit, "a Cipher seed of 0x"):
		v, _ := strconv.ParseUint(strings.TrimPrefix(edit, "a Cipher seed of 0x"), 16, 32)
		binary.LittleEndian.PutUint32(img[offCipherSeed:], uint32(v))
	case strings.HasPrefix(edit, "a history length"):
		binary.LittleEndian.PutUint16(img[offHistoryLength:], num())
	default:
		binary.LittleEndian.PutUint16(img[offSnippetLength:], num())
	}
	binary.LittleEndian.PutUint32(img[offChecksum:], crc32.ChecksumIEEE(img[:offChecksum]))
	return nil
}

// flipByte damages a deck-state image: one bit of its middle byte.
func flipByte(img []byte) error {
	if len(img) < 8 {
		return fmt.Errorf("flash image is %d bytes", len(img))
	}
	img[len(img)/2] ^= 0x40
	return nil
}

// refused checks that err refuses and keeps its message for "the refusal
// names"; taken says what happened when nothing was refused.
func (w *world) refused(err error, taken string) error {
	if err == nil {
		return errors.New(taken)
	}
	w.refusal = err.Error()
	return nil
}

// refusalNames checks that the last refusal's message names naming. Which
// words a refusal uses is the deck's choice: the steps that read them are
// decided.
func refusalNames(refusal, naming string) error {
	switch {
	case refusal == "":
		return errors.New("nothing was refused")
	case !strings.Contains(refusal, naming):
		return fmt.Errorf("refusal %q does not name %q", refusal, naming)
	}
	return nil
}
