package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"anchorage/reports/catalog"
)

// godog's progress formatter writes its dots into the scenario's output:
// a line of them alone is dropped, and with them the test's file:line.
var (
	progressOnly = regexp.MustCompile(`^[.\-FUPA]+( +\d+)?$`)
	leader       = regexp.MustCompile(`^[.\-FUPA]*\s*\w+\.go:\d+: `)
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// progress is one system's count of scenarios run.
type progress struct {
	total, done, failed int
	started, shown      time.Time
	finished            bool
}

// failure is one failing scenario's own output, in order, each line once.
type failure struct {
	test  string
	lines []string
	seen  map[string]bool
}

// watch reads `go test -json` from stdin while the features run: it copies
// the plain text to -log, prints a progress line per system (scenarios done
// of those the catalog says will run), and at the end each failing
// scenario's assertion and replay line, once. Its exit status is the test
// run's: 0 when the package passed, 1 otherwise.
func watch(args []string, stdin io.Reader, stdout, stderr io.Writer, now func() time.Time) int {
	fl := flag.NewFlagSet("report watch", flag.ContinueOnError)
	fl.SetOutput(stderr)
	root := fl.String("root", ".", "project root (holds features/)")
	logPath := fl.String("log", "reports/tmp/go-test.log", "where to write the run's text output")
	wip := fl.Bool("wip", false, "the run includes @wip scenarios")
	every := fl.Duration("every", 15*time.Second, "print a running system's progress at least this often")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "usage: go test -json ./features … | report watch [-root .] [-log FILE]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	cat, _, err := catalog.Load(os.DirFS(*root), "features")
	if err != nil {
		fmt.Fprintln(stderr, "report watch:", err)
		return 2
	}
	logf, err := os.Create(*logPath)
	if err != nil {
		fmt.Fprintln(stderr, "report watch:", err)
		return 2
	}
	defer logf.Close()
	log := bufio.NewWriter(logf)
	defer log.Flush()

	sys := map[string]*progress{}
	for _, s := range cat.Systems {
		sys[s] = &progress{}
	}
	for _, sc := range cat.Scenarios {
		if p := sys[sc.System]; p != nil && (*wip || !sc.Has("@wip")) {
			p.total++
		}
	}
	show := func(name string, p *progress, t time.Time) {
		state := "running"
		if p.finished {
			state = "done"
		}
		fmt.Fprintf(stdout, "  %-8s %4d/%-4d scenarios  %d failed  %5.1fs  %s\n", name, p.done, p.total, p.failed, t.Sub(p.started).Seconds(), state)
		p.shown = t
	}
	var fails []*failure
	byTest := map[string]*failure{}
	passed, verdict, started := false, false, false
	seenRunLine := map[string]bool{}
	var runLines []string // run-level lines worth showing (catalog problems)
	var differs []string  // each system's decision differences, apart from its failures

	fmt.Fprintln(stdout, "compiling the features…")
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			// not an event: a build error or the like
			fmt.Fprintln(log, string(line))
			fmt.Fprintln(stderr, string(line))
			continue
		}
		t := now()
		log.WriteString(ev.Output)
		if ev.Test == "" {
			switch ev.Action {
			case "start":
				if !started {
					started = true
					fmt.Fprintln(stdout, "running the features (scenarios done/total per system):")
				}
			case "pass":
				passed, verdict = true, true
			case "fail":
				verdict = true
			case "output":
				if strings.Contains(ev.Output, "[build failed]") || strings.HasPrefix(ev.Output, "# ") {
					fmt.Fprint(stderr, ev.Output)
				}
			}
			continue
		}
		parts := strings.SplitN(ev.Test, "/", 3)
		if parts[0] != "TestFeatures" {
			continue
		}
		if len(parts) == 1 {
			if ev.Action == "output" && strings.Contains(ev.Output, "catalog:") && !seenRunLine[ev.Output] {
				seenRunLine[ev.Output] = true
				runLines = append(runLines, strings.TrimSpace(ev.Output))
			}
			continue
		}
		p := sys[parts[1]]
		if p == nil {
			continue
		}
		if len(parts) == 2 {
			switch ev.Action {
			case "output":
				if out := strings.TrimSpace(leader.ReplaceAllString(strings.TrimRight(ev.Output, "\n"), "")); strings.Contains(out, "differ from the reference's decisions") || strings.HasPrefix(out, "Decision (§") {
					differs = append(differs, out)
				}
			case "run":
				p.started = t
			case "pass", "fail", "skip":
				p.finished = true
				show(parts[1], p, t)
			}
			continue
		}
		if parts[2] == "replay" || strings.HasPrefix(parts[2], "replay/") {
			if ev.Action == "fail" && parts[2] == "replay" {
				fails = append(fails, &failure{test: ev.Test, lines: []string{"a replay line did not reproduce its scenario: see " + *logPath}})
			}
			continue
		}
		switch ev.Action {
		case "output":
			out := strings.TrimRight(ev.Output, "\n")
			trim := strings.TrimSpace(out)
			if trim == "" || strings.HasPrefix(trim, "=== ") || strings.HasPrefix(trim, "--- ") || progressOnly.MatchString(trim) {
				continue
			}
			out = leader.ReplaceAllString(out, "")
			f := byTest[ev.Test]
			if f == nil {
				f = &failure{test: ev.Test, seen: map[string]bool{}}
				byTest[ev.Test] = f
			}
			if trim = strings.TrimSpace(out); !f.seen[trim] {
				f.seen[trim] = true
				f.lines = append(f.lines, trim)
			}
		case "pass", "skip":
			p.done++
			delete(byTest, ev.Test)
		case "fail":
			p.done++
			p.failed++
			f := byTest[ev.Test]
			if f == nil {
				f = &failure{test: ev.Test}
			}
			fails = append(fails, f)
			delete(byTest, ev.Test)
		}
		if !p.finished && t.Sub(p.shown) >= *every && t.Sub(p.started) >= *every {
			show(parts[1], p, t)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(stderr, "report watch: reading the test output:", err)
		return 1
	}
	for _, l := range runLines {
		fmt.Fprintln(stdout, l)
	}
	if len(differs) > 0 {
		fmt.Fprintln(stdout, "decision differences (the target keeps the spec there; not failures):")
		for _, l := range differs {
			fmt.Fprintf(stdout, "  %s\n", l)
		}
	}
	if len(fails) > 0 {
		fmt.Fprintf(stdout, "%d failing scenario(s):\n", len(fails))
		for _, f := range fails {
			fmt.Fprintf(stdout, "FAIL %s\n", f.test)
			for _, l := range f.lines {
				fmt.Fprintf(stdout, "  %s\n", l)
			}
		}
	}
	if !verdict {
		fmt.Fprintf(stderr, "report watch: the test run ended without a verdict (a build failure?): see %s\n", *logPath)
		return 1
	}
	if !passed {
		return 1
	}
	return 0
}
