package rpc

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"anchorage/impl/plurnk/scheme"
)

// fileEdit is the runs service's look at a model's EDIT of a workspace
// file before it is proposed (runs.Config.FileEdit): the file's signature
// on disk, its modification time and size ("" when there is no file),
// which an accept compares with the disk again; and gate, the refusal the
// op engine would answer at once: a binary file (415), or the membership's
// verdict (403 for an existing non-member or a view member, 400 for a
// member changed on disk since plurnk last synced it).
func (o *Orchestrator) fileEdit(session int64, p string) (sig string, gate error) {
	fi, err := o.cfg.FS.Stat(path.Join(o.cfg.Root, p))
	exists := err == nil
	switch {
	case exists:
		sig = fmt.Sprintf("%d:%d", fi.ModTime().UnixNano(), fi.Size())
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if mt := scheme.MimetypeOf(p); scheme.IsBinary(mt) {
		return sig, scheme.Errorf(415, "%s is binary (%s)", p, mt)
	}
	if o.members != nil {
		if err := o.members.CheckWrite(session, strings.TrimPrefix(p, "/"), exists); err != nil {
			return sig, err
		}
	}
	return sig, nil
}
