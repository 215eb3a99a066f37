//go:build e2e

package coverage

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"anchorage/reports/catalog"
)

// npmDir returns a directory where npm has installed pkgs (installing them
// on first use, in the user's cache, never in the tree), or skips — fails
// under CI=true — when npm is missing.
func npmDir(t *testing.T, pkgs ...string) string {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npm not found: CI must run the report's end-to-end tests")
		}
		t.Skip("npm not found")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "anchorage-e2e", "npm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, p := range pkgs {
		name, _, _ := strings.Cut(p, "@")
		if _, err := os.Stat(filepath.Join(dir, "node_modules", name, "package.json")); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		cmd := exec.Command(npm, append([]string{"install", "--no-audit", "--no-fund", "--silent", "--prefix", dir}, missing...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm install %v: %v\n%s", missing, err, out)
		}
	}
	return dir
}

func chromium(t *testing.T) string {
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium found (install Debian's chromium, or set CHROMIUM)")
	}
	t.Skip("no Chromium found")
	return ""
}

// realReport builds the report of the project's own features with every
// scenario passed but one outline row of chatlog's layout feature, which
// fails as a seed-dependent name would; chatlog carries mutation figures.
func realReport(t *testing.T) (*Report, *catalog.Catalog, map[string]Result, map[string]Detail, string) {
	t.Helper()
	fsys := os.DirFS("../..")
	cat, problems, err := catalog.Load(fsys, "features")
	if err != nil || len(problems) > 0 {
		t.Fatalf("catalog: %v %v", err, problems)
	}
	details, err := ReadDetails(fsys, cat)
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]Result{}
	failing := ""
	for _, sc := range cat.Scenarios {
		d := details[sc.Location()]
		r := Result{Status: Passed, Duration: 0.001}
		for range d.Steps {
			r.Steps = append(r.Steps, StepResult{Status: "passed"})
		}
		if failing == "" && sc.URI == "features/chatlog/layout.feature" && strings.HasPrefix(d.Label, "title=Index - 7 Zen") {
			failing = sc.Location()
			msg := `the log of "Index - 7 Zen" is debug/index-7-zen-d2cd.md, want debug/index-7-zen-483c.md`
			r = Result{Status: Failed, Error: msg, Duration: 0.002, Steps: r.Steps}
			r.Steps[len(r.Steps)-1] = StepResult{Status: "failed", Error: msg}
		}
		results[sc.Location()] = r
	}
	if failing == "" {
		t.Fatal("the chatlog layout outline row for \"Index - 7 Zen\" is gone: update the fixture")
	}
	rep := BuildDetailed(cat, nil, results, details, 20261122)
	for i := range rep.Systems { // as ApplyMutation leaves them for a measured system
		s := &rep.Systems[i]
		if s.System != "chatlog" {
			continue
		}
		s.Mutation = &MutationStats{Killed: 41, Survived: 3, Timeout: 1}
		for j := range s.Anchors {
			if s.Anchors[j].ID == "chatlog-filename-pattern" {
				s.Anchors[j].Mutation = &MutationStats{Killed: 7, Survived: 1, Survivors: []Survivor{
					{ID: "17", File: "impl/chatlog/names.go", Line: 42, Original: "n < 4", Mutated: "n <= 4"}}}
			}
		}
	}
	return rep, cat, results, details, failing
}

// TestE2EReportInBrowser opens coverage.html in headless Chromium (driven by
// playwright-core from npm): a deep link lands on its anchor, the status
// filter narrows the page and is written into the URL, a filtered URL
// restores the filters, and a failing anchor shows its open scenario with
// the failed step, its message and the replay line. The page and a
// screenshot of the failing-anchor view are kept in reports/tmp/e2e.
func TestE2EReportInBrowser(t *testing.T) {
	browser := chromium(t)
	pw := npmDir(t, "playwright-core@1")
	rep, _, _, _, failing := realReport(t)
	dir, err := filepath.Abs("../tmp/e2e")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "coverage.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.HTML(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	script, err := filepath.Abs("testdata/browse.js")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("node", script, pw, browser, filepath.Join(dir, "coverage.html"), "chatlog-filename-pattern", "chatlog-timeout", dir).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("browse.js: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var got struct {
		Deep *struct {
			ID     string
			InView bool
			Hidden bool
		}
		ShownAll           string
		URLAfterFilter     string
		VisibleAfterFilter []string
		ShownAfterFilter   string
		DecisionsShown     int
		Failing            struct {
			OpenScenario, FailedStep, Replay, Strength, Survivors *string
			PromiseCode                                           int
		}
		Restored         struct{ Sys, Status string }
		RestoredVisible  []string
		URLAfterText     string
		VisibleAfterText int
		DocStrings       int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("browse.js said %s: %v", out, err)
	}
	t.Logf("the browser saw: %s", out)
	anchors := 0
	for _, s := range rep.Systems {
		anchors += s.Count().Total
	}
	n := strconv.Itoa
	if got.Deep == nil || got.Deep.ID != "§chatlog-timeout" || !got.Deep.InView || got.Deep.Hidden {
		t.Errorf("deep link #§chatlog-timeout: target %+v, want §chatlog-timeout shown in view", got.Deep)
	}
	if want := n(anchors) + " of " + n(anchors) + " anchors shown"; !strings.HasPrefix(got.ShownAll, want) {
		t.Errorf("counter %q, want %q (anchors only, retired ids apart)", got.ShownAll, want)
	}
	if !strings.Contains(got.URLAfterFilter, "?status=fail") {
		t.Errorf("after choosing status fail the URL is %s", got.URLAfterFilter)
	}
	// the failing row cites three anchors: those fail, nothing else does
	var wantFail []string
	decisions := 0
	for _, s := range rep.Systems {
		for _, a := range s.Anchors {
			if a.Status == Fail {
				wantFail = append(wantFail, "§"+a.ID)
				decisions += len(a.Decisions)
			}
		}
	}
	if strings.Join(got.VisibleAfterFilter, " ") != strings.Join(wantFail, " ") {
		t.Errorf("status fail shows %v, want %v", got.VisibleAfterFilter, wantFail)
	}
	if want := n(len(wantFail)) + " of " + n(anchors) + " anchors shown"; !strings.HasPrefix(got.ShownAfterFilter, want) {
		t.Errorf("counter after the filter %q, want %q", got.ShownAfterFilter, want)
	}
	if decisions == 0 || got.DecisionsShown != decisions {
		t.Errorf("the failing anchors show %d decisions, their digest has %d (layout's outline is a @decision)", got.DecisionsShown, decisions)
	}
	check := func(what string, s *string, want ...string) {
		if s == nil {
			t.Errorf("the failing anchor shows no %s", what)
			return
		}
		for _, w := range want {
			if !strings.Contains(*s, w) {
				t.Errorf("the failing anchor's %s %q lacks %q", what, *s, w)
			}
		}
	}
	fl := got.Failing
	check("open scenario", fl.OpenScenario, "a page title becomes a safe file name", "title=Index - 7 Zen, name=index-7-zen", "failed", failing)
	check("failed step", fl.FailedStep, "✗", "Then", `the log of "Index - 7 Zen" is`, "want debug/index-7-zen-483c.md")
	check("replay line", fl.Replay, "ANCHORAGE_SEED=20261122 go test ./features -run 'TestFeatures/chatlog' -args -feature="+failing)
	check("strength badge", fl.Strength, "strength 88%")
	check("surviving mutants", fl.Survivors, "1 surviving mutant(s): 7 killed")
	if fl.PromiseCode == 0 {
		t.Error("the promise's `code` spans are not rendered as code")
	}
	if got.Restored.Sys != "deck" || got.Restored.Status != "pass" || len(got.RestoredVisible) == 0 {
		t.Errorf("?sys=deck&status=pass restored %+v showing %d anchors", got.Restored, len(got.RestoredVisible))
	}
	for _, v := range got.RestoredVisible {
		if v != "deck/pass" {
			t.Errorf("?sys=deck&status=pass shows a %s anchor", v)
			break
		}
	}
	if !strings.Contains(got.URLAfterText, "q=timeout") || got.VisibleAfterText == 0 || got.VisibleAfterText >= anchors {
		t.Errorf("text filter: URL %s, %d shown", got.URLAfterText, got.VisibleAfterText)
	}
	if got.DocStrings < 100 {
		t.Errorf("%d doc strings rendered, want the features' (hundreds)", got.DocStrings)
	}
	if fi, err := os.Stat(filepath.Join(dir, "failing-anchor.png")); err != nil || fi.Size() < 10000 {
		t.Errorf("screenshot failing-anchor.png: %v", err)
	}
}

// TestE2EJUnitReadByAConsumer parses junit.xml with test-results-parser (an
// npm JUnit reader that CI reporting tools use) and checks it reads what the
// run said: one suite per system, skipped as skipped, the failure as failed,
// no errors.
func TestE2EJUnitReadByAConsumer(t *testing.T) {
	dir := npmDir(t, "test-results-parser@0.4.6")
	_, cat, results, details, failing := realReport(t)
	wip := 0
	for _, sc := range cat.Scenarios {
		if sc.Has("@wip") {
			wip++
		}
	}
	var skippedLoc string // a scenario a step skipped, as jace's do against an external runtime
	for _, sc := range cat.Scenarios {
		if sc.System == "jace" && !sc.Has("@wip") {
			skippedLoc = sc.Location()
			results[skippedLoc] = Result{Status: Skipped, Error: "skipped by a step"}
			break
		}
	}
	b, err := JUnit(cat, results, details, 20261122)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	js := `const {parse}=require(process.argv[1]+'/node_modules/test-results-parser');
const r=parse({type:'junit',files:[process.argv[2]]});
const fails=[];for(const s of r.suites)for(const c of s.cases)if(c.status==='FAIL')fails.push(s.name+': '+c.name+': '+c.failure);
console.log(JSON.stringify({total:r.total,passed:r.passed,failed:r.failed,errors:r.errors,skipped:r.skipped,suites:r.suites.map(s=>s.name),fails}));`
	out, err := exec.Command("node", "-e", js, dir, path).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("node: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var got struct {
		Total, Passed, Failed, Errors, Skipped int
		Suites                                 []string
		Fails                                  []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	t.Logf("test-results-parser read: %s", out)
	if strings.Join(got.Suites, ",") != strings.Join(cat.Systems, ",") {
		t.Errorf("suites %v, want one per system %v", got.Suites, cat.Systems)
	}
	if got.Failed != 1 || got.Errors != 0 || got.Skipped != wip+1 {
		t.Errorf("read failed=%d errors=%d skipped=%d, want 1, 0, %d (the @wip scenarios and %s)", got.Failed, got.Errors, got.Skipped, wip+1, skippedLoc)
	}
	if got.Passed != len(cat.Scenarios)-wip-2 {
		t.Errorf("read passed=%d, want %d", got.Passed, len(cat.Scenarios)-wip-2)
	}
	if len(got.Fails) != 1 || !strings.Contains(got.Fails[0], "chatlog: a page title becomes a safe file name with a short id [title=Index - 7 Zen, name=index-7-zen]") {
		t.Errorf("failures read: %v (the failing row is %s)", got.Fails, failing)
	}
}
