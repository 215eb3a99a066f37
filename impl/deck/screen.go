package deck

import "strings"

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
		s.ClearRow(r)
	}
}

// ClearRow fills row r with spaces.
func (s *Screen) ClearRow(r int) {
	if r < 0 || r >= Rows {
		return
	}
	for c := range s.cells[r] {
		s.cells[r][c] = ' '
	}
}

// Put writes CP437 bytes at (r, c), clipped at the right edge.
func (s *Screen) Put(r, c int, b []byte) {
	if r < 0 || r >= Rows {
		return
	}
	for i, x := range b {
		if c+i >= 0 && c+i < Cols {
			s.cells[r][c+i] = x
		}
	}
}

// PutText writes text (ASCII, or runes CP437 can show) at (r, c).
func (s *Screen) PutText(r, c int, text string) { s.Put(r, c, EncodeCP437(text)) }

// Row returns row r as CP437 bytes.
func (s *Screen) Row(r int) []byte {
	if r < 0 || r >= Rows {
		return nil
	}
	out := make([]byte, Cols)
	copy(out, s.cells[r][:])
	return out
}

// RowText returns row r decoded to Unicode, trailing spaces removed.
func (s *Screen) RowText(r int) string {
	return strings.TrimRight(DecodeCP437(s.Row(r)), " ")
}

// Dump returns the 25 rows as UTF-8 text, one line each, trailing spaces
// removed.
func (s *Screen) Dump() string {
	var b strings.Builder
	for r := 0; r < Rows; r++ {
		b.WriteString(s.RowText(r))
		b.WriteByte('\n')
	}
	return b.String()
}

// cp437High holds the glyphs of bytes 0x80–0xFF; cp437Low those of 0x00–0x1F.
const cp437High = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0"
const cp437Low = " ☺☻♥♦♣♠•◘○◙♂♀♪♫☼►◄↕‼¶§▬↨↑↓→←∟↔▲▼"

// DecodeCP437 maps CP437 bytes to a Unicode string.
func DecodeCP437(b []byte) string {
	high, low := []rune(cp437High), []rune(cp437Low)
	var sb strings.Builder
	for _, x := range b {
		switch {
		case x >= 0x80:
			sb.WriteRune(high[x-0x80])
		case x < 0x20:
			sb.WriteRune(low[x])
		case x == 0x7F:
			sb.WriteRune('⌂')
		default:
			sb.WriteByte(x)
		}
	}
	return sb.String()
}

// EncodeCP437 maps text to CP437 bytes; a rune CP437 cannot show becomes '?'.
func EncodeCP437(s string) []byte {
	high, low := []rune(cp437High), []rune(cp437Low)
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r >= 0x20 && r < 0x7F {
			out = append(out, byte(r))
			continue
		}
		b := byte('?')
		for i, h := range high {
			if h == r {
				b = byte(0x80 + i)
				break
			}
		}
		if b == '?' {
			for i, l := range low {
				if l == r && i > 0 {
					b = byte(i)
					break
				}
			}
		}
		out = append(out, b)
	}
	return out
}
