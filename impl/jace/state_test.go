package jace

import (
	"encoding/json"
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

const counterModule = `globalThis.jace = {manifest:{name:"counter",version:"1"},
  init(env){ return {n: 0}; },
  view(s){ return {n: s.n}; },
  actions:{
    add(s, p){ return {state:{n: s.n + p.by}, result:{n: s.n + p.by}, audit_preview:"ADD " + p.by}; },
    fail(s, p){ return {state:{n: -1}, error:{code:"CONFLICT", message:"refused"}}; },
  }};`

// TestSessionsDryRunAndKeysProperties drives the runtime with random
// sequences of commits, dry runs and failing actions over three sessions
// and a small pool of Idempotency-Keys, against a model: dry runs never
// change state, a key is applied at most once (and replays the first
// outcome), a key reused with another payload is refused, and sessions
// never see each other's state.
func TestSessionsDryRunAndKeysProperties(t *testing.T) {
	rt, err := New(Config{Clock: simConfig().Clock, TimeoutFuel: 300, Module: counterModule})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	run := 0
	rapid.Check(t, func(t *rapid.T) {
		run++
		// Fresh sessions per run: session ids carry the run number.
		sessions := []string{fmt.Sprintf("r%d-a", run), fmt.Sprintf("r%d-b", run), fmt.Sprintf("r%d-c", run)}
		model := map[string]int{}
		type first struct {
			by      int
			action  string
			outcome *Outcome
		}
		keys := map[string]map[string]first{}
		for _, s := range sessions {
			keys[s] = map[string]first{}
		}
		steps := rapid.IntRange(1, 25).Draw(t, "steps")
		for i := 0; i < steps; i++ {
			sid := rapid.SampledFrom(sessions).Draw(t, "session")
			by := rapid.IntRange(-3, 3).Draw(t, "by")
			action := rapid.SampledFrom([]string{"add", "add", "add", "fail"}).Draw(t, "action")
			dry := rapid.Bool().Draw(t, "dry")
			key := rapid.SampledFrom([]string{"", "", "k1", "k2"}).Draw(t, "key")
			before := map[string]json.RawMessage{}
			for _, s := range sessions {
				before[s] = rt.State(s)
			}
			o := rt.Do(ActionRequest{Action: action, Params: json.RawMessage(fmt.Sprintf(`{"by":%d}`, by)), SessionID: sid, DryRun: dry, IdempotencyKey: key})

			want := model[sid]
			switch {
			case !dry && key != "" && keys[sid][key].outcome != nil && (keys[sid][key].by != by || keys[sid][key].action != action):
				if o.Status != 422 || o.Error == nil || o.Error.Code != "IDEMPOTENCY_KEY_REUSED" {
					t.Fatalf("reused key with another payload: status %d %+v", o.Status, o.Error)
				}
			case !dry && key != "" && keys[sid][key].outcome != nil:
				prev := keys[sid][key].outcome
				if !o.Replayed || string(o.State) != string(prev.State) || o.Status != prev.Status {
					t.Fatalf("replay of %s differs: %+v vs %+v", key, o, prev)
				}
			case action == "fail":
				if o.Status != 409 || o.Error == nil || o.Error.Code != "CONFLICT" {
					t.Fatalf("fail action: status %d %+v", o.Status, o.Error)
				}
				if string(o.State) != fmt.Sprintf(`{"n":%d}`, model[sid]) {
					t.Fatalf("failed action reports state %s, want n=%d", o.State, model[sid])
				}
			default:
				want = model[sid] + by
				if o.Status != 200 || string(o.State) != fmt.Sprintf(`{"n":%d}`, want) {
					t.Fatalf("add %d on n=%d: status %d state %s", by, model[sid], o.Status, o.State)
				}
				if !dry {
					model[sid] = want
				}
			}
			if !dry && key != "" && keys[sid][key].outcome == nil {
				keys[sid][key] = first{by: by, action: action, outcome: o}
			}
			// Persisted state matches the model everywhere; only the
			// addressed session can have changed, and only by a commit.
			for _, s := range sessions {
				got := rt.State(s)
				if model[s] == 0 && got == nil {
					continue
				}
				if string(got) != fmt.Sprintf(`{"n":%d}`, model[s]) {
					t.Fatalf("session %s: state %s, model n=%d", s, got, model[s])
				}
				if s != sid && string(got) != string(before[s]) {
					t.Fatalf("session %s changed by an action in %s", s, sid)
				}
				if dry && string(got) != string(before[s]) {
					t.Fatalf("dry run changed session %s", s)
				}
			}
		}
	})
}
