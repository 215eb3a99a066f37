package driver

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/store"

	"github.com/cucumber/godog"
	"github.com/spf13/afero"
)

// projectPrefix names the temporary project directory of a scenario.
const projectPrefix = "plurnk-members-"

// project is a scenario's project directory (a real temporary directory,
// since git needs one) and the entry engine's membership of it.
type project struct {
	en         *entries
	Dir        string
	Resolver   *membership.Resolver
	Membership *membership.Project
	Reads      *CountingFs // counts the files opened for reading
	Second     *store.Session
	Last       []store.LogRow // the divergences the last sync pass recorded
}

func (p *project) close() error {
	if p.Dir == "" {
		return nil
	}
	if err := kit.RemoveTemp(p.Dir, projectPrefix); err != nil {
		return fmt.Errorf("remove the scenario's project directory: %w", err)
	}
	return nil
}

// newDir makes the scenario's one project directory, a temporary
// directory that Close removes.
func (p *project) newDir() error {
	if p.Dir != "" {
		return fmt.Errorf("the scenario already has a project directory")
	}
	dir, err := os.MkdirTemp("", projectPrefix)
	if err != nil {
		return err
	}
	p.Dir = dir
	return nil
}

// Project lays out a directory of its own, the membership attached to the
// entry engine's schemes, tracking with the real git binary the rows
// marked yes when withGit.
func (p *project) Project(_ context.Context, tbl *godog.Table, withGit bool) error {
	if err := p.newDir(); err != nil {
		return err
	}
	tracked, err := layFiles(p.Dir, tbl)
	if err != nil {
		return err
	}
	if !withGit {
		return p.wire(nil)
	}
	g := membership.GitCLI{}
	if err := g.Available(); err != nil {
		return fmt.Errorf("membership scenarios run the real git binary, which is missing here: %w", err)
	}
	if err := p.wire(g); err != nil {
		return err
	}
	return gitInit(p.Dir, membership.GitEnv(), tracked)
}

func (p *project) Forest(_ context.Context, tbl *godog.Table) error {
	if err := p.newDir(); err != nil {
		return err
	}
	g := membership.GitCLI{}
	if err := g.Available(); err != nil {
		return fmt.Errorf("membership scenarios run the real git binary, which is missing here: %w", err)
	}
	if err := p.wire(g); err != nil {
		return err
	}
	return writeForest(p.Dir, membership.GitEnv(), tbl)
}

// wire has the entry engine keep a membership of the project directory,
// as the daemon does: the file scheme is rebuilt over that directory and
// consults the membership before every write. The disk counts the files
// opened on it.
func (p *project) wire(git membership.Git) error {
	p.Reads = &CountingFs{Fs: afero.NewOsFs()}
	m, err := membership.Attach(p.en.Ops.Schemes, p.Reads, p.Dir, git, membership.Flags{})
	if err != nil {
		return err
	}
	p.Membership, p.Resolver = m, m.Resolver
	return nil
}

// ProjectDir is the project directory, once laid out.
func (p *project) ProjectDir() (string, error) {
	if p.Dir == "" {
		return "", fmt.Errorf("the scenario has no project directory")
	}
	return p.Dir, nil
}

// Constrain files a constraint of the session, or one a run's client
// asks for, with the membership the engine's schemes consult.
func (p *project) Constrain(_ context.Context, run string, effect membership.Effect, pattern string) error {
	if _, err := p.ProjectDir(); err != nil {
		return err
	}
	c := membership.Constraint{Effect: effect, Pattern: pattern}
	if run == "" {
		return p.Membership.Constrain(p.en.Session.ID, c)
	}
	r, ok := p.en.Runs[run]
	if !ok {
		return fmt.Errorf("no run %q in the session", run)
	}
	return p.Membership.ConstrainRun(p.en.Store, r.ID, c)
}

// Members resolves the members of the session (who ""), of its second
// session, or that a run of it sees.
func (p *project) Members(_ context.Context, who string) (membership.Set, error) {
	if _, err := p.ProjectDir(); err != nil {
		return membership.Set{}, err
	}
	switch who {
	case "":
		return p.Membership.Members(p.en.Session.ID)
	case SecondSession:
		if p.Second == nil {
			return membership.Set{}, fmt.Errorf("there is no second session")
		}
		return p.Membership.Members(p.Second.ID)
	}
	r, ok := p.en.Runs[who]
	if !ok {
		return membership.Set{}, fmt.Errorf("no run %q in the session", who)
	}
	return p.Membership.MembersOfRun(p.en.Store, r.ID)
}

// OpenSecondSession opens a second session of the store over the same
// project.
func (p *project) OpenSecondSession(context.Context) error {
	if _, err := p.ProjectDir(); err != nil {
		return err
	}
	var err error
	p.Second, err = p.en.Store.NewSession("model")
	return err
}

// GitFlags gives the flags to the membership's resolver.
func (p *project) GitFlags(_ context.Context, allowed, auto string) error {
	if _, err := p.ProjectDir(); err != nil {
		return err
	}
	env := map[string]string{"PLURNK_GIT_ALLOWED": allowed, "PLURNK_GIT_AUTO": auto}
	p.Resolver.Flags = membership.FlagsFromEnv(func(k string) string { return env[k] })
	return nil
}

// CountingFs counts the files opened on it: how a scenario sees which
// members a sync pass re-read.
type CountingFs struct {
	afero.Fs
	Opened []string
}

func (c *CountingFs) Open(name string) (afero.File, error) {
	c.Opened = append(c.Opened, name)
	return c.Fs.Open(name)
}

func (c *CountingFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		c.Opened = append(c.Opened, name)
	}
	return c.Fs.OpenFile(name, flag, perm)
}

// layFiles writes the files of a project table (| path | content | and
// optionally | tracked |) into dir and lists the rows marked yes: git
// tracks them.
func layFiles(dir string, tbl *godog.Table) (tracked []string, err error) {
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) < 2 {
			return nil, fmt.Errorf("row %d: want | path | content | …", i)
		}
		p := row.Cells[0].Value
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(p)), Unescape(row.Cells[1].Value)); err != nil {
			return nil, err
		}
		if len(row.Cells) > 2 && row.Cells[2].Value == "yes" {
			tracked = append(tracked, p)
		}
	}
	return tracked, nil
}

// writeFile writes content to the file full, making its directories.
func writeFile(full, content string) error {
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, []byte(content), 0o644)
}

// gitInit makes dir a git repository tracking the files listed, running
// git with env.
func gitInit(dir string, env []string, tracked []string) error {
	if err := runGit(dir, env, "init", "-q"); err != nil {
		return err
	}
	if len(tracked) == 0 {
		return nil
	}
	return runGit(dir, env, append([]string{"add", "--"}, tracked...)...)
}

func runGit(dir string, env []string, args ...string) error {
	cmd := osexec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// writeForest writes the forest of tbl (| repo | path | content | tracked
// |, repo "." the root itself) into dir: each repo's files, git tracking
// the rows marked yes, and a submodule entry at path for a row whose
// tracked cell is "gitlink".
func writeForest(dir string, env []string, tbl *godog.Table) error {
	tracked := map[string][]string{}
	var links [][2]string
	var repos []string
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) != 4 {
			return fmt.Errorf("row %d: want | repo | path | content | tracked |", i)
		}
		repo, p, content, tr := row.Cells[0].Value, row.Cells[1].Value, row.Cells[2].Value, row.Cells[3].Value
		if _, ok := tracked[repo]; !ok {
			tracked[repo] = nil
			repos = append(repos, repo)
		}
		if tr == "gitlink" {
			links = append(links, [2]string{repo, p})
			continue
		}
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(repo), filepath.FromSlash(p)), Unescape(content)); err != nil {
			return err
		}
		if tr == "yes" {
			tracked[repo] = append(tracked[repo], p)
		}
	}
	for _, repo := range repos {
		rd := filepath.Join(dir, filepath.FromSlash(repo))
		if err := os.MkdirAll(rd, 0o755); err != nil {
			return err
		}
		if err := gitInit(rd, env, tracked[repo]); err != nil {
			return err
		}
	}
	for _, l := range links {
		rd := filepath.Join(dir, filepath.FromSlash(l[0]))
		if err := runGit(rd, env, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,"+l[1]); err != nil {
			return err
		}
	}
	return nil
}

// Unescape turns the `\n`, `\t` and `\"` written in a step into a
// newline, a tab and a quote.
func Unescape(s string) string {
	return strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\"`, `"`).Replace(s)
}
