// Package membership holds the steps of the membership (the digest's
// §membership-* anchors): a project directory on disk, the session's
// overlay over it, the members it resolves and the writes it allows.
//
// It may import godog, features/kit, the world and the driver,
// impl/plurnk/... and sim/.
package membership

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
)

// Register registers the membership's steps.
func Register(sc world.Steps) {
	registerProject(sc)
	registerMembers(sc)
}

func registerProject(sc world.Steps) {
	sc.Public(`^a git repository holding:$`, func(ctx context.Context, tbl *godog.Table) error {
		return world.Get(ctx).Drv.Project(ctx, tbl, true)
	})
	sc.Public(`^a project directory without git holding:$`, func(ctx context.Context, tbl *godog.Table) error {
		return world.Get(ctx).Drv.Project(ctx, tbl, false)
	})
	sc.Public(`^a project holding the git repositories:$`, func(ctx context.Context, tbl *godog.Table) error {
		return world.Get(ctx).Drv.Forest(ctx, tbl)
	})
	sc.Public(`^the service finds no git binary$`, func(ctx context.Context) error {
		return world.Get(ctx).Drv.GitMissing(ctx)
	})
	sc.Public(`^the service's environment sets (GIT_[A-Z_]+) to "([^"]*)"$`, func(ctx context.Context, key, value string) error {
		return world.Get(ctx).Drv.GitEnviron(ctx, key, value)
	})
	sc.Public(`^the session's overlay (picks|hides|views) "([^"]*)"$`, func(ctx context.Context, verb, pattern string) error {
		return world.Get(ctx).Drv.Constrain(ctx, "", effectOf(verb), pattern)
	})
	sc.Public(`^run "([^"]*)" (picks|hides|views) "([^"]*)"$`, func(ctx context.Context, run, verb, pattern string) error {
		return world.Get(ctx).Drv.Constrain(ctx, run, effectOf(verb), pattern)
	})
	sc.Public(`^the session's overlay declares the repo "([^"]*)"$`, func(ctx context.Context, folder string) error {
		return world.Get(ctx).Drv.Constrain(ctx, "", membership.Repo, folder)
	})
	sc.Public(`^the service runs with PLURNK_GIT_ALLOWED="([^"]*)" and PLURNK_GIT_AUTO="([^"]*)"$`, func(ctx context.Context, allowed, auto string) error {
		return world.Get(ctx).Drv.GitFlags(ctx, allowed, auto)
	})
	sc.Public(`^a second session over the same project$`, func(ctx context.Context) error {
		return world.Get(ctx).Drv.OpenSecondSession(ctx)
	})
	sc.Step(`^the members have been synced$`, func(ctx context.Context) error {
		return noDivergence(ctx, "the first sync reported divergences")
	})
	sc.Step(`^the next sync records no divergence$`, func(ctx context.Context) error { return noDivergence(ctx, "divergences") })
	sc.Step(`^the next sync records a divergence of (\S+) holding "((?:[^"\\]|\\.)*)"$`, thenDivergence)
	sc.Step(`^its record for the plurnk run is a folded EDIT of (\S+) with source "([^"]*)"$`, func(ctx context.Context, target, source string) error {
		return thenDivergenceRow(ctx, target, source, "")
	})
	sc.Step(`^its record for the plurnk run is a folded EDIT of (\S+) with source "([^"]*)" at log:///(\S+)$`, thenDivergenceRow)
	sc.Step(`^the next sync re-reads exactly "([^"]*)"$`, thenSyncReads)
	sc.Step(`^the next sync fails on (\S+) with an error row of status (\d+)$`, thenSyncFails)
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

func registerMembers(sc world.Steps) {
	sc.Public(`^the members are:$`, func(ctx context.Context, tbl *godog.Table) error { return thenMembers(ctx, "", tbl) })
	sc.Public(`^the members run "([^"]*)" resolves are:$`, thenMembers)
	sc.Public(`^the second session's members are:$`, func(ctx context.Context, tbl *godog.Table) error {
		return thenMembers(ctx, driver.SecondSession, tbl)
	})
	sc.Public(`^the hidden files are "([^"]*)"$`, func(ctx context.Context, want string) error {
		set, err := world.Get(ctx).Drv.Members(ctx, "")
		if err != nil {
			return err
		}
		if d := cmp.Diff(world.SplitList(want), set.Hidden); d != "" {
			return fmt.Errorf("hidden (-want +got):\n%s", d)
		}
		return nil
	})
	sc.Public(`^the session has no members$`, func(ctx context.Context) error {
		set, err := world.Get(ctx).Drv.Members(ctx, "")
		if err != nil {
			return err
		}
		if len(set.Members) != 0 {
			return fmt.Errorf("members: %+v", set.Members)
		}
		return nil
	})
	sc.Public(`^the membership check refuses a write to (\S+) with (\d+)$`, thenWriteRefused)
	sc.Public(`^the membership check allows a write to (\S+)$`, thenWriteAllowed)
	sc.Step(`^the model writes "((?:[^"\\]|\\.)*)" to (\S+) through plurnk$`, func(ctx context.Context, content, p string) error {
		r, err := modelEdit(ctx, p, content)
		if err != nil {
			return err
		}
		if r.Status != 200 && r.Status != 201 {
			return fmt.Errorf("the model's EDIT of %s answered %d (%s)", p, r.Status, r.Reason)
		}
		return nil
	})
	sc.Step(`^the model deletes (\S+) through plurnk$`, func(ctx context.Context, p string) error {
		w := world.Get(ctx)
		if err := w.Emit("model", "<<KILL("+p+")::KILL"); err != nil {
			return err
		}
		r, err := w.Last()
		if err != nil {
			return err
		}
		if r.Status < 200 || r.Status > 299 {
			return fmt.Errorf("the model's KILL of %s answered %d (%s)", p, r.Status, r.Reason)
		}
		return nil
	})
	sc.Step(`^(\S+) is changed on disk outside plurnk to "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, p, content string) error {
		dir, err := world.Get(ctx).Drv.ProjectDir()
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(driver.Unescape(content)), 0o644)
	})
	sc.Step(`^(\S+) is replaced on disk by a folder$`, func(ctx context.Context, p string) error {
		dir, err := world.Get(ctx).Drv.ProjectDir()
		if err != nil {
			return err
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.Remove(full); err != nil {
			return err
		}
		return os.Mkdir(full, 0o755)
	})
	sc.Public(`^the project file (\S+) is gone$`, func(ctx context.Context, p string) error {
		_, ok, err := diskContent(ctx, p)
		if err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("%s still exists on disk", p)
		}
		return nil
	})
	sc.Public(`^the project file (\S+) holds "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, p, want string) error {
		got, ok, err := diskContent(ctx, p)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s does not exist on disk", p)
		}
		if got != driver.Unescape(want) {
			return fmt.Errorf("%s holds %q on disk, want %q", p, got, driver.Unescape(want))
		}
		return nil
	})
}

// thenMembers compares the members who resolves (the session "", a run,
// the second session) with the table | path | effect |.
func thenMembers(ctx context.Context, who string, tbl *godog.Table) error {
	set, err := world.Get(ctx).Drv.Members(ctx, who)
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

// modelEdit is the model's EDIT of the project file p with body, through
// the file scheme as any EDIT goes.
func modelEdit(ctx context.Context, p, body string) (ops.Result, error) {
	w := world.Get(ctx)
	if err := w.Emit("model", "<<EDIT("+p+"):"+body+":EDIT"); err != nil {
		return ops.Result{}, err
	}
	return w.Last()
}

// diskContent is the project file p on disk, and whether it exists.
func diskContent(ctx context.Context, p string) (string, bool, error) {
	dir, err := world.Get(ctx).Drv.ProjectDir()
	if err != nil {
		return "", false, err
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		return "", false, nil
	}
	return string(b), true, nil
}

// thenWriteRefused has the model EDIT p and checks that the EDIT answers
// status and that the file on disk is as it was.
func thenWriteRefused(ctx context.Context, p string, status int) error {
	before, existed, err := diskContent(ctx, p)
	if err != nil {
		return err
	}
	r, err := modelEdit(ctx, p, "written by the model")
	if err != nil {
		return err
	}
	if r.Status != status {
		return fmt.Errorf("the model's EDIT of %s answered %d (%s), want %d", p, r.Status, r.Reason, status)
	}
	if after, exists, _ := diskContent(ctx, p); after != before || exists != existed {
		return fmt.Errorf("%s changed on disk although its EDIT was refused: %q → %q", p, before, after)
	}
	return nil
}

// thenWriteAllowed has the model EDIT p and checks that the content
// reached the disk.
func thenWriteAllowed(ctx context.Context, p string) error {
	if _, _, err := diskContent(ctx, p); err != nil {
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
	if got, _, _ := diskContent(ctx, p); got != body {
		return fmt.Errorf("%s holds %q on disk after the EDIT, want %q", p, got, body)
	}
	return nil
}

// The sync pass each turn runs over the members, on the entry engine as a
// library: the divergences it records, the files it re-reads.

// project is the embedded reference, its project laid out.
func project(ctx context.Context) (*driver.Embedded, error) {
	e, err := world.Get(ctx).Embedded()
	if err != nil {
		return nil, err
	}
	if _, err := e.ProjectDir(); err != nil {
		return nil, err
	}
	return e, nil
}

// pass lets one turn of the model go by: the engine runs a loop whose
// model ends at once, and its turn syncs the members. It returns the rows
// the turn recorded for the plurnk run: its EDITs of files.
func pass(ctx context.Context, e *driver.Embedded) ([]store.LogRow, error) {
	w := world.Get(ctx)
	pr, err := e.Session.Run(store.PlurnkRun)
	if err != nil {
		return nil, err
	}
	n := len(pr.Log)
	w.Script.Model.Add(llm.Reply{Content: "<<PLAN:nothing to do:PLAN\n<<SEND[200]:done:SEND\n"})
	if err := w.StartLoop(ctx, "carry on", 0); err != nil {
		return nil, err
	}
	if res, _ := w.LastLoop(); res.Status != 200 {
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

// thenSyncFails lets one turn of the model go by, as pass does, and
// checks that its sync pass was recorded as a failed row (op "error") of
// status, naming the member p, in some run's log, and that the pass
// recorded no divergence of p.
func thenSyncFails(ctx context.Context, p string, status int) error {
	e, err := project(ctx)
	if err != nil {
		return err
	}
	errorRows := func() []*store.LogRow {
		var out []*store.LogRow
		for _, r := range e.Session.Runs {
			for _, row := range r.Log {
				if row.Op == "error" {
					out = append(out, row)
				}
			}
		}
		return out
	}
	before := len(errorRows())
	d, err := pass(ctx, e)
	if err != nil {
		return err
	}
	for _, row := range d {
		if row.Target == "file:///"+p {
			return fmt.Errorf("the pass recorded a divergence of %s holding %q", p, row.Content)
		}
	}
	after := errorRows()
	if len(after) != before+1 {
		return fmt.Errorf("the pass wrote %d error rows, want 1", len(after)-before)
	}
	if row := after[len(after)-1]; row.Status != status || !strings.Contains(row.Reason, p) {
		return fmt.Errorf("the pass's error row is %d (%s), want %d naming %s", row.Status, row.Reason, status, p)
	}
	return nil
}

// noDivergence runs one sync pass and fails, saying what, if it reports
// any divergence.
func noDivergence(ctx context.Context, what string) error {
	e, err := project(ctx)
	if err != nil {
		return err
	}
	d, err := pass(ctx, e)
	if err != nil {
		return err
	}
	if len(d) != 0 {
		return fmt.Errorf("%s: %+v", what, d)
	}
	return nil
}

func thenDivergence(ctx context.Context, p, content string) error {
	e, err := project(ctx)
	if err != nil {
		return err
	}
	d, err := pass(ctx, e)
	if err != nil {
		return err
	}
	type rec struct{ Target, Content string }
	want := []rec{{"file:///" + p, driver.Unescape(content)}}
	var got []rec
	for _, row := range d {
		got = append(got, rec{row.Target, row.Content})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("divergences (-want +got):\n%s", diff)
	}
	e.Last = d
	return nil
}

// thenDivergenceRow checks the row the pass wrote in the plurnk run's log.
func thenDivergenceRow(ctx context.Context, target, source, coord string) error {
	e, err := project(ctx)
	if err != nil {
		return err
	}
	if len(e.Last) != 1 {
		return fmt.Errorf("no divergence recorded")
	}
	pr, err := e.Session.Run(store.PlurnkRun)
	if err != nil {
		return err
	}
	var found *store.LogRow
	for _, row := range pr.Log {
		if row.ID == e.Last[0].ID {
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

// thenSyncReads runs the next per-turn pass and checks which project files
// it opened for reading.
func thenSyncReads(ctx context.Context, want string) error {
	e, err := project(ctx)
	if err != nil {
		return err
	}
	e.Reads.Opened = nil
	if _, err := pass(ctx, e); err != nil {
		return err
	}
	seen := map[string]bool{}
	got := []string{}
	for _, name := range e.Reads.Opened {
		r, err := filepath.Rel(e.Dir, name)
		if err != nil || strings.HasPrefix(r, "..") || seen[r] {
			continue
		}
		seen[r] = true
		got = append(got, filepath.ToSlash(r))
	}
	sort.Strings(got)
	w := world.SplitList(want)
	if w == nil {
		w = []string{}
	}
	if d := cmp.Diff(w, got); d != "" {
		return fmt.Errorf("files the sync read (-want +got):\n%s", d)
	}
	return nil
}
