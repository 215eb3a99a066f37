package main

import (
	"anchorage/impl/jace"
	"anchorage/impl/vary"
)

// variations lists a system's spec-permitted variations, from the
// reference implementation that switches them.
func variations(system string) []vary.Variation {
	switch system {
	case "jace":
		return jace.Variations()
	}
	return nil // chatlog, plurnk and deck gain theirs as their references do
}
