package plurnk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/packet"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// registerDataSteps registers the steps of the tier 3a data-plane features
// (data_*.feature).
func registerDataSteps(sc kit.Steps) {
	sc.Step(`^the result is the JSON:$`, thenResultJSON)
	sc.Step(`^a second session holds the entry (\S+) containing "((?:[^"\\]|\\.)*)"$`, givenOtherSession)
	sc.Step(`^(\d+) seconds pass on the session clock$`, whenSeconds)
	sc.Step(`^the action's log row records status (\d+) for (\S+)$`, thenRowStatus)
	sc.Step(`^the (\w+) channel of the run stream (\S+) holds "((?:[^"\\]|\\.)*)"$`, thenRunChannel)
	sc.Step(`^the project file (\S+) holds "((?:[^"\\]|\\.)*)"$`, thenProjectFile)
	sc.Step(`^the next sync re-reads exactly "([^"]*)"$`, thenSyncReads)
	sc.Step(`^a project holding the git repositories:$`, givenForest)
	sc.Step(`^the session's overlay declares the repo "([^"]*)"$`, givenRepoConstraint)
	sc.Step(`^the service runs with PLURNK_GIT_ALLOWED="([^"]*)" and PLURNK_GIT_AUTO="([^"]*)"$`, givenGitFlags)
	sc.Step(`^the heaviest-entries table of packet (\d+) has (\d+) rows?$`, thenHeaviestRows)
	sc.Step(`^the turn table of packet (\d+) lists the turns "([^"]*)"$`, thenTurnTable)
	sc.Step(`^a scheme "([^"]*)" whose removal fails with a plain error$`, givenBrittleScheme)
	sc.Step(`^the found paths are "([^"]*)"$`, thenFoundPaths)
	sc.Step(`^a scheme "([^"]*)" writable only by plurnk whose handler throws$`, givenGuardedScheme)
	sc.Step(`^the daemon keeps a membership of a workspace without git holding:$`, givenDaemonMembers)
	sc.Step(`^the daemon keeps a membership of a git workspace holding:$`, givenDaemonGitMembers)
	sc.Step(`^the daemon's git fails every listing with "([^"]*)"$`, daemonGitFails)
	sc.Step(`^the built-in (\S+) mimetype handler is watched for its calls$`, givenWatchedHandler)
	sc.Step(`^the engine offers the EXEC runtimes "([^"]*)"$`, func(ctx context.Context, list string) error {
		return get(ctx).drv.offers(ctx, splitList(list))
	})
}

// offers has the engine offer the EXEC runtimes listed.
func (e embedded) offers(ctx context.Context, runtimes []string) error {
	getEngine(ctx).eng.Executors = runtimes
	return nil
}

// givenWatchedHandler wraps the engine's own handler of mimetype mt so
// that "the mimetype handler has been called N times" counts its calls;
// the wrapped handler still derives everything.
func givenWatchedHandler(ctx context.Context, mt string) error {
	w := get(ctx)
	h, ok := w.eng.Mimetypes.Handler(mt)
	if !ok {
		return fmt.Errorf("the engine has no %s handler", mt)
	}
	w.eng.Mimetypes.Register(mt, func(content string) ops.Derived {
		w.calls++
		return h(content)
	})
	return nil
}

// givenGuardedScheme registers a scheme that only the plurnk run may write
// and whose handler panics on every call, so an action that reaches it
// answers 500.
func givenGuardedScheme(ctx context.Context, name string) error {
	inner := scheme.Unknown()
	inner.M.Name = name
	inner.M.WritableBy = []scheme.Writer{scheme.WriterPlurnk}
	return get(ctx).eng.Schemes.Register(flaky{Entries: inner, when: "always"})
}

// thenResultJSON compares the last result with the doc string as JSON
// values, so key order and spacing do not matter but every field does.
func thenResultJSON(ctx context.Context, doc *godog.DocString) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	var want, got any
	if err := json.Unmarshal([]byte(doc.Content), &want); err != nil {
		return fmt.Errorf("the expected JSON does not parse: %w", err)
	}
	if err := json.Unmarshal([]byte(r.Content), &got); err != nil {
		return fmt.Errorf("the result %q (status %d) is not JSON: %w", r.Content, r.Status, err)
	}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("result JSON (-want +got):\n%s", d)
	}
	return nil
}

// givenOtherSession writes an entry in a second session of the same store,
// as a client of that session would.
func givenOtherSession(ctx context.Context, t, content string) error {
	return get(ctx).drv.otherSession(t, unescape(content))
}

// otherSession writes the entry t in a second session, as its client.
func (e embedded) otherSession(t, body string) error {
	w := e.w
	ss, err := w.store.NewSession("other")
	if err != nil {
		return err
	}
	tg, err := parseTarget(t)
	if err != nil {
		return err
	}
	res := w.eng.Do(ops.Actor{Session: ss, Run: ss.Runs[0], Writer: scheme.WriterClient}, dsl.Statement{Op: dsl.OpEdit, Target: &tg, Body: &body})
	if res.Status >= 300 {
		return fmt.Errorf("writing %s in the second session: %d %s", t, res.Status, res.Reason)
	}
	return nil
}

func whenSeconds(ctx context.Context, n int) error {
	w := get(ctx)
	c, ok := w.store.Clock().(interface{ Advance(time.Duration) })
	if !ok {
		return fmt.Errorf("the store's clock cannot be advanced")
	}
	c.Advance(time.Duration(n) * time.Second)
	return nil
}

// thenRowStatus checks the last action's log row: its status and target.
func thenRowStatus(ctx context.Context, status int, t string) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	if r.Row.ID == 0 {
		return fmt.Errorf("the action wrote no log row")
	}
	got := struct {
		Status int
		Target string
	}{r.Row.Status, r.Row.Target}
	want := struct {
		Status int
		Target string
	}{status, t}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("log row (-want +got):\n%s", d)
	}
	return nil
}

// thenFoundPaths checks the paths of the last FIND's catalog rows, in
// order; an empty list expects 204 with no row.
func thenFoundPaths(ctx context.Context, want string) error {
	r, err := last(get(ctx))
	if err != nil {
		return err
	}
	var rows []struct {
		Path string `json:"path"`
	}
	if r.Content != "" {
		if err := json.Unmarshal([]byte(r.Content), &rows); err != nil {
			return fmt.Errorf("the FIND result %q (status %d) is not a JSON array: %w", r.Content, r.Status, err)
		}
	}
	got := []string{}
	for _, row := range rows {
		got = append(got, row.Path)
	}
	wantList := splitList(want)
	if wantList == nil {
		wantList = []string{}
	}
	if d := cmp.Diff(wantList, got); d != "" {
		return fmt.Errorf("found paths (-want +got), status %d:\n%s", r.Status, d)
	}
	if len(wantList) == 0 && r.Status != 204 {
		return fmt.Errorf("an empty FIND answered %d, want 204", r.Status)
	}
	return nil
}

// thenRunChannel reads one channel of an entry of the run world's session.
func thenRunChannel(ctx context.Context, ch, target, want string) error {
	e, err := getRuns(ctx).drv.entry(target)
	if err != nil {
		return err
	}
	var got *string
	if e != nil {
		if c, ok := e.Channels[ch]; ok {
			got = &c.Content
		}
	}
	if got == nil {
		return fmt.Errorf("no %s channel at %s", ch, target)
	}
	if *got != unescape(want) {
		return fmt.Errorf("the %s channel of %s holds %q, want %q", ch, target, *got, unescape(want))
	}
	return nil
}

// thenProjectFile reads a file of the membership scenario's project
// directory from disk.
func thenProjectFile(ctx context.Context, p, want string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	got, ok := diskContent(m, p)
	if !ok {
		return fmt.Errorf("%s does not exist on disk", p)
	}
	if got != unescape(want) {
		return fmt.Errorf("%s holds %q on disk, want %q", p, got, unescape(want))
	}
	return nil
}

// thenSyncReads runs the next per-turn pass and checks which project files
// it opened for reading.
func thenSyncReads(ctx context.Context, want string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	m.reads.opened = nil
	if _, err := m.pass(ctx); err != nil {
		return err
	}
	seen := map[string]bool{}
	got := []string{}
	for _, name := range m.reads.opened {
		r, err := filepath.Rel(m.dir, name)
		if err != nil || strings.HasPrefix(r, "..") || seen[r] {
			continue
		}
		seen[r] = true
		got = append(got, filepath.ToSlash(r))
	}
	sort.Strings(got)
	w := splitList(want)
	if w == nil {
		w = []string{}
	}
	if d := cmp.Diff(w, got); d != "" {
		return fmt.Errorf("files the sync read (-want +got):\n%s", d)
	}
	return nil
}

// givenForest creates the scenario's project directory (a temporary one)
// holding several git repositories: | repo | path | content | tracked |,
// repo "." being the root itself; a row whose tracked cell is "gitlink"
// records a submodule entry at path instead of a file.
func givenForest(ctx context.Context, tbl *godog.Table) error {
	return get(ctx).drv.forest(ctx, tbl)
}

// layForest is givenForest for the engine as a library: a directory of
// its own, the membership attached to the world's schemes.
func layForest(ctx context.Context, tbl *godog.Table) error {
	m, err := newProjectDir(ctx)
	if err != nil {
		return err
	}
	g := membership.GitCLI{}
	if err := g.Available(); err != nil {
		return fmt.Errorf("membership scenarios run the real git binary, which is missing here: %w", err)
	}
	if err := m.wire(ctx, g); err != nil {
		return err
	}
	return writeForest(m.dir, tbl)
}

// writeForest writes the forest of tbl into dir: each repo's files, git
// tracking the rows marked yes, and the gitlinks.
func writeForest(dir string, tbl *godog.Table) error {
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
		full := filepath.Join(dir, filepath.FromSlash(repo), filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(unescape(content)), 0o644); err != nil {
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
		if err := runGit(rd, "init", "-q"); err != nil {
			return err
		}
		if len(tracked[repo]) > 0 {
			if err := runGit(rd, append([]string{"add", "--"}, tracked[repo]...)...); err != nil {
				return err
			}
		}
	}
	for _, l := range links {
		rd := filepath.Join(dir, filepath.FromSlash(l[0]))
		if err := runGit(rd, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,"+l[1]); err != nil {
			return err
		}
	}
	return nil
}

func givenRepoConstraint(ctx context.Context, folder string) error {
	return get(ctx).drv.constrain(ctx, "", membership.Repo, folder)
}

// givenGitFlags sets the service-wide git switches as the operator's
// environment gives them.
func givenGitFlags(ctx context.Context, allowed, auto string) error {
	return get(ctx).drv.gitFlags(ctx, allowed, auto)
}

// gitFlagsEmbedded gives the flags to the world's membership resolver.
func gitFlagsEmbedded(ctx context.Context, allowed, auto string) error {
	m, err := mem(ctx)
	if err != nil {
		return err
	}
	env := map[string]string{"PLURNK_GIT_ALLOWED": allowed, "PLURNK_GIT_AUTO": auto}
	m.resolver.Flags = membership.FlagsFromEnv(func(k string) string { return env[k] })
	return nil
}

// budgetTable returns the budget section of packet n from the table whose
// header line is header on; name is the table's name in the error.
func budgetTable(ctx context.Context, n int, header, name string) (string, error) {
	s, ok, err := section(ctx, packet.Budget, n)
	if err != nil {
		return "", err
	}
	i := strings.Index(s.Content, header)
	if !ok || i < 0 {
		return "", fmt.Errorf("packet %d has no %s:\n%s", n, name, s.Content)
	}
	return s.Content[i:], nil
}

// thenHeaviestRows counts the rows of the heaviest-entries table of a
// packet of the engine world.
func thenHeaviestRows(ctx context.Context, n, want int) error {
	table, err := budgetTable(ctx, n, "| entry | tokens |", "heaviest-entries table")
	if err != nil {
		return err
	}
	got := 0
	for _, l := range strings.Split(table, "\n")[2:] {
		if strings.HasPrefix(l, "| log:///") {
			got++
		}
	}
	if got != want {
		return fmt.Errorf("the heaviest-entries table of packet %d has %d rows, want %d:\n%s", n, got, want, table)
	}
	return nil
}

// thenTurnTable reads the turn column of the turn-weight table of a packet
// of the engine world, in the order the table lists them.
func thenTurnTable(ctx context.Context, n int, want string) error {
	table, err := budgetTable(ctx, n, "| turn | tokens |", "turn table")
	if err != nil {
		return err
	}
	got := []string{}
	for _, l := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(l, "|")
		if len(cells) < 3 {
			break
		}
		got = append(got, strings.TrimSpace(cells[1]))
	}
	if d := cmp.Diff(splitList(want), got); d != "" {
		return fmt.Errorf("the turn table of packet %d (-want +got):\n%s", n, d)
	}
	return nil
}

// brittle is a scheme that stores its entries like known:// but whose
// removal fails with a plain error (not a status).
type brittle struct{ *scheme.Entries }

func (b brittle) Remove(c scheme.Call, k store.Key) (bool, error) {
	return false, fmt.Errorf("the disk behind %s is read-only", k)
}

func givenBrittleScheme(ctx context.Context, name string) error {
	inner := scheme.Unknown()
	inner.M.Name = name
	return get(ctx).eng.Schemes.Register(brittle{Entries: inner})
}

// givenDaemonMembers writes the files of the table (| path | content |)
// into the daemon's workspace and has the daemon keep a membership over
// it, with no git: picks are the only source of members.
func givenDaemonMembers(ctx context.Context, tbl *godog.Table) error {
	d := getDaemon(ctx)
	if d.backend != nil {
		return fmt.Errorf("the daemon has already started")
	}
	d.members = true
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) != 2 {
			return fmt.Errorf("row %d: want | path | content |", i)
		}
		if err := afero.WriteFile(d.fs, workspace+"/"+row.Cells[0].Value, []byte(unescape(row.Cells[1].Value)), 0o644); err != nil {
			return err
		}
	}
	return nil
}
