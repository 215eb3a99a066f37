package chatlog

import (
	"strings"
	"testing"
	"time"

	"anchorage/impl/vary"
)

// transcript runs a short session with the variations v and returns what it
// shows: the log, the registry, the console and the adapter served.
func transcript(t *testing.T, v vary.Set) string {
	t.Helper()
	h := newHarness(t, Config{Seed: 7, Timeout: 5 * time.Second, Vary: v})
	reg, err := h.srv.Rejoin("", "Café Olé! a title longer than thirty-two characters", "http://localhost:8302/", "JS")
	if err != nil {
		t.Fatal(err)
	}
	h.appendText(reg.Path, renderRequest("agent", reg.ID, Clock(h.clk.Now()), "JS", "12+13"))
	h.appendText(reg.Path, renderRequest("agent", reg.ID, Clock(h.clk.Now()), "Lisp", "(+ 1 2)"))
	h.clk.Advance(300 * time.Millisecond)
	task, err := h.poll(reg.ID, reg.Token)
	if err != nil || task == nil {
		t.Fatalf("poll: %v %v", task, err)
	}
	h.clk.Advance(2500 * time.Millisecond)
	if err := h.srv.Result(reg.ID, reg.Token, task.JobID, Outcome{OK: true, IsJSON: true, JSON: `{"a":1}`, Errors: []string{"Error: e1", "Error: e2"}}); err != nil {
		t.Fatal(err)
	}
	h.appendText(reg.Path, renderRequest("agent", reg.ID, Clock(h.clk.Now()), "JS", "1"))
	h.clk.Advance(300 * time.Millisecond)
	task, err = h.poll(reg.ID, reg.Token)
	if err != nil || task == nil {
		t.Fatalf("poll: %v %v", task, err)
	}
	h.clk.Advance(6 * time.Second) // the job times out
	if err := h.srv.Result(reg.ID, reg.Token, task.JobID, Outcome{OK: true, IsJSON: true, JSON: "1"}); err != nil {
		t.Fatal(err)
	}
	h.appendText(reg.Path, renderRequest("agent", reg.ID, Clock(h.clk.Now()), "JS", "2"))
	h.clk.Advance(6 * time.Second) // no realm takes this one
	h.srv.Stop()
	return strings.Join([]string{reg.Path, h.read(reg.Path), h.read(RegistryFile), h.con.String(), PageScriptFor(v)}, "\n----\n")
}

// TestVariationsShow checks that every variation changes what the server
// shows, and that it still writes a log its own parser reads: each request
// answered once.
func TestVariationsShow(t *testing.T) {
	ref := transcript(t, vary.Set{})
	for _, v := range Variations() {
		set, err := ParseVary(v.Name)
		if err != nil {
			t.Fatal(err)
		}
		got := transcript(t, set)
		if got == ref {
			t.Errorf("variation %s changes nothing the server shows", v.Name)
		}
		if v.Permit == "" || v.What == "" || strings.Contains(v.What, "`") {
			t.Errorf("variation %s: What %q (no backquotes: -vary's help would take them for the flag's argument) and Permit %q must be given", v.Name, v.What, v.Permit)
		}
	}
	all, err := ParseVary("all")
	if err != nil {
		t.Fatal(err)
	}
	got := transcript(t, all)
	lg := Parse([]byte(strings.Split(got, "\n----\n")[1]))
	for i, rp := range lg.Replies {
		if !rp.Placeholder && rp.Request < 0 {
			t.Errorf("with every variation, reply %d (line %d) pairs with no request:\n%s", i, rp.Line, got)
		}
	}
	if !lg.Replies[len(lg.Replies)-1].Late {
		t.Errorf("with every variation, the late reply does not read as late:\n%s", got)
	}
}
