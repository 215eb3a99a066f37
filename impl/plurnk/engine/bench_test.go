package engine

import (
	"fmt"
	"testing"

	"anchorage/impl/plurnk/store"
)

// benchFixture is a run with entries session entries and rows log rows.
func benchFixture(b *testing.B, entries, rows int) *fixture {
	f := newFixture(b, nil)
	f.llm.Context = 1 << 30
	err := f.st.Update(f.ss, func(tx *store.Tx) error {
		for i := 0; i < entries; i++ {
			e := &store.Entry{Key: store.Key{Scope: store.ScopeSession, Scheme: "known", Path: fmt.Sprintf("/notes/n%04d.md", i)},
				Channels: map[string]store.Channel{"body": {Content: fmt.Sprintf("note %d\nsecond line\n", i), Mimetype: "text/markdown"}}}
			if err := tx.Put(e); err != nil {
				return err
			}
		}
		for i := 0; i < rows; i++ {
			tx.AppendLog(f.run, &store.LogRow{Loop: 1, Turn: 1 + i/10, Seq: 1 + i%10, Op: "READ", Origin: "model",
				Target: fmt.Sprintf("known:///notes/n%04d.md", i%entries), Status: 200, Expanded: i%3 != 0,
				Content: fmt.Sprintf("1:\tnote %d\n2:\tsecond line\n", i), Mimetype: "text/markdown"})
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return f
}

func benchAssemble(b *testing.B, entries, rows int) {
	f := benchFixture(b, entries, rows)
	req := Request{Session: f.ss, Run: f.run, Prompt: "benchmark"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.eng.Assemble(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAssemble500 assembles a packet over 1,000 entries and 500 log rows.
func BenchmarkAssemble500(b *testing.B) { benchAssemble(b, 1000, 500) }

// BenchmarkAssemble5000 is the same at 5,000 rows: growth must stay linear.
func BenchmarkAssemble5000(b *testing.B) { benchAssemble(b, 1000, 5000) }
