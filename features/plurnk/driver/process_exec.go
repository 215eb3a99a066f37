package driver

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
	"anchorage/impl/plurnk/store"
	"anchorage/sim/llm"
)

// The exec scheme through a daemon process: the commands are executables
// on the daemon's PATH, the model's EXEC is the scripted model's first
// turn (loop.run), and the streams are read back from entry.read and the
// stream/* notifications.

// execSetup gives the daemon, before it starts, what the scenario's exec
// setup holds: the kill grace, the service's shell environment and the
// project's .env file.
func (p *Process) execSetup() error {
	x := &p.script.Exec
	if x.Grace == 0 && x.Shell == nil && x.DotEnvText == "" {
		return nil
	}
	if p.Started() {
		return p.skip("the exec settings are given after the daemon started, and a daemon process reads them once, when it starts")
	}
	if x.Grace > 0 {
		p.setup.Env["PLURNK_EXEC_KILL_GRACE_MS"] = strconv.FormatInt(x.Grace.Milliseconds(), 10)
	}
	p.shell = x.Shell
	if x.DotEnvText != "" {
		if err := os.WriteFile(filepath.Join(p.root, ".env"), []byte(x.DotEnvText), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ExecAccepted has the scripted model emit st as the action at seq of its
// first turn (loop.run): its actions before the first EXEC find nothing.
// EXEC steps that follow one another at the next seqs of that turn are
// emitted in the same turn, the first of them sending it; each answers
// its own row. The daemon accepts them without asking (PLURNK_YOLO) and
// runs them; a result is its row in the model run's log.
func (p *Process) ExecAccepted(_ context.Context, loop, turn, seq int, st dsl.Statement) (ops.Result, error) {
	k := p.data.execCalls
	p.data.execCalls++
	if res, ok := p.data.execResults[k]; ok {
		return res, nil
	}
	if loop != 1 || turn != 1 || len(p.data.execResults) > 0 || p.data.output != "" || k >= len(p.data.execPlan) {
		return ops.Result{}, p.skip("an EXEC at %d/%d/%d: the model's first turn gives the EXECs, at 1/1/S and the steps right after it", loop, turn, seq)
	}
	batch := p.execBatch(k, st)
	for name, s := range p.script.Exec.Commands {
		if err := p.Command(name, s); err != nil {
			return ops.Result{}, err
		}
	}
	if err := p.execSetup(); err != nil {
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
	p.script.Model.Add(llm.Reply{Content: reply.String()})
	for range batch {
		p.script.Model.Add(llm.Reply{Content: "<<PLAN:a command ended:PLAN\n<<SEND[202]:waiting:SEND\n"})
	}
	if err := p.connect(); err != nil {
		return ops.Result{}, err
	}
	if err := p.runCall("loop.run", map[string]any{"prompt": "run the commands"}); err != nil {
		return ops.Result{}, err
	}
	if err := p.execRows(k, seq, len(batch)); err != nil {
		return ops.Result{}, err
	}
	return p.data.execResults[k], nil
}

// execBatch is st and the EXEC steps right after the k-th, at the next
// seqs of the same turn.
func (p *Process) execBatch(k int, st dsl.Statement) []dsl.Statement {
	batch := []dsl.Statement{st}
	plan := p.data.execPlan
	for j := k + 1; j < len(plan); j++ {
		prev, next := plan[j-1], plan[j]
		if next.step != prev.step+1 || next.loop != 1 || next.turn != 1 || next.seq != prev.seq+1 {
			break
		}
		parsed := dsl.Parse(Unescape(execStep.FindStringSubmatch(p.data.stepText[next.step])[4]))
		if parsed.HasErrors() || len(parsed.Statements) != 1 {
			break
		}
		batch = append(batch, parsed.Statements[0])
	}
	return batch
}

// execRows keeps, as the results of the EXEC steps from the k-th on, the
// model run's rows 1/1/seq and after: n of them.
func (p *Process) execRows(k, seq, n int) error {
	rows, err := p.RunLog("")
	if err != nil {
		return err
	}
	p.data.execResults = map[int]ops.Result{}
	for i := 0; i < n; i++ {
		s := seq + i
		found := false
		for _, r := range rows {
			if r.Loop != 1 || r.Turn != 1 || r.Seq != s {
				continue
			}
			if r.Op != string(dsl.OpExec) {
				return fmt.Errorf("the model run's row 1/1/%d is a %s, not the EXEC", s, r.Op)
			}
			if p.data.execTarget == "" {
				p.data.execTarget = r.Target
			}
			p.data.execResults[k+i] = ops.Result{Status: r.Status, Target: r.Target, Reason: r.Reason, Content: r.Content}
			found = true
		}
		if !found {
			return fmt.Errorf("the model run's log has no row 1/1/%d: %+v", s, rows)
		}
	}
	return nil
}

// PassCommands lets ms go by on the wall clock and the commands' clock.
func (p *Process) PassCommands(_ context.Context, ms int) error {
	if p.data.execTarget == "" {
		return fmt.Errorf("no command has been started")
	}
	if p.probe {
		return p.skip("the scenario lets less than %d ms pass for the running commands: a boundary the wall clock cannot resolve", minWait)
	}
	return p.PassDaemonCommands(ms)
}

// Complete waits (10 s at most) until the stream of the EXEC has
// concluded.
func (p *Process) Complete(ctx context.Context) error {
	if p.data.execTarget == "" {
		return fmt.Errorf("no command has been started")
	}
	ended, err := pollUntil(10*time.Second, 20*time.Millisecond, func() (bool, error) {
		st, err := p.ExecStream(ctx, p.data.execTarget)
		return err == nil && !st.Live(), err
	})
	if err != nil || ended {
		return err
	}
	return fmt.Errorf("the command of %s still runs after 10 s", p.data.execTarget)
}

// Drain lets the daemon settle.
func (p *Process) Drain(context.Context) error {
	if p.data.execTarget == "" {
		return fmt.Errorf("no command has been started")
	}
	p.Settle()
	return nil
}

// ExecStream is the stream at target, as RunStream reads it.
func (p *Process) ExecStream(_ context.Context, target string) (exec.Stream, error) {
	return p.RunStream(target)
}

// StreamEvents are the stream/event notifications the data plane's
// connection heard since the last call.
func (p *Process) StreamEvents(ctx context.Context) ([]exec.StreamEvent, error) {
	notes, err := p.heard(ctx)
	if err != nil {
		return nil, err
	}
	evs := NotesOf(notes, "stream/event")
	var out []exec.StreamEvent
	for _, n := range evs[min(p.data.eventsSeen, len(evs)):] {
		var ev exec.StreamEvent
		if err := json.Unmarshal(n.Params, &ev); err != nil {
			return nil, fmt.Errorf("stream/event %s: %w", n.Params, err)
		}
		out = append(out, ev)
	}
	p.data.eventsSeen = len(evs)
	return out, nil
}

// Offers: a daemon process offers the sh runtime (the protocol's host
// commands, plurnkd -sh) and no other the harness can give it.
func (p *Process) Offers(_ context.Context, runtimes []string) error {
	if len(runtimes) != 1 || runtimes[0] != "sh" {
		return p.skip("the runtimes %q: a daemon process offers sh, its host commands, and no other the harness gives it", runtimes)
	}
	return nil
}

// CommandDir is the daemon's root, where its commands run.
func (p *Process) CommandDir(context.Context) (string, error) { return p.root, nil }

// streamedCommand is the host command that stands for an exec output the
// scenario gives: a relay of what the harness writes into relayDir, in
// order (NNNN.stdout and NNNN.stderr printed on that channel, NNNN.close
// ending it with 0), until the scenario is over.
const streamedCommand = "given-stream"

func (p *Process) relayDir() string { return filepath.Join(p.spawned, "relay") }

// relay sends what the command prints next (ch "stdout" or "stderr", or
// "close"), in order.
func (p *Process) relay(ch, data string) error {
	p.data.relayed++
	tmp := filepath.Join(p.spawned, "relay.tmp")
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(p.relayDir(), fmt.Sprintf("%04d.%s", p.data.relayed, ch)))
}

// relayScript is the relay command.
const relayScript = `#!/bin/sh
while :; do
  for f in $(ls '%[1]s'); do
    case $f in
      *.stdout) cat '%[1]s'/$f; rm -f '%[1]s'/$f ;;
      *.stderr) cat '%[1]s'/$f >&2; rm -f '%[1]s'/$f ;;
      *.close) rm -f '%[1]s'/$f; exit 0 ;;
    esac
  done
  [ -f '%[2]s' ] || exit 1
  sleep 0.01
done
`

// Streamed makes the exec output at sh:///1/1/S a real one: the relay
// command, started by the model's first turn (loop.run), whose S-1
// actions before its EXEC find nothing, so the EXEC lands at S; it prints
// chunk on ch at once. Only a first loop of the model run gets there.
func (p *Process) Streamed(target, chunk, ch string) error {
	var seq int
	if _, err := fmt.Sscanf(target, "sh:///1/1/%d", &seq); err != nil || seq < 1 {
		return fmt.Errorf("exec output %s: want sh:///1/1/S", target)
	}
	if p.data.output != "" {
		return p.skip("a second exec output given: the model's first turn gives one")
	}
	p.data.output = target
	dir := p.relayDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(p.bin, streamedCommand), []byte(fmt.Sprintf(relayScript, dir, p.clockFile())), 0o755); err != nil {
		return err
	}
	if err := p.relay(ch, chunk); err != nil {
		return err
	}
	var reply strings.Builder
	reply.WriteString("<<PLAN:start the command:PLAN\n")
	for i := 1; i < seq; i++ {
		fmt.Fprintf(&reply, "<<FIND(known:///given-stream-%d/**)::FIND\n", i)
	}
	fmt.Fprintf(&reply, "<<EXEC:%s:EXEC\n<<SEND[202]:waiting:SEND\n", streamedCommand)
	p.script.Model.Add(llm.Reply{Content: reply.String()})
	if err := p.connect(); err != nil {
		return err
	}
	if err := p.runCall("loop.run", map[string]any{"prompt": "start the command"}); err != nil {
		return err
	}
	return p.await(target, ch, func(c store.Channel) bool { return c.Content == chunk })
}

// await waits until the channel ch of target is as ok says.
func (p *Process) await(target, ch string, ok func(store.Channel) bool) error {
	var e *store.Entry
	done, err := pollUntil(CallTimeout, 10*time.Millisecond, func() (bool, error) {
		var err error
		e, err = p.Entry(target)
		return err == nil && e != nil && ok(e.Channels[ch]), err
	})
	if err != nil || done {
		return err
	}
	return fmt.Errorf("the exec output %s: its %s channel is not as the scenario gives it: %+v", target, ch, e)
}

// StreamMore has the exec output print chunk on ch: the first chunk gives
// the output at target.
func (p *Process) StreamMore(target, chunk, ch string) error {
	if p.data.output == "" {
		return p.Streamed(target, chunk, ch)
	}
	if target != p.data.output {
		return p.skip("a second exec output given: the model's first turn gives one")
	}
	e, err := p.Entry(target)
	if err != nil || e == nil {
		return fmt.Errorf("the exec output %s: %v", target, err)
	}
	want := e.Channels[ch].Content + chunk
	if err := p.relay(ch, chunk); err != nil {
		return err
	}
	return p.await(target, ch, func(c store.Channel) bool { return c.Content == want })
}

// StreamEnd ends the exec output: its command exits 0 and the daemon
// closes its channels. An exec output that fails needs the exec scheme's
// own transition, which no command's exit makes.
func (p *Process) StreamEnd(target string, failed bool) error {
	if failed {
		return p.skip("an exec output that fails: a command's own exit closes its channels, only a stop errors them")
	}
	if p.data.output == "" || target != p.data.output {
		return fmt.Errorf("no exec output %s was given", target)
	}
	if err := p.relay("close", ""); err != nil {
		return err
	}
	p.Settle()
	return p.await(target, "stdout", func(c store.Channel) bool { return c.State == store.StateClosed })
}
