package plurnk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/rpc"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/vary"
	"anchorage/sim/vfs"

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
	`^the result is a catalog whose rows are shaped \{path, seconds\?, tags\?, channels\}$`,
	`^catalog row (\d+) of the result has the tags "([^"]*)"$`,
	`^catalog row (\d+) of the result has (\d+) lines? in its (\w+) channel$`,
	`^the session was notified stream/concluded for (\S+) with close status (\d+)$`,
	`^the action does not answer (\d+)$`,
	`^the result carries a reason$`,
	`^the (\w+) channel of (\S+) holds the JSON value (.+?)$`,
)

// registerSeedSteps registers the steps of this file.
func registerSeedSteps(sc kit.Steps) {
	sc.Step(`^the errors section of packet (\d+) points at (\d+/\d+/\d+) with status (\d+)$`, thenErrorPointer)
	sc.Step(`^the result is a catalog whose rows are shaped \{path, seconds\?, tags\?, channels\}$`, thenCatalogShape)
	sc.Step(`^catalog row (\d+) of the result has the tags "([^"]*)"$`, thenCatalogTags)
	sc.Step(`^catalog row (\d+) of the result has (\d+) lines? in its (\w+) channel$`, thenCatalogLines)
	sc.Step(`^the session was notified stream/concluded for (\S+) with close status (\d+)$`, thenConcludedStatus)
	sc.Step(`^the action does not answer (\d+)$`, thenNotStatus)
	sc.Step(`^the result carries a reason$`, thenHasReason)
	sc.Step(`^the (\w+) channel of (\S+) holds the JSON value (.+?)$`, thenChannelJSON)
	sc.Step(`^"(\w+)" got at least (\d+) "log/entry" notifications for (\S+)$`, thenEntryNotes)
	sc.Step(`^the last "log/entry" "(\w+)" got for (\S+) has (\S+) = (.+?)$`, thenLastEntryNote)
	sc.Step(`^the answer to "(\w+)" lists the runs "([^"]*)"$`, thenRunsListed)
	sc.Step(`^the answer to "(\w+)" has (\S+) equal to the noted (\S+)$`, thenEqualsNoted)
	sc.Step(`^the daemon is given no state directory$`, givenNoStateDir)
	sc.Step(`^"(\w+)" got (\d+) "log/entry" notifications? for run "([^"]*)"$`, thenEntryNotesOfRun)
	sc.Step(`^the error answered to "(\w+)" names the member "([^"]*)"$`, thenErrorNamesMember)
}

// thenErrorNamesMember checks that the error answered to who names a
// params member: in its message or in its data, in whatever shape.
func thenErrorNamesMember(ctx context.Context, who, member string) error {
	c, err := getDaemon(ctx).conn(who)
	if err != nil {
		return err
	}
	e := gjson.GetBytes(c.answer.Raw, "error")
	if !e.Exists() {
		return fmt.Errorf("the answer to %q is no error: %s", who, c.answer.Raw)
	}
	if strings.Contains(e.Get("message").String(), member) || strings.Contains(e.Get("data").Raw, `"`+member+`"`) {
		return nil
	}
	return fmt.Errorf("the error answered to %q names no member %q: %s", who, member, e.Raw)
}

// thenEntryNotesOfRun counts the log/entry notifications who got for the
// rows of the session's run named run.
func thenEntryNotesOfRun(ctx context.Context, who string, n int, run string) error {
	d := getDaemon(ctx)
	notes, err := d.settled(ctx, who)
	if err != nil {
		return err
	}
	id, err := d.runID(ctx, who, run)
	if err != nil {
		return err
	}
	got := 0
	for _, note := range notesOf(notes, "log/entry") {
		if gjson.GetBytes(note.Params, "entry.run_id").Int() == id {
			got++
		}
	}
	if got != n {
		return fmt.Errorf("%q got %d log/entry notifications for run %q, want %d", who, got, run, n)
	}
	return nil
}

// givenNoStateDir starts the daemon without -state or PLURNK_STATE_DIR: it
// keeps its sessions where it does by default (a session is durable). A
// process keeps them under its HOME, which its restarts share; the
// embedded daemon is configured as plurnkd configures itself then, its
// state directory under the world's home.
func givenNoStateDir(ctx context.Context) error {
	d := getDaemon(ctx)
	if d.started() {
		return fmt.Errorf("the daemon has started already")
	}
	if d.proc != nil {
		d.stateFS, d.stateDir = vfs.NewFaulty(d.stateBase(), 1), "" // no PLURNK_STATE_DIR: the daemon's default
		return nil
	}
	d.stateFS, d.stateDir = vfs.NewFaulty(d.stateBase(), 1), rpc.DefaultStateDir("/home", workspace)
	return nil
}

// thenRunsListed compares the names of the runs a session.runs answer
// lists with want, comma-separated, in any order: which runs a session
// holds is the seed's, the order it lists them in a decision.
func thenRunsListed(ctx context.Context, who, want string) error {
	d := getDaemon(ctx)
	c, err := d.conn(who)
	if err != nil {
		return err
	}
	if c.answer.Error != nil {
		return fmt.Errorf("the answer to %q is an error: %s", who, c.answer.Raw)
	}
	var got []string
	for _, n := range gjson.GetBytes(c.answer.Result, "runs.#.name").Array() {
		got = append(got, n.String())
	}
	wantList := splitList(want)
	slices.Sort(got)
	slices.Sort(wantList)
	if !slices.Equal(got, wantList) {
		return fmt.Errorf("the answer to %q lists the runs %q, want %q", who, got, wantList)
	}
	return nil
}

// thenEqualsNoted compares a value of the answer with one noted earlier
// from another path ("I note the answer to …'s …").
func thenEqualsNoted(ctx context.Context, who, path, notedPath string) error {
	d := getDaemon(ctx)
	got, err := d.answerValue(who, path)
	if err != nil {
		return err
	}
	want, ok := d.noted[who+" "+notedPath]
	if !ok {
		return fmt.Errorf("no %s of %q was noted", notedPath, who)
	}
	if got != want {
		return fmt.Errorf("answer %s is %s, the noted %s %s", path, got, notedPath, want)
	}
	return nil
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
	coordRE := regexp.MustCompile(`(^|[^0-9/]|log:///)` + regexp.QuoteMeta(coord) + `([^0-9/]|$)`)
	statusRE := regexp.MustCompile(`(^|[^0-9])` + strconv.Itoa(status) + `([^0-9]|$)`)
	for _, line := range strings.Split(s.Content, "\n") {
		if coordRE.MatchString(line) && statusRE.MatchString(line) {
			return nil
		}
	}
	return fmt.Errorf("the errors section of packet %d has no line naming %s with status %d; it reads:\n%s", n, coord, status, s.Content)
}

// noteModelRun keeps the id of a session's model run with every connection
// attached to the session of caller, once an answer to caller (loop.run's)
// names it: the daemon allocates the model run on its first use, so
// session.create's answer does not (<A.modelRunId> reads it from there).
func (d *daemonWorld) noteModelRun(caller *daemonConn, result []byte) {
	id := gjson.GetBytes(result, "modelRunId")
	if caller == nil || !caller.session.Exists() || !id.Exists() || id.Int() == 0 {
		return
	}
	session := caller.session.Get("id").Int()
	for _, c := range d.conns {
		if !c.session.Exists() || c.session.Get("id").Int() != session || c.session.Get("modelRunId").Int() == id.Int() {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(c.session.Raw), &m); err != nil {
			continue
		}
		m["modelRunId"] = id.Value()
		b, err := json.Marshal(m)
		if err != nil {
			continue
		}
		c.session = gjson.ParseBytes(b)
	}
}

// lastHeard reduces the log/entry notifications of run to the rows they
// leave: each row as its last notification shows it, in the order the rows
// were first heard, a row announced deleted left out (every write to a row
// is announced, its append and each later change).
func lastHeard(notes []rpc.Note, run int64) []any {
	var order []int64
	last := map[int64]gjson.Result{}
	for _, n := range notes {
		e := gjson.GetBytes(n.Params, "entry")
		if e.Get("run_id").Int() != run {
			continue
		}
		id := e.Get("id").Int()
		if _, seen := last[id]; !seen {
			order = append(order, id)
		}
		last[id] = e
	}
	var out []any
	for _, id := range order {
		if e := last[id]; !e.Get("deleted").Bool() {
			out = append(out, e.Value())
		}
	}
	return out
}

// worldVary is the set of spec-permitted variations the embedded reference
// runs with: ANCHORAGE_VARY, "all" or names of config.Variations (make
// vary). Unset, the reference makes its own decisions.
func worldVary() (vary.Set, error) {
	s, err := vary.Parse(os.Getenv("ANCHORAGE_VARY"), config.Variations())
	if err != nil {
		return vary.Set{}, fmt.Errorf("ANCHORAGE_VARY: %w", err)
	}
	return s, nil
}

// catalogRows parses the last result as FIND's catalog: a JSON array of
// objects.
func catalogRows(ctx context.Context) ([]gjson.Result, error) {
	r, err := last(get(ctx))
	if err != nil {
		return nil, err
	}
	if !gjson.Valid(r.Content) || !gjson.Parse(r.Content).IsArray() {
		return nil, fmt.Errorf("the result %q (status %d) is not a JSON array", r.Content, r.Status)
	}
	return gjson.Parse(r.Content).Array(), nil
}

// thenCatalogShape checks every row of a FIND result against the seed's
// one shape, {path, seconds?, tags?, channels: {<uri>: {mimetype, tokens,
// lines}}}: a row has a path and its channels, each keyed by the path and
// a #channel fragment; seconds and tags may be there or not.
func thenCatalogShape(ctx context.Context) error {
	rows, err := catalogRows(ctx)
	if err != nil {
		return err
	}
	for i, row := range rows {
		path := row.Get("path")
		if path.Type != gjson.String || !row.Get("channels").IsObject() {
			return fmt.Errorf("catalog row %d has no path or no channels: %s", i+1, row.Raw)
		}
		var bad error
		row.ForEach(func(k, v gjson.Result) bool {
			switch k.String() {
			case "path", "channels":
			case "seconds":
				if v.Type != gjson.Number {
					bad = fmt.Errorf("catalog row %d: seconds %s is not a number", i+1, v.Raw)
				}
			case "tags":
				if !v.IsArray() {
					bad = fmt.Errorf("catalog row %d: tags %s is not an array", i+1, v.Raw)
				}
			default:
				bad = fmt.Errorf("catalog row %d has a member %q the shape does not have: %s", i+1, k.String(), row.Raw)
			}
			return bad == nil
		})
		if bad != nil {
			return bad
		}
		row.Get("channels").ForEach(func(k, v gjson.Result) bool {
			if !strings.HasPrefix(k.String(), path.String()+"#") {
				bad = fmt.Errorf("catalog row %d: channel %q is not keyed %s#<channel>", i+1, k.String(), path.String())
			}
			for _, m := range []string{"mimetype", "tokens", "lines"} {
				if !v.Get(m).Exists() {
					bad = fmt.Errorf("catalog row %d: channel %q has no %s: %s", i+1, k.String(), m, v.Raw)
				}
			}
			return bad == nil
		})
		if bad != nil {
			return bad
		}
	}
	return nil
}

// thenCatalogTags compares the tags of row n (1-based) with want,
// comma-separated ("" for none: no tags member, or an empty one).
func thenCatalogTags(ctx context.Context, n int, want string) error {
	rows, err := catalogRows(ctx)
	if err != nil {
		return err
	}
	if n < 1 || n > len(rows) {
		return fmt.Errorf("the catalog has %d rows, no row %d", len(rows), n)
	}
	got := []string{}
	for _, t := range rows[n-1].Get("tags").Array() {
		got = append(got, t.String())
	}
	wantList := splitList(want)
	if wantList == nil {
		wantList = []string{}
	}
	if !slices.Equal(got, wantList) {
		return fmt.Errorf("catalog row %d has the tags %q, want %q", n, got, wantList)
	}
	return nil
}

// thenCatalogLines compares the line count row n gives for its channel.
func thenCatalogLines(ctx context.Context, n, lines int, channel string) error {
	rows, err := catalogRows(ctx)
	if err != nil {
		return err
	}
	if n < 1 || n > len(rows) {
		return fmt.Errorf("the catalog has %d rows, no row %d", len(rows), n)
	}
	row := rows[n-1]
	key := strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`).Replace(row.Get("path").String() + "#" + channel)
	v := row.Get("channels." + key + ".lines")
	if !v.Exists() || v.Int() != int64(lines) {
		return fmt.Errorf("catalog row %d: the %s channel's lines are %s, want %d: %s", n, channel, v.Raw, lines, row.Raw)
	}
	return nil
}

// thenConcludedStatus checks that the session heard exactly one
// stream/concluded for target, with that close status (how the conclusion
// reached its run, its wake action, is a decision of its own).
func thenConcludedStatus(ctx context.Context, target string, status int) error {
	var seen []int
	for _, ev := range getRuns(ctx).drv.events() {
		if ev.Kind == runs.KindConcluded && ev.Target == target {
			seen = append(seen, ev.Status)
		}
	}
	if len(seen) != 1 || seen[0] != status {
		return fmt.Errorf("stream/concluded for %s: close statuses %v, want one, %d", target, seen, status)
	}
	return nil
}

// thenNotStatus checks that the last action answered anything but status
// (a matcher over content its mimetype parses is no 203, whatever it
// selects).
func thenNotStatus(ctx context.Context, status int) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	if r.Status == status {
		return fmt.Errorf("the action answered %d (%s)", r.Status, r.Reason)
	}
	return nil
}

// thenHasReason checks that the last action's result says why (a 203
// returns the raw content "with reason").
func thenHasReason(ctx context.Context) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	if strings.TrimSpace(r.Reason) == "" {
		return fmt.Errorf("the action answered %d with no reason", r.Status)
	}
	return nil
}

// thenChannelJSON compares a channel's content with want as JSON values:
// what a structural EDIT made of it, whatever its layout.
func thenChannelJSON(ctx context.Context, name, t, want string) error {
	ch, err := channel(get(ctx), name, t)
	if err != nil {
		return err
	}
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		return fmt.Errorf("the expected JSON does not parse: %w", err)
	}
	if err := json.Unmarshal([]byte(ch.Content), &g); err != nil {
		return fmt.Errorf("the %s channel of %s is no JSON value: %q", name, t, ch.Content)
	}
	if !reflect.DeepEqual(w, g) {
		return fmt.Errorf("the %s channel of %s holds %s, want the JSON value %s", name, t, ch.Content, want)
	}
	return nil
}
