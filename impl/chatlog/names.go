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
func Sanitize(name string) string {
	var b strings.Builder
	pendingHyphen := false
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
			fallthrough
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if pendingHyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			pendingHyphen = false
			b.WriteRune(r)
		case r < 0x80:
			pendingHyphen = true
		default:
			// Non-ASCII characters are removed (é in "Café" does not
			// split the word); they do not act as separators.
		}
		if b.Len() >= maxNameLen {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > maxNameLen {
		s = strings.Trim(s[:maxNameLen], "-")
	}
	if s == "" {
		return fallbackName
	}
	return s
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
