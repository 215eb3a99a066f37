package chatlog

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
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

// SanitizeWith turns a page's display name into lowercase ASCII
// alphanumerics joined by single hyphens (§chatlog-sanitize), at most maxLen
// characters long. ascii spells each non-ASCII character in ASCII, or
// removes it ("" from dropNonASCII: é in "Café" does not split the word);
// every other ASCII character is a separator. The result is never empty
// and can never contain a path separator or a dot, so it cannot leave
// debug/.
func SanitizeWith(name string, ascii func(rune) string, maxLen int) string {
	spelled := regexp.MustCompile(`[^\x00-\x7f]`).ReplaceAllStringFunc(name, func(c string) string {
		r, _ := utf8.DecodeRuneInString(c)
		return ascii(r)
	})
	s := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(spelled), "-"), "-")
	return cmp.Or(strings.TrimRight(s[:min(len(s), maxLen)], "-"), fallbackName)
}

// dropNonASCII removes every non-ASCII character from a name.
func dropNonASCII(rune) string { return "" }

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
	return regexp.MustCompile(`^(.+)-[0-9a-f]{4,8}$`).ReplaceAllString(stem, "$1")
}
