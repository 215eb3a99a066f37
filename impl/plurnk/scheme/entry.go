package scheme

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"anchorage/impl/plurnk/store"
	"github.com/spf13/afero"
)

// Entries is a scheme whose entries live in the session store: known,
// unknown, plurnk, skill, and the exec output schemes.
type Entries struct {
	M Manifest
}

// Manifest returns the scheme's manifest.
func (s *Entries) Manifest() Manifest { return s.M }

// Load returns the stored entry at k, or nil.
func (s *Entries) Load(c Call, k store.Key) (*store.Entry, error) {
	return c.Tx.Get(k), nil
}

// Save stores e.
func (s *Entries) Save(c Call, e *store.Entry) error { return c.Tx.Put(e) }

// Remove deletes the entry at k.
func (s *Entries) Remove(c Call, k store.Key) (bool, error) { return c.Tx.Delete(k), nil }

// List returns the scheme's session-scope entries.
func (s *Entries) List(c Call) ([]*store.Entry, error) {
	var out []*store.Entry
	for _, e := range c.Tx.Session.Entries() {
		if e.Key.Scheme == s.M.Name && e.Key.Scope == store.ScopeSession {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *store.Entry) int { return strings.Compare(a.Key.Path, b.Key.Path) })
	return out, nil
}

func allWriters() []Writer { return []Writer{WriterModel, WriterClient, WriterPlurnk, WriterPlugin} }

// Known is the scheme of the model's own notes, known:///… .
func Known() *Entries {
	return &Entries{M: Manifest{Name: "known", Channels: map[string]ChannelSpec{"body": {}, "symbols": {Mimetype: "application/json"}}, DefaultChannel: "body", WritableBy: allWriters(),
		Example: "<<EDIT(known:///plan.md):what to keep:EDIT", Doc: docKnown}}
}

// Unknown is the scheme of the model's open questions, unknown:///… .
func Unknown() *Entries {
	return &Entries{M: Manifest{Name: "unknown", Channels: map[string]ChannelSpec{"body": {}}, DefaultChannel: "body", WritableBy: allWriters(),
		Example: "<<EDIT(unknown:///question.md):what is still open:EDIT", Doc: docUnknown}}
}

// Plurnk is the scheme of the runtime's own entries (prompts, operator
// docs): only the plurnk run and clients write it.
func Plurnk() *Entries {
	return &Entries{M: Manifest{Name: "plurnk", Channels: map[string]ChannelSpec{"body": {}}, DefaultChannel: "body", WritableBy: []Writer{WriterPlurnk, WriterClient}}}
}

// Skill is the scheme of skills a client installs: the model reads them.
func Skill() *Entries {
	return &Entries{M: Manifest{Name: "skill", Channels: map[string]ChannelSpec{"body": {Mimetype: "text/markdown"}}, DefaultChannel: "body", WritableBy: []Writer{WriterClient, WriterPlurnk},
		Example: "<<READ(skill:///name.md)::READ", Doc: docSkill}}
}

// Exec is the output scheme of one EXEC runtime: an entry
// <runtime>:///<loop>/<turn>/<seq> with stdout and stderr channels that only
// the runtime (acting as plurnk) writes.
func Exec(runtime string) *Entries {
	return &Entries{M: Manifest{Name: runtime, Channels: map[string]ChannelSpec{
		"stdout": {Mimetype: "text/plain"}, "stderr": {Mimetype: "text/plain"},
	}, DefaultChannel: "stdout", WritableBy: []Writer{WriterPlurnk}}}
}

// Spawns is the exec:// scheme, the process-control face of every EXEC:
// exec:///<loop>/<turn>/<seq> names the spawn at that coordinate, whatever
// its runtime, so that SEND[499] and KILL on it reach the process (through
// the canceller subscribed for "exec"). It holds no entries of its own: the
// output lives at <runtime>:///<loop>/<turn>/<seq>, so a READ answers 404
// and nobody writes it. It has no usage line in the packet.
func Spawns() *Entries {
	e := Exec(SpawnScheme) // the output schemes' channels, so a fragment resolves alike
	e.M.WritableBy = nil
	return e
}

// SpawnScheme names the exec:// face of the spawns (Spawns).
const SpawnScheme = "exec"

// ExecKey returns the key of the output entry of the EXEC at loop/turn/seq.
func ExecKey(runtime string, loop, turn, seq int) store.Key {
	return store.Key{Scope: store.ScopeSession, Scheme: runtime, Path: fmt.Sprintf("/%d/%d/%d", loop, turn, seq)}
}

// OpenStream creates the output entry at k with its channels empty and
// active. It is the exec scheme's side of a spawn.
func OpenStream(tx *store.Tx, m Manifest, k store.Key) error {
	e := &store.Entry{Key: k, Channels: map[string]store.Channel{}}
	for _, n := range m.ChannelNames() {
		e.Channels[n] = store.Channel{Mimetype: m.Channels[n].Mimetype, State: store.StateActive}
	}
	return tx.Put(e)
}

// AppendChunk appends chunk to channel ch of the stream at k, as it
// arrives.
func AppendChunk(tx *store.Tx, k store.Key, ch, chunk string) error {
	e := tx.Get(k)
	if e == nil {
		return fmt.Errorf("append to %s#%s: %w", k, ch, store.ErrNotFound)
	}
	c, ok := e.Channels[ch]
	if !ok {
		return fmt.Errorf("append to %s#%s: no such channel", k, ch)
	}
	c.Content += chunk
	e.Channels[ch] = c
	return tx.Put(e)
}

// SetState moves every channel of the stream at k to state s, as the
// process behind it exits (closed) or fails (errored).
func SetState(tx *store.Tx, k store.Key, s store.State) error {
	e := tx.Get(k)
	if e == nil {
		return fmt.Errorf("set state of %s: %w", k, store.ErrNotFound)
	}
	for n, c := range e.Channels {
		c.State = s
		e.Channels[n] = c
	}
	return tx.Put(e)
}

// Log is the log:/// scheme: the calling run's own log rows, addressed
// log:///<loop>/<turn>/<seq>, or by their handle log:///<loop>/<turn>/<seq>/<OP>.
// A row is atomic: its one body channel holds the row's body (its result, or
// its statement when the action returned no content). Rows are written by
// the engine only; the run may delete them (KILL) and flip their expanded
// bit (OPEN/FOLD, in the ops package).
type Log struct{}

// Manifest returns the log scheme's manifest: one body channel, no writers.
func (Log) Manifest() Manifest {
	return Manifest{Name: "log", Channels: map[string]ChannelSpec{"body": {}}, DefaultChannel: "body",
		Example: "<<FOLD(log:///1/1/1)::FOLD", Doc: docLog}
}

// ParseCoord reads a log:/// path, /L/T/S or /L/T/S/OP. It reports false
// for anything else (a glob, a partial coordinate).
func ParseCoord(p string) (loop, turn, seq int, op string, ok bool) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) != 3 && len(parts) != 4 {
		return 0, 0, 0, "", false
	}
	var n [3]int
	for i := range n {
		v, err := strconv.Atoi(parts[i])
		if err != nil || v < 0 || strconv.Itoa(v) != parts[i] {
			return 0, 0, 0, "", false
		}
		n[i] = v
	}
	if len(parts) == 4 {
		if parts[3] == "" {
			return 0, 0, 0, "", false
		}
		op = strings.ToUpper(parts[3])
	}
	return n[0], n[1], n[2], op, true
}

// FindRow returns the row of r a log:/// path names, or nil. A handle's op
// must be the row's op.
func FindRow(r *store.Run, p string) *store.LogRow {
	l, t, s, op, ok := ParseCoord(p)
	if !ok || r == nil {
		return nil
	}
	row := r.Row(l, t, s)
	if row == nil || (op != "" && !strings.EqualFold(op, row.Op)) {
		return nil
	}
	return row
}

// RowEntry presents a log row as an entry at key k.
func RowEntry(row *store.LogRow, k store.Key) *store.Entry {
	mt := row.Mimetype
	if row.Content == "" {
		mt = "text/vnd.plurnk"
	} else if mt == "" {
		mt = "text/plain"
	}
	return &store.Entry{ID: row.ID, Key: k, Channels: map[string]store.Channel{"body": {Content: row.Body(), Mimetype: mt, State: store.StateStatic}}}
}

// Load returns the calling run's row at the path's coordinate as an entry.
func (Log) Load(c Call, k store.Key) (*store.Entry, error) {
	row := FindRow(c.Run, k.Path)
	if row == nil {
		return nil, nil
	}
	return RowEntry(row, k), nil
}

// Save refuses: log rows are written by the engine only.
func (Log) Save(c Call, e *store.Entry) error {
	return Errorf(403, "log rows are written by the engine")
}

// Remove deletes the calling run's row at the path's coordinate.
func (Log) Remove(c Call, k store.Key) (bool, error) {
	row := FindRow(c.Run, k.Path)
	if row == nil {
		return false, nil
	}
	return c.Tx.DeleteLog(c.Run, row.ID), nil
}

// List returns the calling run's rows as entries, in log order.
func (l Log) List(c Call) ([]*store.Entry, error) {
	if c.Run == nil {
		return nil, nil
	}
	var out []*store.Entry
	for _, r := range c.Run.Log {
		out = append(out, RowEntry(r, store.Key{Scope: store.ScopeSession, Scheme: "log", Path: "/" + r.Coord()}))
	}
	return out, nil
}

// Defaults returns the registry of the 0.56 entry schemes over the
// workspace fs rooted at root, with output schemes for the given EXEC
// runtimes and, when there is one, the exec:// face of their spawns.
func Defaults(fs afero.Fs, root string, runtimes ...string) (*Registry, error) {
	p := Plurnk()
	hs := []Handler{Known(), Unknown(), p, Skill(), Log{}, NewFile(fs, root)}
	for _, rt := range runtimes {
		hs = append(hs, Exec(rt))
	}
	if len(runtimes) > 0 {
		hs = append(hs, Spawns())
	}
	reg, err := NewRegistry(hs...)
	if err != nil {
		return nil, err
	}
	return reg, nil
}

// DocsPrefix is where the schemes' documentation lives: the plurnk entry
// plurnk://docs/<scheme>.md of every registered scheme that ships a Doc,
// which each loop materializes (§schemes-directory).
const DocsPrefix = "plurnk://docs/"
