package plurnk

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"

	"anchorage/impl/plurnk/membership"

	"github.com/cucumber/godog"
	"github.com/spf13/afero"
)

// simGit stands in for the git binary over the daemon's in-memory
// workspace: the workspace root is one repository tracking the listed
// files, and no other folder is a repository.
type simGit struct {
	root    string
	tracked []string
	fail    string // when set, every listing fails with this message
}

func (g simGit) LsFiles(dir string) ([]string, error) {
	if g.fail != "" {
		return nil, errors.New(g.fail)
	}
	if path.Clean(dir) != path.Clean(g.root) {
		return nil, fmt.Errorf("%s: %w", dir, membership.ErrNoRepo)
	}
	return append([]string(nil), g.tracked...), nil
}

// givenDaemonGitMembers writes the files of the table (| path | content |
// tracked |) into the daemon's workspace, which git (simulated) tracks as
// one repository holding the rows marked yes, and has the daemon keep a
// membership over it.
func givenDaemonGitMembers(ctx context.Context, tbl *godog.Table) error {
	d := getDaemon(ctx)
	if d.backend != nil {
		return fmt.Errorf("the daemon has already started")
	}
	d.members = true
	g := simGit{root: workspace}
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) != 3 {
			return fmt.Errorf("row %d: want | path | content | tracked |", i)
		}
		p := row.Cells[0].Value
		if err := afero.WriteFile(d.fs, workspace+"/"+p, []byte(unescape(row.Cells[1].Value)), 0o644); err != nil {
			return err
		}
		if row.Cells[2].Value == "yes" {
			g.tracked = append(g.tracked, p)
		}
	}
	sort.Strings(g.tracked)
	d.git = g
	return nil
}

// daemonGitFails makes the daemon's (simulated) git fail every listing
// with msg, as a corrupt index would.
func daemonGitFails(ctx context.Context, msg string) error {
	d := getDaemon(ctx)
	if err := d.internal("a git that fails on demand"); err != nil {
		return err
	}
	g, ok := d.git.(simGit)
	if !ok {
		return fmt.Errorf("the daemon keeps no git workspace")
	}
	g.fail = msg
	d.git = g
	return nil
}
