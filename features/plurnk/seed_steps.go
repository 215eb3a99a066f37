package plurnk

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/rpc"

	"github.com/tidwall/gjson"
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
	sc.Step(`^"(\w+)" got at least (\d+) "log/entry" notifications for (\S+)$`, thenEntryNotes)
	sc.Step(`^the last "log/entry" "(\w+)" got for (\S+) has (\S+) = (.+?)$`, thenLastEntryNote)
}

// entryNotes returns the log/entry notifications who got for the row at
// path (log:///L/T/S/OP), in the order they came.
func entryNotes(ctx context.Context, who, path string) ([]rpc.Note, error) {
	notes, err := getDaemon(ctx).settled(ctx, who)
	if err != nil {
		return nil, err
	}
	var out []rpc.Note
	for _, n := range notesOf(notes, "log/entry") {
		if gjson.GetBytes(n.Params, "entry.path").String() == path {
			out = append(out, n)
		}
	}
	return out, nil
}

// thenEntryNotes checks that each write to a row reached who: at least n
// log/entry notifications name it.
func thenEntryNotes(ctx context.Context, who string, n int, path string) error {
	got, err := entryNotes(ctx, who, path)
	if err != nil {
		return err
	}
	if len(got) < n {
		return fmt.Errorf("%q got %d log/entry notifications for %s, want at least %d", who, len(got), path, n)
	}
	return nil
}

// thenLastEntryNote compares a member of the newest log/entry who got for
// the row at path.
func thenLastEntryNote(ctx context.Context, who, path, member, want string) error {
	got, err := entryNotes(ctx, who, path)
	if err != nil {
		return err
	}
	if len(got) == 0 {
		return fmt.Errorf("%q got no log/entry notification for %s", who, path)
	}
	last := got[len(got)-1]
	v := gjson.GetBytes(last.Params, member)
	if !v.Exists() {
		return fmt.Errorf("the last log/entry %q got for %s has no %s: %s", who, path, member, last.Params)
	}
	if err := sameJSON(v.Raw, want); err != nil {
		return fmt.Errorf("the last log/entry %q got for %s: %s: %w", who, path, member, err)
	}
	return nil
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
