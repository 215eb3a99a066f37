package world

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/spf13/afero"

	"anchorage/sim/seed"
	"anchorage/sim/vfs"
)

var seedFlag = flag.String("seed", "", "master seed (default: $ANCHORAGE_SEED, else the fixed default)")

// simulate is a representative simulation: writers append to files at
// seeded intervals through a filesystem with seeded faults, and a polling
// watcher reports what it sees. Every event goes to the trace.
func simulate(s seed.Seeds) *World {
	w := New(s)
	if err := w.Fs.Arm(vfs.Fault{Point: vfs.ShortWrite, Pattern: "/debug/*", Prob: 0.1}); err != nil {
		panic(err) // a programming error in the test itself
	}
	watcher := vfs.NewWatcher(w.Fs, "/debug")
	stop := watcher.Poll(w.Clock, 150*time.Millisecond, func(ch []vfs.Change, err error) {
		for _, c := range ch {
			w.Trace.Record("watcher", "%s %s size=%d", c.Kind, c.Path, c.Size)
		}
		if err != nil {
			w.Trace.Record("watcher", "error %v", err)
		}
	})
	defer stop()
	for i := range 4 {
		name := fmt.Sprintf("writer-%d", i)
		rng := w.Seeds.Rand("determinism/" + name)
		file := fmt.Sprintf("/debug/page-%d.md", i%2)
		var write func(n int)
		write = func(n int) {
			f, err := w.Fs.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				w.Trace.Record(name, "open: %v", err)
				return
			}
			k, err := f.Write([]byte(fmt.Sprintf("%s line %d %x\n", name, n, rng.Uint32())))
			f.Close()
			w.Trace.Record(name, "wrote %d bytes (err=%v)", k, err)
			if n < 20 {
				w.Clock.AfterFunc(time.Duration(rng.IntN(400)+1)*time.Millisecond, func() { write(n + 1) })
			}
		}
		w.Clock.AfterFunc(time.Duration(rng.IntN(100))*time.Millisecond, func() { write(0) })
	}
	w.Clock.Advance(30 * time.Second)
	for _, name := range []string{"/debug/page-0.md", "/debug/page-1.md"} {
		b, err := afero.ReadFile(w.Fs, name)
		w.Trace.Record("final", "%s %d bytes err=%v", name, len(b), err)
	}
	return w
}

func TestDeterminism(t *testing.T) {
	s, err := seed.Resolve(*seedFlag)
	if err != nil {
		t.Fatal(err)
	}
	a, b := simulate(s), simulate(s)
	if a.Trace.Hash() != b.Trace.Hash() {
		t.Fatalf("two runs with seed %d differ:\n--- first\n%s\n--- second\n%s\nreplay: %s",
			s.Master(), a.Trace, b.Trace, s.Replay("./sim/world", "TestDeterminism"))
	}
	if len(a.Trace.Lines()) < 80 {
		t.Fatalf("the simulation did too little to prove anything: %d events\nreplay: %s",
			len(a.Trace.Lines()), s.Replay("./sim/world", "TestDeterminism"))
	}
	if len(a.Fs.Injections()) == 0 {
		t.Fatalf("no fault fired with seed %d; the simulation should exercise faults\nreplay: %s",
			s.Master(), s.Replay("./sim/world", "TestDeterminism"))
	}
	other := simulate(seed.New(s.Master() + 1))
	if other.Trace.Hash() == a.Trace.Hash() {
		t.Fatalf("seeds %d and %d gave the same trace: the seed does not reach the simulation", s.Master(), s.Master()+1)
	}
}
