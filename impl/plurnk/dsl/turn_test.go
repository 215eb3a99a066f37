package dsl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCheckTurn(t *testing.T) {
	ignoreMsg := cmpopts.IgnoreFields(Violation{}, "Message")
	rules := Rules056()
	small := Rules056()
	small.MaxCommands = 2
	zero := Rules056()
	zero.MaxCommands = 0

	tests := []struct {
		name  string
		src   string
		rules TurnRules
		want  Turn
	}{
		{"valid turn", "<think>x</think>\n<<PLAN:p:PLAN\n<<READ(a)::READ\n<<EDIT(run://w):go:EDIT\n<<SEND[202]:wait:SEND\ntrailing prose",
			rules, Turn{Plan: 0, Terminal: 3, Actions: []int{1, 2}}},
		{"plan and done only", "<<PLAN:p:PLAN<<SEND[200]:ok:SEND",
			rules, Turn{Plan: 0, Terminal: 1}},
		{"give up", "<<PLAN:p:PLAN<<SEND[499]:cannot:SEND",
			rules, Turn{Plan: 0, Terminal: 1}},
		{"continue", "<<PLAN:p:PLAN<<READ(a)::READ<<SEND[102]:more:SEND",
			rules, Turn{Plan: 0, Terminal: 2, Actions: []int{1}}},
		{"mid-turn sends are ops", "<<PLAN:p:PLAN<<SEND(run://peer):hi:SEND<<SEND[499](sh:///1/1/2)::SEND<<SEND[410](known:///a)::SEND<<SEND[400]:x:SEND<<SEND:y:SEND<<SEND[200]:ok:SEND",
			rules, Turn{Plan: 0, Terminal: 6, Actions: []int{1, 2, 3, 4, 5}}},
		{"missing plan", "<<READ(a)::READ<<SEND[200]:ok:SEND",
			rules, Turn{Plan: -1, Terminal: 1, Actions: []int{0},
				Violations: []Violation{{Kind: MissingPlan}}}},
		{"bare prose", "I will just answer in prose.",
			rules, Turn{Plan: -1, Terminal: -1,
				Violations: []Violation{{Kind: MissingPlan}, {Kind: MissingTerminal}}}},
		{"plan not first", "<<READ(a)::READ<<FIND(b)::FIND<<PLAN:p:PLAN<<SEND[200]:ok:SEND",
			rules, Turn{Plan: 2, Terminal: 3, Actions: []int{0, 1},
				Violations: []Violation{{Kind: PlanNotFirst, Statements: []int{0, 1}}}}},
		{"second plan", "<<PLAN:p:PLAN<<PLAN:q:PLAN<<SEND[200]:ok:SEND",
			rules, Turn{Plan: 0, Terminal: 2, Actions: []int{1},
				Violations: []Violation{{Kind: ExtraPlan, Statements: []int{1}}}}},
		{"missing terminal", "<<PLAN:p:PLAN<<READ(a)::READ",
			rules, Turn{Plan: 0, Terminal: -1, Actions: []int{1},
				Violations: []Violation{{Kind: MissingTerminal}}}},
		{"missing terminal after derail is not reported", "<<PLAN:p:PLAN<<EDIT(a):never closed",
			rules, Turn{Plan: 0, Terminal: -1}},
		{"two terminals", "<<PLAN:p:PLAN<<SEND[200]:a:SEND<<SEND[499]:b:SEND",
			rules, Turn{Plan: 0, Terminal: 1, Actions: []int{2},
				Violations: []Violation{{Kind: MultipleTerminal, Statements: []int{2}}}}},
		{"ops after terminal", "<<PLAN:p:PLAN<<SEND[202]:a:SEND<<READ(x)::READ<<SEND(run://p):m:SEND",
			rules, Turn{Plan: 0, Terminal: 1, Actions: []int{2, 3},
				Violations: []Violation{{Kind: AfterTerminal, Statements: []int{2, 3}}}}},
		{"idle continuing turn", "<<PLAN:p:PLAN<<SEND(run://peer):hi:SEND<<SEND[102]:more:SEND",
			rules, Turn{Plan: 0, Terminal: 2, Actions: []int{1},
				Violations: []Violation{{Kind: IdleTurn, Statements: []int{2}}}}},
		{"hibernate with no work is not idle", "<<PLAN:p:PLAN<<SEND[202]:wait:SEND",
			rules, Turn{Plan: 0, Terminal: 1}},
		{"max commands", "<<PLAN:p:PLAN<<READ(a)::READ<<READ(b)::READ<<READ(c)::READ<<READ(d)::READ<<SEND[200]:ok:SEND",
			small, Turn{Plan: 0, Terminal: 5, Actions: []int{1, 2}, Dropped: []int{3, 4},
				Violations: []Violation{{Kind: MaxCommandsExceeded, Statements: []int{3, 4}, Emitted: 4, Dropped: 2}}}},
		{"zero cap keeps plan and terminal", "<<PLAN:p:PLAN<<READ(a)::READ<<SEND[200]:ok:SEND",
			zero, Turn{Plan: 0, Terminal: 2, Dropped: []int{1},
				Violations: []Violation{{Kind: MaxCommandsExceeded, Statements: []int{1}, Emitted: 1, Dropped: 1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckTurn(Parse(tt.src), tt.rules)
			if diff := cmp.Diff(tt.want, got, ignoreMsg, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("CheckTurn (-want +got):\n%s", diff)
			}
			for _, v := range got.Violations {
				if v.Message == "" || !got.Has(v.Kind) {
					t.Errorf("violation %v has no message or Has is false", v.Kind)
				}
			}
		})
	}
}

func TestCheckTurnNoCap(t *testing.T) {
	rules := Rules056()
	rules.MaxCommands = -1
	src := "<<PLAN:p:PLAN" + strings.Repeat("<<READ(a)::READ", 150) + "<<SEND[200]:ok:SEND"
	got := CheckTurn(Parse(src), rules)
	if len(got.Actions) != 150 || len(got.Dropped) != 0 || len(got.Violations) != 0 {
		t.Errorf("actions %d dropped %d violations %v; want 150, 0, none", len(got.Actions), len(got.Dropped), got.Violations)
	}
	got = CheckTurn(Parse(src), Rules056())
	if len(got.Actions) != DefaultMaxCommands || len(got.Dropped) != 150-DefaultMaxCommands {
		t.Errorf("default cap: actions %d dropped %d", len(got.Actions), len(got.Dropped))
	}
}

func TestViolationKindNames(t *testing.T) {
	if got := MaxCommandsExceeded.String(); got != "max_commands_exceeded" {
		t.Errorf("MaxCommandsExceeded = %q, want the telemetry kind max_commands_exceeded", got)
	}
	seen := map[string]bool{}
	for k := MissingPlan; k <= IdleTurn; k++ {
		n := k.String()
		if seen[n] || strings.HasPrefix(n, "ViolationKind(") {
			t.Errorf("kind %d name %q not unique or missing", int(k), n)
		}
		seen[n] = true
	}
}
