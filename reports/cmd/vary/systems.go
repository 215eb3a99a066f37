package main

import (
	"anchorage/impl/plurnk/config"
	"anchorage/impl/vary"
)

// variations lists a system's spec-permitted variations, from the
// reference implementation that switches them.
func variations(system string) []vary.Variation {
	switch system {
	case "plurnk":
		return config.Variations()
	case "chatlog", "jace", "deck":
		return nil // filled in as each system's reference gains its variations
	}
	return nil
}
