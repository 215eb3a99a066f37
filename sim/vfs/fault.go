package vfs

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"sync"
	"syscall"

	"github.com/spf13/afero"
)

// Failpoint names a fault the Faulty filesystem can inject.
type Failpoint string

// The failpoints. A torn write persists a prefix of the data and then fails,
// as if the process died mid-write; a short write persists a prefix and
// reports it honestly (io.ErrShortWrite); a write error and ENOSPC persist
// nothing; a failed rename moves nothing; a stale read returns the content
// the file had when the failpoint was armed; a refused listing fails the
// opening of a folder for reading (EACCES), so nothing under it is listed;
// a failed close keeps what was written to a file opened for writing and
// then reports EIO, as a network filesystem can; a read error reads nothing
// and reports EIO; a refused open fails the opening of a file for writing
// (EACCES, as when its permissions changed), so nothing is written; a
// refused mkdir fails the making of a folder that does not exist yet
// (EACCES, as under a parent one may not write to), so nothing is made.
const (
	TornWrite  Failpoint = "torn-write"
	ShortWrite Failpoint = "short-write"
	WriteError Failpoint = "write-error"
	NoSpace    Failpoint = "enospc"
	RenameFail Failpoint = "rename-fail"
	StaleRead  Failpoint = "stale-read"
	ListFail   Failpoint = "list-fail"
	CloseError Failpoint = "close-error"
	ReadError  Failpoint = "read-error"
	OpenError  Failpoint = "open-error"
	MkdirError Failpoint = "mkdir-error"
)

// Failpoints lists every failpoint, for flags and error messages.
func Failpoints() []Failpoint {
	return []Failpoint{TornWrite, ShortWrite, WriteError, NoSpace, RenameFail, StaleRead, ListFail, CloseError, ReadError, OpenError, MkdirError}
}

// ErrInjected marks every error the Faulty filesystem makes up.
var ErrInjected = errors.New("injected fault")

// Fault arms one failpoint. Pattern is a path.Match pattern over the file name
// as the caller spelled it ("" matches every file). Skip lets that many
// matching operations through first; Count is how many to fail (0: until
// disarmed). Prob, when above 0, makes each matching operation fail with that
// probability drawn from the filesystem's seeded source.
type Fault struct {
	Point   Failpoint
	Pattern string
	Skip    int
	Count   int
	Prob    float64
}

type armed struct {
	Fault
	seen, hits int
	stale      map[string][]byte
}

// Injection records one fault that fired.
type Injection struct {
	Point Failpoint
	Path  string
	Op    string
}

// Faulty wraps an afero.Fs and fails operations at armed failpoints.
type Faulty struct {
	afero.Fs
	mu     sync.Mutex
	rng    *rand.Rand
	points []*armed
	log    []Injection
}

// NewFaulty wraps base. The seed drives probabilistic faults.
func NewFaulty(base afero.Fs, seed uint64) *Faulty {
	return &Faulty{Fs: base, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Arm adds a fault. It fails on an unknown failpoint or a bad pattern.
func (f *Faulty) Arm(ft Fault) error {
	known := false
	for _, p := range Failpoints() {
		known = known || p == ft.Point
	}
	if !known {
		return fmt.Errorf("vfs: unknown failpoint %q (known: %v)", ft.Point, Failpoints())
	}
	if _, err := path.Match(ft.Pattern, ""); err != nil {
		return fmt.Errorf("vfs: failpoint %s: bad pattern %q: %w", ft.Point, ft.Pattern, err)
	}
	a := &armed{Fault: ft}
	if ft.Point == StaleRead {
		a.stale = map[string][]byte{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ft.Point == StaleRead { // snapshot now, so later reads see the past
		_ = afero.Walk(f.Fs, "/", func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && matches(ft.Pattern, p) {
				if b, rerr := afero.ReadFile(f.Fs, p); rerr == nil {
					a.stale[p] = b
				}
			}
			return nil
		})
	}
	f.points = append(f.points, a)
	return nil
}

// Disarm removes every fault at point.
func (f *Faulty) Disarm(point Failpoint) {
	f.mu.Lock()
	defer f.mu.Unlock()
	kept := f.points[:0]
	for _, a := range f.points {
		if a.Point != point {
			kept = append(kept, a)
		}
	}
	f.points = kept
}

// Injections returns the faults that fired, in order.
func (f *Faulty) Injections() []Injection {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Injection(nil), f.log...)
}

func matches(pattern, name string) bool {
	if pattern == "" {
		return true
	}
	ok, _ := path.Match(pattern, name)
	if !ok {
		ok, _ = path.Match(pattern, path.Clean("/"+name))
	}
	return ok
}

// armed reports whether a fault is armed at point, so that an operation
// does extra work (a stat) only for a failpoint that may fire.
func (f *Faulty) armed(point Failpoint) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.points {
		if a.Point == point {
			return true
		}
	}
	return false
}

func (f *Faulty) isDir(name string) bool {
	fi, err := f.Fs.Stat(name)
	return err == nil && fi.IsDir()
}

// fire reports the armed fault that fails this operation, if any.
func (f *Faulty) fire(point Failpoint, op string, names ...string) *armed {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.points {
		name := ""
		for _, n := range names {
			if matches(a.Pattern, n) {
				name = n
				break
			}
		}
		if a.Point != point || name == "" {
			continue
		}
		a.seen++
		if a.seen <= a.Skip || (a.Count > 0 && a.hits >= a.Count) {
			continue
		}
		if a.Prob > 0 && f.rng.Float64() >= a.Prob {
			continue
		}
		a.hits++
		f.log = append(f.log, Injection{Point: point, Path: name, Op: op})
		return a
	}
	return nil
}

// Name implements afero.Fs.
func (f *Faulty) Name() string { return "Faulty(" + f.Fs.Name() + ")" }

// Create implements afero.Fs.
func (f *Faulty) Create(name string) (afero.File, error) {
	if err := f.refuseOpen(name); err != nil {
		return nil, err
	}
	file, err := f.Fs.Create(name)
	if err != nil {
		return nil, err
	}
	return &faultyFile{File: file, fs: f, name: name, writing: true}, nil
}

// Open implements afero.Fs.
func (f *Faulty) Open(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile implements afero.Fs.
func (f *Faulty) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	writing := flag&(os.O_WRONLY|os.O_RDWR) != 0
	if !writing {
		if f.armed(ListFail) && f.isDir(name) && f.fire(ListFail, "list", name) != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: %s: %w", ErrInjected, ListFail, syscall.EACCES)}
		}
		if a := f.fire(StaleRead, "open", name); a != nil {
			if b, ok := a.stale[path.Clean("/"+name)]; ok {
				return staleFile(name, b), nil
			}
			if b, ok := a.stale[name]; ok {
				return staleFile(name, b), nil
			}
		}
	}
	if writing {
		if err := f.refuseOpen(name); err != nil {
			return nil, err
		}
	}
	file, err := f.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultyFile{File: file, fs: f, name: name, writing: writing}, nil
}

// Mkdir implements afero.Fs.
func (f *Faulty) Mkdir(name string, perm os.FileMode) error {
	if err := f.refuseMkdir(name); err != nil {
		return err
	}
	return f.Fs.Mkdir(name, perm)
}

// MkdirAll implements afero.Fs.
func (f *Faulty) MkdirAll(name string, perm os.FileMode) error {
	if err := f.refuseMkdir(name); err != nil {
		return err
	}
	return f.Fs.MkdirAll(name, perm)
}

// refuseMkdir fails the making of the folder name, when it does not exist
// yet, if a mkdir-error fault fires for it (an existing folder is made
// already, as os.MkdirAll finds).
func (f *Faulty) refuseMkdir(name string) error {
	if _, err := f.Fs.Stat(name); err == nil {
		return nil
	}
	if f.fire(MkdirError, "mkdir", name) != nil {
		return &os.PathError{Op: "mkdir", Path: name, Err: fmt.Errorf("%w: %s: %w", ErrInjected, MkdirError, syscall.EACCES)}
	}
	return nil
}

// refuseOpen fails the opening of name for writing when an open-error
// fault fires for it.
func (f *Faulty) refuseOpen(name string) error {
	if f.fire(OpenError, "open", name) != nil {
		return &os.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: %s: %w", ErrInjected, OpenError, syscall.EACCES)}
	}
	return nil
}

func staleFile(name string, b []byte) afero.File {
	mem := afero.NewMemMapFs()
	_ = afero.WriteFile(mem, name, b, 0o644)
	file, _ := mem.Open(name)
	return file
}

// Rename implements afero.Fs.
func (f *Faulty) Rename(oldname, newname string) error {
	if f.fire(RenameFail, "rename", oldname, newname) != nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: fmt.Errorf("%w: %s", ErrInjected, RenameFail)}
	}
	return f.Fs.Rename(oldname, newname)
}

type faultyFile struct {
	afero.File
	fs      *Faulty
	name    string
	writing bool // opened for writing: a close can fail
}

// Close implements afero.File.
func (w *faultyFile) Close() error {
	err := w.File.Close()
	if err == nil && w.writing && w.fs.fire(CloseError, "close", w.name) != nil {
		return &os.PathError{Op: "close", Path: w.name, Err: fmt.Errorf("%w: %s: %w", ErrInjected, CloseError, syscall.EIO)}
	}
	return err
}

func (w *faultyFile) Write(p []byte) (int, error) {
	if len(p) > 0 {
		if w.fs.fire(WriteError, "write", w.name) != nil {
			return 0, &os.PathError{Op: "write", Path: w.name, Err: fmt.Errorf("%w: %s: %w", ErrInjected, WriteError, syscall.EIO)}
		}
		if w.fs.fire(NoSpace, "write", w.name) != nil {
			return 0, &os.PathError{Op: "write", Path: w.name, Err: fmt.Errorf("%w: %s: %w", ErrInjected, NoSpace, syscall.ENOSPC)}
		}
		if w.fs.fire(ShortWrite, "write", w.name) != nil {
			n, err := w.File.Write(p[:len(p)/2])
			if err != nil {
				return n, err
			}
			return n, io.ErrShortWrite
		}
		if w.fs.fire(TornWrite, "write", w.name) != nil {
			n, err := w.File.Write(p[:len(p)/2])
			if err != nil {
				return n, err
			}
			return n, &os.PathError{Op: "write", Path: w.name, Err: fmt.Errorf("%w: %s after %d of %d bytes", ErrInjected, TornWrite, n, len(p))}
		}
	}
	return w.File.Write(p)
}

func (w *faultyFile) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// Read implements afero.File.
func (w *faultyFile) Read(p []byte) (int, error) {
	if err := w.readFault(p); err != nil {
		return 0, err
	}
	return w.File.Read(p)
}

// ReadAt implements afero.File.
func (w *faultyFile) ReadAt(p []byte, off int64) (int, error) {
	if err := w.readFault(p); err != nil {
		return 0, err
	}
	return w.File.ReadAt(p, off)
}

func (w *faultyFile) readFault(p []byte) error {
	if len(p) > 0 && w.fs.fire(ReadError, "read", w.name) != nil {
		return &os.PathError{Op: "read", Path: w.name, Err: fmt.Errorf("%w: %s: %w", ErrInjected, ReadError, syscall.EIO)}
	}
	return nil
}
