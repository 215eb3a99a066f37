package dsl

import (
	"fmt"
	"strings"
)

// Address is the folded key of a target: the entry it names.
type Address struct {
	Scheme      string // "" for a project file (the file scheme)
	Host        string // kept only for foreign schemes
	Path        string
	Fragment    string // the channel
	HasFragment bool
}

// String renders the address: scheme:///path for a registered scheme,
// scheme://host/path for a foreign one, /path for a project file.
func (a Address) String() string {
	s := a.Path
	if a.Scheme != "" {
		s = a.Scheme + "://" + a.Host + a.Path
	}
	if a.HasFragment {
		s += "#" + a.Fragment
	}
	return s
}

// FoldError is the error type of FoldTarget's sentinels.
type FoldError string

func (e FoldError) Error() string { return string(e) }

// ErrEscapesRoot is returned (wrapped) by FoldTarget for a project path that
// climbs above the workspace root (the service answers 403).
const ErrEscapesRoot FoldError = "path escapes the workspace root"

// WebSchemes reports the schemes that are real web hosts (http, https): the
// foreign schemes whose authority is a host. It is the default for
// FoldTarget's foreign argument.
func WebSchemes(scheme string) bool { return scheme == "http" || scheme == "https" }

// FoldTarget folds t into the entry key it names.
//
//   - A registered scheme is a plurnk namespace: its authority is the first
//     path segment, so known://x, known:///x and the pathname /x are one
//     entry. An empty path folds to "/".
//   - A foreign scheme (foreign(scheme) is true; nil means WebSchemes) keeps
//     its host and path untouched.
//   - A local path is a project file: it resolves against the workspace root
//     to an absolute /rel key (RFC 3986 dot-segment removal, a trailing slash
//     kept because it marks a folder scope); climbing above the root is
//     ErrEscapesRoot.
//
// Fold a run:// control target only after checking Target.RunName: folding
// turns run://name into /name and run://. into /., the same keys as the
// scratch paths run:///name and run:///. .
func FoldTarget(t Target, foreign func(scheme string) bool) (Address, error) {
	if foreign == nil {
		foreign = WebSchemes
	}
	a := Address{Scheme: t.Scheme, Fragment: t.Fragment, HasFragment: t.HasFragment}
	switch {
	case t.Scheme == "":
		p, err := resolveLocal(t.Path)
		if err != nil {
			return Address{}, fmt.Errorf("fold %q: %w", t.String(), err)
		}
		a.Path = p
	case foreign(t.Scheme):
		a.Host, a.Path = t.Host, t.Path
	default:
		p := t.Path
		if t.Host != "" {
			p = "/" + t.Host + p
		}
		if p == "" {
			p = "/"
		}
		a.Path = p
	}
	return a, nil
}

// resolveLocal resolves a workspace-relative path to an absolute key. A
// trailing slash is kept; "." alone is the root and ".." escapes it.
func resolveLocal(p string) (string, error) {
	trailing := strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..")
	var out []string
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(out) == 0 {
				return "", ErrEscapesRoot
			}
			out = out[:len(out)-1]
		default:
			out = append(out, seg)
		}
	}
	s := "/" + strings.Join(out, "/")
	if trailing && len(out) > 0 {
		s += "/"
	}
	return s, nil
}
