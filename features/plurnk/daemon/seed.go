package daemon

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/rpc"

	"github.com/tidwall/gjson"
)

// The steps of this file assert what seed 0.56 states at its own level of
// detail, where an older step compares the reference's exact rendering (a
// Decision, marked so where the scenarios use it): an implementation that
// follows the seed's words but renders otherwise keeps these.

func registerSeedThens(sc world.Steps) {
	sc.Step(`^"(\w+)" got at least (\d+) "log/entry" notifications for (\S+)$`, thenEntryNotes)
	sc.Step(`^the last "log/entry" "(\w+)" got for (\S+) has (\S+) = (.+?)$`, thenLastEntryNote)
	sc.Step(`^"(\w+)" got (\d+) "log/entry" notifications? for run "([^"]*)"$`, thenEntryNotesOfRun)
	sc.Step(`^the answer to "(\w+)" lists the runs "([^"]*)"$`, thenRunsListed)
	sc.Step(`^the answer to "(\w+)" has (\S+) equal to the noted (\S+)$`, thenEqualsNoted)
	sc.Step(`^the error answered to "(\w+)" names the member "([^"]*)"$`, thenErrorNamesMember)
}

// thenErrorNamesMember checks that the error answered to who names a
// params member: in its message or in its data, in whatever shape.
func thenErrorNamesMember(ctx context.Context, who, member string) error {
	c, err := conn(ctx, who)
	if err != nil {
		return err
	}
	e := gjson.GetBytes(c.Answer.Raw, "error")
	if !e.Exists() {
		return fmt.Errorf("the answer to %q is no error: %s", who, c.Answer.Raw)
	}
	if strings.Contains(e.Get("message").String(), member) || strings.Contains(e.Get("data").Raw, `"`+member+`"`) {
		return nil
	}
	return fmt.Errorf("the error answered to %q names no member %q: %s", who, member, e.Raw)
}

// thenEntryNotesOfRun counts the log/entry notifications who got for the
// rows of the session's run named run.
func thenEntryNotesOfRun(ctx context.Context, who string, n int, run string) error {
	notes, err := heard(ctx, who)
	if err != nil {
		return err
	}
	id, err := runID(ctx, who, run)
	if err != nil {
		return err
	}
	got := 0
	for _, note := range driver.NotesOf(notes, "log/entry") {
		if gjson.GetBytes(note.Params, "entry.run_id").Int() == id {
			got++
		}
	}
	if got != n {
		return fmt.Errorf("%q got %d log/entry notifications for run %q, want %d", who, got, run, n)
	}
	return nil
}

// thenRunsListed compares the names of the runs a session.runs answer
// lists with want, comma-separated, in any order: which runs a session
// holds is the seed's, the order it lists them in a decision.
func thenRunsListed(ctx context.Context, who, want string) error {
	return answerIs(ctx, who, func(a rpc.Answer) error {
		var got []string
		for _, n := range gjson.GetBytes(a.Result, "runs.#.name").Array() {
			got = append(got, n.String())
		}
		wantList := world.SplitList(want)
		slices.Sort(got)
		slices.Sort(wantList)
		if !slices.Equal(got, wantList) {
			return fmt.Errorf("the answer to %q lists the runs %q, want %q", who, got, wantList)
		}
		return nil
	})
}

// thenEqualsNoted compares a value of the answer with one noted earlier
// from another path ("I note the answer to …'s …").
func thenEqualsNoted(ctx context.Context, who, path, notedPath string) error {
	got, want, err := answerAndNoted(ctx, who, path, notedPath)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("answer %s is %s, the noted %s %s", path, got, notedPath, want)
	}
	return nil
}

// entryNotes returns the log/entry notifications who got for the row at
// path (log:///L/T/S/OP), in the order they came.
func entryNotes(ctx context.Context, who, path string) ([]rpc.Note, error) {
	notes, err := heard(ctx, who)
	if err != nil {
		return nil, err
	}
	var out []rpc.Note
	for _, n := range driver.NotesOf(notes, "log/entry") {
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
