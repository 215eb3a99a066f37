// Package vfs is the simulated filesystem of anchorage: afero in-memory
// filesystems whose modification times come from a clock.Clock, a polling
// change watcher (afero has none), and a fault-injecting wrapper with named
// failpoints. It implements no spec of its own; the systems under spec write
// their files through it in simulation.
//
// It may import the standard library, afero and anchorage/sim/clock.
package vfs

import (
	"os"
	"time"

	"github.com/spf13/afero"

	"anchorage/sim/clock"
)

// NewMem returns an empty in-memory filesystem whose mtimes are read from clk.
// afero's MemMapFs stamps files with the wall clock; this wrapper restamps
// every file it creates or writes with clk.Now(), so that a simulation sees
// the same mtimes on every run.
func NewMem(clk clock.Clock) afero.Fs {
	return &Clocked{Fs: afero.NewMemMapFs(), Clock: clk}
}

// Clocked stamps the modification time of every file it creates, writes,
// truncates or makes with the time of Clock.
type Clocked struct {
	afero.Fs
	Clock clock.Clock
}

func (c *Clocked) stamp(name string) {
	now := c.Clock.Now()
	_ = c.Fs.Chtimes(name, now, now) // best effort: the file may be gone already
}

// Name implements afero.Fs.
func (c *Clocked) Name() string { return "Clocked(" + c.Fs.Name() + ")" }

// Create implements afero.Fs.
func (c *Clocked) Create(name string) (afero.File, error) {
	f, err := c.Fs.Create(name)
	if err != nil {
		return nil, err
	}
	c.stamp(name)
	return &clockedFile{File: f, fs: c, name: name}, nil
}

// OpenFile implements afero.Fs.
func (c *Clocked) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	_, statErr := c.Fs.Stat(name)
	f, err := c.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	if os.IsNotExist(statErr) || flag&os.O_TRUNC != 0 {
		c.stamp(name)
	}
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		return &clockedFile{File: f, fs: c, name: name}, nil
	}
	return f, nil
}

// Mkdir implements afero.Fs.
func (c *Clocked) Mkdir(name string, perm os.FileMode) error {
	if err := c.Fs.Mkdir(name, perm); err != nil {
		return err
	}
	c.stamp(name)
	return nil
}

// MkdirAll implements afero.Fs.
func (c *Clocked) MkdirAll(path string, perm os.FileMode) error {
	if err := c.Fs.MkdirAll(path, perm); err != nil {
		return err
	}
	c.stamp(path)
	return nil
}

type clockedFile struct {
	afero.File
	fs   *Clocked
	name string
}

func (f *clockedFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	f.fs.stamp(f.name)
	return n, err
}

func (f *clockedFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	f.fs.stamp(f.name)
	return n, err
}

// Close stamps again: afero's in-memory file sets the wall time on close.
func (f *clockedFile) Close() error {
	err := f.File.Close()
	f.fs.stamp(f.name)
	return err
}

func (f *clockedFile) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

func (f *clockedFile) Truncate(size int64) error {
	err := f.File.Truncate(size)
	f.fs.stamp(f.name)
	return err
}

// Stamp reports the modification time of name, for tests and steps.
func Stamp(fsys afero.Fs, name string) (time.Time, error) {
	fi, err := fsys.Stat(name)
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}
