package main

import (
	"anchorage/impl/chatlog"
	"anchorage/impl/deck"
	"anchorage/impl/jace"
	"anchorage/impl/plurnk/config"
	"anchorage/impl/vary"
)

// variations lists a system's spec-permitted variations, from the
// reference implementation that switches them.
func variations(system string) []vary.Variation {
	switch system {
	case "jace":
		return jace.Variations()
	case "deck":
		return deck.Variations()
	case "chatlog":
		return chatlog.Variations()
	case "plurnk":
		return config.Variations()
	}
	return nil
}
