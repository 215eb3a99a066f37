package chatlog

import (
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/spf13/afero"
)

// createGate is the server's disk seen through a gate that can refuse the
// creation of new files, as a directory the server may no longer write
// into would; the files that exist stay open to it.
type createGate struct {
	afero.Fs
	mu     sync.Mutex
	closed bool
}

// refuse closes the gate (true) or opens it again (false).
func (g *createGate) refuse(closed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = closed
}

func (g *createGate) refusing() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// OpenFile implements afero.Fs.
func (g *createGate) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if flag&os.O_CREATE != 0 && g.refusing() {
		if _, err := g.Fs.Stat(name); err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: fmt.Errorf("the scenario refuses new files: %w", syscall.EACCES)}
		}
	}
	return g.Fs.OpenFile(name, flag, perm)
}

// Create implements afero.Fs.
func (g *createGate) Create(name string) (afero.File, error) {
	return g.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}
