package membership

import (
	"bytes"
	"fmt"
	"os"
	osexec "os/exec"
	"strings"
)

// GitCLI runs the git binary.
type GitCLI struct {
	// Path is the git binary; empty means "git" on PATH.
	Path string
	// Env is the environment git is started with, less its GIT_*
	// variables; nil means the process's own.
	Env []string
}

func (g GitCLI) bin() string {
	if g.Path == "" {
		return "git"
	}
	return g.Path
}

// Available reports whether the git binary can be found.
func (g GitCLI) Available() error {
	if _, err := osexec.LookPath(g.bin()); err != nil {
		return fmt.Errorf("git binary %q not found: %w", g.bin(), err)
	}
	return nil
}

// Found returns g when its binary can be found, and nil (no git: the
// session's picks are its only members, §membership-git-membership) when
// it cannot.
func (g GitCLI) Found() Git {
	if g.Available() != nil {
		return nil
	}
	return g
}

// LsFiles runs `git ls-files --stage -z` in dir and returns the tracked
// paths, leaving out gitlinks (submodules, mode 160000).
func (g GitCLI) LsFiles(dir string) ([]string, error) {
	cmd := osexec.Command(g.bin(), "ls-files", "--stage", "-z")
	cmd.Dir = dir
	cmd.Env = g.env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if strings.Contains(stderr.String(), "not a git repository") {
			return nil, fmt.Errorf("ls-files in %s: %w", dir, ErrNoRepo)
		}
		return nil, fmt.Errorf("git ls-files in %s: %v: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	var out []string
	for _, rec := range strings.Split(stdout.String(), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		if strings.HasPrefix(meta, "160000 ") {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// env is the environment git runs in: g.Env (or the process's) without
// the GIT_* variables that would point git at another repository than the
// directory it is run in.
func (g GitCLI) env() []string {
	base := g.Env
	if base == nil {
		base = os.Environ()
	}
	var out []string
	for _, kv := range base {
		if !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	return out
}

// Others runs `git ls-files --others --exclude-standard -z` in dir: the
// untracked files git does not ignore.
func (g GitCLI) Others(dir string) ([]string, error) {
	cmd := osexec.Command(g.bin(), "ls-files", "--others", "--exclude-standard", "-z")
	cmd.Dir = dir
	cmd.Env = g.env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git ls-files --others in %s: %v: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	var out []string
	for _, p := range strings.Split(stdout.String(), "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}
