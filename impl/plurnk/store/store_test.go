package store

import (
	"errors"
	"strings"
	"testing"
	"time"

	"anchorage/sim/clock"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
	"pgregory.net/rapid"
)

type fataler interface{ Fatal(args ...any) }

func newStore(t fataler) (*Store, *Session, *Run) {
	s := New(clock.NewSim(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	ss, err := s.NewSession("model")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ss.Run("model")
	if err != nil {
		t.Fatal(err)
	}
	return s, ss, r
}

func key(p string) Key { return Key{Scope: ScopeSession, Scheme: "known", Path: p} }

func body(s string) map[string]Channel { return map[string]Channel{"body": {Content: s}} }

// state is everything a transaction can change, compared by value.
type state struct {
	Entries []*Entry
	Logs    map[string][]LogRow
}

func capture(ss *Session) state {
	st := state{Entries: ss.Entries(), Logs: map[string][]LogRow{}}
	for _, r := range ss.Runs {
		rows := []LogRow{}
		for _, row := range r.Log {
			rows = append(rows, *row)
		}
		st.Logs[r.Name] = rows
	}
	return st
}

func TestSessionHasTheModelRunAndThePlurnkRun(t *testing.T) {
	_, ss, _ := newStore(t)
	var names []string
	for _, r := range ss.Runs {
		names = append(names, r.Name)
	}
	if d := cmp.Diff([]string{"model", PlurnkRun}, names); d != "" {
		t.Fatal(d)
	}
	s := New(clock.NewSim(time.Time{}))
	if _, err := s.NewSession(PlurnkRun); err == nil {
		t.Fatal("a model run named plurnk was accepted")
	}
	if _, err := s.AddRun(ss, "model"); err == nil {
		t.Fatal("a second run named model was accepted")
	}
	if _, err := ss.Run("nobody"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("absent run: %v", err)
	}
	if _, err := s.Session(999); !errors.Is(err, ErrNotFound) {
		t.Fatalf("absent session: %v", err)
	}
}

// Every kind of change a transaction makes — put, overwrite, delete, log
// append, log delete, expanded flip, a rollback hook — is undone when it
// fails, whether by error or by panic.
func TestFailedTransactionRollsBackEverything(t *testing.T) {
	for _, how := range []string{"error", "panic"} {
		t.Run(how, func(t *testing.T) {
			s, ss, r := newStore(t)
			if err := s.Update(ss, func(tx *Tx) error {
				for _, p := range []string{"/a", "/b"} {
					if err := tx.Put(&Entry{Key: key(p), Channels: body("v1 " + p), Tags: []string{"t"}}); err != nil {
						return err
					}
				}
				tx.AppendLog(r, &LogRow{Loop: 1, Turn: 1, Seq: 1, Op: "EDIT", Expanded: true})
				tx.AppendLog(r, &LogRow{Loop: 1, Turn: 1, Seq: 2, Op: "READ", Expanded: true})
				tx.AppendLog(r, &LogRow{Loop: 1, Turn: 1, Seq: 3, Op: "READ", Expanded: false})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			before := capture(ss)
			hooked := false
			err := s.Update(ss, func(tx *Tx) error {
				a := tx.Get(key("/a"))
				a.Channels["body"] = Channel{Content: "v2"}
				a.AddTags("new")
				if err := tx.Put(a); err != nil {
					return err
				}
				if !tx.Delete(key("/b")) {
					t.Fatal("delete of /b found nothing")
				}
				if err := tx.Put(&Entry{Key: key("/c"), Channels: body("c")}); err != nil {
					return err
				}
				tx.OnRollback(func() { hooked = true })
				if !tx.SetExpanded(r, r.Log[0].ID, false) {
					t.Fatal("fold of row 1 did nothing")
				}
				if !tx.DeleteLog(r, r.Log[1].ID) {
					t.Fatal("delete of row 2 found nothing")
				}
				tx.AppendLog(r, &LogRow{Loop: 1, Turn: 2, Seq: 1, Op: "KILL"})
				if !tx.SetExpanded(r, r.Log[1].ID, true) {
					t.Fatal("open of row 3 did nothing")
				}
				if how == "panic" {
					panic("boom")
				}
				return errors.New("boom")
			})
			if err == nil {
				t.Fatal("the failed transaction reported no error")
			}
			if how == "panic" && !errors.Is(err, ErrPanic) {
				t.Fatalf("a panic came back as %v", err)
			}
			if !hooked {
				t.Fatal("the rollback hook did not run")
			}
			if d := cmp.Diff(before, capture(ss)); d != "" {
				t.Fatalf("state after rollback (-before +after):\n%s", d)
			}
		})
	}
}

// A random sequence of changes, then a failure, leaves the session exactly
// as it was before the transaction.
func TestRollbackProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s, ss, r := newStore(rt)
		paths := []string{"/a", "/b", "/c"}
		seedN := rapid.IntRange(0, 3).Draw(rt, "seed entries")
		_ = s.Update(ss, func(tx *Tx) error {
			for i := 0; i < seedN; i++ {
				_ = tx.Put(&Entry{Key: key(paths[i]), Channels: body("seed")})
				tx.AppendLog(r, &LogRow{Loop: 1, Turn: 1, Seq: i + 1, Op: "EDIT", Expanded: true})
			}
			return nil
		})
		before := capture(ss)
		_ = s.Update(ss, func(tx *Tx) error {
			steps := rapid.IntRange(0, 12).Draw(rt, "steps")
			for i := 0; i < steps; i++ {
				p := rapid.SampledFrom(paths).Draw(rt, "path")
				switch rapid.IntRange(0, 4).Draw(rt, "kind") {
				case 0:
					_ = tx.Put(&Entry{Key: key(p), Channels: body(rapid.String().Draw(rt, "content"))})
				case 1:
					tx.Delete(key(p))
				case 2:
					tx.AppendLog(r, &LogRow{Loop: 2, Turn: 1, Seq: i, Op: "READ"})
				case 3:
					if len(r.Log) > 0 {
						tx.DeleteLog(r, r.Log[rapid.IntRange(0, len(r.Log)-1).Draw(rt, "row")].ID)
					}
				case 4:
					if len(r.Log) > 0 {
						tx.SetExpanded(r, r.Log[rapid.IntRange(0, len(r.Log)-1).Draw(rt, "row")].ID, rapid.Bool().Draw(rt, "open"))
					}
				}
			}
			return errors.New("fail")
		})
		if d := cmp.Diff(before, capture(ss)); d != "" {
			rt.Fatalf("(-before +after):\n%s", d)
		}
	})
}

func TestPutAssignsIDsAndTimes(t *testing.T) {
	s, ss, _ := newStore(t)
	var first, second *Entry
	_ = s.Update(ss, func(tx *Tx) error {
		first = &Entry{Key: key("/a"), Channels: body("x")}
		return tx.Put(first)
	})
	s.clock.(*clock.Sim).Advance(time.Minute)
	_ = s.Update(ss, func(tx *Tx) error {
		second = &Entry{Key: key("/a"), Channels: body("y")}
		return tx.Put(second)
	})
	if first.ID == 0 || second.ID != first.ID {
		t.Fatalf("ids %d then %d: an overwrite keeps the entry's id", first.ID, second.ID)
	}
	if !second.Created.Equal(first.Created) || second.Updated.Sub(first.Updated) != time.Minute {
		t.Fatalf("created %v→%v, updated %v→%v", first.Created, second.Created, first.Updated, second.Updated)
	}
	if got := ss.Entry(key("/a")).Channels["body"].State; got != StateStatic {
		t.Fatalf("a channel written without a state is %q, want static", got)
	}
}

// The engine's one limit: a channel body of MaxChannelChars characters is
// stored, one more fails the write with ErrChannelTooLarge and stores
// nothing. Characters are counted, not bytes.
func TestChannelCap(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 2×100 MB")
	}
	s, ss, _ := newStore(t)
	atCap := strings.Repeat("x", MaxChannelChars-1) + "é" // MaxChannelChars characters, one byte more
	err := s.Update(ss, func(tx *Tx) error {
		return tx.Put(&Entry{Key: key("/big"), Channels: body(atCap)})
	})
	if err != nil {
		t.Fatalf("a body of exactly %d characters: %v", MaxChannelChars, err)
	}
	over := strings.Repeat("y", MaxChannelChars+1)
	err = s.Update(ss, func(tx *Tx) error {
		if err := tx.Put(&Entry{Key: key("/other"), Channels: body("small")}); err != nil {
			return err
		}
		return tx.Put(&Entry{Key: key("/big"), Channels: body(over)})
	})
	if !errors.Is(err, ErrChannelTooLarge) {
		t.Fatalf("a body one character over the cap: %v", err)
	}
	if got := ss.Entry(key("/big")).Channels["body"].Content; len(got) != len(atCap) || got[0] != 'x' {
		t.Fatal("the over-cap write replaced the stored body")
	}
	if ss.Entry(key("/other")) != nil {
		t.Fatal("the write before the over-cap one in the same transaction was kept")
	}
}

func TestSnapshotRestoreRoundTrip(t *testing.T) {
	fs := afero.NewMemMapFs()
	s, ss, r := newStore(t)
	if _, err := s.AddRun(ss, "B"); err != nil {
		t.Fatal(err)
	}
	l := s.BeginLoop(r)
	s.NextTurn(l)
	err := s.Update(ss, func(tx *Tx) error {
		if err := tx.Put(&Entry{Key: key("/a.md"), Channels: map[string]Channel{
			"body":    {Content: "hello\n", Mimetype: "text/markdown", Tokens: 2},
			"symbols": {Content: "[]", Mimetype: "application/json", State: StateClosed},
		}, Tags: []string{"x", "y"}}); err != nil {
			return err
		}
		if err := tx.Put(&Entry{Key: Key{Scope: ScopeRun, Owner: "B", Scheme: "run", Path: "/notes.md"}, Channels: body("mine")}); err != nil {
			return err
		}
		tx.AppendLog(r, &LogRow{Loop: 1, Turn: 1, Seq: 1, Op: "EDIT", Origin: "model", Target: "known:///a.md", Status: 201, Expanded: true, Tx: "<<EDIT(known:///a.md):hello:EDIT"})
		tx.AppendLog(r, &LogRow{Loop: 1, Turn: 1, Seq: 2, Op: "READ", Status: 404, Reason: "absent"})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sessionsBefore := map[int64]state{ss.ID: capture(ss)}
	runsBefore := ss.Runs
	if err := s.Snapshot(fs, "/snap/store.json"); err != nil {
		t.Fatal(err)
	}
	nextBefore := s.nextID

	fresh := New(clock.NewSim(time.Time{}))
	if err := fresh.Restore(fs, "/snap/store.json"); err != nil {
		t.Fatal(err)
	}
	got, err := fresh.Session(ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sessionsBefore[ss.ID], capture(got)); d != "" {
		t.Fatalf("entries and logs after restore (-before +after):\n%s", d)
	}
	if d := cmp.Diff(runsBefore, got.Runs); d != "" {
		t.Fatalf("runs after restore (-before +after):\n%s", d)
	}
	if fresh.nextID != nextBefore {
		t.Fatalf("next id %d, want %d: restored ids would collide", fresh.nextID, nextBefore)
	}
	// A snapshot of the restored store is byte-identical.
	if err := fresh.Snapshot(fs, "/snap/again.json"); err != nil {
		t.Fatal(err)
	}
	a, _ := afero.ReadFile(fs, "/snap/store.json")
	b, _ := afero.ReadFile(fs, "/snap/again.json")
	if string(a) != string(b) {
		t.Fatal("snapshot → restore → snapshot changed the bytes")
	}
	// The restored store keeps working: a write in it gets a fresh id.
	var e *Entry
	if err := fresh.Update(got, func(tx *Tx) error {
		e = &Entry{Key: key("/new"), Channels: body("n")}
		return tx.Put(e)
	}); err != nil {
		t.Fatal(err)
	}
	if e.ID <= nextBefore {
		t.Fatalf("new entry id %d reuses an id ≤ %d", e.ID, nextBefore)
	}
}

func TestRestoreReportsMissingAndCorruptSnapshots(t *testing.T) {
	fs := afero.NewMemMapFs()
	s := New(clock.NewSim(time.Time{}))
	if err := s.Restore(fs, "/none.json"); err == nil {
		t.Fatal("restoring a missing file succeeded")
	}
	_ = afero.WriteFile(fs, "/bad.json", []byte("{not json"), 0o644)
	if err := s.Restore(fs, "/bad.json"); err == nil {
		t.Fatal("restoring a corrupt file succeeded")
	}
	if err := s.Snapshot(afero.NewReadOnlyFs(fs), "/ro.json"); err == nil {
		t.Fatal("a snapshot onto a read-only fs succeeded")
	}
}

func TestTagsAndKeys(t *testing.T) {
	e := &Entry{}
	if n := e.AddTags("b", "a", "b", ""); n != 2 {
		t.Fatalf("added %d", n)
	}
	if d := cmp.Diff([]string{"a", "b"}, e.Tags); d != "" {
		t.Fatal(d)
	}
	if !e.HasTag("a") || e.HasTag("z") {
		t.Fatalf("tags %v", e.Tags)
	}
	if got := (Key{Scope: ScopeRun, Owner: "B", Scheme: "run", Path: "/n.md"}).String(); got != "run://B/n.md" {
		t.Fatal(got)
	}
	if got := key("/x").String(); got != "known:///x" {
		t.Fatal(got)
	}
	row := &LogRow{Loop: 1, Turn: 2, Seq: 3, Op: "READ", Tx: "<<READ(x)::READ"}
	if row.Handle() != "1/2/3/READ" || row.Body() != row.Tx {
		t.Fatalf("handle %s, body %q", row.Handle(), row.Body())
	}
	row.Content = "1:\tx\n"
	if row.Body() != row.Content {
		t.Fatal("a row with content shows its statement")
	}
}
