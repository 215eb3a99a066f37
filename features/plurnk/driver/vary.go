package driver

import (
	"fmt"
	"os"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/vary"
)

// EnvVary names the spec-permitted variations the embedded reference runs
// with: "all" or names of config.Variations (make vary). Unset, the
// reference makes its own decisions.
const EnvVary = "ANCHORAGE_VARY"

// Vary is the set of variations $ANCHORAGE_VARY switches on.
func Vary() (vary.Set, error) {
	s, err := vary.Parse(os.Getenv(EnvVary), config.Variations())
	if err != nil {
		return vary.Set{}, fmt.Errorf("%s: %w", EnvVary, err)
	}
	return s, nil
}
