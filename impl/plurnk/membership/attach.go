package membership

import (
	"errors"
	"fmt"
	"strings"

	"anchorage/impl/plurnk/scheme"

	"github.com/spf13/afero"
)

// Attach puts the membership of the project at root in front of the
// registry's file scheme: the file scheme is rebuilt over fsys and root and
// consults the returned Project before every write, reports plurnk's own
// writes to it, and answers the engine's per-turn reconciliation
// (ops.Engine.Reconcile) with the members changed outside plurnk. git is
// nil where no git binary serves the project (pick is then the only
// source of members); flags are the service's git switches.
func Attach(reg *scheme.Registry, fsys afero.Fs, root string, git Git, flags Flags) (*Project, error) {
	p := NewProject(&Resolver{FS: fsys, Root: root, Git: git, Flags: flags})
	f := scheme.NewFile(fsys, root)
	f.UseMembers(p)
	if err := reg.Replace(f); err != nil {
		return nil, fmt.Errorf("attach membership at %s: %w", root, err)
	}
	return p, nil
}

// Constrain adds c to session's overlay (session.constrain): the one
// overlay every run of the session resolves.
func (p *Project) Constrain(session int64, c Constraint) error {
	return p.Sessions.Overlay(session).Add(c)
}

// GitSection renders the packet's git section for session: one line per
// repository git membership covers, `* <repo>: <n> files tracked` (`.` is
// the project root), in the order the forest lists them. It is empty when
// git supplies no members (absent, denied, or no repository found).
func (p *Project) GitSection(session int64) (string, error) {
	r := p.Resolver
	var b strings.Builder
	o := p.Sessions.Overlay(session)
	for _, repo := range r.repos(o.snapshot(), o.Git()) {
		tracked, err := r.Git.LsFiles(r.disk(repo))
		switch {
		case errors.Is(err, ErrNoRepo):
			continue
		case err != nil:
			return "", fmt.Errorf("git section: %w", err)
		}
		name := repo
		if name == "" {
			name = "."
		}
		fmt.Fprintf(&b, "* %s: %d files tracked\n", name, len(tracked))
	}
	return b.String(), nil
}
