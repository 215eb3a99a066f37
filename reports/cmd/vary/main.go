// Command vary measures the features' specificity (make vary): a right
// implementation must pass. It runs each system's features against the
// reference implementation with every spec-permitted variation of that
// system on at once (ANCHORAGE_VARY=all, package impl/vary): messages
// reworded, codes the seed does not name renamed, limits moved, JSON members
// reordered, and so on. Such a run judges the reference as another target,
// so a decided assertion that no longer holds is recorded as a difference
// from the reference's decision, and a scenario that fails is a false
// rejection: a normative assertion pinning what the seed leaves open. For
// each false rejection it reruns the failing scenarios with each variation
// alone, to name the one behind it. It is the mirror of make mutate:
// mutants must be killed, variations must survive.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"anchorage/impl/vary"
	"anchorage/reports/catalog"
	"anchorage/reports/coverage"
)

const usage = `usage: go run ./reports/cmd/vary [-system LIST] [-min N] [-work DIR]

Runs each system's features against the reference with all of its
spec-permitted variations on (ANCHORAGE_VARY=all), judged as another target:
decided assertions that differ are recorded, and every failing scenario is
a false rejection. The variations behind a failure are named by rerunning the
failing scenarios with each variation alone.

Exit status: 0 when no system has a false rejection and each has at least
-min variations; 1 otherwise, or when the features cannot be built or run;
2 on bad flags.

Flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("vary", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprint(fl.Output(), usage)
		fl.PrintDefaults()
	}
	system := fl.String("system", strings.Join(catalog.Systems(), ","), "systems to run, comma-separated")
	minimum := fl.Int("min", 10, "fewest variations a system may have")
	work := fl.String("work", "reports/tmp/vary", "scratch directory (the features binary, each run's Cucumber JSON)")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "vary: unexpected argument %q (see -h)\n", fl.Arg(0))
		return 2
	}
	var systems []string
	for _, s := range strings.Split(*system, ",") {
		s = strings.TrimSpace(s)
		if !contains(catalog.Systems(), s) {
			fmt.Fprintf(stderr, "vary: -system %q: want one or more of %s\n", s, strings.Join(catalog.Systems(), ","))
			return 2
		}
		systems = append(systems, s)
	}
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "vary:", err)
		return 1
	}
	w := *work
	if !filepath.IsAbs(w) {
		w = filepath.Join(root, w) // relative to the module's root, where the tool runs from
	}
	r := &runner{root: root, work: w, stdout: stdout}
	r.run = r.features
	if err := r.build(); err != nil {
		fmt.Fprintln(stderr, "vary:", err)
		return 1
	}
	fmt.Fprintln(stdout, "the reference with spec-permitted variations, judged as another target (a failing scenario is a false rejection):")
	status := 0
	for _, sys := range systems {
		ok, err := r.system(sys, variations(sys), *minimum)
		if err != nil {
			fmt.Fprintf(stderr, "vary: %s: %v\n", sys, err)
			return 1
		}
		if !ok {
			status = 1
		}
	}
	return status
}

// runner runs the features test binary in record mode.
type runner struct {
	root, work string
	bin        string
	stdout     io.Writer
	// run runs a system's scenarios (all, or locs) with the variations in
	// list: features, or a fake in tests.
	run func(sys, list string, locs []string) (map[string]coverage.Result, error)
}

// build compiles the features test binary once.
func (r *runner) build() error {
	if err := os.MkdirAll(r.work, 0o755); err != nil {
		return err
	}
	r.bin = filepath.Join(r.work, "features.test")
	cmd := exec.Command("go", "test", "-c", "-o", r.bin, "./features")
	cmd.Dir = r.root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building the features: %v\n%s", err, out.String())
	}
	return nil
}

// system runs one system with all its variations, names the variations
// behind its false rejections, and prints what it found. It reports whether
// the system passed: no false rejection, enough variations.
func (r *runner) system(sys string, vs []vary.Variation, minimum int) (bool, error) {
	fmt.Fprintf(r.stdout, "%s: %d variations: %s\n", sys, len(vs), strings.Join(vary.Names(vs), ", "))
	t0 := time.Now()
	res, err := r.run(sys, "all", nil)
	if err != nil {
		return false, err
	}
	var failed []string
	var keeps, differs, pending int
	decisions := map[string]bool{}
	for loc, rs := range res {
		switch {
		case rs.Status == coverage.Failed:
			failed = append(failed, loc)
		case rs.Status != coverage.Passed:
			pending++
		case len(rs.Differences) > 0:
			differs++
			for _, d := range rs.Differences {
				decisions[d.Decision] = true
			}
		default:
			keeps++
		}
	}
	sort.Strings(failed)
	fmt.Fprintf(r.stdout, "  %d scenarios in %.0f s: %d keep the spec, %d keep it but differ on decisions (%d decisions), %d pending, %d fail the spec\n",
		len(res), time.Since(t0).Seconds(), keeps, differs, len(decisions), pending, len(failed))
	ok := true
	if len(vs) < minimum {
		fmt.Fprintf(r.stdout, "  too few variations: %d, want at least %d\n", len(vs), minimum)
		ok = false
	}
	if len(failed) == 0 {
		fmt.Fprintln(r.stdout, "  false rejections: 0")
		return ok, nil
	}
	fmt.Fprintf(r.stdout, "  false rejections: %d\n", len(failed))
	blame, err := r.blame(sys, vs, failed)
	if err != nil {
		return false, err
	}
	for _, loc := range failed {
		who := blame[loc]
		if len(who) == 0 {
			who = []string{"only with several variations together"}
		}
		msg, _, _ := strings.Cut(res[loc].Error, "\n")
		fmt.Fprintf(r.stdout, "    %s [%s]: %s\n", loc, strings.Join(who, ", "), msg)
	}
	return false, nil
}

// blame reruns the failing scenarios with each variation alone and returns,
// per scenario, the variations under which it still fails.
func (r *runner) blame(sys string, vs []vary.Variation, failed []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, v := range vs {
		res, err := r.run(sys, v.Name, failed)
		if err != nil {
			return nil, err
		}
		for _, loc := range failed {
			if res[loc].Status == coverage.Failed {
				out[loc] = append(out[loc], v.Name)
			}
		}
	}
	return out, nil
}

// features runs a system's scenarios (all of them, or locs) with the
// variations in list, and returns each scenario's result.
func (r *runner) features(sys, list string, locs []string) (map[string]coverage.Result, error) {
	dir := filepath.Join(r.work, sys+"-"+strings.ReplaceAll(list, ",", "+"))
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	args := []string{"-test.run", "^TestFeatures$/^" + sys + "$", "-test.count=1", "-test.timeout=30m"}
	if len(locs) > 0 {
		args = append(args, "-feature="+strings.Join(locs, ","))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir = filepath.Join(r.root, "features")
	cmd.Env = append(cleanEnv(), "ANCHORAGE_VARY="+list, "ANCHORAGE_DECISIONS=record", "ANCHORAGE_REPORT_DIR="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run() // a false rejection fails the run: the results say which
	if werr := os.WriteFile(filepath.Join(dir, "go-test.log"), out.Bytes(), 0o644); werr != nil {
		return nil, werr
	}
	res, _, rerr := coverage.ReadResults(dir)
	if rerr != nil {
		return nil, rerr
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("the features ran no scenario (%v); log: %s", err, filepath.Join(dir, "go-test.log"))
	}
	return res, nil
}

// cleanEnv is the environment without anything that points the features at
// another implementation, another seed or another report directory.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "JACE_URL", "DECK_CMD", "CHATLOG_SERVER", "CHATLOG_PARSE", "PLURNK_CMD", "ANCHORAGE_REPORT_DIR",
			"ANCHORAGE_SEED", "ANCHORAGE_VARY", "ANCHORAGE_DECISIONS", "GOCOVERDIR":
			continue
		}
		env = append(env, kv)
	}
	return env
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
