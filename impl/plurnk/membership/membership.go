// Package membership decides which project files are members of a session
// in plurnk-service 0.56 (the features/plurnk/SPEC.md digest:
// §membership-git-membership, §membership-overlay,
// §membership-emi-divergence-signal, §machine-processes-one-overlay and the
// tier 3a membership anchors).
//
// Files git tracks (`git ls-files`, run with the real git binary) are
// members; a per-session overlay then admits untracked files (pick), drops
// tracked ones (hide) and marks members read-only (view). Without git no
// directory is walked and pick is the only source. Sync re-reads members
// whose disk signature moved and reports the ones changed outside plurnk as
// divergences for the plurnk run; plurnk's own write-through is recorded
// with Wrote and never reported. Project (project.go) is what the file
// scheme consults (scheme.Members): the gate before every write, the
// compare-and-swap against the synced signature, and the per-turn pass
// whose outside changes the engine records as plurnk EDIT rows. Git
// membership is a forest: the implicit repo at the root (PLURNK_GIT_AUTO)
// and each folder a repo constraint declares, with the untracked files git
// does not ignore auto-added in declared repos; PLURNK_GIT_ALLOWED=0 turns
// git off.
//
// It may import the standard library, afero, gobwas/glob,
// anchorage/impl/plurnk/scheme and anchorage/impl/plurnk/store.
package membership

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"anchorage/impl/plurnk/scheme"

	"github.com/gobwas/glob"
	"github.com/spf13/afero"
)

// Effect is what a constraint does.
type Effect string

const (
	Pick Effect = "pick" // admit matching files git does not track
	Hide Effect = "hide" // drop matching files
	View Effect = "view" // keep matching members readable, refuse writes
	Repo Effect = "repo" // declare a git repo folder whose files join membership
)

// Constraint is one rule of a session's overlay: an effect and a glob over
// paths relative to the project root (`*` stays within a directory, `**`
// crosses directories).
type Constraint struct {
	Effect  Effect
	Pattern string
}

type compiled struct {
	Constraint
	g *glob.Pattern
}

// Overlay is one session's constraints. It is safe for concurrent use.
type Overlay struct {
	mu     sync.Mutex
	cs     []compiled
	gitOff bool // settings.git false: this session takes no git members
}

// SetGit switches git membership for the session on (the default) or off
// (settings.git false, §operator-config-session-git). On never reaches
// past PLURNK_GIT_ALLOWED=0: the service's Flags.Denied still holds.
func (o *Overlay) SetGit(on bool) {
	o.mu.Lock()
	o.gitOff = !on
	o.mu.Unlock()
}

// Git reports whether the session asks for git membership (settings.git).
func (o *Overlay) Git() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.gitOff
}

// Add appends c to the overlay.
func (o *Overlay) Add(c Constraint) error {
	switch c.Effect {
	case Pick, Hide, View, Repo:
	default:
		return fmt.Errorf("constraint %q: unknown effect %q", c.Pattern, c.Effect)
	}
	p := strings.TrimPrefix(path.Clean("/"+c.Pattern), "/")
	g, err := glob.Compile(p, '/')
	if err != nil {
		return fmt.Errorf("constraint %s %q: %w", c.Effect, c.Pattern, err)
	}
	c.Pattern = p
	o.mu.Lock()
	o.cs = append(o.cs, compiled{Constraint: c, g: g})
	o.mu.Unlock()
	return nil
}

// Constraints returns the overlay's constraints in the order they were
// added.
func (o *Overlay) Constraints() []Constraint {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]Constraint, len(o.cs))
	for i, c := range o.cs {
		out[i] = c.Constraint
	}
	return out
}

func (o *Overlay) snapshot() []compiled {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]compiled(nil), o.cs...)
}

// Sessions holds the overlay of each session. Overlays are keyed by
// session, never by run: every run of a session resolves the same members
// (§machine-processes-one-overlay).
type Sessions struct {
	mu sync.Mutex
	m  map[int64]*Overlay
}

// NewSessions returns an empty table.
func NewSessions() *Sessions { return &Sessions{m: map[int64]*Overlay{}} }

// Overlay returns session's overlay, creating an empty one.
func (s *Sessions) Overlay(session int64) *Overlay {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.m[session]
	if !ok {
		o = &Overlay{}
		s.m[session] = o
	}
	return o
}

// Member is one resolved member and its effect: "member" (readable and
// writable) or "view" (readable only).
type Member struct {
	Path   string `json:"path"`
	Effect string `json:"effect"`
}

// Set is a resolved membership.
type Set struct {
	Members []Member // by path
	Hidden  []string // tracked or picked files a hide dropped, by path
}

// Paths returns the member paths.
func (s Set) Paths() []string {
	out := make([]string, len(s.Members))
	for i, m := range s.Members {
		out[i] = m.Path
	}
	return out
}

// Lookup returns the member at p.
func (s Set) Lookup(p string) (Member, bool) {
	p = clean(p)
	i := sort.Search(len(s.Members), func(i int) bool { return s.Members[i].Path >= p })
	if i < len(s.Members) && s.Members[i].Path == p {
		return s.Members[i], true
	}
	return Member{}, false
}

// CheckWrite answers whether a file EDIT of p may go ahead: a view member
// is refused with 403, as is an existing file that is not a member. A path
// that names no file yet (exists false) may be created.
func (s Set) CheckWrite(p string, exists bool) error {
	m, ok := s.Lookup(p)
	switch {
	case ok && m.Effect == "view":
		return scheme.Errorf(403, "%s is a view member: readable, not writable", clean(p))
	case !ok && exists:
		return scheme.Errorf(403, "%s is not a member of the session", clean(p))
	}
	return nil
}

// Git lists the files a repository tracks.
type Git interface {
	// LsFiles returns the tracked paths of the repository at dir, relative
	// to dir; ErrNoRepo when dir is not inside a repository.
	LsFiles(dir string) ([]string, error)
}

// Error is the type of the package's sentinel errors.
type Error string

func (e Error) Error() string { return string(e) }

// ErrNoRepo is returned (wrapped) by a Git when the directory is not a
// repository.
const ErrNoRepo Error = "not a git repository"

// Resolver resolves a session's members over the project at Root on FS.
// A nil Git means git is absent: pick is then the only source.
type Resolver struct {
	FS    afero.Fs
	Root  string
	Git   Git
	Flags Flags
}

// Flags are the service-wide git switches (§membership-git-flags). The zero
// value is the default: git allowed, the implicit repo at the root on.
type Flags struct {
	Denied bool // PLURNK_GIT_ALLOWED=0: no git membership at all, for good
	NoAuto bool // PLURNK_GIT_AUTO=0: no implicit repo at the project root
}

// FlagsFromEnv reads PLURNK_GIT_ALLOWED and PLURNK_GIT_AUTO: "0" turns each
// off, anything else (or unset) leaves the default on.
func FlagsFromEnv(getenv func(string) string) Flags {
	return Flags{Denied: getenv("PLURNK_GIT_ALLOWED") == "0", NoAuto: getenv("PLURNK_GIT_AUTO") == "0"}
}

// Others lists a repository's untracked files that are not ignored (`git
// ls-files --others --exclude-standard`); a Git that implements it makes
// declared repos auto-add them (§membership-auto-add).
type Others interface {
	Others(dir string) ([]string, error)
}

// repos returns the repo folders git membership covers, relative to the
// root ("" is the root itself): the implicit root repo unless AUTO is off,
// then every declared repo, none at all when git is denied service-wide or
// the session switched it off (gitOn false).
func (r *Resolver) repos(cs []compiled, gitOn bool) []string {
	if r.Git == nil || r.Flags.Denied || !gitOn {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	if !r.Flags.NoAuto {
		out, seen[""] = append(out, ""), true
	}
	for _, c := range cs {
		if p := clean(c.Pattern); c.Effect == Repo && !seen[p] {
			out, seen[p] = append(out, p), true
		}
	}
	return out
}

// Resolve returns the members: tracked files, plus files a pick admits,
// minus files a hide drops, with view marking members read-only. A pick is
// a targeted scan: a literal path is looked up, a glob walks only the
// directory its literal prefix names; only regular files are admitted.
func (r *Resolver) Resolve(o *Overlay) (Set, error) {
	cs := o.snapshot()
	var set Set
	cand := map[string]bool{}
	for _, repo := range r.repos(cs, o.Git()) {
		tracked, err := r.Git.LsFiles(r.disk(repo))
		switch {
		case errors.Is(err, ErrNoRepo):
			continue
		case err != nil:
			return Set{}, fmt.Errorf("resolve members: %w", err)
		}
		if o, ok := r.Git.(Others); ok && repo != "" {
			others, err := o.Others(r.disk(repo))
			if err != nil {
				return Set{}, fmt.Errorf("resolve members: %w", err)
			}
			tracked = append(tracked, others...)
		}
		for _, p := range tracked {
			cand[clean(path.Join(repo, p))] = true
		}
	}
	for _, c := range cs {
		if c.Effect != Pick {
			continue
		}
		ps, err := r.scan(c)
		if err != nil {
			return Set{}, fmt.Errorf("resolve pick %q: %w", c.Pattern, err)
		}
		for _, p := range ps {
			cand[p] = true
		}
	}
	paths := make([]string, 0, len(cand))
	for p := range cand {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		hidden, view := false, false
		for _, c := range cs {
			if !c.g.Match(p) {
				continue
			}
			switch c.Effect {
			case Hide:
				hidden = true
			case View:
				view = true
			}
		}
		switch {
		case hidden:
			set.Hidden = append(set.Hidden, p)
		case view:
			set.Members = append(set.Members, Member{Path: p, Effect: "view"})
		default:
			set.Members = append(set.Members, Member{Path: p, Effect: "member"})
		}
	}
	return set, nil
}

// scan lists the regular files under the pick's literal prefix that match
// it.
func (r *Resolver) scan(c compiled) ([]string, error) {
	prefix := literalPrefix(c.Pattern)
	if prefix == c.Pattern {
		fi, err := r.FS.Stat(r.disk(prefix))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, nil
		}
		return []string{prefix}, nil
	}
	dir := path.Dir(prefix + "x") // the directory the prefix lies in
	base := r.disk(dir)
	if _, err := r.FS.Stat(base); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var out []string
	err := afero.Walk(r.FS, base, func(p string, fi fs.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() && fi.Name() == ".git" {
			return fs.SkipDir
		}
		rel := clean(strings.TrimPrefix(p, path.Clean(r.Root)))
		if fi.Mode().IsRegular() && c.g.Match(rel) {
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}

func (r *Resolver) disk(p string) string { return path.Join(r.Root, p) }

// literalPrefix returns the part of a pattern before its first glob
// metacharacter.
func literalPrefix(p string) string {
	if i := strings.IndexAny(p, "*?[{\\"); i >= 0 {
		return p[:i]
	}
	return p
}

// clean makes p a slash-separated path relative to the root.
func clean(p string) string { return strings.TrimPrefix(path.Clean("/"+p), "/") }
