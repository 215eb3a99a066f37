package chatlog

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/afero"

	"anchorage/impl/chatlog/logparse"
)

// appendLocked appends text to an instance's log (§chatlog-append-only,
// §chatlog-server-writes): the file is opened for appending only, so no
// byte already there can change. The text starts on a fresh line. A short
// write is healed as far as possible: a fence left open by it is closed, so
// that the next entry is not swallowed by it.
func (s *Server) appendLocked(in *Instance, text string) error {
	if s.cfg.Vary.Has("blank-lines") {
		text = "\n" + text
	}
	return appendLog(s.cfg.Fs, in.Path, text, s)
}

func appendLog(fs afero.Fs, p, text string, s *Server) error {
	if fi, err := fs.Stat(p); err == nil && fi.Size() > 0 {
		last, err := s.readRange(p, fi.Size()-1, fi.Size())
		if err == nil && len(last) == 1 && last[0] != '\n' {
			text = "\n" + text
		}
	}
	f, err := fs.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("append to %s: %w", p, err)
	}
	n, werr := f.Write([]byte(text))
	if werr == nil && n < len(text) {
		werr = fmt.Errorf("short write (%d of %d bytes)", n, len(text))
	}
	if werr != nil && n > 0 {
		if fix := healing(text[:n]); fix != "" {
			if _, err := f.Write([]byte(fix)); err != nil {
				werr = fmt.Errorf("%w; healing the torn entry failed too: %v", werr, err)
			}
		}
	}
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("append to %s: %w", p, werr)
	}
	if cerr != nil {
		return fmt.Errorf("append to %s: close: %w", p, cerr)
	}
	now := s.cfg.Clock.Now()
	_ = fs.Chtimes(p, now, now) // mtime from the server's clock; best effort
	return nil
}

// healing returns what must follow a torn prefix of an entry so that the
// log is back outside any fence and at the start of a line.
func healing(prefix string) string {
	var ch byte // the open fence's character
	n := 0      // and length; 0 outside a fence
	lines := strings.Split(prefix, "\n")
	for _, l := range lines[:len(lines)-1] {
		b := []byte(strings.TrimSuffix(l, "\r"))
		if n == 0 {
			if c, k, ok := logparse.OpenFence(b); ok {
				ch, n = c, k
			}
		} else if logparse.ClosesFence(ch, n, b) {
			n = 0
		}
	}
	fix := ""
	if !strings.HasSuffix(prefix, "\n") {
		fix = "\n"
		if n > 0 && logparse.ClosesFence(ch, n, []byte(lines[len(lines)-1])) {
			n = 0
		}
	}
	if n > 0 {
		fix += strings.Repeat(string(ch), n) + "\n"
	}
	return fix
}

// RenderRegistry renders debug.md for the current state
// (§chatlog-registry-header, §chatlog-registry-states,
// §chatlog-registry-bounded, §chatlog-registry-pointers).
func (s *Server) RenderRegistry() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.renderRegistryLocked()
}

func (s *Server) renderRegistryLocked() string {
	var b bytes.Buffer
	b.WriteString("# Connected pages:\n")
	ins := s.sortedInstances()
	if len(ins) > s.cfg.MaxListed {
		ins = ins[len(ins)-s.cfg.MaxListed:] // the most recently connected
	}
	for _, in := range ins {
		state := in.State
		if in.Note != "" {
			state += " " + in.Note
		}
		name := in.Base
		if s.cfg.Vary.Has("registry-stem") || name == "" {
			name = in.Stem
		}
		fmt.Fprintf(&b, "* %s (%s) last %s state: %s\n", name, in.URL, Clock(in.LastBeat), state)
	}
	switch {
	case len(s.recent) == 0 || s.cfg.Vary.Has("no-recent-jobs"):
	case s.cfg.Vary.Has("recent-jobs"):
		b.WriteString("\n### Jobs, newest last\n")
		for _, j := range s.recent {
			fmt.Fprintf(&b, "- %s [%s] %s@%s (%s)", j.ID, j.State, j.Agent, j.At, j.Lang)
			if d := j.Duration(); d >= 0 {
				fmt.Fprintf(&b, " took %s", s.format().Millis(d.Milliseconds()))
			}
			if j.Late {
				b.WriteString(" late")
			}
			b.WriteByte('\n')
		}
	default:
		b.WriteString("\n## Recent jobs\n")
		for _, j := range s.recent {
			fmt.Fprintf(&b, "* %s %s from %s at %s: %s", j.ID, j.Lang, j.Agent, j.At, j.State)
			if d := j.Duration(); d >= 0 {
				fmt.Fprintf(&b, " (%s)", s.format().Millis(d.Milliseconds()))
			}
			if j.State == TimedOut {
				fmt.Fprintf(&b, " failed after %dms (timeout)", s.cfg.Timeout.Milliseconds())
			}
			if j.Late {
				b.WriteString(" late")
			}
			b.WriteByte('\n')
		}
	}
	switch {
	case len(ins) == 0:
	case s.cfg.Vary.Has("pointers"):
		b.WriteString("\n## Per-instance logs\n")
		for _, in := range ins {
			fmt.Fprintf(&b, "- [%s](%s)\n", in.Stem, in.Path)
		}
	default:
		b.WriteString("\n## Logs\n")
		for _, in := range ins {
			fmt.Fprintf(&b, "* %s: %s\n", in.Stem, in.Path)
		}
	}
	return b.String()
}

// writeRegistry rewrites debug.md in full (§chatlog-registry-server-owned):
// whatever a hand edit left there is replaced. It writes a temporary file
// and renames it over debug.md; when the rename fails it writes in place.
func (s *Server) writeRegistry() {
	if s.cfg.SingleFile {
		return
	}
	text := []byte(s.renderRegistryLocked())
	tmp := RegistryFile + ".tmp"
	err := afero.WriteFile(s.cfg.Fs, tmp, text, 0o644)
	if err == nil {
		err = s.cfg.Fs.Rename(tmp, RegistryFile)
		if err != nil {
			_ = s.cfg.Fs.Remove(tmp)
		}
	}
	if err != nil {
		if err2 := afero.WriteFile(s.cfg.Fs, RegistryFile, text, 0o644); err2 != nil {
			s.logf("registry %s not written: %v; %v", RegistryFile, err, err2)
		}
	}
}
