package engine

import (
	"fmt"
	"testing"

	"anchorage/golden"
	"anchorage/impl/plurnk/telemetry"
	"anchorage/sim/llm"

	"github.com/spf13/afero"
)

// TestPacketGoldens renders every packet of one scripted loop that touches
// each section (operator notes, both policies, a doc foist, an error
// pointer, a notice with a snippet, requirements) and compares each with its
// reviewed file under golden/plurnk/packets/.
func TestPacketGoldens(t *testing.T) {
	env := map[string]string{
		"HOME": "/home/op", "PLURNK_PACKET_INJECT": "/etc/plurnk/notes.md",
		"PLURNK_MD_STYLE": "~/style.md", "PLURNK_REQUIREMENTS": "Answer in English.",
	}
	f := newFixture(t, env)
	files := map[string]string{
		"/etc/plurnk/notes.md":       "Deploys freeze on Fridays.\n",
		"/home/op/.plurnk/AGENTS.md": "Never push to main.\n",
		"/work/AGENTS.md":            "Run the tests before you finish.\n",
		"/home/op/style.md":          "Write short sentences.\n",
	}
	for p, c := range files {
		if err := afero.WriteFile(f.fs, p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.llm.Context = 8000
	f.llm.Add(llm.Reply{Content: "<<PLAN:look around:PLAN\n<<EDIT(known:///plan.md):1. read\n2. write:EDIT\n<<READ(known:///plan.md)::READ\n<<READ(known:///missing.md)::READ\n<<SEND[102]:looking:SEND\n",
		Telemetry: []telemetry.Notice{{"source": "provider:mock", "kind": "grammar_unenforced", "message": "unexpected byte",
			"position": map[string]any{"type": "content-offset", "line": 3, "column": 1}}}})
	f.llm.Add(llm.Reply{Content: "<<PLAN:wait:PLAN\n<<SEND[102]:waiting:SEND\n"})
	f.llm.Add(llm.Reply{Content: "<<PLAN:done:PLAN\n<<SEND[200]:The plan is written.:SEND\n"})
	res := f.run1(t, "Write a plan to known:///plan.md")
	if res.Status != StatusDone {
		t.Fatalf("status %d (%s), want 200", res.Status, res.Reason)
	}
	for _, p := range res.Packets() {
		if err := golden.Check(fmt.Sprintf("plurnk/packets/loop-turn-%d.md", p.Turn), []byte(p.Text())); err != nil {
			t.Error(err)
		}
	}
}
