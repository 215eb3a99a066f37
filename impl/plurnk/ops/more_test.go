package ops

import (
	"testing"

	"anchorage/impl/plurnk/store"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

func TestMoveKillFind(t *testing.T) {
	f := newFixture(t)
	var got []int
	for _, src := range []string{
		"<<EDIT[a](known:///x.md):hello\nTODO later:EDIT",
		"<<MOVE(known:///x.md):unknown:///y.md:MOVE",
		"<<READ(known:///x.md)::READ",
		"<<MOVE(known:///x.md):unknown:///z.md:MOVE",
		"<<MOVE(unknown:///y.md)::MOVE",
		"<<COPY(unknown:///y.md):known:///y.md:COPY",
		"<<COPY(unknown:///y.md):known:///y.md:COPY",
		"<<EDIT(known:///w.md):other:EDIT",
		"<<COPY(unknown:///y.md):known:///w.md:COPY",
		"<<KILL(known:///y.md#symbols)::KILL",
		"<<KILL(known:///y.md)::KILL",
		"<<KILL(known:///y.md)::KILL",
	} {
		got = append(got, f.do(t, src).Status)
	}
	want := []int{201, 201, 404, 404, 400, 201, 304, 201, 409, 404, 200, 404}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("statuses (-want +got):\n%s", d)
	}
	r := f.do(t, "<<FIND[a](unknown:///**):/TODO/:FIND")
	if r.Status != 200 || gjson.Get(r.Content, "#").Int() != 1 || gjson.Get(r.Content, "0.path").String() != "unknown:///y.md" {
		t.Fatalf("find: %d %s", r.Status, r.Content)
	}
	if r := f.do(t, "<<FIND[nope](unknown:///**)::FIND"); r.Status != 204 {
		t.Fatalf("find with an absent tag: %d", r.Status)
	}
}

func TestStoreRollsBack(t *testing.T) {
	f := newFixture(t)
	k := store.Key{Scope: store.ScopeSession, Scheme: "known", Path: "/a"}
	err := f.eng.Store.Update(f.actor.Session, func(tx *store.Tx) error {
		if err := tx.Put(&store.Entry{Key: k, Channels: map[string]store.Channel{"body": {Content: "x"}}}); err != nil {
			return err
		}
		panic("boom")
	})
	if err == nil || f.actor.Session.Entry(k) != nil {
		t.Fatalf("err %v, entry %v: want the write rolled back", err, f.actor.Session.Entry(k))
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	f := newFixture(t)
	f.do(t, "<<EDIT[t](known:///a.md):hello:EDIT")
	if err := f.eng.Store.Snapshot(f.fs, "/snap.json"); err != nil {
		t.Fatal(err)
	}
	before := f.actor.Session.Entries()
	if err := f.eng.Store.Restore(f.fs, "/snap.json"); err != nil {
		t.Fatal(err)
	}
	ss, err := f.eng.Store.Session(f.actor.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, ss.Entries()); d != "" {
		t.Fatalf("entries after restore (-want +got):\n%s", d)
	}
}
