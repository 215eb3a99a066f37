// Command mutate measures how sharply each system's features reject wrong
// implementations (make mutate). For every system it
//
//  1. builds features/cover with coverage and runs it, writing each
//     scenario's counters on its own, so it knows which scenarios execute
//     which lines of impl/ (cached per tree and seed);
//  2. enumerates the mutants of the system's packages under impl/ (package
//     reports/mutate), keeps those on executed lines, and samples -n of them
//     with a generator derived from the master seed;
//  3. for each, builds the features with the mutated file swapped in through
//     `go build -overlay` (the working tree is never written) and runs just
//     the scenarios that execute the mutant's line, stopping at the first
//     failure: Killed, Survived, Timeout or CompileError;
//  4. writes reports/mutation.json (mutation-testing-report-schema, version 2),
//     replacing the packages it ran and keeping the rest.
//
// make report then reads reports/mutation.json for the per-anchor strength.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"anchorage/reports/catalog"
	"anchorage/reports/coverage"
	"anchorage/reports/mutate"
	"anchorage/sim/seed"
)

const usage = `usage: go run ./reports/cmd/mutate [flags]
       go run ./reports/cmd/mutate -merge [-out FILE] SHARD.json...

Puts small bugs (mutants) into the reference implementations under impl/ and
checks that each system's features reject them. A mutant is one operator,
condition or statement changed: < and <=, == and !=, + and -, * and /, && and
||, ++ and --, a condition negated, an error return disabled, a call or an
assignment removed, true and false. Only mutants on lines that the system's
scenarios execute are measured; each is run against just those scenarios.

Which mutants:
  (default)     a sample of -n per system: the lowest hash of the master seed
                and the mutant's code key, so it stays put as the tree changes
  -all          every covered mutant (9,901 in all: hours on one machine;
                split it with -shard)
  -diff BASE    every covered mutant on the lines of impl/ added or modified
                since the git revision BASE (working tree and new files
                included): a change's own mutants, no sampling
  -shard i/n    of the chosen set, the i-th of n disjoint parts, by the
                mutant's code key: n jobs measure the set once between them
  -seed fresh   a master seed derived from the commit and the date (printed):
                a sample no one has tuned the features to

Outcomes: Killed (a scenario failed, or a decided assertion did not hold),
Survived (all passed: the features cannot tell this wrong implementation
from the right one), Timeout (counted as detected), CompileError (not
counted), Ignored (listed as equivalent in -equivalent). Rates per system:
  net        (killed+timeout) / (killed+timeout+survived)
  raw        the same with the equivalent mutants counted as survived
  normative  the net rate counting as killed only a failed scenario or a
             timeout, not a decided assertion (a Decision of the digest,
             recorded with ANCHORAGE_DECISIONS=record): the strength another
             implementation gets from the features
reports/mutation.json (mutation-testing-report-schema v2) keeps the status
and, as added fields, normativeStatus and decisionsDiffered per mutant.

Reports: a sample or -all run replaces its packages' entries in -out
(default reports/mutation.json); a -shard or -diff run writes a report of
its own (default reports/tmp/mutation-shard-I-of-N.json,
reports/tmp/mutation-diff.json). -merge combines shard reports: every
mutant once, an error when two shards measured one mutant differently.

Examples:
  go run ./reports/cmd/mutate -system chatlog -n 50
  go run ./reports/cmd/mutate -n 5 -seed fresh -out reports/tmp/fresh.json
  go run ./reports/cmd/mutate -system plurnk -pkg ops,scheme -n 20
  go run ./reports/cmd/mutate -mutant impl/chatlog/logparse/parse.go:207:9:ConditionalBoundary
  go run ./reports/cmd/mutate -system deck -list
  go run ./reports/cmd/mutate -all -shard 3/32          # one job of a full run
  go run ./reports/cmd/mutate -merge -out reports/mutation.json reports/tmp/mutation-shard-*.json
  go run ./reports/cmd/mutate -diff HEAD~1              # make mutate-diff BASE=HEAD~1

Exit status: 0 when it ran (whatever the kill rate), 1 when it could not
(the features fail without any mutant, a build tool is missing, shard
reports disagree), 2 on bad flags.

Flags:
`

type options struct {
	systems    []string
	n          int
	seed       seed.Seeds
	seedNote   string // how a fresh seed was derived, for the summary
	timeout    time.Duration
	mutant     string
	pkgs       []string
	out        string
	equivalent string
	work       string
	jobs       int
	list       bool
	verbose    bool
	fixEquiv   bool
	all        bool
	shard      mutate.Shard
	diff       string   // git revision: measure the lines changed since it
	merge      bool     // merge the reports named by inputs
	inputs     []string // -merge's arguments
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	o, code := parseFlags(args, stderr)
	if code >= 0 {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m, err := newMutator(o, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 1
	}
	if err := m.run(ctx); err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 1
	}
	return 0
}

// parseFlags reads the command line; a code ≥ 0 is the exit status to end with.
func parseFlags(args []string, stderr io.Writer) (options, int) {
	fl := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprint(fl.Output(), usage)
		fl.PrintDefaults()
	}
	system := fl.String("system", strings.Join(catalog.Systems(), ","), "systems to measure, comma-separated")
	n := fl.Int("n", 50, "mutants to run per system (compile errors and equivalent mutants do not count)")
	seedFlag := fl.String("seed", "", "master seed for the sample and the scenarios, or fresh: derived from the commit and the date (default: $ANCHORAGE_SEED, else the fixed default)")
	timeout := fl.Duration("timeout", 15*time.Second, "least time a mutant's run may take before it is a Timeout (it gets at least 5× its scenarios' time plus 10 s)")
	mutant := fl.String("mutant", "", "rerun one mutant by id (file:line:col:mutator), print what happened and update its entry")
	pkg := fl.String("pkg", "", "only these packages of the system, comma-separated paths below impl/<system>/ (e.g. ops,scheme) or below the module (impl/fe)")
	out := fl.String("out", "", "mutation report to write (default reports/mutation.json; for -shard reports/tmp/mutation-shard-I-of-N.json, for -diff reports/tmp/mutation-diff.json)")
	equivalent := fl.String("equivalent", "reports/equivalent.txt", "reviewed list of equivalent mutants (id and reason per line)")
	work := fl.String("work", "reports/tmp/_mutate", "scratch directory (binaries, coverage, logs; a leading _ keeps its mutated sources out of ./...)")
	jobs := fl.Int("j", 2, "mutants built and run at once")
	list := fl.Bool("list", false, "print the chosen mutants and their scenarios, run nothing")
	verbose := fl.Bool("v", false, "print every mutant's outcome, not just survivors")
	fixEquiv := fl.Bool("fix-equivalent", false, "rewrite the -equivalent list against the tree: fingerprint its entries, move ids that followed their code, comment out entries no mutant matches; run nothing")
	all := fl.Bool("all", false, "every covered mutant instead of a sample of -n")
	shard := fl.String("shard", "", "i/n: measure only the i-th of n disjoint parts of the chosen mutants (by code key)")
	diff := fl.String("diff", "", "git revision: every covered mutant on the lines of impl/ added or modified since it, no sampling")
	merge := fl.Bool("merge", false, "merge the shard reports given as arguments into -out (default reports/mutation.json); run nothing")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return options{}, 0
		}
		return options{}, 2
	}
	o := options{n: *n, timeout: *timeout, mutant: *mutant, out: *out, equivalent: *equivalent,
		work: *work, jobs: max(*jobs, 1), list: *list, verbose: *verbose, fixEquiv: *fixEquiv,
		all: *all, diff: strings.TrimSpace(*diff), merge: *merge, inputs: fl.Args()}
	if err := o.check(*system, *pkg, *seedFlag, *shard); err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return options{}, 2
	}
	return o, -1
}

// check validates and completes the options from the flags' values.
func (o *options) check(system, pkg, seedFlag, shard string) error {
	if len(o.inputs) > 0 && !o.merge {
		return fmt.Errorf("unexpected argument %q (see -h)", o.inputs[0])
	}
	if o.merge && len(o.inputs) == 0 {
		return errors.New("-merge needs the shard reports to merge as arguments")
	}
	if o.n < 1 {
		return errors.New("-n must be at least 1")
	}
	var err error
	if o.shard, err = mutate.ParseShard(shard); err != nil {
		return fmt.Errorf("-shard: %w", err)
	}
	if o.seed, o.seedNote, err = resolveSeed(seedFlag, time.Now()); err != nil {
		return err
	}
	if o.out == "" {
		o.out = defaultOut(o.shard, o.diff)
	}
	known := map[string]bool{}
	for _, s := range catalog.Systems() {
		known[s] = true
	}
	for _, s := range strings.Split(system, ",") {
		s = strings.TrimSpace(s)
		if !known[s] {
			return fmt.Errorf("-system %q: want one or more of %s", s, strings.Join(catalog.Systems(), ","))
		}
		o.systems = append(o.systems, s)
	}
	if pkg != "" {
		o.pkgs = strings.Split(pkg, ",")
	}
	return nil
}

// defaultOut is the report a run writes when -out is not given.
func defaultOut(shard mutate.Shard, diff string) string {
	switch {
	case diff != "":
		return "reports/tmp/mutation-diff.json"
	case !shard.Whole():
		return fmt.Sprintf("reports/tmp/mutation-shard-%d-of-%d.json", shard.I, shard.N)
	}
	return "reports/mutation.json"
}

// mutator holds one invocation's state.
type mutator struct {
	o         options
	root      string // module root, absolute
	module    string // module path from go.mod
	work      string // absolute scratch dir
	cat       *catalog.Catalog
	equiv     *mutate.EquivalentList
	stdout    io.Writer
	stderr    io.Writer
	changed   mutate.ChangedLines // -diff: the lines to measure
	coverBin  string
	coverOnce sync.Once
	coverErr  error
}

func newMutator(o options, stdout, stderr io.Writer) (*mutator, error) {
	root, module, err := findModule()
	if err != nil {
		return nil, err
	}
	cat, problems, err := catalog.Load(os.DirFS(root), "features")
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("the features do not load cleanly (go test ./reports/catalog says more): %s", problems[0])
	}
	var equiv *mutate.EquivalentList
	o.out, o.equivalent, o.work = inRoot(root, o.out), inRoot(root, o.equivalent), inRoot(root, o.work)
	if f, err := os.Open(o.equivalent); err == nil {
		equiv, err = mutate.ReadEquivalents(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.equivalent, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	work := o.work
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	return &mutator{o: o, root: root, module: module, work: work, cat: cat, equiv: equiv, stdout: stdout, stderr: stderr}, nil
}

// inRoot makes a path given on the command line absolute: relative paths
// are read from the module root, wherever the command was started.
func inRoot(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

func findModule() (root, module string, err error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return dir, strings.TrimSpace(m), nil
				}
			}
			return "", "", fmt.Errorf("%s/go.mod names no module", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", errors.New("no go.mod above the current directory: run from inside the anchorage module")
		}
		dir = parent
	}
}

// packageDirs returns the module-relative directories holding the system's
// reference implementation: impl/<system>/… (and impl/fe for deck), without
// commands and test data, narrowed by -pkg.
func (m *mutator) packageDirs(system string) ([]string, error) {
	tops := []string{"impl/" + system}
	if system == "deck" {
		tops = append(tops, "impl/fe")
	}
	var dirs []string
	for _, top := range tops {
		err := filepath.WalkDir(filepath.Join(m.root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			base := d.Name()
			if base == "cmd" || base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") {
				return filepath.SkipDir
			}
			rel, _ := filepath.Rel(m.root, p)
			rel = filepath.ToSlash(rel)
			if m.selected(system, rel) && hasGo(p) {
				dirs = append(dirs, rel)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("packages of %s: %w", system, err)
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("-pkg %s selects no package of %s", strings.Join(m.o.pkgs, ","), system)
	}
	return dirs, nil
}

// hasGo reports whether dir holds a non-test Go file (a package to mutate).
func hasGo(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			return true
		}
	}
	return false
}

func (m *mutator) selected(system, rel string) bool {
	if len(m.o.pkgs) == 0 {
		return true
	}
	for _, p := range m.o.pkgs {
		p = strings.Trim(strings.TrimSpace(p), "/")
		for _, full := range []string{p, "impl/" + system + "/" + p} {
			if rel == full || strings.HasPrefix(rel, full+"/") {
				return true
			}
		}
	}
	return false
}

func (m *mutator) run(ctx context.Context) error {
	switch {
	case m.o.fixEquiv:
		return m.fixEquivalents()
	case m.o.mutant != "":
		return m.runOne(ctx, m.o.mutant)
	case m.o.merge:
		return m.mergeReports(m.o.inputs)
	}
	systems := m.o.systems
	if m.o.diff != "" {
		var err error
		if systems, err = m.loadDiff(); err != nil {
			return err
		}
	}
	rep, err := m.startReport()
	if err != nil {
		return err
	}
	if len(systems) == 0 {
		fmt.Fprintf(m.stdout, "nothing to measure; wrote an empty report to %s\n", m.o.out)
		return m.writeReport(rep)
	}
	fmt.Fprintf(m.stdout, "master seed %d%s\n", m.o.seed.Master(), m.o.seedNote)
	began := time.Now()
	var summary []systemSummary
	for _, sys := range systems {
		l, err := m.measureSystem(ctx, rep, sys)
		if err != nil {
			return err
		}
		summary = append(summary, l)
	}
	if m.o.list {
		return nil
	}
	rep.SetTests(m.cat)
	rep.NoteRates()
	if err := m.writeReport(rep); err != nil {
		return err
	}
	m.printSummary(summary, time.Since(began))
	return nil
}

// startReport returns the report to add this run's results to: a new one
// for a shard or a diff (its file holds just that part), else -out as it
// is, whose packages this run measures are replaced.
func (m *mutator) startReport() (*mutate.Report, error) {
	if !m.o.shard.Whole() || m.o.diff != "" {
		return mutate.NewReport(), nil
	}
	return m.readReport()
}

// systemSummary is one system's line in the closing summary.
type systemSummary struct {
	system        string
	tally         mutate.Tally
	compileErrors int
	ran           int // mutants built and run
	secs          float64
}

// measureSystem measures one system's mutants into rep.
func (m *mutator) measureSystem(ctx context.Context, rep *mutate.Report, sys string) (systemSummary, error) {
	t0 := time.Now()
	l := systemSummary{system: sys}
	dirs, err := m.packageDirs(sys)
	if err != nil {
		return l, err
	}
	keyBefore, err := m.treeKey(sys)
	if err != nil {
		return l, err
	}
	results, err := m.measure(ctx, sys, dirs, keyBefore)
	if err != nil {
		return l, fmt.Errorf("%s: %w", sys, err)
	}
	changed := false
	if keyAfter, err := m.treeKey(sys); err != nil || keyAfter != keyBefore {
		fmt.Fprintf(m.stderr, "mutate: warning: %s's files changed while its mutants ran; the mutated files are as they were sampled, the rest is not — rerun on a quiet tree for figures to commit\n", sys)
		changed = true
	}
	if m.o.list {
		return l, nil
	}
	in := map[string]bool{}
	for _, d := range dirs {
		in[d] = true
	}
	rep.DropFiles(func(f string) bool { return in[filepath.ToSlash(filepath.Dir(f))] })
	for _, r := range results {
		src, err := os.ReadFile(filepath.Join(m.root, r.Mutant.File))
		if err != nil {
			return l, err
		}
		rep.Add(r, src)
		l.tally.Add(r.Status, r.Normative)
		switch r.Status {
		case mutate.CompileError:
			l.compileErrors++
		case mutate.Ignored:
		default:
			l.ran++
		}
	}
	l.secs = time.Since(t0).Seconds()
	m.recordConfig(rep, sys, len(results), l.secs, changed)
	m.printSurvivors(sys, results)
	return l, nil
}

// printSummary prints each system's rates and the run's pace.
func (m *mutator) printSummary(summary []systemSummary, elapsed time.Duration) {
	fmt.Fprintf(m.stdout, "\nmutation testing, master seed %d%s\n", m.o.seed.Master(), m.o.seedNote)
	ran := 0
	for _, l := range summary {
		t := l.tally
		fmt.Fprintf(m.stdout, "  %-8s net %-6s raw %-6s normative %-6s  killed %d (%d only by a decided assertion), timeout %d, survived %d, equivalent %d, compile errors %d  (%.0f s)\n",
			l.system, percent(t.Net), percent(t.Raw), percent(t.Normative), t.Killed, t.DecidedOnly, t.Timeout, t.Survived, t.Equivalent, l.compileErrors, l.secs)
		ran += l.ran
	}
	fmt.Fprintln(m.stdout, "  net: equivalent mutants left out; raw: counted as survivors; normative: only a spec assertion (not one of our Decisions) counts as a kill")
	fmt.Fprintf(m.stdout, "  %d mutants run in %s, coverage runs included: %.1f per minute; wrote %s (make report adds the strength columns)\n",
		ran, elapsed.Round(time.Second), float64(ran)/max(elapsed.Minutes(), 1e-9), m.o.out)
}

// percent renders a rate, or "–" when nothing was measured.
func percent(rate func() (float64, bool)) string {
	r, ok := rate()
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*r)
}

// try builds and runs one mutant in worker w's scratch directory. The
// scenarios run with decided assertions recorded rather than failing, so
// the one run gives the full verdict and the normative one (see
// mutate.Verdict).
func (m *mutator) try(ctx context.Context, mu mutate.Mutant, mutated []byte, locs []string, secs float64, w int) mutate.Result {
	sys := mutate.SystemOfFile(mu.File)
	res := mutate.Result{Mutant: mu, CoveredBy: locs}
	dir := filepath.Join(m.work, fmt.Sprintf("worker%d", w))
	bin := filepath.Join(dir, "features.test")
	if err := m.buildMutant(ctx, sys, mu, mutated, dir, bin); err != nil {
		res.Status = mutate.CompileError
		res.Reason = m.relative(firstLines(err.Error(), 3))
		return res
	}
	limit := max(m.o.timeout, time.Duration(5*secs*float64(time.Second))+10*time.Second)
	t0 := time.Now()
	out, err, timedOut := m.runScenarios(ctx, bin, sys, locs, limit)
	res.Millis = float64(time.Since(t0).Milliseconds())
	run := mutate.ReadRun(out)
	res.Status, res.Normative = mutate.Verdict(run, err != nil, timedOut)
	for _, d := range run.Differences {
		res.Differences = append(res.Differences, d.String())
	}
	switch {
	case res.Status == mutate.Timeout:
		res.Reason = fmt.Sprintf("no verdict within %s", limit)
	case res.Status == mutate.Survived:
		res.Ran = len(locs)
	case res.Normative == mutate.Survived:
		res.Ran = len(locs)
		res.KilledBy = run.Killers()
		res.Reason = "only a decided assertion rejected it: " + run.Differences[0].String()
	default:
		res.KilledBy = run.Killers()
		res.Reason = failureReason(out)
	}
	if res.Normative == mutate.Survived && judgedByCorpus(mu.File) {
		m.tryCorpus(ctx, &res, dir, limit)
	}
	return res
}

// judgedByCorpus reports whether a file is the Fe VM's own, which the
// harness judges twice: through the deck's features and, as any Fe
// executable (FE_CMD), by the differential corpus of rxi/fe's recorded
// outputs (go test ./impl/fe -run TestCorpus; features/README.md).
func judgedByCorpus(file string) bool {
	return strings.HasPrefix(file, "impl/fe/") && !strings.HasPrefix(file, "impl/fe/cmd/")
}

// corpusKiller names the differential corpus where a scenario would stand.
const corpusKiller = "impl/fe differential corpus (TestCorpus)"

// tryCorpus runs the differential corpus against an Fe VM mutant the
// features did not reject at the normative level: rxi/fe's own outputs are a
// normative oracle, so a mismatch kills it (both verdicts).
func (m *mutator) tryCorpus(ctx context.Context, res *mutate.Result, dir string, limit time.Duration) {
	bin := filepath.Join(dir, "fe.test")
	build := exec.CommandContext(ctx, "go", "test", "-c", "-overlay", filepath.Join(dir, "overlay.json"), "-ldflags=-s -w", "-o", bin, "./impl/fe")
	build.Dir = m.root
	if out, err := build.CombinedOutput(); err != nil {
		res.Reason = m.relative(firstLines("the corpus test does not build: "+string(out), 3))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^TestCorpus$", "-test.count=1")
	cmd.Dir = filepath.Join(m.root, "impl", "fe")
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	res.Status, res.Normative = mutate.Killed, mutate.Killed
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.Status, res.Normative = mutate.Timeout, mutate.Timeout
	}
	res.KilledBy = append(res.KilledBy, corpusKiller)
	res.Reason = failureReason(string(out))
}

// relative makes the module root's absolute paths in a message relative,
// so reports from different checkouts read alike.
func (m *mutator) relative(msg string) string {
	return strings.ReplaceAll(msg, m.root+string(filepath.Separator), "")
}

// buildMutant builds the features test binary with the mutated file and a
// features/systems.go that lists only sys, both swapped in by an overlay.
func (m *mutator) buildMutant(ctx context.Context, sys string, mu mutate.Mutant, mutated []byte, dir, bin string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	orig := filepath.Join(m.root, filepath.FromSlash(mu.File))
	mfile := filepath.Join(dir, filepath.Base(orig))
	if err := os.WriteFile(mfile, mutated, 0o644); err != nil {
		return err
	}
	sysfile := filepath.Join(dir, "systems.go.overlay")
	one := fmt.Sprintf("package features\n\nimport %q\n\nfunc Systems() []System { return []System{{%q, %s.InitializeScenario}} }\n",
		m.module+"/features/"+sys, sys, sys)
	if err := os.WriteFile(sysfile, []byte(one), 0o644); err != nil {
		return err
	}
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {
		orig: mfile,
		filepath.Join(m.root, "features", "systems.go"): sysfile,
	}})
	ovfile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovfile, ov, 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-overlay", ovfile, "-ldflags=-s -w", "-o", bin, "./features")
	cmd.Dir = m.root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s", strings.TrimSpace(out.String()))
	}
	return nil
}

// runScenarios runs the features binary on just locs, stopping at the first
// failure, killing the whole process group at the limit.
func (m *mutator) runScenarios(ctx context.Context, bin, sys string, locs []string, limit time.Duration) (string, error, bool) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	args := []string{"-test.run", "^TestFeatures$/^" + sys + "$", "-test.count=1", "-test.timeout=" + (limit + time.Minute).String(),
		"-seed", fmt.Sprint(m.o.seed.Master()), "-stop", "-feature=" + strings.Join(locs, ",")}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = filepath.Join(m.root, "features")
	cmd.Env = append(cleanEnv(), mutate.DecisionsEnv+"="+mutate.DecisionsRecord)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
	return out.String(), err, timedOut
}

// cleanEnv is the environment without anything that points the features at
// another implementation (or the reference's spec-permitted variations), a
// report directory, another seed or a way of judging decided assertions.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "JACE_URL", "FE_CMD", "FE_VARIANT", "FE_TIERS", "DECK_CMD", "CHATLOG_SERVER", "CHATLOG_PARSE", "PLURNK_CMD", "TARGET",
			"ANCHORAGE_REPORT_DIR", "ANCHORAGE_SEED", "ANCHORAGE_VARY", mutate.DecisionsEnv, "GOCOVERDIR":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// coverage returns which scenarios of sys execute which blocks of impl/,
// from the cache when the system's files (key, from treeKey) have not changed
// since it was measured.
func (m *mutator) coverage(ctx context.Context, sys, key string) (*mutate.Coverage, error) {
	cache := filepath.Join(m.work, fmt.Sprintf("coverage-%s-%d-%s.json", sys, m.o.seed.Master(), key))
	if b, err := os.ReadFile(cache); err == nil {
		cov := mutate.NewCoverage()
		if json.Unmarshal(b, cov) == nil {
			return cov, nil
		}
	}
	m.coverOnce.Do(func() { m.coverErr = m.buildCover(ctx) })
	if m.coverErr != nil {
		return nil, m.coverErr
	}
	fmt.Fprintf(m.stdout, "%s: measuring which scenarios execute which lines (once per tree)…\n", sys)
	dir := filepath.Join(m.work, "cover", sys)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	gocov := filepath.Join(m.work, "cover", "gocov")
	if err := os.MkdirAll(gocov, 0o755); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, m.coverBin, "-system", sys, "-dir", dir, "-seed", fmt.Sprint(m.o.seed.Master()))
	cmd.Dir = filepath.Join(m.root, "features")
	cmd.Env = append(cleanEnv(), "GOCOVERDIR="+gocov)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		log := filepath.Join(m.work, "baseline-"+sys+".log")
		_ = os.WriteFile(log, out.Bytes(), 0o644)
		return nil, fmt.Errorf("the %s features fail before any mutant is put in (fix them first; log: %s):\n%s", sys, log, failureReason(out.String()))
	}
	tool, err := covdataTool()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("no per-scenario coverage was written: %w", err)
	}
	cov := mutate.NewCoverage()
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(dir, e.Name())
		meta, err := os.ReadFile(filepath.Join(d, "scenario"))
		if err != nil {
			return nil, err
		}
		var loc string
		var secs float64
		if _, err := fmt.Sscanf(string(meta), "%s %f", &loc, &secs); err != nil {
			return nil, fmt.Errorf("%s/scenario: %w", d, err)
		}
		prof := filepath.Join(d, "profile.txt")
		if out, err := exec.CommandContext(ctx, tool, "textfmt", "-i="+d, "-o="+prof).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("covdata textfmt %s: %v: %s", d, err, out)
		}
		f, err := os.Open(prof)
		if err != nil {
			return nil, err
		}
		blocks, err := mutate.ParseProfile(bufio.NewReader(f), m.module)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", prof, err)
		}
		cov.Add(loc, secs, blocks)
	}
	if b, err := json.Marshal(cov); err == nil {
		_ = os.WriteFile(cache, b, 0o644)
	}
	_ = os.RemoveAll(dir)
	return cov, nil
}

// covdataTool returns the path of go tool covdata (building it the first
// time; another go command may hold the build cache, so it asks twice).
func covdataTool() (string, error) {
	out, err := exec.Command("go", "tool", "-n", "covdata").Output()
	if err != nil {
		time.Sleep(2 * time.Second)
		out, err = exec.Command("go", "tool", "-n", "covdata").Output()
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		return "", fmt.Errorf("locating go tool covdata: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func (m *mutator) buildCover(ctx context.Context) error {
	m.coverBin = filepath.Join(m.work, "features-cover")
	fmt.Fprintln(m.stdout, "building the features with per-scenario coverage of impl/…")
	cmd := exec.CommandContext(ctx, "go", "build", "-cover", "-covermode=atomic",
		"-coverpkg="+m.module+"/impl/...,"+m.module+"/features/cover", "-o", m.coverBin, "./features/cover")
	cmd.Dir = m.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("building the coverage binary: %v\n%s", err, out)
	}
	return nil
}

// treeKey hashes what decides a system's verdicts: its implementation, its
// features and their shared runner, the simulated world, its goldens and the
// module files. Another system's files do not count, so systems can be
// measured one after another while the others change.
func (m *mutator) treeKey(sys string) (string, error) {
	h := sha256.New()
	tops := []string{"impl/" + sys, "features/" + sys, "features/kit", "features", "sim", "golden/" + sys, "go.mod", "go.sum"}
	if sys == "deck" {
		tops = append(tops, "impl/fe")
	}
	for _, top := range tops {
		shallow := top == "features" // its own files only: the systems' directories are listed on their own
		err := filepath.WalkDir(filepath.Join(m.root, top), func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && p == filepath.Join(m.root, top) {
				return filepath.SkipDir
			}
			if err != nil {
				return err
			}
			if d.IsDir() {
				if shallow && p != filepath.Join(m.root, top) {
					return filepath.SkipDir
				}
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(m.root, p)
			fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
			h.Write(b)
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("hashing the tree: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// runOne reruns a single mutant and prints what happened.
func (m *mutator) runOne(ctx context.Context, id string) error {
	file, _, _ := strings.Cut(id, ":")
	sys := coverage.SystemOfFile(file)
	if sys == "" {
		return fmt.Errorf("-mutant %q: not a mutant of impl/<system>/…", id)
	}
	src, err := os.ReadFile(filepath.Join(m.root, file))
	if err != nil {
		return fmt.Errorf("-mutant %q: %w", id, err)
	}
	ms, err := mutate.FileMutants(file, src)
	if err != nil {
		return err
	}
	var mu *mutate.Mutant
	for i := range ms {
		if ms[i].ID == id {
			mu = &ms[i]
		}
	}
	if mu == nil {
		return fmt.Errorf("-mutant %q: no such mutant in %s today (the line may have moved; -list shows the current ids)", id, file)
	}
	key, err := m.treeKey(sys)
	if err != nil {
		return err
	}
	cov, err := m.coverage(ctx, sys, key)
	if err != nil {
		return err
	}
	locs, secs := cov.Covering(*mu)
	fmt.Fprintf(m.stdout, "%s\n  %s:%d: %s → %s\n  covered by %d scenarios\n", mu.ID, mu.File, mu.Start.Line, quote(mu.Original), quote(mu.Replacement), len(locs))
	if len(locs) == 0 {
		fmt.Fprintln(m.stdout, "  NoCoverage: no scenario executes this line")
		return nil
	}
	mutated, err := mu.Apply(src)
	if err != nil {
		return err
	}
	r := m.try(ctx, *mu, mutated, locs, secs, 0)
	_ = os.RemoveAll(filepath.Join(m.work, "worker0"))
	fmt.Fprintf(m.stdout, "  %s", label(r))
	if len(r.KilledBy) > 0 {
		fmt.Fprintf(m.stdout, " by %s", strings.Join(r.KilledBy, ", "))
	}
	fmt.Fprintln(m.stdout)
	if r.Reason != "" {
		fmt.Fprintf(m.stdout, "  %s\n", strings.ReplaceAll(r.Reason, "\n", "\n  "))
	}
	for _, d := range r.Differences {
		fmt.Fprintf(m.stdout, "  decision differs: %s\n", d)
	}
	rep, err := m.readReport()
	if err != nil {
		return err
	}
	if rep.Remove(mu.File, mu.ID) {
		rep.Add(r, src)
		rep.NoteRates()
		fmt.Fprintf(m.stdout, "  updated its entry in %s\n", m.o.out)
		return m.writeReport(rep)
	}
	return nil
}

func (m *mutator) readReport() (*mutate.Report, error) {
	r, err := readReportFile(m.o.out)
	if errors.Is(err, fs.ErrNotExist) {
		return mutate.NewReport(), nil
	}
	return r, err
}

// writeReport writes the report next to its destination and renames it into
// place, so a crash never leaves half a report.
func (m *mutator) writeReport(r *mutate.Report) error {
	dst := m.o.out
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".mutation-*.json")
	if err != nil {
		return err
	}
	if err := r.Write(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// recordConfig notes in the report's free-form config how each system was
// measured: the seed, the choice (sample size, -all, -diff, shard), the
// packages and the time it took. Report.NoteRates adds the rates.
func (m *mutator) recordConfig(r *mutate.Report, sys string, mutants int, secs float64, changed bool) {
	a, _ := r.Config["anchorage"].(map[string]any)
	if a == nil {
		a = map[string]any{}
	}
	a["seed"] = m.o.seed.Master()
	delete(a, "shards") // a run is not a merge
	for k, v := range map[string]any{"all": m.o.all, "diff": m.o.diff, "shard": m.o.shard.String()} {
		if v == false || v == "" {
			delete(a, k)
		} else {
			a[k] = v
		}
	}
	systems, _ := a["systems"].(map[string]any)
	if systems == nil {
		systems = map[string]any{}
	}
	entry := map[string]any{"n": m.o.n, "mutants": mutants, "seconds": int(secs + 0.5)}
	if m.everyMutant() {
		entry = map[string]any{"all": true, "mutants": mutants, "seconds": int(secs + 0.5)}
	}
	if len(m.o.pkgs) > 0 {
		entry["pkg"] = strings.Join(m.o.pkgs, ",")
	}
	if changed {
		entry["treeChangedDuringRun"] = true
	}
	systems[sys] = entry
	a["systems"] = systems
	r.Config["anchorage"] = a
}

// printSurvivors lists the mutants no scenario rejected, then those only a
// decided assertion rejected (another implementation's run would not).
func (m *mutator) printSurvivors(sys string, results []mutate.Result) {
	byLoc := map[string]*catalog.Scenario{}
	for _, sc := range m.cat.Scenarios {
		byLoc[sc.Location()] = sc
	}
	var survived, decided []mutate.Result
	for _, r := range results {
		switch {
		case r.Status == mutate.Survived:
			survived = append(survived, r)
		case r.Status == mutate.Killed && r.Normative == mutate.Survived:
			decided = append(decided, r)
		}
	}
	if len(survived) > 0 {
		fmt.Fprintf(m.stdout, "%s: surviving mutants (no scenario rejects them):\n", sys)
		for _, r := range survived {
			m.printMutant(r, byLoc)
		}
	}
	if len(decided) > 0 {
		fmt.Fprintf(m.stdout, "%s: mutants only a decided assertion rejects (normative survivors):\n", sys)
		for _, r := range decided {
			m.printMutant(r, byLoc)
			fmt.Fprintf(m.stdout, "    differs: %s\n", r.Differences[0])
		}
	}
}

// printMutant prints a mutant as the README shows a survivor: where, what,
// the anchors of the scenarios that run it, and how to rerun it.
func (m *mutator) printMutant(r mutate.Result, byLoc map[string]*catalog.Scenario) {
	anchors := map[string]bool{}
	for _, loc := range r.CoveredBy {
		if sc := byLoc[loc]; sc != nil {
			for _, id := range sc.Cites() {
				anchors["§"+id] = true
			}
		}
	}
	ids := make([]string, 0, len(anchors))
	for id := range anchors {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if len(ids) > 6 {
		ids = append(ids[:6], fmt.Sprintf("… %d more", len(anchors)-6))
	}
	fmt.Fprintf(m.stdout, "  %s:%d  %s → %s  [%s; %d scenarios: %s]\n    rerun: go run ./reports/cmd/mutate -mutant %s\n",
		r.Mutant.File, r.Mutant.Start.Line, quote(r.Mutant.Original), quote(r.Mutant.Replacement), r.Mutant.Mutator,
		len(r.CoveredBy), strings.Join(ids, " "), r.Mutant.ID)
}

func quote(s string) string {
	if s == "" {
		return mutate.Snippet(s, 70)
	}
	return "`" + mutate.Snippet(s, 70) + "`"
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// failureReason picks the lines of a failing run that say what failed: the
// step errors godog reports, else a panic, else the last lines.
func failureReason(out string) string {
	var keep []string
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if (strings.HasPrefix(t, "Error:") || strings.Contains(t, "panic:") || strings.HasPrefix(t, "--- FAIL")) && !seen[t] {
			seen[t] = true
			keep = append(keep, t)
		}
		if len(keep) == 4 {
			break
		}
	}
	if len(keep) == 0 {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		keep = lines[max(0, len(lines)-4):]
	}
	s := strings.Join(keep, "\n")
	if len(s) > 600 {
		s = s[:597] + "…"
	}
	return s
}

// The stale section of the list of equivalent mutants.
const stalePrefix = "# stale: "

var staleHeader = [2]string{
	"# Stale: no mutant of the tree matches these any more (the line was edited or removed).",
	"# Re-attach one by putting the current id in front of its reason, or delete it.",
}

// fixEquivalents rewrites the list of equivalent mutants against the tree:
// an entry without a fingerprint gets the one of the mutant its id names; an
// entry whose fingerprint is found at another position gets that id; an
// entry nothing matches is commented out as stale (kept for a reviewer); of
// several entries for one mutant only the last is kept.
func (m *mutator) fixEquivalents() error {
	if m.equiv == nil {
		return fmt.Errorf("%s: no list to fix", m.o.equivalent)
	}
	byID := map[string]mutate.Mutant{}
	byFP := map[string]mutate.Mutant{}
	for _, sys := range catalog.Systems() {
		dirs, err := m.packageDirs(sys)
		if err != nil {
			return err
		}
		all, err := mutate.Enumerate(os.DirFS(m.root), dirs)
		if err != nil {
			return err
		}
		for _, mu := range all {
			byID[mu.ID] = mu
			byFP[mu.File+"|"+mu.Fingerprint()] = mu
		}
	}
	src, err := os.ReadFile(m.o.equivalent)
	if err != nil {
		return err
	}
	lines := strings.Split(string(src), "\n")
	var stale []string
	drop := map[int]bool{}
	seen := map[string]int{} // mutant → line of its entry
	moved, added, dups := 0, 0, 0
	for _, e := range m.equiv.Entries {
		var mu mutate.Mutant
		var ok bool
		if e.Fingerprint != "" {
			mu, ok = byFP[mutate.IDFile(e.ID)+"|"+e.Fingerprint]
			if ok && mu.ID != e.ID {
				moved++
			}
		} else if mu, ok = byID[e.ID]; ok {
			added++
		}
		if !ok {
			stale = append(stale, lines[e.Line-1])
			drop[e.Line-1] = true
			continue
		}
		// Several entries for one mutant (a merge can leave an old reason
		// beside its correction): the last in the file wins.
		k := mu.File + "|" + mu.Fingerprint()
		if prev, dup := seen[k]; dup {
			drop[prev] = true
			dups++
		}
		seen[k] = e.Line - 1
		lines[e.Line-1] = mu.ID + " ~" + mu.Fingerprint() + " " + e.Reason
	}
	// The stale section is rebuilt at the end: the lines commented out
	// before, then the new ones; its header only while it has lines.
	var kept, old []string
	for i, l := range lines {
		switch {
		case drop[i] || strings.HasPrefix(l, staleHeader[0]) || strings.HasPrefix(l, staleHeader[1]):
		case strings.HasPrefix(l, stalePrefix):
			old = append(old, l)
		default:
			kept = append(kept, l)
		}
	}
	for _, l := range stale {
		old = append(old, stalePrefix+l)
	}
	out := strings.TrimRight(strings.Join(kept, "\n"), "\n") + "\n"
	if len(old) > 0 {
		out += "\n" + staleHeader[0] + "\n" + staleHeader[1] + "\n" + strings.Join(old, "\n") + "\n"
	}
	if err := os.WriteFile(m.o.equivalent, []byte(out), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(m.stdout, "%s: %d entries, %d fingerprinted, %d moved with their code, %d stale (commented out), %d earlier duplicates dropped\n",
		m.o.equivalent, len(m.equiv.Entries), added, moved, len(stale), dups)
	return nil
}
