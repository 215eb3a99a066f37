package exec_test

import (
	"testing"
	"time"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/clock"
	"anchorage/sim/plurnkexec"
)

func TestRequestOf(t *testing.T) {
	st, err := dsl.ParseStatement("<<EXEC[node](./)<60,5>:npm test:EXEC")
	if err != nil {
		t.Fatal(err)
	}
	req, err := exec.RequestOf(st)
	if err != nil {
		t.Fatal(err)
	}
	if req.Runtime != "node" || req.Command != "npm test" || req.Timeout != time.Minute || req.Poll != 5*time.Second {
		t.Errorf("request %+v", req)
	}
	ls, _ := dsl.ParseStatement("<<EXEC:ls:EXEC")
	if req, _ := exec.RequestOf(ls); req.Runtime != "sh" || req.Timeout != 0 {
		t.Errorf("defaults %+v", req)
	}
}

func TestDispatchGating(t *testing.T) {
	clk := clock.NewSim(time.Time{})
	st := store.New(clk)
	ss, _ := st.NewSession("model")
	scripts := map[string]plurnkexec.Script{"ls": {Chunks: []plurnkexec.ScriptChunk{{At: time.Second, Channel: "stdout", Data: "a\n"}}, ExitAt: 2 * time.Second}}
	host := &plurnkexec.Executor{Name: "sh", Eff: exec.EffectHost, Avail: exec.Probe{Available: true}, Clock: clk, Scripts: scripts}
	read := &plurnkexec.Executor{Name: "search", Eff: exec.EffectRead, Avail: exec.Probe{Available: true}, Clock: clk, Scripts: scripts}
	reg, _ := exec.NewRegistry(host, read)
	streams := exec.NewStreams(exec.Config{Store: st, Registry: reg, Clock: clk})
	props := exec.NewProposals(clk, 0, nil)

	req := exec.Request{Runtime: "sh", Run: "model", Loop: 1, Turn: 1, Seq: 1, Command: "ls"}
	status, err := exec.Dispatch(streams, props, ss, req, 10, false)
	if err != nil || status != 202 {
		t.Fatalf("host without yolo: %d %v, want 202", status, err)
	}
	if ss.Entry(scheme.ExecKey("sh", 1, 1, 1)) != nil {
		t.Fatal("a host exec spawned before its proposal was accepted")
	}
	if _, err := props.Resolve(10, exec.Accept, ""); err != nil {
		t.Fatal(err)
	}
	if e := ss.Entry(scheme.ExecKey("sh", 1, 1, 1)); e == nil || e.Channels["stdout"].State != store.StateActive {
		t.Fatalf("not spawned on accept: %+v", e)
	}

	req.Seq = 2
	if status, err := exec.Dispatch(streams, props, ss, req, 11, true); err != nil || status != 102 {
		t.Fatalf("host with yolo: %d %v, want 102", status, err)
	}
	req.Runtime, req.Seq = "search", 3
	if status, err := exec.Dispatch(streams, props, ss, req, 12, false); err != nil || status != 102 {
		t.Fatalf("read runtime: %d %v, want 102", status, err)
	}
	if _, ok := props.Get(12); ok {
		t.Error("a read runtime went through a proposal")
	}
	// Ungated, yet it streams in the background: nothing is there yet.
	if c := ss.Entry(scheme.ExecKey("search", 1, 1, 3)).Channels["stdout"]; c.Content != "" || c.State != store.StateActive {
		t.Errorf("read runtime output before any time passed: %+v", c)
	}
	req.Runtime, req.Seq = "python", 4
	if status, err := exec.Dispatch(streams, props, ss, req, 13, true); status != 501 || err == nil {
		t.Errorf("unknown runtime: %d %v, want 501", status, err)
	}
	clk.Advance(3 * time.Second)
	if ended := streams.Drain(); len(ended) != 3 {
		t.Errorf("%d streams ended, want 3", len(ended))
	}
}
