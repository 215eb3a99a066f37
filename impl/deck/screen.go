package deck

import (
	"slices"
	"strings"
)

// Screen geometry.
const (
	Cols = 80
	Rows = 25

	RowStatus    = 0
	RowBanner    = 1
	RowScrollTop = 2
	RowScrollEnd = 21 // inclusive: 20 rows
	RowRule      = 22
	RowPrompt    = 23
	RowAction    = 24

	// RuleText is the widest readout row 22 shows: the rule keeps two
	// glyphs before it and a blank on either side.
	RuleText = Cols - 6
)

// CP437 bytes used by the deck's screens.
const (
	GlyphRule     = 0xC4 // ─
	GlyphOpen     = 0xAE // «  opens a list on the structural prompt
	GlyphClose    = 0xAF // »  closes it
	GlyphCursor   = 0x10 // ►  marks the form under the cursor
	GlyphLeft     = 0x11 // ◄  the prompt is scrolled
	GlyphBlock    = 0xDB // █  the insertion cursor
	GlyphDot      = 0xFA // ·  action-bar separator
	GlyphSelected = 0x10 // ►  the selected scrollback entry
)

// Screen is the 80×25 text framebuffer; each cell holds a CP437 byte.
type Screen struct {
	cells [Rows][Cols]byte
}

// Clear fills the screen with spaces.
func (s *Screen) Clear() {
	for r := range s.cells {
		copy(s.cells[r][:], strings.Repeat(" ", Cols))
	}
}

// Put writes CP437 bytes at row r (0–24) from column c (0–79), clipped at
// the right edge.
func (s *Screen) Put(r, c int, b []byte) { copy(s.cells[r][c:], b) }

// PutText writes text (ASCII, or runes CP437 can show) at (r, c).
func (s *Screen) PutText(r, c int, text string) { s.Put(r, c, EncodeCP437(text)) }

// RowText returns row r decoded to Unicode, trailing spaces removed.
func (s *Screen) RowText(r int) string {
	return strings.TrimRight(DecodeCP437(s.cells[r][:]), " ")
}

// Dump returns the 25 rows as UTF-8 text, one line each, trailing spaces
// removed.
func (s *Screen) Dump() string {
	var b strings.Builder
	for r := range s.cells {
		b.WriteString(s.RowText(r))
		b.WriteByte('\n')
	}
	return b.String()
}

// cp437 returns the glyphs of the 256 CP437 bytes, in byte order; NUL is
// its own rune (the screen never holds one).
func cp437() []rune {
	return []rune("\x00☺☻♥♦♣♠•◘○◙♂♀♪♫☼►◄↕‼¶§▬↨↑↓→←∟↔▲▼" +
		" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~⌂" +
		"ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0")
}

// DecodeCP437 maps CP437 bytes to a Unicode string.
func DecodeCP437(b []byte) string {
	glyphs := cp437()
	var sb strings.Builder
	for _, x := range b {
		sb.WriteRune(glyphs[x])
	}
	return sb.String()
}

// EncodeCP437 maps text to CP437 bytes; a rune CP437 cannot show becomes '?'.
func EncodeCP437(s string) []byte {
	glyphs := cp437()
	out := make([]byte, 0, len(s))
	for _, r := range s {
		b := byte('?')
		if i := slices.Index(glyphs, r); i != -1 {
			b = byte(i)
		}
		out = append(out, b)
	}
	return out
}
