package plurnk

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/llm"

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
	project  *membership.Project
	reads    *countingFs // counts the files opened for reading
	second   *store.Session
	last     []store.LogRow
	// daemon: dir is a daemon process's root, removed with its scenario;
	// only the disk is there, the membership is the daemon's.
	daemon bool
}

func registerMembershipSteps(sc kit.Steps) {
	sc.Step(`^a git repository holding:$`, givenRepo)
	sc.Step(`^a project directory without git holding:$`, givenPlainDir)
	sc.Step(`^the session's overlay (picks|hides|views) "([^"]*)"$`, givenConstraint)
	sc.Step(`^run "([^"]*)" (picks|hides|views) "([^"]*)"$`, givenRunConstraint)
	sc.Step(`^a second session over the same project$`, givenSecondSession)
	sc.Step(`^the members have been synced$`, givenSynced)
	sc.Step(`^the model writes "((?:[^"\\]|\\.)*)" to (\S+) through plurnk$`, whenModelWrites)
	sc.Step(`^(\S+) is changed on disk outside plurnk to "((?:[^"\\]|\\.)*)"$`, whenChangedOutside)
	sc.Step(`^the members are:$`, func(ctx context.Context, tbl *godog.Table) error {
		set, err := get(ctx).drv.members(ctx, "")
		if err != nil {
			return err
		}
		return compareMembers(set, tbl)
	})
	sc.Step(`^the members run "([^"]*)" resolves are:$`, thenRunMembers)
	sc.Step(`^the second session's members are:$`, func(ctx context.Context, tbl *godog.Table) error {
		set, err := get(ctx).drv.members(ctx, secondSession)
		if err != nil {
			return err
		}
		return compareMembers(set, tbl)
	})
	sc.Step(`^the hidden files are "([^"]*)"$`, thenHidden)
	sc.Step(`^the session has no members$`, func(ctx context.Context) error {
		set, err := get(ctx).drv.members(ctx, "")
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
	sc.Step(`^its record for the plurnk run is a folded EDIT of (\S+) with source "([^"]*)"$`, func(ctx context.Context, target, source string) error {
		return thenDivergenceRow(ctx, target, source, "")
	})
	sc.Step(`^its record for the plurnk run is a folded EDIT of (\S+) with source "([^"]*)" at log:///(\S+)$`, thenDivergenceRow)
}

// newProjectDir makes the scenario's one project directory, a temporary
// directory that the scenario's cleanup removes (kit.RemoveTemp).
func newProjectDir(ctx context.Context) (*memWorld, error) {
	x := getExec(ctx)
	if x.mem != nil {
		return nil, fmt.Errorf("the scenario already has a project directory")
	}
	dir, err := os.MkdirTemp("", "plurnk-members-")
	if err != nil {
		return nil, err
	}
	x.mem = &memWorld{dir: dir}
	return x.mem, nil
}

// project creates the scenario's project directory with the files of tbl
// (| path | content | and optionally | tracked |), tracking with the real
// git binary the rows marked yes when withGit.
func project(ctx context.Context, tbl *godog.Table, withGit bool) error {
	return get(ctx).drv.project(ctx, tbl, withGit)
}

// projectFiles reads a project table: | path | content | and optionally
// | tracked | (yes: git tracks it).
func projectFiles(tbl *godog.Table) (files map[string]string, order, tracked []string, err error) {
	files = map[string]string{}
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) < 2 {
			return nil, nil, nil, fmt.Errorf("row %d: want | path | content | …", i)
		}
		p := row.Cells[0].Value
		files[p] = unescape(row.Cells[1].Value)
		order = append(order, p)
		if len(row.Cells) > 2 && row.Cells[2].Value == "yes" {
			tracked = append(tracked, p)
		}
	}
	return files, order, tracked, nil
}

// layProject is project for the engine as a library: a directory of its
// own, the membership attached to the world's schemes.
func layProject(ctx context.Context, tbl *godog.Table, withGit bool) error {
	m, err := newProjectDir(ctx)
	if err != nil {
		return err
	}
	dir := m.dir
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
	if !withGit {
		return m.wire(ctx, nil)
	}
	g := membership.GitCLI{}
	if err := g.Available(); err != nil {
		return fmt.Errorf("membership scenarios run the real git binary, which is missing here: %w", err)
	}
	if err := m.wire(ctx, g); err != nil {
		return err
	}
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
	cmd.Env = membership.GitEnv()
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
	return get(ctx).drv.constrain(ctx, "", effectOf(verb), pattern)
}

// constrainEmbedded files a constraint of the world's session with the
// membership the engine's schemes consult.
func constrainEmbedded(ctx context.Context, effect membership.Effect, pattern string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	return m.project.Constrain(get(ctx).session.ID, membership.Constraint{Effect: effect, Pattern: pattern})
}

// givenRunConstraint is a constraint a run's client asks for; the
// membership files it where it belongs.
func givenRunConstraint(ctx context.Context, run, verb, pattern string) error {
	return get(ctx).drv.constrain(ctx, run, effectOf(verb), pattern)
}

// constrainRun files a constraint a run's client asks for in the world's
// membership.
func constrainRun(ctx context.Context, run string, effect membership.Effect, pattern string) error {
	w := get(ctx)
	r, ok := w.runs[run]
	if !ok {
		return fmt.Errorf("no run %q in the session", run)
	}
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	return m.project.ConstrainRun(w.store, r.ID, membership.Constraint{Effect: effect, Pattern: pattern})
}

func givenSecondSession(ctx context.Context) error { return get(ctx).drv.secondSession(ctx) }

// secondSessionEmbedded opens a second session of the world's store over
// the same project.
func secondSessionEmbedded(ctx context.Context) error {
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
	return m.project.Members(ss.ID)
}

func thenMembers(ctx context.Context, ss *store.Session, tbl *godog.Table) error {
	set, err := resolveFor(ctx, ss)
	if err != nil {
		return err
	}
	return compareMembers(set, tbl)
}

func compareMembers(set membership.Set, tbl *godog.Table) error {
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

// thenRunMembers resolves the members a run sees, asking the membership
// by the run.
func thenRunMembers(ctx context.Context, run string, tbl *godog.Table) error {
	set, err := get(ctx).drv.members(ctx, run)
	if err != nil {
		return err
	}
	return compareMembers(set, tbl)
}

// membersEmbedded resolves the members of the world's session (who ""),
// of its second session, or that a run of it sees.
func membersEmbedded(ctx context.Context, who string) (membership.Set, error) {
	w := get(ctx)
	switch who {
	case "":
		return resolveFor(ctx, w.session)
	case secondSession:
		m := getExec(ctx).mem
		if m == nil || m.second == nil {
			return membership.Set{}, fmt.Errorf("there is no second session")
		}
		return resolveFor(ctx, m.second)
	}
	r, ok := w.runs[who]
	if !ok {
		return membership.Set{}, fmt.Errorf("no run %q in the session", who)
	}
	m, err := mem(ctx)
	if err != nil {
		return membership.Set{}, err
	}
	return m.project.MembersOfRun(w.store, r.ID)
}

// secondSession names the second session over the same project.
const secondSession = "second session"

func thenHidden(ctx context.Context, want string) error {
	set, err := get(ctx).drv.members(ctx, "")
	if err != nil {
		return err
	}
	if d := cmp.Diff(splitList(want), set.Hidden); d != "" {
		return fmt.Errorf("hidden (-want +got):\n%s", d)
	}
	return nil
}

// modelEdit is the model's EDIT of the project file p with body, through
// the file scheme as any EDIT goes.
func modelEdit(ctx context.Context, p, body string) (ops.Result, error) {
	if err := emit(ctx, "model", "<<EDIT("+p+"):"+body+":EDIT"); err != nil {
		return ops.Result{}, err
	}
	return last(get(ctx))
}

func diskContent(m *memWorld, p string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(m.dir, filepath.FromSlash(p)))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// thenWriteRefused has the model EDIT p and checks that the EDIT answers
// status and that the file on disk is as it was.
func thenWriteRefused(ctx context.Context, p string, status int) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	before, existed := diskContent(m, p)
	r, err := modelEdit(ctx, p, "written by the model")
	if err != nil {
		return err
	}
	if r.Status != status {
		return fmt.Errorf("the model's EDIT of %s answered %d (%s), want %d", p, r.Status, r.Reason, status)
	}
	if after, exists := diskContent(m, p); after != before || exists != existed {
		return fmt.Errorf("%s changed on disk although its EDIT was refused: %q → %q", p, before, after)
	}
	return nil
}

// thenWriteAllowed has the model EDIT p and checks that the content
// reached the disk.
func thenWriteAllowed(ctx context.Context, p string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	body := "written by the model to " + p
	r, err := modelEdit(ctx, p, body)
	if err != nil {
		return err
	}
	if r.Status != 200 && r.Status != 201 {
		return fmt.Errorf("the model's EDIT of %s answered %d (%s)", p, r.Status, r.Reason)
	}
	if got, _ := diskContent(m, p); got != body {
		return fmt.Errorf("%s holds %q on disk after the EDIT, want %q", p, got, body)
	}
	return nil
}

// pass lets one turn of the model go by: the engine runs a loop whose
// model ends at once, and its turn syncs the members. It returns the rows
// the turn recorded for the plurnk run: its EDITs of files.
func (m *memWorld) pass(ctx context.Context) ([]store.LogRow, error) {
	w, ew := get(ctx), getEngine(ctx)
	pr, err := w.session.Run(store.PlurnkRun)
	if err != nil {
		return nil, err
	}
	n := len(pr.Log)
	ew.llm.Add(llm.Reply{Content: "<<PLAN:nothing to do:PLAN\n<<SEND[200]:done:SEND\n"})
	if err := startLoop(ctx, "carry on", 0); err != nil {
		return nil, err
	}
	if res, _ := lastLoop(ctx); res.Status != 200 {
		return nil, fmt.Errorf("the loop that was to sync ended %d: %s", res.Status, res.Reason)
	}
	var out []store.LogRow
	for _, row := range pr.Log[n:] {
		if row.Op == "EDIT" && strings.HasPrefix(row.Target, "file://") {
			out = append(out, *row)
		}
	}
	return out, nil
}

func givenSynced(ctx context.Context) error {
	return noDivergence(ctx, "the first sync reported divergences")
}

// whenModelWrites is the model's own EDIT of p through the file scheme.
func whenModelWrites(ctx context.Context, content, p string) error {
	r, err := modelEdit(ctx, p, content)
	if err != nil {
		return err
	}
	if r.Status != 200 && r.Status != 201 {
		return fmt.Errorf("the model's EDIT of %s answered %d (%s)", p, r.Status, r.Reason)
	}
	return nil
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
	type rec struct{ Target, Content string }
	want := []rec{{"file:///" + p, unescape(content)}}
	var got []rec
	for _, row := range d {
		got = append(got, rec{row.Target, row.Content})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("divergences (-want +got):\n%s", diff)
	}
	m.last = d
	return nil
}

// thenDivergenceRow checks the row the pass wrote in the plurnk run's log.
func thenDivergenceRow(ctx context.Context, target, source, coord string) error {
	w := get(ctx)
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	if len(m.last) != 1 {
		return fmt.Errorf("no divergence recorded")
	}
	pr, err := w.session.Run(store.PlurnkRun)
	if err != nil {
		return err
	}
	var found *store.LogRow
	for _, row := range pr.Log {
		if row.ID == m.last[0].ID {
			found = row
		}
	}
	if found == nil {
		return fmt.Errorf("the plurnk run's log does not hold the divergence row")
	}
	type rec struct {
		Op, Origin, Target, Source string
		Expanded                   bool
	}
	got := rec{found.Op, found.Origin, found.Target, strings.SplitN(found.Reason, ":", 2)[0], found.Expanded}
	want := rec{"EDIT", "plurnk", target, source, false}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("divergence record (-want +got):\n%s", diff)
	}
	if coord != "" && found.Coord() != coord {
		return fmt.Errorf("the divergence row sits at log:///%s, want log:///%s", found.Coord(), coord)
	}
	return nil
}

// countingFs counts the files opened on it: how a scenario sees which
// members a sync pass re-read.
type countingFs struct {
	afero.Fs
	opened []string
}

func (c *countingFs) Open(name string) (afero.File, error) {
	c.opened = append(c.opened, name)
	return c.Fs.Open(name)
}

func (c *countingFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		c.opened = append(c.opened, name)
	}
	return c.Fs.OpenFile(name, flag, perm)
}

// wire has the service keep a membership of the project directory (the
// temporary one the scenario made, never a real path), as the daemon does:
// the file scheme is rebuilt over that directory and consults the
// membership before every write. The disk counts the files opened on it.
func (m *memWorld) wire(ctx context.Context, git membership.Git) error {
	m.reads = &countingFs{Fs: afero.NewOsFs()}
	p, err := membership.Attach(get(ctx).eng.Schemes, m.reads, m.dir, git, membership.Flags{})
	if err != nil {
		return err
	}
	m.project, m.resolver, m.sessions = p, p.Resolver, p.Sessions
	return nil
}
