package dsl

import (
	"fmt"
	"slices"
)

// TurnRules are the turn-shape limits a model emission is checked against.
type TurnRules struct {
	// RequirePlan: the turn must lead with one <<PLAN:…:PLAN.
	RequirePlan bool
	// RequireTerminal: the turn must end with a disposition SEND.
	RequireTerminal bool
	// Dispositions are the status codes that make a target-less SEND the
	// turn's terminal disposition.
	Dispositions []int
	// MaxCommands caps the counted statements of one emission (PLAN and the
	// terminal SEND are not counted); overflow statements are dropped.
	// Negative means no cap; 0 allows only PLAN and the terminal.
	MaxCommands int
}

// DefaultMaxCommands is the per-emission op cap when the operator sets none
// (PLURNK_MAX_COMMANDS).
const DefaultMaxCommands = 99

// Rules056 returns the turn shape of plurnk-service 0.56 / grammar 0.74.20:
// PLAN first, one terminal SEND whose status is 102 (continue), 200 (done),
// 202 (hibernate) or 499 (give up), at most DefaultMaxCommands other ops.
func Rules056() TurnRules {
	return TurnRules{
		RequirePlan:     true,
		RequireTerminal: true,
		Dispositions:    []int{102, 200, 202, 499},
		MaxCommands:     DefaultMaxCommands,
	}
}

// IsDisposition reports whether s is a loop disposition under rules: a SEND
// with no target whose status is one of rules.Dispositions. A SEND with a
// target (irc, stream cancel, [410] delete) or another status is an
// ordinary op.
func (r TurnRules) IsDisposition(s Statement) bool {
	if s.Op != OpSend || s.Target != nil {
		return false
	}
	code, ok := s.Status()
	return ok && slices.Contains(r.Dispositions, code)
}

// ViolationKind names one turn-shape rule.
type ViolationKind int

const (
	MissingPlan         ViolationKind = iota + 1 // no PLAN statement at all
	PlanNotFirst                                 // statements before the PLAN
	ExtraPlan                                    // a second PLAN
	MissingTerminal                              // no disposition SEND (not reported when the parse derailed)
	MultipleTerminal                             // a second disposition SEND
	AfterTerminal                                // statements after the disposition SEND
	MaxCommandsExceeded                          // more counted ops than the cap
	IdleTurn                                     // a continuing (102) turn with no work op
)

// ContinueCode is the disposition status of a turn that continues.
const ContinueCode = 102

// String returns the snake_case name; MaxCommandsExceeded matches the
// telemetry kind max_commands_exceeded.
func (k ViolationKind) String() string {
	switch k {
	case MissingPlan:
		return "missing_plan"
	case PlanNotFirst:
		return "plan_not_first"
	case ExtraPlan:
		return "extra_plan"
	case MissingTerminal:
		return "missing_terminal"
	case MultipleTerminal:
		return "multiple_terminal"
	case AfterTerminal:
		return "after_terminal"
	case MaxCommandsExceeded:
		return "max_commands_exceeded"
	case IdleTurn:
		return "idle_turn"
	}
	return fmt.Sprintf("ViolationKind(%d)", int(k))
}

// Violation is one broken turn-shape rule.
type Violation struct {
	Kind ViolationKind
	// Statements are the indexes (into the checked statements) the rule
	// blames: the early statements, the extra PLANs or terminals, the
	// trailing statements, or the dropped overflow.
	Statements []int
	// Emitted and Dropped are set on MaxCommandsExceeded: the counted ops
	// emitted and how many of them the cap drops.
	Emitted, Dropped int
	Message          string
}

// Turn is the shape of one emission.
type Turn struct {
	Plan     int   // index of the first PLAN, -1 when none
	Terminal int   // index of the first disposition SEND, -1 when none
	Actions  []int // counted statements kept under the cap, in emission order
	Dropped  []int // counted statements over the cap, in emission order
	// Violations in a fixed order: plan rules, terminal rules, idle turn,
	// then the cap.
	Violations []Violation
}

// Has reports whether the turn broke rule k.
func (t Turn) Has(k ViolationKind) bool {
	for _, v := range t.Violations {
		if v.Kind == k {
			return true
		}
	}
	return false
}

// CheckTurn checks the statements of one parsed emission against rules.
// MissingTerminal is not reported when the parse stopped on an unclosed body
// (r.Tail): the real error is then the unclosed statement.
func CheckTurn(r Result, rules TurnRules) Turn {
	stmts := r.Statements
	t := Turn{Plan: -1, Terminal: -1}
	var extraPlans, extraTerms, after []int
	for i, s := range stmts {
		switch {
		case s.Op == OpPlan && t.Plan < 0:
			t.Plan = i
		case s.Op == OpPlan:
			extraPlans = append(extraPlans, i)
		case rules.IsDisposition(s) && t.Terminal < 0:
			t.Terminal = i
		case rules.IsDisposition(s):
			extraTerms = append(extraTerms, i)
		case t.Terminal >= 0:
			after = append(after, i)
		}
	}
	if rules.RequirePlan {
		switch {
		case t.Plan < 0:
			t.Violations = append(t.Violations, Violation{Kind: MissingPlan,
				Message: "a turn must begin with <<PLAN:…:PLAN"})
		case t.Plan > 0:
			t.Violations = append(t.Violations, Violation{Kind: PlanNotFirst,
				Statements: indexes(0, t.Plan),
				Message:    fmt.Sprintf("%d statement(s) before <<PLAN; a turn must begin with <<PLAN:…:PLAN", t.Plan)})
		}
		if len(extraPlans) > 0 {
			t.Violations = append(t.Violations, Violation{Kind: ExtraPlan, Statements: extraPlans,
				Message: "only one <<PLAN per turn"})
		}
	}
	if rules.RequireTerminal && t.Terminal < 0 && r.Tail == nil {
		t.Violations = append(t.Violations, Violation{Kind: MissingTerminal,
			Message: fmt.Sprintf("a turn must end with a terminal <<SEND[status]:…:SEND, status one of %v", rules.Dispositions)})
	}
	if len(extraTerms) > 0 {
		t.Violations = append(t.Violations, Violation{Kind: MultipleTerminal, Statements: extraTerms,
			Message: "a disposition SEND ends the turn; only one per turn"})
	}
	if len(after) > 0 {
		t.Violations = append(t.Violations, Violation{Kind: AfterTerminal, Statements: after,
			Message: "a disposition SEND ends the turn; nothing may follow it"})
	}
	for i := range stmts {
		if i == t.Plan || i == t.Terminal {
			continue
		}
		if rules.MaxCommands >= 0 && len(t.Actions) >= rules.MaxCommands {
			t.Dropped = append(t.Dropped, i)
			continue
		}
		t.Actions = append(t.Actions, i)
	}
	if t.Terminal >= 0 {
		if c, _ := stmts[t.Terminal].Status(); c == ContinueCode && !hasWork(stmts) {
			t.Violations = append(t.Violations, Violation{Kind: IdleTurn, Statements: []int{t.Terminal},
				Message: "a continuing turn (102) whose ops are only PLAN/SEND"})
		}
	}
	if len(t.Dropped) > 0 {
		emitted := len(t.Actions) + len(t.Dropped)
		t.Violations = append(t.Violations, Violation{Kind: MaxCommandsExceeded,
			Statements: t.Dropped, Emitted: emitted, Dropped: len(t.Dropped),
			Message: fmt.Sprintf("%d ops emitted, cap %d: %d dropped", emitted, rules.MaxCommands, len(t.Dropped))})
	}
	return t
}

// hasWork reports whether any statement is a work op (not PLAN, not SEND).
func hasWork(stmts []Statement) bool {
	for _, s := range stmts {
		if s.Op != OpPlan && s.Op != OpSend {
			return true
		}
	}
	return false
}

func indexes(from, to int) []int {
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}
