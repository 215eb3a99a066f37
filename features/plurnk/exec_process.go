package plurnk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/ops"
	"anchorage/sim/llm"
)

// execSteps are the steps of the exec scheme's features that a daemon
// process's public surface expresses (daemonData): the commands are
// executables on the daemon's PATH (simulated ones scripted on the
// commands' clock, real ones the shell's own), the model's EXEC is the
// scripted model's first turn (loop.run), and the streams are read back
// from entry.read and the stream/* notifications.
var execSteps = regexpList(
	`^the simulated command "([^"]*)" prints:$`,
	`^the simulated command "([^"]*)" exits with code (\d+) after (\d+) ms$`,
	`^the simulated command "([^"]*)" never exits on its own$`,
	`^PLURNK_EXEC_KILL_GRACE_MS is (\d+)$`,
	`^the real sh executor runs the commands$`,
	`^the shell environment of the service is:$`,
	`^the project's \.env file reads:$`,
	`^the model's EXEC (\d+)/(\d+)/(\d+) is accepted: (<<.+)$`,
	`^(\d+) ms pass for the running commands$`,
	`^the commands run to completion$`,
	`^the model cancels (\S+) with SEND\[499\]$`,
	`^the stream (\S+) ended with (\d+)$`,
	`^the stream (\S+) ended with (\d+) by (SIGTERM|SIGKILL) at (\d+) ms$`,
	`^the stream (\S+) ended with (\d+) by (SIGTERM|SIGKILL)$`,
	`^the stream (\S+) ended with (\d+) and exit code (\d+)$`,
	`^the stream (\S+) is still running$`,
	`^the stream events so far are:$`,
	`^the stdout of (\S+) has the line "((?:[^"\\]|\\.)*)"$`,
	`^the stdout of (\S+) has the line naming the directory the command was given$`,
	`^the stdout of (\S+) has no line starting "([^"]*)"$`,
)

// execSetup gives the daemon, before it starts, what the scenario's exec
// world sets up: the kill grace, the service's shell environment and the
// project's .env file.
func (p *daemonData) execSetup(x *execWorld) error {
	if x.grace == 0 && x.inherit == nil && x.dotenvText == "" {
		return nil
	}
	if p.d.started() {
		return p.d.proc.skip("the exec settings are given after the daemon started, and a daemon process reads them once, when it starts")
	}
	if x.grace > 0 {
		p.d.env["PLURNK_EXEC_KILL_GRACE_MS"] = strconv.FormatInt(x.grace.Milliseconds(), 10)
	}
	p.d.proc.shell = x.inherit
	if x.dotenvText != "" {
		if err := os.WriteFile(filepath.Join(p.d.proc.root, ".env"), []byte(x.dotenvText), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// execAccepted has the scripted model emit st as the action at seq of
// its first turn (loop.run): its seq-1 actions before it find nothing.
// The daemon accepts it without asking (PLURNK_YOLO) and runs it; the
// result is its row in the model run's log.
func (p *daemonData) execAccepted(ctx context.Context, loop, turn, seq int, st dsl.Statement) (ops.Result, error) {
	if loop != 1 || turn != 1 || p.execTarget != "" || p.output != "" {
		return ops.Result{}, p.d.proc.skip("an EXEC at %d/%d/%d: the model's first turn gives one EXEC, at 1/1/S", loop, turn, seq)
	}
	x := getExec(ctx)
	for name, s := range x.scripts {
		if err := p.d.setScript(name, s); err != nil {
			return ops.Result{}, err
		}
	}
	if err := p.execSetup(x); err != nil {
		return ops.Result{}, err
	}
	var reply strings.Builder
	reply.WriteString("<<PLAN:run the command:PLAN\n")
	for i := 1; i < seq; i++ {
		fmt.Fprintf(&reply, "<<FIND(known:///before-the-exec-%d/**)::FIND\n", i)
	}
	fmt.Fprintf(&reply, "%s\n<<SEND[202]:waiting:SEND\n", dsl.Format(st))
	p.d.model.Add(llm.Reply{Content: reply.String()})
	// The turn the stream's end wakes.
	p.d.model.Add(llm.Reply{Content: "<<PLAN:the command ended:PLAN\n<<SEND[200]:done:SEND\n"})
	if err := p.connect(); err != nil {
		return ops.Result{}, err
	}
	if err := p.runCall("loop.run", map[string]any{"prompt": "run the command"}); err != nil {
		return ops.Result{}, err
	}
	rows, err := p.runLog("")
	if err != nil {
		return ops.Result{}, err
	}
	for _, r := range rows {
		if r.Loop == loop && r.Turn == turn && r.Seq == seq {
			if r.Op != string(dsl.OpExec) {
				return ops.Result{}, fmt.Errorf("the model run's row %d/%d/%d is a %s, not the EXEC", loop, turn, seq, r.Op)
			}
			p.execTarget = r.Target
			return ops.Result{Status: r.Status, Target: r.Target, Reason: r.Reason, Content: r.Content}, nil
		}
	}
	return ops.Result{}, fmt.Errorf("the model run's log has no row %d/%d/%d: %+v", loop, turn, seq, rows)
}

// passCommands lets ms go by on the wall clock and the commands' clock.
func (p *daemonData) passCommands(_ context.Context, ms int) error {
	if p.execTarget == "" {
		return fmt.Errorf("no command has been started")
	}
	if p.d.proc.probe {
		return p.d.proc.skip("the scenario lets less than %d ms pass for the running commands: a boundary the wall clock cannot resolve", minWait)
	}
	return p.d.passCommands(ms)
}

// complete waits (10 s at most) until the stream of the EXEC has
// concluded.
func (p *daemonData) complete(ctx context.Context) error {
	if p.execTarget == "" {
		return fmt.Errorf("no command has been started")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := p.execStream(ctx, p.execTarget)
		if err != nil {
			return err
		}
		if !st.Live() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the command of %s still runs after 10 s", p.execTarget)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// drain lets the daemon settle.
func (p *daemonData) drain(context.Context) error {
	if p.execTarget == "" {
		return fmt.Errorf("no command has been started")
	}
	p.d.settle()
	return nil
}

// execStream is the stream at target, as stream reads it.
func (p *daemonData) execStream(_ context.Context, target string) (exec.Stream, error) {
	return p.stream(target)
}

// streamEvents are the stream/event notifications the data plane's
// connection heard since the last call.
func (p *daemonData) streamEvents(context.Context) ([]exec.StreamEvent, error) {
	if err := p.connect(); err != nil {
		return nil, err
	}
	notes, err := p.d.settled(context.Background(), dataConn)
	if err != nil {
		return nil, err
	}
	evs := notesOf(notes, "stream/event")
	var out []exec.StreamEvent
	for _, n := range evs[min(p.eventsSeen, len(evs)):] {
		var ev exec.StreamEvent
		if err := json.Unmarshal(n.Params, &ev); err != nil {
			return nil, fmt.Errorf("stream/event %s: %w", n.Params, err)
		}
		out = append(out, ev)
	}
	p.eventsSeen = len(evs)
	return out, nil
}

// commandDir is the daemon's root, where its commands run.
func (p *daemonData) commandDir(context.Context) (string, error) { return p.d.proc.root, nil }
