package deck

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Tutorial progress bits of the tutorial cursor.
const (
	TutFirstBoot = 1 << iota // first_boot_seen
	TutCarCdr                // car_cdr_completed
	TutQuoteEval             // quote_eval_completed
	TutLambda                // lambda_completed
	TutGraduated             // graduated
)

// TutorialNames are the cursor's stage names, in order of the bits.
func TutorialNames() []string {
	return []string{"first_boot_seen", "car_cdr_completed", "quote_eval_completed", "lambda_completed", "graduated"}
}

// Sizes of the persisted regions.
const (
	HistoryBytes  = 512
	SnippetBytes  = 4096
	handleBytes   = 16
	imageVersion  = 1
	imageMagic    = "DECK"
	headerBytes   = 4 + 1 + handleBytes + 4 + 4 + 4 + 1 + 4 + 16
	ImageBytes    = headerBytes + 2 + HistoryBytes + 2 + SnippetBytes + 4
	MirrorBytes   = (ImageBytes + 7) &^ 7 // the image's SRAM mirror, 8-byte aligned
	maxHandleRune = 0x7E
)

// State is the Universal Deck State the deck persists in flash.
type State struct {
	Handle       string
	Credits      uint32
	Reputation   int32
	Capabilities uint32 // bit i: capability i of CapabilityNames
	Tutorial     uint8  // Tut* bits
	CipherSeed   uint32 // 24 bits, so a float32 holds it exactly
	Reserved     [16]byte
	History      []byte // encoded history, at most HistoryBytes
	Snippets     []byte // encoded snippet library, at most SnippetBytes
}

// CapabilityNames are the capability symbols, by bit.
func CapabilityNames() []string {
	return []string{"dev-repl", "mission-board", "cipher", "nemacs", "deck-browser", "netrunning", "forensics", "salvage"}
}

// NewState returns the state of a new deck: never tutored, empty history.
func NewState() State {
	return State{Handle: "OPERATOR", Credits: 100, Reputation: 0, Capabilities: 0x1F, CipherSeed: 0x5EED01}
}

// ErrCorrupt reports an image that failed validation.
var ErrCorrupt = errors.New("deck state: corrupt image")

// Encode returns the flash image of s, refusing a handle longer than its
// field. The history and snippet regions are taken as they are: the deck
// only ever holds ones that fit and read back (what Decode read, or what
// EncodeHistory and EncodeSnippets made within the regions' sizes).
func (s State) Encode() ([]byte, error) {
	if len(s.Handle) > handleBytes {
		return nil, fmt.Errorf("deck state: handle %q longer than %d bytes", s.Handle, handleBytes)
	}
	b := make([]byte, 0, ImageBytes)
	b = append(b, imageMagic...)
	b = append(b, imageVersion)
	var h [handleBytes]byte
	copy(h[:], s.Handle)
	b = append(b, h[:]...)
	b = binary.LittleEndian.AppendUint32(b, s.Credits)
	b = binary.LittleEndian.AppendUint32(b, uint32(s.Reputation))
	b = binary.LittleEndian.AppendUint32(b, s.Capabilities)
	b = append(b, s.Tutorial)
	b = binary.LittleEndian.AppendUint32(b, s.CipherSeed&0xFFFFFF)
	b = append(b, s.Reserved[:]...)
	b = appendRegion(b, s.History, HistoryBytes)
	b = appendRegion(b, s.Snippets, SnippetBytes)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return b, nil
}

func appendRegion(b, data []byte, size int) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(len(data)))
	region := make([]byte, size)
	copy(region, data)
	return append(b, region...)
}

// Decode parses a flash image, checking its size, magic, version, CRC and
// every field. Any failure is ErrCorrupt, wrapped with the reason.
func Decode(img []byte) (State, error) {
	var s State
	if len(img) != ImageBytes {
		return s, fmt.Errorf("%w: %d bytes, want %d", ErrCorrupt, len(img), ImageBytes)
	}
	body, sum := img[:len(img)-4], binary.LittleEndian.Uint32(img[len(img)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return s, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	if string(body[:4]) != imageMagic || body[4] != imageVersion {
		return s, fmt.Errorf("%w: bad magic or version", ErrCorrupt)
	}
	p := 5
	h := body[p : p+handleBytes]
	p += handleBytes
	h = bytes.TrimRight(h, "\x00")
	for _, c := range h {
		if c < 0x20 || c > maxHandleRune {
			return s, fmt.Errorf("%w: handle byte %#x", ErrCorrupt, c)
		}
	}
	s.Handle = string(h)
	s.Credits = binary.LittleEndian.Uint32(body[p:])
	s.Reputation = int32(binary.LittleEndian.Uint32(body[p+4:]))
	s.Capabilities = binary.LittleEndian.Uint32(body[p+8:])
	s.Tutorial = body[p+12]
	s.CipherSeed = binary.LittleEndian.Uint32(body[p+13:])
	p += 17
	copy(s.Reserved[:], body[p:p+16])
	p += 16
	if s.Tutorial >= 1<<5 || s.CipherSeed > 0xFFFFFF {
		return s, fmt.Errorf("%w: tutorial or seed out of range", ErrCorrupt)
	}
	var err error
	if s.History, p, err = readRegion(body, p, HistoryBytes); err != nil {
		return State{}, err
	}
	if s.Snippets, p, err = readRegion(body, p, SnippetBytes); err != nil {
		return State{}, err
	}
	if _, err := DecodeHistory(s.History); err != nil {
		return State{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if _, err := DecodeSnippets(s.Snippets); err != nil {
		return State{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return s, nil
}

func readRegion(body []byte, p, size int) ([]byte, int, error) {
	n := int(binary.LittleEndian.Uint16(body[p:]))
	if n > size {
		return nil, 0, fmt.Errorf("%w: region length %d over %d", ErrCorrupt, n, size)
	}
	out := append([]byte(nil), body[p+2:p+2+n]...)
	return out, p + 2 + size, nil
}

// Entry is one history entry: an expression and its printed result. A
// subtree grabbed with QUOTE has Grabbed set and no result.
type Entry struct {
	Expr    string
	Result  string
	Grabbed bool
}

// maxResultBytes caps the stored text of a result; longer ones are cut.
const maxResultBytes = 255

// EncodeHistory packs entries (newest first) into at most budget bytes
// (the history region's size, HistoryBytes on the deck):
// each entry is a flag byte, a length byte and the expression, then a
// length byte and the result. Entries are taken newest first and the
// oldest ones that do not fit are dropped; an expression longer than 255
// bytes is dropped too. It returns the encoding and how many entries it kept.
func EncodeHistory(entries []Entry, budget int) ([]byte, int) {
	var b []byte
	kept := 0
	for _, e := range entries {
		if len(e.Expr) > 255 {
			continue
		}
		res := e.Result[:min(len(e.Result), maxResultBytes)]
		need := 3 + len(e.Expr) + len(res)
		if len(b)+need > budget {
			break
		}
		flag := byte(0)
		if e.Grabbed {
			flag = 1
		}
		b = append(b, flag, byte(len(e.Expr)))
		b = append(b, e.Expr...)
		b = append(b, byte(len(res)))
		b = append(b, res...)
		kept++
	}
	return b, kept
}

// DecodeHistory unpacks EncodeHistory's format.
func DecodeHistory(b []byte) ([]Entry, error) {
	if len(b) > HistoryBytes {
		return nil, fmt.Errorf("history: %d bytes over %d", len(b), HistoryBytes)
	}
	var out []Entry
	for p := 0; p < len(b); {
		if p+2 > len(b) || b[p] > 1 {
			return nil, fmt.Errorf("history: bad entry header at %d", p)
		}
		flag, n := b[p], int(b[p+1])
		p += 2
		if p+n+1 > len(b) {
			return nil, fmt.Errorf("history: expression overruns at %d", p)
		}
		expr := string(b[p : p+n])
		p += n
		m := int(b[p])
		p++
		if p+m > len(b) {
			return nil, fmt.Errorf("history: result overruns at %d", p)
		}
		out = append(out, Entry{Expr: expr, Result: string(b[p : p+m]), Grabbed: flag == 1})
		p += m
	}
	return out, nil
}

// Snippet is one named form of the snippet library, stored as source.
type Snippet struct {
	Name string
	Form string // one Fe form (DecodeSnippets refuses another)
}

// form is the snippet's form, which reads (DecodeSnippets checked it).
func (sn Snippet) form() *Node {
	n, err := Parse(sn.Form)
	must(err)
	return n
}

// EncodeSnippets packs the library: per snippet a name length byte, the
// name, a 2-byte form length and the form. Whether it fits the snippet
// region is the deck's check (saveSnippet).
func EncodeSnippets(lib []Snippet) ([]byte, error) {
	var b []byte
	for _, s := range lib {
		if len(s.Name) == 0 || len(s.Name) > 63 {
			return nil, fmt.Errorf("snippets: name %q: want 1–63 bytes", s.Name)
		}
		b = append(b, byte(len(s.Name)))
		b = append(b, s.Name...)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(s.Form)))
		b = append(b, s.Form...)
	}
	return b, nil
}

// DecodeSnippets unpacks EncodeSnippets' format.
func DecodeSnippets(b []byte) ([]Snippet, error) {
	var out []Snippet
	for p := 0; p < len(b); {
		n := int(b[p])
		if n == 0 || p+1+n+2 > len(b) {
			return nil, fmt.Errorf("snippets: bad name at %d", p)
		}
		name := string(b[p+1 : p+1+n])
		p += 1 + n
		m := int(binary.LittleEndian.Uint16(b[p:]))
		p += 2
		if p+m > len(b) {
			return nil, fmt.Errorf("snippets: form overruns at %d", p)
		}
		form := string(b[p : p+m])
		if _, err := Parse(form); err != nil {
			return nil, fmt.Errorf("snippets: the form at %d does not read: %v", p, err)
		}
		out = append(out, Snippet{Name: name, Form: form})
		p += m
	}
	return out, nil
}
