package chatlog

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/afero"

	"anchorage/impl/chatlog/logparse"
	"anchorage/impl/vary"
)

// appendLocked appends text, an entry or "" for none, to an instance's log
// (§chatlog-append-only, §chatlog-server-writes). A write that fails is told
// on the console, "<what> not written: <error>", and returned.
func (s *Server) appendLocked(in *Instance, what, text string) error {
	end, err := s.appendLog(in.Path, vary.Apply(s.cfg.Vary, "blank-lines", text, blankLine))
	if err != nil {
		s.logf("%s not written: %v", what, err)
	}
	// The entry ends at end: its header line starts len(text) bytes before.
	in.watch.own = append(in.watch.own, end-int64(len(text)))
	return err
}

// blankLine puts a blank line before an entry (the variation "blank-lines").
func blankLine(text string) string { return "\n" + text }

// appendLog appends text to the log p: the file is opened for appending
// only, so no byte already there can change. The text starts on a line of
// its own. A write cut short is healed as far as possible: a fence it left
// open is closed, so that the next entry is not swallowed by it. It returns
// where the log ends once text is written whole.
func (s *Server) appendLog(p, text string) (int64, error) {
	size, _ := s.stat(p)
	last, _ := s.readRange(p, size-1, size)
	// A line break first when the last byte is not one (none for an empty log).
	text = strings.Repeat("\n", len(bytes.TrimSuffix(last, []byte("\n")))) + text
	end := size + int64(len(text))
	f, err := s.cfg.Fs.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return end, fmt.Errorf("append to %s: %w", p, err)
	}
	n, werr := f.Write([]byte(text))
	if werr != nil {
		f.Write([]byte(healing(text[:n])))
	}
	cerr := f.Close()
	if werr != nil {
		return end, fmt.Errorf("append to %s: %w", p, werr)
	}
	if cerr != nil {
		return end, fmt.Errorf("append to %s: close: %w", p, cerr)
	}
	now := s.cfg.Clock.Now()
	_ = s.cfg.Fs.Chtimes(p, now, now) // mtime from the server's clock; best effort
	return end, nil
}

// healing returns what must follow a torn prefix of an entry so that the
// log is back outside any fence and at the start of a line: a line break
// ending its torn last line, then a closing line for a fence it left open.
func healing(prefix string) string {
	var ch byte // the open fence's character
	n := 0      // and length; 0 outside a fence
	lines := strings.Split(prefix, "\n")
	for _, l := range lines {
		b := []byte(strings.TrimSuffix(l, "\r"))
		if n == 0 {
			ch, n, _ = logparse.OpenFence(b)
		} else if logparse.ClosesFence(ch, n, b) {
			n = 0
		}
	}
	return strings.Repeat("\n", min(len(lines[len(lines)-1]), 1)) + strings.Repeat(string(ch), n) + strings.Repeat("\n", min(n, 1))
}

// renderRegistryLocked renders debug.md for the current state
// (§chatlog-registry-header, §chatlog-registry-states,
// §chatlog-registry-bounded, §chatlog-registry-pointers).
func (s *Server) renderRegistryLocked() string {
	var b strings.Builder
	b.WriteString("# Connected pages:\n")
	ins := s.instances[max(len(s.instances)-s.lim.listed, 0):] // the most recently connected
	for _, in := range ins {
		fmt.Fprintf(&b, "* %s (%s) last %s state: %s\n", vary.Choose(s.cfg.Vary, "registry-stem", in.Base, in.Stem),
			in.URL, Clock(in.LastBeat), strings.TrimSpace(in.State+" "+in.Note))
	}
	recent := vary.Apply(s.cfg.Vary, "recent-jobs", s.recentJobs(), s.otherRecentJobs)
	b.WriteString(vary.Choose(s.cfg.Vary, "no-recent-jobs", recent, ""))
	b.WriteString(vary.Apply(s.cfg.Vary, "pointers", pointers(ins), func(string) string { return linkPointers(ins) }))
	return b.String()
}

// recentJobs is the registry's list of recent jobs, once there is one
// (Decision §chatlog-registry-pointers).
func (s *Server) recentJobs() string {
	var b strings.Builder
	for _, j := range s.recent {
		fmt.Fprintf(&b, "* %s %s from %s at %s: %s%s\n", j.ID, j.Lang, j.Agent, j.At, j.State, s.jobNote(j))
	}
	return strings.Repeat("\n## Recent jobs\n", min(len(s.recent), 1)) + b.String()
}

// jobNote is what a recent job's line says after its state: its duration
// once it has one, and for a timeout the registry's words.
func (s *Server) jobNote(j *Job) string {
	d := s.format().Millis(j.Duration().Milliseconds())
	timedOut := fmt.Sprintf(" failed after %dms (timeout)", s.timeout.Milliseconds())
	switch {
	case j.Late:
		return " (" + d + ")" + timedOut + " late"
	case j.State == TimedOut:
		return timedOut
	case j.FinishedAt.IsZero():
		return ""
	}
	return " (" + d + ")"
}

// otherRecentJobs is the list of recent jobs with the variation
// "recent-jobs": another heading, another line format.
func (s *Server) otherRecentJobs(string) string {
	var b strings.Builder
	for _, j := range s.recent {
		fmt.Fprintf(&b, "- %s [%s] %s@%s (%s)", j.ID, j.State, j.Agent, j.At, j.Lang)
		if !j.FinishedAt.IsZero() {
			fmt.Fprintf(&b, " took %s", s.format().Millis(j.Duration().Milliseconds()))
		}
		if j.Late {
			b.WriteString(" late")
		}
		b.WriteByte('\n')
	}
	return strings.Repeat("\n### Jobs, newest last\n", min(len(s.recent), 1)) + b.String()
}

// pointers is the registry's list of logs (Decision
// §chatlog-registry-pointers).
func pointers(ins []*Instance) string {
	var b strings.Builder
	for _, in := range ins {
		fmt.Fprintf(&b, "* %s: %s\n", in.Stem, in.Path)
	}
	return strings.Repeat("\n## Logs\n", min(len(ins), 1)) + b.String()
}

// linkPointers is the list of logs with the variation "pointers": Markdown
// links under another heading.
func linkPointers(ins []*Instance) string {
	var b strings.Builder
	for _, in := range ins {
		fmt.Fprintf(&b, "- [%s](%s)\n", in.Stem, in.Path)
	}
	return strings.Repeat("\n## Per-instance logs\n", min(len(ins), 1)) + b.String()
}

// registryScratch is where a new registry is written before it replaces
// debug.md.
const registryScratch = "." + RegistryFile + ".new"

// writeRegistry rewrites debug.md in full (§chatlog-registry-server-owned):
// whatever a hand edit left there is replaced. The new registry is written
// aside and renamed over the old one, so an agent reading debug.md while the
// server rewrites it sees the old registry or the new one, never a file cut
// short.
func (s *Server) writeRegistry() {
	if s.cfg.SingleFile {
		return
	}
	err := afero.WriteFile(s.cfg.Fs, registryScratch, []byte(s.renderRegistryLocked()), 0o644)
	if err == nil {
		err = s.cfg.Fs.Rename(registryScratch, RegistryFile)
	}
	if err != nil {
		_ = s.cfg.Fs.Remove(registryScratch)
		s.logf("registry %s not written: %v", RegistryFile, err)
	}
}

// stat is p's size and modification time, zero when p cannot be read.
func (s *Server) stat(p string) (int64, time.Time) {
	fi, err := s.cfg.Fs.Stat(p)
	if err != nil {
		return 0, time.Time{}
	}
	return fi.Size(), fi.ModTime()
}
