package coverage

import (
	"encoding/xml"
	"fmt"
	"path"
	"strings"

	"anchorage/reports/catalog"
)

// JUnit XML as CI dashboards read it: one <testsuite> per system, one
// <testcase> per scenario (an outline row labelled by its example values),
// classname "<system>/<feature file>", a failed step as <failure> with its
// message and the replay line, an undefined or pending step as <error>, and
// a scenario that did not run — @wip, skipped by a step, not selected — as
// <skipped/>. A scenario that kept the spec but differed from the
// reference's decisions passed: its differences are in <system-out>, never a
// failure.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// JUnit renders junit.xml for every scenario of the catalog with what the
// run said of it.
func JUnit(cat *catalog.Catalog, results map[string]Result, details map[string]Detail, master uint64) ([]byte, error) {
	all := junitSuites{Name: "anchorage"}
	var total float64
	for _, sys := range cat.Systems {
		suite := junitSuite{Name: sys}
		var st float64
		names := map[string]int{}
		var cases []junitCase
		var locs []string
		for _, sc := range cat.Scenarios {
			if sc.System != sys {
				continue
			}
			feature := strings.TrimSuffix(path.Base(sc.URI), ".feature")
			name := sc.Name
			if d := details[sc.Location()]; d.Label != "" {
				name += " [" + d.Label + "]"
			}
			c := junitCase{Classname: sys + "/" + feature, Name: name, Time: seconds(0)}
			names[c.Classname+"\x00"+name]++
			res, ran := results[sc.Location()]
			switch {
			case sc.Has("@wip"):
				c.Skipped = &junitSkipped{Message: "@wip: work in progress, not run (" + sc.Location() + ")"}
			case !ran:
				c.Skipped = &junitSkipped{Message: "not run in this selection (" + sc.Location() + ")"}
			default:
				c.Time = seconds(res.Duration)
				st += res.Duration
				switch res.Status {
				case Failed:
					msg, _, _ := strings.Cut(res.Error, "\n")
					c.Failure = &junitProblem{Message: msg, Type: "failed",
						Text: failedStep(res, details[sc.Location()]) + res.Error + "\n" + sc.Location() + "\nreplay: " + ReplayLine(master, sys, sc.Location())}
				case Pending:
					c.Error = &junitProblem{Message: res.Error, Type: "pending", Text: sc.Location()}
				case Skipped:
					c.Skipped = &junitSkipped{Message: res.Error + " (" + sc.Location() + ")"}
				}
				for _, d := range res.Differences {
					c.SystemOut += fmt.Sprintf("keeps the spec; differs from the reference's Decision (%s): %s\n  step: %s\n", d.Decision, d.Message, d.Step)
				}
			}
			cases = append(cases, c)
			locs = append(locs, sc.Location())
		}
		for i := range cases { // a name its class repeats gets its line
			if names[cases[i].Classname+"\x00"+cases[i].Name] > 1 {
				_, line, _ := strings.Cut(locs[i], ".feature:")
				cases[i].Name += " (line " + line + ")"
			}
		}
		for _, c := range cases {
			suite.Tests++
			switch {
			case c.Failure != nil:
				suite.Failures++
			case c.Error != nil:
				suite.Errors++
			case c.Skipped != nil:
				suite.Skipped++
			}
		}
		suite.Cases, suite.Time = cases, seconds(st)
		total += st
		all.Tests += suite.Tests
		all.Failures += suite.Failures
		all.Errors += suite.Errors
		all.Skipped += suite.Skipped
		all.Suites = append(all.Suites, suite)
	}
	all.Time = seconds(total)
	b, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("junit: %w", err)
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

// failedStep names the step that failed, for the failure's text.
func failedStep(r Result, d Detail) string {
	for i, st := range r.Steps {
		if st.Status != "failed" {
			continue
		}
		if i < len(d.Steps) {
			return fmt.Sprintf("step %d failed: %s %s\n", i+1, d.Steps[i].Keyword, d.Steps[i].Text)
		}
		return fmt.Sprintf("step %d failed:\n", i+1)
	}
	return ""
}
