package features

import (
	"anchorage/features/chatlog"
	"anchorage/features/deck"
	"anchorage/features/jace"
	"anchorage/features/plurnk"
)

// Systems lists the systems in report order. This file holds nothing else:
// the mutation tool replaces it (go build -overlay) with one that lists a
// single system, so a mutant's test binary links only that system's code.
func Systems() []System {
	return []System{
		{"chatlog", chatlog.InitializeScenario},
		{"plurnk", plurnk.InitializeScenario},
		{"jace", jace.InitializeScenario},
		{"deck", deck.InitializeScenario},
	}
}
