package kit

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/cucumber/godog"

	"anchorage/reports/catalog"
)

// Two levels of assertion. A Then step is normative unless its text ends
// with " per Decision (§id)": then it is decided, checking a choice the seed
// leaves open (a wording, a code the seed does not name, a byte format, a
// limit) that the digest records as a Decision of anchor id. What a decided
// step that does not hold does depends on the target:
//
//   - against the embedded reference (DecisionsFail), it fails the scenario
//     like any assertion, its message naming the decision, so the reference
//     and the mutation rates are held to every choice;
//   - against another target (DecisionsRecord), it is recorded as a
//     Difference from the reference's decision and the scenario goes on;
//     only a normative failure fails it.

// DecisionMode says what a decided assertion that does not hold does.
type DecisionMode int

const (
	// DecisionsFail fails the scenario (the embedded reference).
	DecisionsFail DecisionMode = iota
	// DecisionsRecord records a Difference and goes on (another target).
	DecisionsRecord
)

// Difference is a decided assertion a target does not keep.
type Difference struct {
	Decision string `json:"decision"` // the anchor whose Decision it is, with its §
	Step     string `json:"step"`     // the step as written, suffix included
	Message  string `json:"message"`  // what the step expected and got
}

// DifferenceMediaType is the media type of the attachment the runner adds to
// a step that differs, so the Cucumber JSON carries it to the report.
const DifferenceMediaType = "application/vnd.anchorage.decision-difference+json"

// BeginStep is called by the runner before each step: it notes whether the
// step is decided, and on which decision.
func (s *Scenario) BeginStep(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stepText = text
	s.stepDiff = nil
	s.stepDecision = ""
	if _, id, ok := catalog.DecidedStep(text); ok {
		s.stepDecision = "§" + id
	}
}

// EndStep is called by the runner after each step: it returns the
// difference the step recorded, if any.
func (s *Scenario) EndStep() (Difference, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.stepDiff
	s.stepDiff, s.stepDecision, s.stepText = nil, "", ""
	if d == nil {
		return Difference{}, false
	}
	return *d, true
}

// Differences returns every difference the scenario recorded, in order.
func (s *Scenario) Differences() []Difference {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Difference(nil), s.differences...)
}

// judge applies the decision mode to what a step returned.
func (s *Scenario) judge(err error) error {
	if err == nil || errors.Is(err, godog.ErrSkip) || errors.Is(err, godog.ErrPending) {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stepDecision == "" {
		return err
	}
	if s.Decisions != DecisionsRecord {
		return fmt.Errorf("decided per Decision (%s): %w", s.stepDecision, err)
	}
	d := Difference{Decision: s.stepDecision, Step: s.stepText, Message: err.Error()}
	s.differences = append(s.differences, d)
	s.stepDiff = &d
	return nil
}

// Steps is the scenario context a system registers its steps on: godog's,
// whose Step makes every step definition usable as a normative or a decided
// assertion.
type Steps struct {
	*godog.ScenarioContext
}

// Step registers a step definition. expr must end with $; it also matches
// the step followed by " per Decision (§id)". fn must take the context
// first and return an error last; its error goes through the scenario's
// decision mode when the step is decided.
func (r Steps) Step(expr string, fn any) {
	body, ok := strings.CutSuffix(expr, "$")
	if !ok {
		panic(fmt.Sprintf("kit: step pattern %q must end with $", expr))
	}
	r.ScenarioContext.Step("(?:"+body+")"+catalog.DecidedPattern+"$", judged(expr, fn))
}

var (
	contextType = reflect.TypeFor[context.Context]()
	errorType   = reflect.TypeFor[error]()
)

// judged wraps a step function of any signature godog accepts, whose first
// parameter is the context and whose last result is an error, so that its
// error is judged by the scenario's decision mode.
func judged(expr string, fn any) any {
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func || t.NumIn() == 0 || t.In(0) != contextType || t.NumOut() == 0 || t.Out(t.NumOut()-1) != errorType {
		panic(fmt.Sprintf("kit: step %q: want a func(context.Context, …) (…, error), got %T", expr, fn))
	}
	last := t.NumOut() - 1
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		for _, a := range args[1:] {
			if a.Kind() == reflect.String && strings.Contains(a.String(), " per Decision (§") {
				return failed(t, args[0], fmt.Errorf("kit: step %q captured its own \" per Decision (§…)\" suffix: end the pattern's last group before it", expr))
			}
		}
		out := v.Call(args)
		s, serr := From(args[0].Interface().(context.Context))
		if serr != nil || out[last].IsNil() {
			return out
		}
		out[last] = errorValue(s.judge(out[last].Interface().(error)))
		return out
	}).Interface()
}

// failed returns the results of a step function of type t that fails with
// err: the context it was given where it returns one, zero values elsewhere.
func failed(t reflect.Type, ctx reflect.Value, err error) []reflect.Value {
	out := make([]reflect.Value, t.NumOut())
	for i := range out {
		out[i] = reflect.Zero(t.Out(i))
		if t.Out(i) == contextType {
			out[i] = ctx
		}
	}
	out[len(out)-1] = errorValue(err)
	return out
}

func errorValue(err error) reflect.Value {
	if err == nil {
		return reflect.Zero(errorType)
	}
	return reflect.ValueOf(&err).Elem()
}
