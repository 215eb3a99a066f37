package deck

import (
	"fmt"
	"strings"
)

// Contract is one Mission Board contract of the seeded board model.
type Contract struct {
	ID          string
	Title       string
	Threat      int
	Payout      int
	Phases      int
	Domains     []string
	Description string
	Intro       string
}

// Board is the seeded model of the Mission Board, read-only from the REPL.
type Board struct {
	Contracts []Contract
}

// NewBoard generates six contracts from seed.
func NewBoard(seed uint64) Board {
	x := uint16(seed) | 1
	next := func(n int) int { x = lfsrStep(x); return int(x) % n }
	titles := []string{"Cold Relay", "Glass Orchard", "Quiet Ledger", "Salt Archive", "Dead Drop", "Night Ferry", "Iron Choir", "Paper Moon"}
	domains := CapabilityNames()[5:]
	var b Board
	for i := 0; i < 6; i++ {
		threat := 1 + next(5)
		c := Contract{
			ID:     fmt.Sprintf("c-%04x", next(0x10000)),
			Title:  titles[next(len(titles))],
			Threat: threat,
			Payout: 100 * (threat + next(4)),
			Phases: 1 + next(4),
		}
		c.Domains = []string{domains[next(len(domains))]}
		c.Description = fmt.Sprintf("%s: a threat-%d job in %d phases.", c.Title, c.Threat, c.Phases)
		c.Intro = "Cipher: " + strings.ToLower(c.Title) + " is listening."
		b.Contracts = append(b.Contracts, c)
	}
	return b
}

// Visible returns the contracts a deck with this reputation sees: threat at
// most 2 + reputation/10.
func (b Board) Visible(rep int32) []Contract {
	limit := 2 + int(rep)/10
	var out []Contract
	for _, c := range b.Contracts {
		if c.Threat <= limit {
			out = append(out, c)
		}
	}
	return out
}

// Term is one entry of Cipher's vocabulary.
type Term struct{ Term, Domain, Definition string }

// Vocabulary is the firmware vocabulary (no cartridge is loaded while the
// REPL runs, so no defdomain adds to it).
func Vocabulary() []Term {
	return []Term{
		{"cell", "firmware", "a pair of words; everything is built of them"},
		{"arena", "firmware", "the memory a capability is lent"},
		{"handle", "firmware", "the name an operator answers to"},
		{"contract", "mission-board", "work offered for credits"},
		{"phase", "mission-board", "one step of a contract"},
		{"seed", "cipher", "where every voice of mine begins"},
	}
}

// CipherTemplates are the template classes cipher-generate accepts.
func CipherTemplates() []string { return []string{":operator-profile", ":phase-intro", ":diagnostic"} }

// CipherGenerate renders a passage from seed and template. It is a pure
// function of its arguments.
func CipherGenerate(seed uint32, template string) (string, error) {
	forms := map[string]string{
		":operator-profile": "Operator profile: %s and %s, weighed and found %s.",
		":phase-intro":      "Next phase: follow the %s past the %s; mind the %s.",
		":diagnostic":       "Diagnostic: %s nominal, %s nominal, %s unknown.",
	}
	f, ok := forms[template]
	if !ok {
		return "", fmt.Errorf("unknown template %q: want one of %s", template, strings.Join(CipherTemplates(), " "))
	}
	x := uint16(seed) ^ uint16(seed>>16) | 1
	vocab := Vocabulary()
	var w [3]any
	for i := range w {
		x = lfsrStep(x)
		w[i] = vocab[int(x)%len(vocab)].Term
	}
	return fmt.Sprintf(f, w[:]...), nil
}
