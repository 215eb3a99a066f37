package exec

import (
	"sort"
	"strconv"
	"strings"

	"anchorage/impl/plurnk/store"
)

// Cursor is how far one channel has been surfaced to a run: the bytes
// already shown, the lines they held, and whether the final (closed or
// errored) slice has been shown.
type Cursor struct {
	Offset int
	Lines  int
	Done   bool
}

// Surfacing is one slice of a channel's new output, as the engine foists it
// into a run's log: an origin=plurnk READ of Target whose numbering starts
// at StartLine and continues the earlier slices. Folded is true while the
// channel is still streaming; the final slice, once the channel has closed
// or errored, is opened.
type Surfacing struct {
	Target    string // <runtime>:///<loop>/<turn>/<seq>#<channel>
	Channel   string
	State     store.State
	StartLine int
	Lines     int
	Text      string // the new bytes, exactly as streamed
	Numbered  string // Text as "<line>:\t<content>\n" lines
	Folded    bool
	Final     bool
}

// Surface returns the slice of ch past cur and the advanced cursor. While
// the channel is active only whole lines are surfaced (a trailing partial
// line waits for its newline, so numbering never splits a line); once it
// has closed or errored everything left is surfaced, once, as the final
// slice. ok is false when there is nothing new to show.
func Surface(target string, ch store.Channel, cur Cursor) (Surfacing, Cursor, bool) {
	if cur.Done {
		return Surfacing{}, cur, false
	}
	final := ch.State == store.StateClosed || ch.State == store.StateErrored || ch.State == store.StateStatic
	rest := ch.Content[min(cur.Offset, len(ch.Content)):]
	if !final {
		i := strings.LastIndexByte(rest, '\n')
		if i < 0 {
			return Surfacing{}, cur, false
		}
		rest = rest[:i+1]
	}
	lines := splitLines(rest)
	out := Surfacing{
		Target: target, Channel: "", State: ch.State, StartLine: cur.Lines + 1, Lines: len(lines),
		Text: rest, Folded: !final, Final: final,
	}
	if i := strings.LastIndexByte(target, '#'); i >= 0 {
		out.Channel = target[i+1:]
	}
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(strconv.Itoa(cur.Lines + 1 + i))
		b.WriteString(":\t")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	out.Numbered = b.String()
	next := Cursor{Offset: cur.Offset + len(rest), Lines: cur.Lines + len(lines), Done: final}
	return out, next, true
}

// splitLines splits s into its lines; a final line without a newline still
// counts.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return ls
}

// Cursors holds one run's cursors, one per channel of each stream it
// watches, keyed by the channel's target.
type Cursors struct {
	m map[string]Cursor
}

// NewCursors returns cursors that have surfaced nothing.
func NewCursors() *Cursors { return &Cursors{m: map[string]Cursor{}} }

// Next surfaces each channel of the output entry e (in channel name order)
// past its cursor and advances the cursors: the slices the engine foists
// this turn.
func (c *Cursors) Next(e *store.Entry) []Surfacing {
	names := make([]string, 0, len(e.Channels))
	for n := range e.Channels {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Surfacing
	for _, n := range names {
		t := e.Key.String() + "#" + n
		s, next, ok := Surface(t, e.Channels[n], c.m[t])
		c.m[t] = next
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// Cursor returns the cursor of target.
func (c *Cursors) Cursor(target string) Cursor { return c.m[target] }
