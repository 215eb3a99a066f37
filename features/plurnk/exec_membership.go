package plurnk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"

	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// memWorld is a scenario's project directory (a real temporary directory,
// since git needs one) and the membership state over it.
type memWorld struct {
	dir      string
	resolver *membership.Resolver
	sessions *membership.Sessions
	sync     *membership.Sync
	second   *store.Session
	last     []membership.Divergence
}

func registerMembershipSteps(sc *godog.ScenarioContext) {
	sc.Step(`^a git repository holding:$`, givenRepo)
	sc.Step(`^a project directory without git holding:$`, givenPlainDir)
	sc.Step(`^the session's overlay (picks|hides|views) "([^"]*)"$`, givenConstraint)
	sc.Step(`^run "([^"]*)" (picks|hides|views) "([^"]*)"$`, givenRunConstraint)
	sc.Step(`^a second session over the same project$`, givenSecondSession)
	sc.Step(`^the members have been synced$`, givenSynced)
	sc.Step(`^the model writes "((?:[^"\\]|\\.)*)" to (\S+) through plurnk$`, whenModelWrites)
	sc.Step(`^(\S+) is changed on disk outside plurnk to "((?:[^"\\]|\\.)*)"$`, whenChangedOutside)
	sc.Step(`^the members are:$`, func(ctx context.Context, tbl *godog.Table) error {
		return thenMembers(ctx, get(ctx).session, tbl)
	})
	sc.Step(`^the members run "([^"]*)" resolves are:$`, thenRunMembers)
	sc.Step(`^the second session's members are:$`, func(ctx context.Context, tbl *godog.Table) error {
		m := getExec(ctx).mem
		if m == nil || m.second == nil {
			return fmt.Errorf("there is no second session")
		}
		return thenMembers(ctx, m.second, tbl)
	})
	sc.Step(`^the hidden files are "([^"]*)"$`, thenHidden)
	sc.Step(`^the session has no members$`, func(ctx context.Context) error {
		set, err := resolveFor(ctx, get(ctx).session)
		if err != nil {
			return err
		}
		if len(set.Members) != 0 {
			return fmt.Errorf("members: %+v", set.Members)
		}
		return nil
	})
	sc.Step(`^the membership check refuses a write to (\S+) with (\d+)$`, thenWriteRefused)
	sc.Step(`^the membership check allows a write to (\S+)$`, thenWriteAllowed)
	sc.Step(`^the next sync records no divergence$`, thenNoDivergence)
	sc.Step(`^the next sync records a divergence of (\S+) holding "((?:[^"\\]|\\.)*)"$`, thenDivergence)
	sc.Step(`^its record for the plurnk run is a folded EDIT of (\S+) with source "([^"]*)"$`, thenDivergenceRow)
}

// project creates the scenario's project directory with the files of tbl
// (| path | content | and optionally | tracked |), tracking with the real
// git binary the rows marked yes when withGit.
func project(ctx context.Context, tbl *godog.Table, withGit bool) error {
	x := getExec(ctx)
	if x.mem != nil {
		return fmt.Errorf("the scenario already has a project directory")
	}
	dir, err := os.MkdirTemp("", "plurnk-members-")
	if err != nil {
		return err
	}
	m := &memWorld{dir: dir, sessions: membership.NewSessions()}
	x.mem = m
	var tracked []string
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) < 2 {
			return fmt.Errorf("row %d: want | path | content | …", i)
		}
		p := row.Cells[0].Value
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(unescape(row.Cells[1].Value)), 0o644); err != nil {
			return err
		}
		if len(row.Cells) > 2 && row.Cells[2].Value == "yes" {
			tracked = append(tracked, p)
		}
	}
	fsys := afero.NewOsFs()
	m.resolver = &membership.Resolver{FS: fsys, Root: dir}
	m.sync = membership.NewSync(fsys, dir)
	if !withGit {
		return nil
	}
	g := membership.GitCLI{}
	if err := g.Available(); err != nil {
		return fmt.Errorf("membership scenarios run the real git binary, which is missing here: %w", err)
	}
	m.resolver.Git = g
	if err := runGit(dir, "init", "-q"); err != nil {
		return err
	}
	if len(tracked) > 0 {
		return runGit(dir, append([]string{"add", "--"}, tracked...)...)
	}
	return nil
}

func runGit(dir string, args ...string) error {
	cmd := osexec.Command("git", args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v: %s", args, err, out)
	}
	return nil
}

func givenRepo(ctx context.Context, tbl *godog.Table) error { return project(ctx, tbl, true) }

func givenPlainDir(ctx context.Context, tbl *godog.Table) error { return project(ctx, tbl, false) }

func mem(ctx context.Context) (*memWorld, error) {
	m := getExec(ctx).mem
	if m == nil {
		return nil, fmt.Errorf("the scenario has no project directory")
	}
	return m, nil
}

// effectOf maps a step's verb to the constraint's effect.
func effectOf(verb string) membership.Effect {
	switch verb {
	case "picks":
		return membership.Pick
	case "hides":
		return membership.Hide
	}
	return membership.View
}

func givenConstraint(ctx context.Context, verb, pattern string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	return m.sessions.Overlay(get(ctx).session.ID).Add(membership.Constraint{Effect: effectOf(verb), Pattern: pattern})
}

// givenRunConstraint files a constraint a run's client asks for: it lands
// on the run's session.
func givenRunConstraint(ctx context.Context, run, verb, pattern string) error {
	w := get(ctx)
	if _, ok := w.runs[run]; !ok {
		return fmt.Errorf("no run %q in the session", run)
	}
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	return m.sessions.Overlay(w.session.ID).Add(membership.Constraint{Effect: effectOf(verb), Pattern: pattern})
}

func givenSecondSession(ctx context.Context) error {
	w := get(ctx)
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	m.second, err = w.store.NewSession("model")
	return err
}

func resolveFor(ctx context.Context, ss *store.Session) (membership.Set, error) {
	m, err := mem(ctx)
	if err != nil {
		return membership.Set{}, err
	}
	return m.resolver.Resolve(m.sessions.Overlay(ss.ID))
}

func thenMembers(ctx context.Context, ss *store.Session, tbl *godog.Table) error {
	set, err := resolveFor(ctx, ss)
	if err != nil {
		return err
	}
	var want []membership.Member
	for i, row := range tbl.Rows {
		if i == 0 {
			continue // | path | effect |
		}
		if len(row.Cells) != 2 {
			return fmt.Errorf("row %d: want | path | effect |", i)
		}
		want = append(want, membership.Member{Path: row.Cells[0].Value, Effect: row.Cells[1].Value})
	}
	if d := cmp.Diff(want, set.Members); d != "" {
		return fmt.Errorf("members (-want +got):\n%s", d)
	}
	return nil
}

// thenRunMembers resolves the members a run sees. impl/plurnk/membership
// keys overlays by session id only and offers no run-level resolution, so
// the run reaches them through the session the store files it under; the
// step checks that filing rather than assuming it.
func thenRunMembers(ctx context.Context, run string, tbl *godog.Table) error {
	w := get(ctx)
	r, ok := w.runs[run]
	if !ok {
		return fmt.Errorf("no run %q in the session", run)
	}
	if got, err := w.session.Run(run); err != nil || got != r {
		return fmt.Errorf("the store does not file run %q under session %d: %v", run, w.session.ID, err)
	}
	return thenMembers(ctx, w.session, tbl)
}

func thenHidden(ctx context.Context, want string) error {
	set, err := resolveFor(ctx, get(ctx).session)
	if err != nil {
		return err
	}
	if d := cmp.Diff(splitList(want), set.Hidden); d != "" {
		return fmt.Errorf("hidden (-want +got):\n%s", d)
	}
	return nil
}

func writeCheck(ctx context.Context, p string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	set, err := resolveFor(ctx, get(ctx).session)
	if err != nil {
		return err
	}
	_, statErr := os.Stat(filepath.Join(m.dir, filepath.FromSlash(p)))
	return set.CheckWrite(p, !errors.Is(statErr, fs.ErrNotExist))
}

func thenWriteRefused(ctx context.Context, p string, status int) error {
	err := writeCheck(ctx, p)
	if err == nil {
		return fmt.Errorf("a write to %s is allowed", p)
	}
	if got := scheme.StatusOf(err); got != status {
		return fmt.Errorf("a write to %s answers %d (%v), want %d", p, got, err, status)
	}
	return nil
}

func thenWriteAllowed(ctx context.Context, p string) error {
	if err := writeCheck(ctx, p); err != nil {
		return fmt.Errorf("a write to %s is refused: %w", p, err)
	}
	return nil
}

func (m *memWorld) pass(ctx context.Context) ([]membership.Divergence, error) {
	set, err := resolveFor(ctx, get(ctx).session)
	if err != nil {
		return nil, err
	}
	return m.sync.Pass(set.Paths())
}

func givenSynced(ctx context.Context) error {
	return noDivergence(ctx, "the first sync reported divergences")
}

func whenModelWrites(ctx context.Context, content, p string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(m.dir, filepath.FromSlash(p)), []byte(unescape(content)), 0o644); err != nil {
		return err
	}
	return m.sync.Wrote(p)
}

func whenChangedOutside(ctx context.Context, p, content string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(m.dir, filepath.FromSlash(p)), []byte(unescape(content)), 0o644)
}

func thenNoDivergence(ctx context.Context) error { return noDivergence(ctx, "divergences") }

// noDivergence runs one sync pass and fails, saying what, if it reports any
// divergence.
func noDivergence(ctx context.Context, what string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	d, err := m.pass(ctx)
	if err != nil {
		return err
	}
	if len(d) != 0 {
		return fmt.Errorf("%s: %+v", what, d)
	}
	return nil
}

func thenDivergence(ctx context.Context, p, content string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	d, err := m.pass(ctx)
	if err != nil {
		return err
	}
	want := []membership.Divergence{{Path: p, Kind: "changed", Content: unescape(content), Source: "file"}}
	if diff := cmp.Diff(want, d); diff != "" {
		return fmt.Errorf("divergences (-want +got):\n%s", diff)
	}
	m.last = d
	return nil
}

func thenDivergenceRow(ctx context.Context, target, source string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	if len(m.last) != 1 {
		return fmt.Errorf("no divergence recorded")
	}
	d := m.last[0]
	row := d.Row()
	type rec struct {
		Op, Origin, Target, Source string
		Expanded                   bool
	}
	got := rec{row.Op, row.Origin, row.Target, d.Source, row.Expanded}
	want := rec{"EDIT", "plurnk", target, source, false}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("divergence record (-want +got):\n%s", diff)
	}
	return nil
}
