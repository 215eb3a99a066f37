package plurnk

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"anchorage/features/kit"
)

// The steps of this file assert what seed 0.56 states at its own level of
// detail, where an older step compares the reference's exact rendering (a
// Decision, marked so where the scenarios use it): an implementation that
// follows the seed's words but renders otherwise keeps these.

// seedDataSteps are the steps below that a daemon process expresses too,
// for the data-plane driver's list (dataSteps).
var seedDataSteps = regexpList(
	`^the errors section of packet (\d+) points at (\d+/\d+/\d+) with status (\d+)$`,
)

// registerSeedSteps registers the steps of this file.
func registerSeedSteps(sc kit.Steps) {
	sc.Step(`^the errors section of packet (\d+) points at (\d+/\d+/\d+) with status (\d+)$`, thenErrorPointer)
}

// thenErrorPointer checks that the errors section of packet n points at the
// failed row at coordinate coord with its status: the seed gives the pointer
// as the row's status and its log:///<coord> address in one place, and as
// an action_failure with coordinate and status in another, so a line naming
// the coordinate (log:///-prefixed or not) and the status keeps both.
func thenErrorPointer(ctx context.Context, n int, coord string, status int) error {
	s, ok, err := section(ctx, "errors", n)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("packet %d has no errors section", n)
	}
	coordRE := regexp.MustCompile(`(^|[^0-9/])` + regexp.QuoteMeta(coord) + `([^0-9/]|$)`)
	statusRE := regexp.MustCompile(`(^|[^0-9])` + strconv.Itoa(status) + `([^0-9]|$)`)
	for _, line := range strings.Split(s.Content, "\n") {
		if coordRE.MatchString(line) && statusRE.MatchString(line) {
			return nil
		}
	}
	return fmt.Errorf("the errors section of packet %d has no line naming %s with status %d; it reads:\n%s", n, coord, status, s.Content)
}
