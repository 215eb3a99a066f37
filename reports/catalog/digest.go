// Package catalog reads what anchorage promises and what it checks: the spec
// digests (features/<system>/SPEC.md, each anchor embedded as {§id} with its
// strength) and the Gherkin features that cite anchors through @§id tags.
// The anchor guard, the feature runner and the coverage report all read the
// tree through it, so they agree on what an anchor, an alias, a retired id
// and a decision are.
//
// Digest syntax, one paragraph (lines up to a blank line) at a time, outside
// fenced code blocks:
//
//	## Section title                         the section of what follows
//	{§id} **MUST** promise in our words.     an anchor; SHOULD or MAY likewise;
//	                                         "(tier 3)" anywhere marks its tier
//	Decision (§id): what we decided.         an ambiguity decided for anchor id
//	Alias §old → §new                        an older id that means §new
//	Retired §old → §new: why                 an id no longer promised ("—" if
//	                                         nothing succeeds it)
//
// It may import the standard library and the Gherkin parser.
package catalog

import (
	"bufio"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

// Anchor is one normative promise of a digest.
type Anchor struct {
	ID       string // without the §
	System   string
	Section  string
	Strength string // MUST, SHOULD or MAY
	Tier     int    // 0 when the digest gives none
	Text     string // the paragraph, markers removed
	Aliases  []string
	Location string // SPEC.md path:line
}

// Retired is an id the spec no longer promises.
type Retired struct {
	ID        string
	System    string
	Successor string // "" when nothing succeeds it
	Reason    string
	Location  string
}

// Decision records how an ambiguity of the spec was decided.
type Decision struct {
	System   string
	Anchor   string
	Text     string
	Location string
}

// Digest is one system's SPEC.md.
type Digest struct {
	System    string
	Path      string
	Title     string
	Sections  []string
	Anchors   []*Anchor
	Retired   []Retired
	Decisions []Decision
	aliasTo   map[string]string
}

// Resolve maps a cited id to the anchor it names, following aliases.
func (d *Digest) Resolve(id string) (*Anchor, bool) {
	if to, ok := d.aliasTo[id]; ok {
		id = to
	}
	for _, a := range d.Anchors {
		if a.ID == id {
			return a, true
		}
	}
	return nil, false
}

// RetiredID returns the retirement record of id, if any.
func (d *Digest) RetiredID(id string) (Retired, bool) {
	for _, r := range d.Retired {
		if r.ID == id {
			return r, true
		}
	}
	return Retired{}, false
}

var (
	anchorRE   = regexp.MustCompile(`\{§([A-Za-z0-9][A-Za-z0-9._:-]*)\}`)
	strengthRE = regexp.MustCompile(`\*\*(MUST|SHOULD|MAY)\*\*`)
	tierRE     = regexp.MustCompile(`\(tier ([1-9])\)`)
	decisionRE = regexp.MustCompile(`^Decision \(§([A-Za-z0-9][A-Za-z0-9._:-]*)\):\s*(.*)$`)
	aliasRE    = regexp.MustCompile(`^Alias §(\S+) → §(\S+)\s*$`)
	retiredRE  = regexp.MustCompile(`^Retired §(\S+) → (?:§(\S+)|—):\s*(.+)$`)
)

// ParseDigest reads one digest. Errors name the file and line.
func ParseDigest(fsys fs.FS, path, system string) (*Digest, error) {
	b, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, fmt.Errorf("digest %s: %w", path, err)
	}
	d := &Digest{System: system, Path: path, aliasTo: map[string]string{}}
	var errs []string
	fail := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("%s:%d: %s", path, line, fmt.Sprintf(format, args...)))
	}

	section := ""
	var para []string
	paraLine := 0
	flush := func() {
		if len(para) == 0 {
			return
		}
		text := strings.Join(para, " ")
		start := paraLine
		para = nil
		switch {
		case decisionRE.MatchString(text):
			m := decisionRE.FindStringSubmatch(text)
			d.Decisions = append(d.Decisions, Decision{System: system, Anchor: m[1], Text: strings.TrimSpace(m[2]), Location: fmt.Sprintf("%s:%d", path, start)})
			return
		case strings.HasPrefix(text, "Alias §"):
			m := aliasRE.FindStringSubmatch(text)
			if m == nil {
				fail(start, "alias line must read `Alias §old → §new`, got %q", text)
				return
			}
			if prev, dup := d.aliasTo[m[1]]; dup {
				fail(start, "alias §%s declared twice (→ §%s and → §%s)", m[1], prev, m[2])
			}
			d.aliasTo[m[1]] = m[2]
			return
		case strings.HasPrefix(text, "Retired §"):
			m := retiredRE.FindStringSubmatch(text)
			if m == nil {
				fail(start, "retired line must read `Retired §old → §new: reason` or `Retired §old → —: reason`, got %q", text)
				return
			}
			d.Retired = append(d.Retired, Retired{ID: m[1], System: system, Successor: m[2], Reason: strings.TrimSpace(m[3]), Location: fmt.Sprintf("%s:%d", path, start)})
			return
		}
		ids := anchorRE.FindAllStringSubmatch(text, -1)
		if len(ids) == 0 {
			return
		}
		strength := ""
		if m := strengthRE.FindStringSubmatch(text); m != nil {
			strength = m[1]
		}
		tier := 0
		if m := tierRE.FindStringSubmatch(text); m != nil {
			tier = int(m[1][0] - '0')
		}
		clean := anchorRE.ReplaceAllString(text, "")
		clean = strengthRE.ReplaceAllString(clean, "")
		clean = tierRE.ReplaceAllString(clean, "")
		clean = strings.Join(strings.Fields(strings.TrimLeft(clean, "-*• ")), " ")
		for _, m := range ids {
			if strength == "" {
				fail(start, "anchor §%s has no strength: write **MUST**, **SHOULD** or **MAY** in its paragraph", m[1])
			}
			if section == "" {
				fail(start, "anchor §%s stands before any `## ` section heading", m[1])
			}
			d.Anchors = append(d.Anchors, &Anchor{ID: m[1], System: system, Section: section, Strength: strength, Tier: tier, Text: clean, Location: fmt.Sprintf("%s:%d", path, start)})
		}
	}

	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	inFence := ""
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if inFence != "" {
			if strings.HasPrefix(trimmed, inFence) {
				inFence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			flush()
			inFence = trimmed[:3]
			continue
		}
		switch {
		case trimmed == "":
			flush()
		case strings.HasPrefix(line, "# ") && d.Title == "":
			flush()
			d.Title = strings.TrimSpace(line[2:])
		case strings.HasPrefix(line, "## "):
			flush()
			section = strings.TrimSpace(line[3:])
			d.Sections = append(d.Sections, section)
		case strings.HasPrefix(line, "#"):
			flush() // deeper headings belong to the current section
		default:
			if len(para) == 0 {
				paraLine = n
			}
			para = append(para, trimmed)
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Sprintf("%s: %v", path, err))
	}
	if inFence != "" {
		errs = append(errs, fmt.Sprintf("%s: a fenced block is never closed", path))
	}
	for old, to := range d.aliasTo {
		a, ok := d.Resolve(to)
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: alias §%s points at §%s, which this digest does not declare", path, old, to))
			continue
		}
		a.Aliases = append(a.Aliases, old)
	}
	for _, a := range d.Anchors {
		sort.Strings(a.Aliases)
	}
	if len(errs) > 0 {
		return d, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return d, nil
}
