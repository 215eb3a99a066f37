package mutate

import (
	"fmt"
	"regexp"
)

// DecisionsEnv is the environment variable that makes the features record a
// decided assertion that does not hold, instead of failing its scenario, and
// DecisionsRecord its value. Every mutant runs with it, so that one run gives
// both verdicts: the full one (any assertion) and the normative one (only
// what the spec states).
const (
	DecisionsEnv    = "ANCHORAGE_DECISIONS"
	DecisionsRecord = "record"
)

// Difference is one decided assertion that did not hold: the scenario, the
// anchor of the Decision behind it and the first line of its message.
type Difference struct {
	Location, Anchor, Message string
}

func (d Difference) String() string {
	return fmt.Sprintf("%s (§%s): %s", d.Location, d.Anchor, d.Message)
}

// RunOutput is what a features run printed that decides a mutant's verdicts.
type RunOutput struct {
	Failed      []string     // locations of the scenarios that failed
	Differences []Difference // decided assertions that did not hold
}

var (
	failedRe  = regexp.MustCompile(`(features/\S+\.feature:\d+) failed with master seed`)
	differsRe = regexp.MustCompile(`anchorage: decision differs: (\S+) \(§([^)\s]+)\): ([^\n]*)`)
)

// ReadRun picks the failing scenarios (the runner's "<location> failed with
// master seed N") and the decision differences ("anchorage: decision
// differs: <location> (§<anchor>): <message>") out of a run's output.
func ReadRun(out string) RunOutput {
	var r RunOutput
	for _, m := range failedRe.FindAllStringSubmatch(out, -1) {
		r.Failed = append(r.Failed, m[1])
	}
	for _, m := range differsRe.FindAllStringSubmatch(out, -1) {
		r.Differences = append(r.Differences, Difference{Location: m[1], Anchor: m[2], Message: m[3]})
	}
	return r
}

// Verdict gives a mutant's status and its normative status from how its run
// ended. A run that timed out is a Timeout at both levels; one that failed
// (a scenario failed: a normative assertion, or anything else that stops a
// scenario) is Killed at both; one that passed but recorded a decision
// difference is Killed only by a decided assertion: Killed, and Survived at
// the normative level; else it Survived.
func Verdict(r RunOutput, failed, timedOut bool) (status, normative string) {
	switch {
	case timedOut:
		return Timeout, Timeout
	case failed:
		return Killed, Killed
	case len(r.Differences) > 0:
		return Killed, Survived
	}
	return Survived, Survived
}

// Killers lists the scenarios that killed a mutant: those that failed, then
// those that recorded a decision difference, each once.
func (r RunOutput) Killers() []string {
	var out []string
	seen := map[string]bool{}
	add := func(loc string) {
		if !seen[loc] {
			seen[loc] = true
			out = append(out, loc)
		}
	}
	for _, loc := range r.Failed {
		add(loc)
	}
	for _, d := range r.Differences {
		add(d.Location)
	}
	return out
}
