package chatlog

import (
	"os"
	"strings"
	"testing"

	"anchorage/sim/vfs"

	"github.com/spf13/afero"
)

// peekFs reads debug.md each time anything on it is written, as an agent
// reading the registry at that moment would.
type peekFs struct {
	afero.Fs
	seen []string
}

type peekFile struct {
	afero.File
	fs *peekFs
}

func (p *peekFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	f, err := p.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	p.peek()
	return &peekFile{File: f, fs: p}, nil
}

func (p *peekFs) peek() {
	if b, err := afero.ReadFile(p.Fs, RegistryFile); err == nil {
		p.seen = append(p.seen, string(b))
	}
}

func (f *peekFile) Write(b []byte) (int, error) {
	n, err := f.File.Write(b)
	f.fs.peek()
	return n, err
}

// An agent that reads debug.md while the server rewrites it sees a whole
// registry, never an empty or half-written file
// (§chatlog-registry-server-owned).
func TestRegistryReadersNeverSeeAPartialFile(t *testing.T) {
	fs := &peekFs{Fs: afero.NewMemMapFs()}
	h := newHarness(t, Config{Seed: 1, Fs: fs})
	for _, title := range []string{"One", "Two", "Three"} {
		if _, err := h.srv.Rejoin("", title, "http://localhost:8302/", "JS"); err != nil {
			t.Fatal(err)
		}
	}
	if len(fs.seen) < 3 {
		t.Fatalf("debug.md was read %d times while files were written; want a read during each registry rewrite", len(fs.seen))
	}
	for i, reg := range fs.seen {
		if !strings.HasPrefix(reg, "# Connected pages:\n") {
			t.Fatalf("read %d of debug.md during a write saw %q: a registry cut short", i, reg)
		}
	}
	ents, err := afero.ReadDir(fs, "/")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != RegistryFile && e.Name() != InstanceDir {
			t.Fatalf("%s is left beside the registry", e.Name())
		}
	}
}

// A registry the disk will not take leaves nothing beside debug.md, and the
// console says why.
func TestRegistryRefusedLeavesNoScratch(t *testing.T) {
	for _, point := range []vfs.Failpoint{vfs.WriteError, vfs.RenameFail} {
		t.Run(string(point), func(t *testing.T) {
			fs := vfs.NewFaulty(afero.NewMemMapFs(), 1)
			if err := fs.Arm(vfs.Fault{Point: point, Pattern: "*" + RegistryFile + "*"}); err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, Config{Seed: 1, Fs: fs})
			if _, err := h.srv.Rejoin("", "One", "http://localhost:8302/", "JS"); err != nil {
				t.Fatal(err)
			}
			ents, err := afero.ReadDir(fs, "/")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if e.Name() != InstanceDir {
					t.Fatalf("%s is on disk after every registry write failed", e.Name())
				}
			}
			if !strings.Contains(h.con.String(), "registry debug.md not written: ") {
				t.Fatalf("console:\n%s", h.con)
			}
		})
	}
}
