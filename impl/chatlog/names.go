package chatlog

import (
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
)

// Directory and file names fixed by the spec (§chatlog-registry-path,
// §chatlog-instance-dir).
const (
	RegistryFile = "debug.md"
	InstanceDir  = "debug"
)

// maxNameLen bounds a sanitized name so that hostile 10,000-character page
// titles still give short file names.
const maxNameLen = 48

// fallbackName replaces a name that sanitizes to nothing (empty, emoji only).
const fallbackName = "page"

// Sanitize turns a page's display name into lowercase ASCII alphanumerics
// joined by single hyphens (§chatlog-sanitize). Every other character is a
// separator; the result is never empty and can never contain a path
// separator or a dot, so it cannot leave debug/.
func Sanitize(name string) string { return SanitizeWith(name, false, maxNameLen) }

// SanitizeWith is Sanitize with the choices the seed leaves open: non-ASCII
// letters are removed, or replaced by ASCII ones when translit is set
// (é → e, ß → ss), and the name is cut to maxLen characters.
func SanitizeWith(name string, translit bool, maxLen int) string {
	var b strings.Builder
	pendingHyphen := false
	word := func(s string) {
		if pendingHyphen && b.Len() > 0 {
			b.WriteByte('-')
		}
		pendingHyphen = false
		b.WriteString(s)
	}
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			word(string(r + 'a' - 'A'))
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			word(string(r))
		case r < 0x80:
			pendingHyphen = true
		case translit && transliterate(r) != "":
			word(transliterate(r))
		default:
			// Non-ASCII characters are removed (é in "Café" does not
			// split the word); they do not act as separators.
		}
		if b.Len() >= maxLen {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > maxLen {
		s = strings.Trim(s[:maxLen], "-")
	}
	if s == "" {
		return fallbackName
	}
	return s
}

// transliterate spells a letter of Latin-1 in ASCII; "" for any other rune.
func transliterate(r rune) string {
	switch r {
	case 'ß':
		return "ss"
	case 'æ', 'Æ':
		return "ae"
	case 'œ', 'Œ':
		return "oe"
	case 'ø', 'Ø':
		return "o"
	}
	for _, g := range [...][2]string{
		{"a", "àáâãäåÀÁÂÃÄÅ"}, {"c", "çÇ"}, {"e", "èéêëÈÉÊË"}, {"i", "ìíîïÌÍÎÏ"},
		{"n", "ñÑ"}, {"o", "òóôõöÒÓÔÕÖ"}, {"u", "ùúûüÙÚÛÜ"}, {"y", "ýÿÝ"},
	} {
		if strings.ContainsRune(g[1], r) {
			return g[0]
		}
	}
	return ""
}

// IDSource produces short ids from an explicit seed (§chatlog-short-id).
type IDSource struct {
	rng *rand.Rand
}

// NewIDSource returns a deterministic short-id generator.
func NewIDSource(seed uint64) *IDSource {
	return &IDSource{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Next returns n lowercase hex characters, n clamped to 4..8.
func (s *IDSource) Next(n int) string {
	n = min(max(n, 4), 8)
	return fmt.Sprintf("%08x", s.rng.Uint32())[:n]
}

// InstancePath is the slash-separated path of an instance's log relative to
// the workspace root: debug/<sanitized-name>-<short-id>.md
// (§chatlog-filename-pattern).
func InstancePath(stem string) string { return path.Join(InstanceDir, stem+".md") }

// BaseName is the sanitized name of a stem: the stem without its short id
// (index-7-zen for index-7-zen-1a2b), the name its registry line shows
// (§chatlog-registry-header).
func BaseName(stem string) string {
	i := strings.LastIndexByte(stem, '-')
	if i <= 0 || !isShortID(stem[i+1:]) {
		return stem
	}
	return stem[:i]
}

// isShortID reports whether s is 4 to 8 lowercase hex digits (§chatlog-short-id).
func isShortID(s string) bool {
	if len(s) < 4 || len(s) > 8 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
