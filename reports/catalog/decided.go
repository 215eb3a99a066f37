package catalog

import (
	"regexp"
	"strings"
)

// A step declares itself a decided assertion by ending its text with
// " per Decision (§id)": what it checks is more exact than the seed (a
// wording, a code the seed does not name, a byte format, a limit), and the
// digest's `Decision (§id): …` paragraphs for anchor id say what was chosen.
// Every other step is normative: it checks what the seed states. Against the
// embedded reference both levels fail a scenario; against another target a
// decided step that does not hold is recorded as a difference from the
// reference's decision and the scenario goes on.

// DecidedPattern is the optional, non-capturing regexp fragment a step
// definition's pattern gets before its final $, so that the same definition
// matches the step written as normative or as decided.
const DecidedPattern = `(?: per Decision \(§[A-Za-z0-9][A-Za-z0-9._:-]*\))?`

var decidedRE = regexp.MustCompile(` per Decision \(§([A-Za-z0-9][A-Za-z0-9._:-]*)\)$`)

// DecidedStep reports whether a step's text declares a decided assertion,
// and returns the assertion without the suffix and the cited anchor id
// (without the §).
func DecidedStep(text string) (assertion, anchor string, ok bool) {
	m := decidedRE.FindStringSubmatchIndex(text)
	if m == nil {
		return text, "", false
	}
	return text[:m[0]], text[m[2]:m[3]], true
}

// Decided returns the anchor ids (without the §) that a scenario's decided
// steps cite, in step order, each once.
func (s *Scenario) Decided() []string {
	var out []string
	for _, st := range s.Steps {
		if _, id, ok := DecidedStep(st.Text); ok && !containsString(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Review is a normative step that quotes a literal the digest's wording of
// the scenario's anchors does not contain: either the seed does state it
// (and the digest should say so), or the step pins a choice and should be
// decided.
type Review struct {
	Location string // the scenario's
	Step     string
	Literal  string
}

var quotedRE = regexp.MustCompile(`"((?:[^"\\]|\\.)+)"`)

// LiteralsToReview lists, for every normative Then step, each quoted literal
// that occurs in the text of none of the anchors its scenario cites (nor in
// their decisions' text, which restates the seed where a decision narrows
// it). It is a review list for coverage.md, not a guard: a literal may come
// from the seed in other words.
func (c *Catalog) LiteralsToReview() []Review {
	var out []Review
	for _, sc := range c.Scenarios {
		d := c.Digests[sc.System]
		if d == nil {
			continue
		}
		var wording strings.Builder
		for _, id := range sc.Cites() {
			if a, ok := d.Resolve(id); ok {
				wording.WriteString(a.Text)
				wording.WriteByte('\n')
			}
		}
		text := wording.String()
		for _, st := range sc.Steps {
			if st.Type != "Outcome" {
				continue
			}
			if _, _, decided := DecidedStep(st.Text); decided {
				continue
			}
			for _, m := range quotedRE.FindAllStringSubmatch(st.Text, -1) {
				lit := strings.ReplaceAll(m[1], `\"`, `"`)
				if !strings.Contains(text, lit) {
					out = append(out, Review{Location: sc.Location(), Step: st.Text, Literal: lit})
				}
			}
		}
	}
	return out
}
