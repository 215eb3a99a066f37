package driver

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"anchorage/reports/catalog"

	"github.com/cucumber/godog"
)

// What a daemon process can express of a scenario: the steps its public
// surface takes, and why the others have no daemon counterpart.

// harnessBound names, by scenario, what a scenario pins of the embedded
// harness rather than of the daemon.
var harnessBound = map[string]string{
	"discover needs no session and lists the methods, notifications and capabilities": `it pins capabilities.providers = ["mock"], the embedded harness's provider package; a daemon process reaches the scripted model through its own package (plurnkd: "openai")`,
	"discover lists each provider package in use once, in alphabetical order":         `it declares an alias of "mock", the embedded harness's second provider package; plurnkd's are "openai" and "scripted"`,
}

// clockStep is a step letting time pass on the daemon's clock.
var clockStep = regexp.MustCompile(`^(\d+) ms pass (?:on the (?:daemon's|session) clock|(for the running commands))$`)

// timedExec is an EXEC with a positive time limit, which the daemon times
// on its own clock.
var timedExec = regexp.MustCompile(`<<EXEC(?:\[\w*\])?<0*[1-9]|<<EXEC(?:\[\w*\])?<0*\.\d*[1-9]`)

// minWait and maxWait bound the waits on the wall clock that stand for
// time passing on the daemon's clock: shorter ones probe a boundary the
// wall clock cannot resolve, longer ones cost too much.
const (
	minWait = 100 // ms
	maxWait = 6 * time.Second
)

// texts are the texts of a step: its own and its doc string's.
func texts(st *godog.Step) []string {
	out := []string{st.Text}
	if st.Argument != nil && st.Argument.DocString != nil {
		out = append(out, st.Argument.DocString.Content)
	}
	return out
}

// probes reports whether the scenario lets less than minWait pass on the
// daemon's clock. A short wait for the running commands alone is exact:
// their times are on the commands' clock, which the harness moves. It
// probes a boundary when the daemon's own timers run too: an EXEC's time
// limit, the kill grace, a command that ignores the polite signal.
func probes(sc *godog.Scenario) bool {
	timers := false
	for _, st := range sc.Steps {
		for _, t := range texts(st) {
			if timedExec.MatchString(t) || strings.Contains(t, "PLURNK_EXEC_KILL_GRACE_MS") || strings.Contains(t, "ignores the polite signal") {
				timers = true
			}
		}
	}
	for _, st := range sc.Steps {
		if m := clockStep.FindStringSubmatch(st.Text); m != nil {
			if ms, _ := strconv.Atoi(m[1]); ms < minWait && (m[2] == "" || timers) {
				return true
			}
		}
	}
	return false
}

var daemonEntry = regexp.MustCompile(`^(a connection "\w+" to the daemon|the daemon boots)$`)

// reachesDaemon reports whether a step of the scenario starts or reaches
// a daemon.
func reachesDaemon(sc *godog.Scenario) bool {
	for _, st := range sc.Steps {
		if daemonEntry.MatchString(st.Text) {
			return true
		}
	}
	return false
}

var narrowed = []struct{ public, narrow *regexp.Regexp }{
	{regexp.MustCompile(`^the exec output (\S+) has streamed `), regexp.MustCompile(`^the exec output (sh:///1/1/\d+) has streamed "((?:[^"\\]|\\.)*)" on (stdout|stderr) and is still active$`)},
	{regexp.MustCompile(`^the exec output (\S+) streams `), regexp.MustCompile(`^the exec output (sh:///1/1/\d+) streams "((?:[^"\\]|\\.)*)" on (stdout|stderr)$`)},
	{regexp.MustCompile(`^the exec output (\S+) (closes|fails)$`), regexp.MustCompile(`^the exec output (\S+) closes$`)},
}

// targetBound are steps of the data plane whose expectation holds for the
// engine as the scenario sets it up and not for a daemon process, with
// why: a scenario taking one is skipped for the process target.
var targetBound = []struct {
	step *regexp.Regexp
	why  string
}{
	{regexp.MustCompile(`^packet (\d+) has the system sections "([^"]*)"$|^packet (\d+) has no tools section$`),
		"the engine of these scenarios has no executor, while the daemon under test offers host commands, so its packets carry the tools sheet"},
}

// boundScenarios are the scenarios of the data plane whose expectation
// holds for the engine as the scenario sets it up and not for a daemon
// process, by name, with why.
var boundScenarios = []struct {
	name *regexp.Regexp
	why  string
}{
	{regexp.MustCompile(`^(PLURNK_MANIFEST_ITEMS=2 foists|unset or 0, there is no preview|with nine rows in the log the heaviest-entries table lists all nine)`),
		"the daemon wires a client's writes into the model run's log (rows by plurnk) where the engine's givens write outside any run's log, and this scenario pins the packet's rows"},
	{regexp.MustCompile(`^text the service derives is markdown; exec's declared text/plain survives$`),
		"it reads the mimetype of an OPEN, which writes no row, while an op.* answer carries a mimetype on its rows only; and it names rows log:///1/1/… of the model run, where the mirror's are the client loop's"},
	{regexp.MustCompile(`^a run:// target with a path is scratch storage, not a run: the entry engine hands it to the scheme registry$`),
		"it pins what the entry engine alone answers to a run:// target, where a daemon's runs service answers run:// itself first (§run-scheme-scratch)"},
	{regexp.MustCompile(`^the grinder acts only above the ceiling: `),
		"it pins a packet of exactly 2245 tokens as the embedded scripted model's tokenizer counts it; a daemon process measures with its own provider's tokenizer"},
}

// libraryReasons say why a step only the engine as a library takes has no
// daemon counterpart, by the kind of step: the first that matches.
var libraryReasons = []struct {
	step *regexp.Regexp
	why  string
}{
	{regexp.MustCompile(`^the model's turn \d+/\d+ begins$|^the model's EXEC \d+/\d+/\d+ is accepted|^the exec output sh:///|at log:///|^the errors of turn|^the action's log rows are:$|^the model's log holds|'s log row log:///|EDITs of (\S+) in one turn$`),
		"it places a model's action at a coordinate L/T/S of the model run, while a client of the daemon acts on its own client loop (op.*, one turn a call) or through whole model turns (loop.run)"},
	{regexp.MustCompile(`mimetype handler|^the packet is assembled$|^a scheme "|^a packet plugin|counts one token per|^the provider (charges|will fail|priced)|^the members have been synced$|^the next sync|outside plurnk|its record for the plurnk run|^the model will reply with the (meta|raw payload)|forwarding the notice|^the session was notified of the notices|child run|^a second (run|session)|carried the run's abort signal|generates reply|when its drain|while its next command registers|before the daemon applies|^the client will cancel the loop|stored \d+ tokens|pico-USD|^the engine offers`),
		"it reaches inside the embedded engine or service (a handler, plugin, scheme or provider of the harness's own, a sync pass, a seam of the drain), which no daemon protocol exposes"},
	{regexp.MustCompile(`^the simulated command|^the real sh executor|^PLURNK_EXEC_KILL_GRACE_MS|ms pass for the running commands$|^the commands run to completion$|^the stream (\S+) (ended|is still)|ignores the polite signal|by SIG\w+ at \d+ ms|seconds pass on the session clock|^the stream events|^the stdout of|^the shell environment|^the project's \.env|^an executor "|^the model cancels`),
		"it drives the exec scheme's simulated executors on the simulated clock as a library (spawns, chunks and signals at simulated times)"},
}

// libraryReason says why the step has no daemon counterpart.
func libraryReason(step string) string {
	for _, r := range libraryReasons {
		if r.step.MatchString(step) {
			return r.why
		}
	}
	return "it drives the engine as a library, which no daemon protocol exposes"
}

// libraryStep returns the first step of the scenario that only the
// engine as a library can take, or "" when the daemon's public surface
// expresses every step: when it matches a public step's pattern (a
// decided one too), in its narrower form where there is one.
func libraryStep(sc *godog.Scenario, public []string) string {
	res := make([]*regexp.Regexp, len(public))
	for i, expr := range public {
		res[i] = regexp.MustCompile("(?:" + strings.TrimSuffix(expr, "$") + ")" + catalog.DecidedPattern + "$")
	}
	for _, st := range sc.Steps {
		if !publicStep(st.Text, res) {
			return st.Text
		}
	}
	return ""
}

// publicStep reports whether a daemon process takes the step text.
func publicStep(text string, public []*regexp.Regexp) bool {
	for _, n := range narrowed {
		if n.public.MatchString(text) {
			return n.narrow.MatchString(text)
		}
	}
	for _, re := range public {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// boundStep returns why the scenario expects what only the engine as the
// scenario sets it up shows, and the step (or the scenario) that does; ""
// when none.
func boundStep(sc *godog.Scenario) (why, step string) {
	if startsRun(sc) {
		if _, why := oneRun(sc); why != "" {
			return why, "(its runs)"
		}
	}
	for _, b := range boundScenarios {
		if b.name.MatchString(sc.Name) {
			return b.why, "(the whole scenario)"
		}
	}
	for _, st := range sc.Steps {
		if st.Text == `the engine offers the EXEC runtimes "sh"` {
			// The engine of this scenario has the daemon's executor.
			return "", ""
		}
	}
	for _, st := range sc.Steps {
		for _, b := range targetBound {
			if text, _, _ := catalog.DecidedStep(st.Text); b.step.MatchString(text) { // a decided step is the same step
				return b.why, st.Text
			}
		}
	}
	return "", ""
}

var (
	runtime = regexp.MustCompile(`<<EXEC\[(\w*)\]`)
	polled  = regexp.MustCompile(`<<EXEC(\[\w*\])?<[^>]*,`)
)

// clientStarts is a step of the client starting a run's loop.
var clientStarts = regexp.MustCompile(`^the client starts run "([^"]*)"`)

// oneRun returns the run of a scenario of runs that the client starts,
// which the session's model run stands for (session.create's modelRun
// names it so), or why the daemon cannot stand for its runs: several runs
// the client starts (the others are the model's to spawn), the polls of a
// stream timed on the session clock, a runtime the daemon does not offer.
// The model's script of each run is told apart by the X-Plurnk-Run
// header of its requests.
func oneRun(sc *godog.Scenario) (string, string) {
	started := map[string]bool{}
	for _, st := range sc.Steps {
		if m := clientStarts.FindStringSubmatch(st.Text); m != nil {
			started[m[1]] = true
		}
		for _, t := range texts(st) {
			if polled.MatchString(t) {
				return "", "it times the polls of a stream (EXEC<T,P>) against the session clock, which the wall clock of a daemon process cannot resolve: the harness's settling waits themselves let time pass"
			}
			for _, m := range runtime.FindAllStringSubmatch(t, -1) {
				if m[1] != "" && m[1] != "sh" {
					return "", fmt.Sprintf("it runs the %q runtime, a simulated executor the daemon under test does not offer", m[1])
				}
			}
		}
	}
	if len(started) != 1 {
		var names []string
		for r := range started {
			names = append(names, r)
		}
		sort.Strings(names)
		return "", fmt.Sprintf("the client starts the runs %s, and a client starts the loops of the session's model run; the other runs are the model's to spawn", strings.Join(names, ", "))
	}
	for r := range started {
		return r, ""
	}
	return "", ""
}

// startsRun reports whether the scenario drives a session of runs.
func startsRun(sc *godog.Scenario) bool {
	for _, st := range sc.Steps {
		if strings.HasPrefix(st.Text, "the client starts run ") {
			return true
		}
	}
	return false
}

// asks reports whether host commands wait for the client in a session of
// runs: unless the scenario accepts them without asking.
func asks(sc *godog.Scenario) bool {
	for _, st := range sc.Steps {
		if st.Text == "host commands are accepted without asking" {
			return false
		}
	}
	return startsRun(sc)
}

// execStep is the step of the model's EXEC being accepted.
var execStep = regexp.MustCompile(`^the model's EXEC (\d+)/(\d+)/(\d+) is accepted: (<<.+)$`)

// plannedExec is a step of the scenario that has the model's EXEC
// accepted: its place among the steps and its coordinate.
type plannedExec struct {
	step, loop, turn, seq int
}

// planExecs lists the scenario's EXEC steps in order.
func planExecs(sc *godog.Scenario) []plannedExec {
	var out []plannedExec
	for i, st := range sc.Steps {
		if m := execStep.FindStringSubmatch(st.Text); m != nil {
			l, _ := strconv.Atoi(m[1])
			t, _ := strconv.Atoi(m[2])
			s, _ := strconv.Atoi(m[3])
			out = append(out, plannedExec{step: i, loop: l, turn: t, seq: s})
		}
	}
	return out
}
