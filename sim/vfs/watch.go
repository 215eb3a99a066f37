package vfs

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"sort"
	"sync"
	"time"

	"github.com/spf13/afero"

	"anchorage/sim/clock"
)

// ChangeKind says what happened to a watched file between two scans.
type ChangeKind int

// The kinds of change a Watcher reports.
const (
	Created ChangeKind = iota + 1
	Modified
	Removed
)

func (k ChangeKind) String() string {
	switch k {
	case Created:
		return "created"
	case Modified:
		return "modified"
	case Removed:
		return "removed"
	}
	return fmt.Sprintf("ChangeKind(%d)", int(k))
}

// Change is one file that differs from the previous scan.
type Change struct {
	Path string
	Kind ChangeKind
	Size int64
}

type signature struct {
	size int64
	mod  time.Time
	sum  [32]byte
}

// Watcher finds changed files under a root by polling: it compares size and
// mtime, and hashes a file's content only when those differ or tie within
// one instant. The first Scan reports every existing file as Created.
type Watcher struct {
	fs   afero.Fs
	root string
	prev map[string]signature
}

// NewWatcher returns a watcher of the regular files below root.
func NewWatcher(fsys afero.Fs, root string) *Watcher {
	return &Watcher{fs: fsys, root: root, prev: map[string]signature{}}
}

// Scan walks the root once and returns the changes since the last scan,
// sorted by path. A missing root is an empty tree, not an error.
func (w *Watcher) Scan() ([]Change, error) {
	cur := map[string]signature{}
	var changes []Change
	err := afero.Walk(w.fs, w.root, func(p string, fi fs.FileInfo, err error) error {
		if err != nil {
			if p == w.root {
				return fs.SkipAll
			}
			return nil // vanished between listing and stat: it shows as removed
		}
		if fi.IsDir() {
			return nil
		}
		s := signature{size: fi.Size(), mod: fi.ModTime()}
		old, seen := w.prev[p]
		if seen && old.size == s.size && old.mod.Equal(s.mod) {
			s.sum = old.sum
		} else {
			b, rerr := afero.ReadFile(w.fs, p)
			if rerr != nil {
				return fmt.Errorf("watch %s: %w", p, rerr)
			}
			s.sum = sha256.Sum256(b)
		}
		cur[p] = s
		switch {
		case !seen:
			changes = append(changes, Change{Path: p, Kind: Created, Size: s.size})
		case old.sum != s.sum:
			changes = append(changes, Change{Path: p, Kind: Modified, Size: s.size})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for p, old := range w.prev {
		if _, ok := cur[p]; !ok {
			changes = append(changes, Change{Path: p, Kind: Removed, Size: old.size})
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	w.prev = cur
	return changes, nil
}

// Poll scans every period on clk and hands each non-empty batch of changes
// (or a scan error) to fn. With a clock.Sim the scans run inside Advance, so
// a simulation is deterministic. Stop the returned timer's chain with the
// returned function.
func (w *Watcher) Poll(clk clock.Clock, period time.Duration, fn func([]Change, error)) (stop func()) {
	var mu sync.Mutex
	stopped := false
	var t clock.Timer
	var tick func()
	tick = func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		ch, err := w.Scan()
		if err != nil || len(ch) > 0 {
			fn(ch, err)
		}
		t = clk.AfterFunc(period, tick)
	}
	mu.Lock()
	t = clk.AfterFunc(period, tick)
	mu.Unlock()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		t.Stop()
	}
}
