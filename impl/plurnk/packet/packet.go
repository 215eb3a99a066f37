// Package packet assembles the turn packet of plurnk-service 0.56
// (features/plurnk/SPEC.md, §packet-plugin-transform, §packet-inject,
// §policy-sections, §tokenomics-*): the ordered section list in its two
// slots, the trusted transformSections seam, the rendering of the run's log
// rows (expanded or folded) and the budget section with its headline and
// its turn-weight and heaviest-entries tables.
//
// It renders; it decides nothing. Reading operator files, measuring and
// folding belong to the engine.
//
// It may import the standard library and anchorage/impl/plurnk/store.
package packet

import (
	"fmt"
	"strings"
)

// Slot is the message a section rides: the cache-stable system message or
// the user message.
type Slot string

const (
	System Slot = "system"
	User   Slot = "user"
)

// The default section names, in their default order.
const (
	Definition    = "definition"
	Tools         = "tools"
	Schemes       = "schemes"
	OperatorNotes = "operator-notes"
	SystemPolicy  = "system-policy"
	ProjectPolicy = "project-policy"
	Budget        = "budget"
	Prompt        = "prompt"
	Errors        = "errors"
	Log           = "log"
	Git           = "git"
	Requirements  = "requirements"
)

// The section headers.
const (
	HeaderTools         = "## Plurnk System Tools"
	HeaderSchemes       = "## Plurnk System Schemes"
	HeaderOperatorNotes = "## Plurnk Operator Notes"
	HeaderSystemPolicy  = "## Plurnk System Policy"
	HeaderProjectPolicy = "## Project Policy"
	HeaderBudget        = "## Plurnk System Budget"
	HeaderPrompt        = "## Plurnk System Prompt"
	HeaderErrors        = "## Plurnk System Errors"
	HeaderLog           = "## Plurnk System Log"
	HeaderGit           = "## Plurnk System Git"
	HeaderRequirements  = "## Plurnk System Requirements"
)

// Section is one section of a packet. A section with empty Content is not
// rendered. Header "" renders the content verbatim (the definition).
type Section struct {
	Name    string
	Slot    Slot
	Header  string
	Content string
}

// Transformer is a trusted, in-process plugin that may rewrite the whole
// section list: add, remove or reorder sections. It gets the list and
// nothing else.
type Transformer interface {
	TransformSections(sections []Section) []Section
}

// Transform pipes sections through every plugin in registration order.
func Transform(sections []Section, plugins []Transformer) []Section {
	for _, p := range plugins {
		in := append([]Section(nil), sections...)
		sections = p.TransformSections(in)
	}
	return sections
}

// RenderSlot renders the non-empty sections of slot, header line then
// content, separated by one blank line.
func RenderSlot(sections []Section, slot Slot) string {
	var parts []string
	for _, s := range sections {
		if s.Slot != slot || s.Content == "" {
			continue
		}
		body := strings.TrimRight(s.Content, "\n")
		if s.Header != "" {
			body = s.Header + "\n" + body
		}
		parts = append(parts, body)
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "\n\n") + "\n"
}

// Headline is the budget's headline: the ceiling, the measured usage, the
// free tokens (floored at 0) and usage as a percent of the ceiling.
type Headline struct {
	Ceiling int  // 0 when there is no budget
	Usage   int  // measured on the rendered packet
	Free    int  // max(0, Ceiling-Usage)
	Percent int  // Usage*100/Ceiling, rounded down; may pass 100 on a failure record
	Bounded bool // a ceiling exists
}

// NewHeadline measures usage against ceiling (bounded says whether there
// is one).
func NewHeadline(ceiling, usage int, bounded bool) Headline {
	h := Headline{Usage: usage, Bounded: bounded}
	if bounded {
		h.Ceiling, h.Free, h.Percent = ceiling, max(0, ceiling-usage), usage*100/ceiling
	}
	return h
}

// String renders the headline: `ceiling C, usage Y (P%), free F`, or
// `usage Y` when there is no budget information.
func (h Headline) String() string {
	if !h.Bounded {
		return fmt.Sprintf("usage %d", h.Usage)
	}
	return fmt.Sprintf("ceiling %d, usage %d (%d%%), free %d", h.Ceiling, h.Usage, h.Percent, h.Free)
}

// The headline placeholders: the budget section is rendered with them, the
// packet is measured, then they are replaced by the measured figures. Each
// is at least as long as any figure it stands for, so substitution never
// makes the packet longer than what was measured.
const (
	PlaceholderHeadline = "{{budget-headline:ceiling 0000000000, usage 0000000000 (00000%), free 0000000000}}"
)
