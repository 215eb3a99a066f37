package deck

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/spf13/afero"

	"anchorage/impl/deck"
)

// snippetBytes decodes a step's hex bytes (a snippet library or a history) ("01 6b 01 00 31").
func snippetBytes(s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		return nil, fmt.Errorf("snippet bytes %q: %w", s, err)
	}
	return b, nil
}

// setSnippetLibrary writes lib into a flash image as the digest lays it
// out: the library's length, then its 4,096-byte region, zero past the
// library, under a matching checksum.
func setSnippetLibrary(img, lib []byte) error {
	return setRegion(img, offSnippetLength, offChecksum, lib)
}

// setHistory writes hist into a flash image as the digest lays it out: the
// history's length, then its 512-byte region, zero past the history, under
// a matching checksum.
func setHistory(img, hist []byte) error {
	return setRegion(img, offHistoryLength, offSnippetLength, hist)
}

// setRegion writes data into the region of a flash image whose 2-byte
// length is at offLength and which ends at end, zero past data, and signs
// the image with a matching checksum.
func setRegion(img []byte, offLength, end int, data []byte) error {
	if len(img) != imageSize {
		return fmt.Errorf("flash image is %d bytes, the digest's layout %d", len(img), imageSize)
	}
	region := img[offLength+2 : end]
	if len(data) > len(region) {
		return fmt.Errorf("%d bytes do not fit a %d-byte region", len(data), len(region))
	}
	clear(region)
	copy(region, data)
	binary.LittleEndian.PutUint16(img[offLength:], uint16(len(data)))
	binary.LittleEndian.PutUint32(img[offChecksum:], crc32.ChecksumIEEE(img[:offChecksum]))
	return nil
}

// regionStep writes a snippet library or a history, given as hex bytes,
// into the deck-state image in flash.
const regionStep = `^the deck-state image in flash gets the (snippet library|history) "([0-9a-f ]*)" under a matching checksum$`

// regionEdit is the edit of a flash image that regionStep names: region is
// "snippet library" or "history", hex its bytes.
func regionEdit(region, hex string) (func(img []byte) error, error) {
	data, err := snippetBytes(hex)
	if err != nil {
		return nil, err
	}
	set := setSnippetLibrary
	if region == "history" {
		set = setHistory
	}
	return func(img []byte) error { return set(img, data) }, nil
}

// editFlash reads the deck-state image from the simulated flash, edits it
// and writes it back, for the next power on to read.
func (w *world) editFlash(edit func(img []byte) error) error {
	img, err := afero.ReadFile(w.fs, statePath)
	if err != nil {
		return fmt.Errorf("read the flash image: %w", err)
	}
	if err := edit(img); err != nil {
		return err
	}
	return afero.WriteFile(w.fs, statePath, img, 0o644)
}

// sharpMoreSteps are the steps of sharp_more.feature: they write a snippet
// library into the deck state, through the flash image or the state setter.
func sharpMoreSteps(step func(expr string, f func(w *world, args ...string) error)) {
	step(regionStep, func(w *world, a ...string) error {
		edit, err := regionEdit(a[0], a[1])
		if err != nil {
			return err
		}
		return w.editFlash(edit)
	})
	step(`^a graduated deck whose history holds "(.*)" with the result "(.*)"$`, func(w *world, a ...string) error {
		if err := w.graduated("OPERATOR", 100, 0); err != nil {
			return err
		}
		st := w.d.State()
		st.History, _ = deck.EncodeHistory([]deck.Entry{{Expr: a[0], Result: a[1]}}, 512)
		return w.d.SetState(st)
	})
	step(`^SRAM lists its live regions in name order as "([^"]*)"$`, func(w *world, a ...string) error {
		var got []string
		for _, c := range w.d.SRAM().Live() {
			got = append(got, string(c))
		}
		return want("live regions", strings.Join(got, " "), a[0])
	})
}
