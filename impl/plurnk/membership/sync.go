package membership

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"time"

	"anchorage/impl/plurnk/store"

	"github.com/spf13/afero"
)

// Sig is what Sync remembers of a member's file: the stat signature that
// gates a re-read (mtime and size) and the content's hash.
type Sig struct {
	ModTime time.Time
	Size    int64
	Sum     [sha256.Size]byte
}

// Divergence is a member changed on disk outside plurnk: the record the
// plurnk run writes as an EDIT row with source "file".
type Divergence struct {
	Path    string
	Kind    string // "changed" or "deleted"
	Content string // the content now on disk ("" when deleted)
	Source  string // always "file"
}

// Row returns the log row the plurnk run records for d: an EDIT of the
// member's file entry, born folded (it reaches the runs as a folded delta).
// The engine fills in the coordinate.
func (d Divergence) Row() store.LogRow {
	return store.LogRow{Op: "EDIT", Origin: "plurnk", Target: "file:///" + d.Path, Status: 200,
		Content: d.Content, Mimetype: "text/markdown", Reason: d.Source + ": " + d.Kind}
}

// Sync tracks the disk signature of each member it has seen.
type Sync struct {
	fs     afero.Fs
	root   string
	synced map[string]Sig
}

// NewSync returns a Sync over the project at root on fsys that has seen
// nothing.
func NewSync(fsys afero.Fs, root string) *Sync {
	return &Sync{fs: fsys, root: root, synced: map[string]Sig{}}
}

func (s *Sync) read(p string) (Sig, []byte, error) {
	full := path.Join(s.root, p)
	fi, err := s.fs.Stat(full)
	if err != nil {
		return Sig{}, nil, err
	}
	b, err := afero.ReadFile(s.fs, full)
	if err != nil {
		return Sig{}, nil, err
	}
	return Sig{ModTime: fi.ModTime(), Size: fi.Size(), Sum: sha256.Sum256(b)}, b, nil
}

// Pass checks every member (paths relative to the root). A member seen
// for the first time is recorded as it is, not reported. A member whose
// mtime and size are unchanged is not re-read. One whose content differs
// from what was recorded is reported "changed"; one gone from disk is
// reported "deleted" once. Divergences come sorted by path.
func (s *Sync) Pass(members []string) ([]Divergence, error) {
	sorted := append([]string(nil), members...)
	sort.Strings(sorted)
	var out []Divergence
	for _, p := range sorted {
		p = clean(p)
		prev, seen := s.synced[p]
		fi, err := s.fs.Stat(path.Join(s.root, p))
		if errors.Is(err, fs.ErrNotExist) {
			if seen {
				delete(s.synced, p)
				out = append(out, Divergence{Path: p, Kind: "deleted", Source: "file"})
			}
			continue
		}
		if err != nil {
			return out, fmt.Errorf("sync %s: %w", p, err)
		}
		if seen && fi.ModTime().Equal(prev.ModTime) && fi.Size() == prev.Size {
			continue
		}
		sig, b, err := s.read(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("sync %s: %w", p, err)
		}
		s.synced[p] = sig
		if seen && sig.Sum != prev.Sum {
			out = append(out, Divergence{Path: p, Kind: "changed", Content: string(b), Source: "file"})
		}
	}
	return out, nil
}

// Wrote records that plurnk itself (the model's write-through EDIT) has
// just written the member at p, so the next Pass does not report it.
func (s *Sync) Wrote(p string) error {
	p = clean(p)
	sig, _, err := s.read(p)
	if errors.Is(err, fs.ErrNotExist) {
		delete(s.synced, p)
		return nil
	}
	if err != nil {
		return fmt.Errorf("record write of %s: %w", p, err)
	}
	s.synced[p] = sig
	return nil
}

// Synced returns the recorded signature of p.
func (s *Sync) Synced(p string) (Sig, bool) {
	sig, ok := s.synced[clean(p)]
	return sig, ok
}
