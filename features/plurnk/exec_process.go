package plurnk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/ops"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
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
	`^the stream (\S+) ended with (\d+) by (SIG[A-Z0-9]+) at (\d+) ms$`,
	`^the stream (\S+) ended with (\d+) by (SIG[A-Z0-9]+)$`,
	`^the stream (\S+) ended with (\d+) and exit code (\d+)$`,
	`^the stream (\S+) is still running$`,
	`^the stream events so far are:$`,
	`^the stdout of (\S+) has the line "((?:[^"\\]|\\.)*)"$`,
	`^the stdout of (\S+) has the line naming the directory the command was given$`,
	`^the stdout of (\S+) has no line starting "([^"]*)"$`,
	`^the engine offers the EXEC runtimes "([^"]*)"$`,
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

// execAccepted has the scripted model emit st as the action at seq of
// its first turn (loop.run): its actions before the first EXEC find
// nothing. EXEC steps that follow one another at the next seqs of that
// turn are emitted in the same turn, the first of them sending it; each
// answers its own row. The daemon accepts them without asking
// (PLURNK_YOLO) and runs them; a result is its row in the model run's log.
func (p *daemonData) execAccepted(ctx context.Context, loop, turn, seq int, st dsl.Statement) (ops.Result, error) {
	k := p.execCalls
	p.execCalls++
	if res, ok := p.execResults[k]; ok {
		return res, nil
	}
	if loop != 1 || turn != 1 || len(p.execResults) > 0 || p.output != "" || k >= len(p.execPlan) {
		return ops.Result{}, p.d.proc.skip("an EXEC at %d/%d/%d: the model's first turn gives the EXECs, at 1/1/S and the steps right after it", loop, turn, seq)
	}
	// The EXEC steps right after this one, at the next seqs.
	batch := []dsl.Statement{st}
	for j := k + 1; j < len(p.execPlan); j++ {
		prev, next := p.execPlan[j-1], p.execPlan[j]
		if next.step != prev.step+1 || next.loop != 1 || next.turn != 1 || next.seq != prev.seq+1 {
			break
		}
		parsed := dsl.Parse(unescape(execStep.FindStringSubmatch(p.stepText[next.step])[4]))
		if parsed.HasErrors() || len(parsed.Statements) != 1 {
			break
		}
		batch = append(batch, parsed.Statements[0])
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
	reply.WriteString("<<PLAN:run the commands:PLAN\n")
	for i := 1; i < seq; i++ {
		fmt.Fprintf(&reply, "<<FIND(known:///before-the-exec-%d/**)::FIND\n", i)
	}
	for _, b := range batch {
		fmt.Fprintf(&reply, "%s\n", dsl.Format(b))
	}
	reply.WriteString("<<SEND[202]:waiting:SEND\n")
	p.d.model.Add(llm.Reply{Content: reply.String()})
	// The turns the streams' ends wake.
	for range batch {
		p.d.model.Add(llm.Reply{Content: "<<PLAN:a command ended:PLAN\n<<SEND[202]:waiting:SEND\n"})
	}
	if err := p.connect(); err != nil {
		return ops.Result{}, err
	}
	if err := p.runCall("loop.run", map[string]any{"prompt": "run the commands"}); err != nil {
		return ops.Result{}, err
	}
	rows, err := p.runLog("")
	if err != nil {
		return ops.Result{}, err
	}
	p.execResults = map[int]ops.Result{}
	for i := range batch {
		s := seq + i
		found := false
		for _, r := range rows {
			if r.Loop != 1 || r.Turn != 1 || r.Seq != s {
				continue
			}
			if r.Op != string(dsl.OpExec) {
				return ops.Result{}, fmt.Errorf("the model run's row 1/1/%d is a %s, not the EXEC", s, r.Op)
			}
			if p.execTarget == "" {
				p.execTarget = r.Target
			}
			p.execResults[k+i] = ops.Result{Status: r.Status, Target: r.Target, Reason: r.Reason, Content: r.Content}
			found = true
		}
		if !found {
			return ops.Result{}, fmt.Errorf("the model run's log has no row 1/1/%d: %+v", s, rows)
		}
	}
	return p.execResults[k], nil
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
	ended, err := pollUntil(10*time.Second, 20*time.Millisecond, func() (bool, error) {
		st, err := p.execStream(ctx, p.execTarget)
		return err == nil && !st.Live(), err
	})
	if err != nil || ended {
		return err
	}
	return fmt.Errorf("the command of %s still runs after 10 s", p.execTarget)
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

// offers: a daemon process offers the sh runtime (the protocol's host
// commands, plurnkd -sh) and no other the harness can give it.
func (p *daemonData) offers(_ context.Context, runtimes []string) error {
	if len(runtimes) != 1 || runtimes[0] != "sh" {
		return p.d.proc.skip("the runtimes %q: a daemon process offers sh, its host commands, and no other the harness gives it", runtimes)
	}
	return nil
}

// commandDir is the daemon's root, where its commands run.
func (p *daemonData) commandDir(context.Context) (string, error) { return p.d.proc.root, nil }
