package scheme

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"anchorage/impl/plurnk/store"
	"github.com/spf13/afero"
)

// File is the workspace scheme: project files on an afero fs under a root.
// The disk holds the content; the store keeps the entry's tags. Binary
// files answer 415 to READ and EDIT.
type File struct {
	fs      afero.Fs
	root    string
	members Members // consulted before writes when set (UseMembers)
}

// NewFile returns the file scheme over fs rooted at root.
func NewFile(fs afero.Fs, root string) *File {
	return &File{fs: fs, root: path.Clean("/" + root)}
}

// Manifest returns the file scheme's manifest: one body channel.
func (f *File) Manifest() Manifest {
	return Manifest{Name: "file", Channels: map[string]ChannelSpec{"body": {}}, DefaultChannel: "body", WritableBy: []Writer{WriterModel, WriterClient, WriterPlurnk},
		Example: "<<READ(main.go)<1,40>::READ", Doc: docFile}
}

func (f *File) disk(p string) string { return path.Join(f.root, p) }

// Load reads the file at k.Path from the workspace.
func (f *File) Load(c Call, k store.Key) (*store.Entry, error) {
	b, err := afero.ReadFile(f.fs, f.disk(k.Path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", k.Path, err)
	}
	mt := MimetypeOf(k.Path)
	if bytes.IndexByte(b, 0) >= 0 {
		mt = "application/octet-stream"
	}
	if IsBinary(mt) {
		return nil, Errorf(415, "%s is binary (%s)", k.Path, mt)
	}
	e := &store.Entry{Key: k, Channels: map[string]store.Channel{"body": {Content: string(b), Mimetype: mt, State: store.StateStatic}}}
	if shadow := c.Tx.Get(k); shadow != nil {
		e.ID, e.Tags, e.Created, e.Updated = shadow.ID, shadow.Tags, shadow.Created, shadow.Updated
	}
	return e, nil
}

// Save writes the body to disk and the entry (tags included) to the store;
// a failed transaction restores the file as it was.
func (f *File) Save(c Call, e *store.Entry) error {
	mt := MimetypeOf(e.Key.Path)
	if IsBinary(mt) {
		return Errorf(415, "%s is binary (%s)", e.Key.Path, mt)
	}
	p := f.disk(e.Key.Path)
	old, err := afero.ReadFile(f.fs, p)
	existed := err == nil
	if err := c.Tx.Put(e); err != nil {
		return err
	}
	if err := f.fs.MkdirAll(path.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", e.Key.Path, err)
	}
	if err := afero.WriteFile(f.fs, p, []byte(e.Channels["body"].Content), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", e.Key.Path, err)
	}
	c.Tx.OnRollback(func() { f.restore(p, old, existed) })
	return f.wrote(c, e.Key.Path)
}

func (f *File) restore(p string, old []byte, existed bool) {
	if existed {
		_ = afero.WriteFile(f.fs, p, old, 0o644)
	} else {
		_ = f.fs.Remove(p)
	}
}

// Remove deletes the file at k.Path.
func (f *File) Remove(c Call, k store.Key) (bool, error) {
	p := f.disk(k.Path)
	old, err := afero.ReadFile(f.fs, p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove %s: %w", k.Path, err)
	}
	if err := f.fs.Remove(p); err != nil {
		return false, fmt.Errorf("remove %s: %w", k.Path, err)
	}
	c.Tx.Delete(k)
	c.Tx.OnRollback(func() { f.restore(p, old, true) })
	return true, f.wrote(c, k.Path)
}

// List returns every text file of the workspace (binary files are left
// out, since they cannot be read).
func (f *File) List(c Call) ([]*store.Entry, error) {
	var paths []string
	err := afero.Walk(f.fs, f.root, func(p string, info fs.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() {
			paths = append(paths, "/"+strings.TrimPrefix(strings.TrimPrefix(p, f.root), "/"))
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list workspace: %w", err)
	}
	sort.Strings(paths)
	var out []*store.Entry
	for _, p := range paths {
		e, err := f.Load(c, store.Key{Scope: store.ScopeSession, Scheme: "file", Path: p})
		if err != nil {
			if StatusOf(err) == 415 {
				continue
			}
			return nil, err
		}
		if e != nil {
			out = append(out, e)
		}
	}
	return out, nil
}
