// Package vary names the spec-permitted variations a reference
// implementation can run with: each is a choice the seed leaves open (a
// message's wording, a code the seed does not name, a limit, the order of
// JSON members, a header parameter) made differently from the reference's
// own decision. Run with all of them, an implementation still keeps its
// spec, so the features must still pass it at the normative level: a
// scenario that fails is a false rejection (make vary). The binaries take
// them as -vary, the embedded harness as ANCHORAGE_VARY.
//
// It imports the standard library only.
package vary

import (
	"fmt"
	"slices"
	"strings"
)

// Variation is one spec-permitted departure from the reference's decisions.
type Variation struct {
	Name   string // short, lower-case, e.g. "messages"
	What   string // what changes, in a few words
	Permit string // the seed's sentence (in our words, with its place) that leaves it open
}

// Set is the variations in force; the zero Set is the reference itself.
type Set struct {
	on map[string]bool
}

// Parse reads a comma-separated list of names from known, or "all"; ""
// is the empty set.
func Parse(list string, known []Variation) (Set, error) {
	s := Set{on: map[string]bool{}}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
		case name == "all":
			for _, v := range known {
				s.on[v.Name] = true
			}
		case slices.ContainsFunc(known, func(v Variation) bool { return v.Name == name }):
			s.on[name] = true
		default:
			return Set{}, fmt.Errorf("no variation %q: want all or some of %s", name, strings.Join(Names(known), ","))
		}
	}
	return s, nil
}

// Has reports whether variation name is in force.
func (s Set) Has(name string) bool { return s.on[name] }

// String lists the variations in force, sorted, comma-separated.
func (s Set) String() string {
	var names []string
	for n := range s.on {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// Names returns the names of vs, in order.
func Names(vs []Variation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

// Usage is the text a binary's -vary flag shows: every variation with what
// it changes.
func Usage(vs []Variation) string {
	var b strings.Builder
	b.WriteString("spec-permitted variations, comma-separated, or all:")
	for _, v := range vs {
		fmt.Fprintf(&b, "\n  %-14s %s", v.Name, v.What)
	}
	return b.String()
}

// Choose returns alt when variation name is in force, else ref. A
// reference switches its variations through Choose and Apply, never through
// a condition of its own: the switch then lives here, outside the system's
// packages, so that no mutant of the system's code can turn a variation on
// (a mutant that did would be a spec-permitted implementation, which no
// normative assertion may reject).
func Choose[T any](s Set, name string, ref, alt T) T {
	if s.on[name] {
		return alt
	}
	return ref
}

// Apply returns f(v) when variation name is in force, else v unchanged.
func Apply[T any](s Set, name string, v T, f func(T) T) T {
	if s.on[name] {
		return f(v)
	}
	return v
}
