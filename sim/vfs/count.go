package vfs

import (
	"os"
	"sync"

	"github.com/spf13/afero"
)

// Counting wraps a filesystem and counts the bytes read through it, per
// file and in total: what a program read is measured where it cannot be
// misreported, below the program.
type Counting struct {
	afero.Fs

	mu     sync.Mutex
	total  int64
	byName map[string]int64
}

// NewCounting returns fs with read counting.
func NewCounting(fs afero.Fs) *Counting { return &Counting{Fs: fs, byName: map[string]int64{}} }

// Name implements afero.Fs.
func (c *Counting) Name() string { return "Counting(" + c.Fs.Name() + ")" }

// Open implements afero.Fs.
func (c *Counting) Open(name string) (afero.File, error) {
	f, err := c.Fs.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: f, c: c, name: name}, nil
}

// OpenFile implements afero.Fs.
func (c *Counting) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	f, err := c.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: f, c: c, name: name}, nil
}

// BytesRead returns the bytes read through c so far, in all files.
func (c *Counting) BytesRead() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// BytesReadFrom returns the bytes read from the file name so far.
func (c *Counting) BytesReadFrom(name string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byName[name]
}

func (c *Counting) add(name string, n int) {
	if n <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(n)
	c.byName[name] += int64(n)
}

type countingFile struct {
	afero.File
	c    *Counting
	name string
}

func (f *countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.c.add(f.name, n)
	return n, err
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.c.add(f.name, n)
	return n, err
}
