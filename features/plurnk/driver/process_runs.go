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
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
	"github.com/tidwall/gjson"
)

// A session of runs through a daemon process: the scenario's one run is
// the session's model run, every other run the model's to spawn.

func (p *Process) Script(run, reply string) error {
	if p.Started() {
		return fmt.Errorf("script run %q before the session starts", run)
	}
	if run != p.data.run {
		p.script.Runs.Add(run, llm.Reply{Content: reply})
		return nil
	}
	p.script.Model.Add(llm.Reply{Content: reply})
	return nil
}

// AcceptHostCommands: whether the daemon asks is read off the scenario
// when its driver is chosen.
func (p *Process) AcceptHostCommands() {}

// runCall makes a call on the model run and waits until the daemon is
// quiet.
func (p *Process) runCall(method string, params map[string]any) error {
	if _, err := p.call(method, params); err != nil {
		return err
	}
	p.Settle()
	return nil
}

func (p *Process) Start(run, prompt string) error {
	return p.runCallOn(run, "loop.run", map[string]any{"prompt": prompt})
}

func (p *Process) Inject(run, msg string) error {
	return p.runCallOn(run, "loop.inject", map[string]any{"prompt": msg})
}

func (p *Process) Cancel(run string) error {
	return p.runCallOn(run, "loop.cancel", map[string]any{})
}

// runCallOn is runCall aimed at the run named run (its runId), the model
// run when it is the scenario's started run.
func (p *Process) runCallOn(run, method string, params map[string]any) error {
	if run != p.data.run {
		if err := p.connect(); err != nil {
			return err
		}
		r, err := p.runNamed(run)
		if err != nil {
			return err
		}
		params["runId"] = r.Get("id").Int()
	}
	return p.runCall(method, params)
}

// runNamed is the session's run named run as session.runs lists it.
func (p *Process) runNamed(run string) (gjson.Result, error) {
	raw, err := p.call("session.runs", nil)
	if err != nil {
		return gjson.Result{}, err
	}
	for _, r := range gjson.GetBytes(raw, "runs").Array() {
		if r.Get("name").String() == run {
			return r, nil
		}
	}
	return gjson.Result{}, fmt.Errorf("session.runs lists no run %q: %s", run, raw)
}

func (p *Process) PassSession(ms int) error { return p.PassClock(ms) }

// Loops reads run's loops from session.runs.
func (p *Process) Loops(run string) (int, int, error) {
	if err := p.connect(); err != nil {
		return 0, 0, err
	}
	r, err := p.runNamed(run)
	if err != nil {
		return 0, 0, err
	}
	return int(r.Get("loops").Int()), int(r.Get("status").Int()), nil
}

// RunLog reads run's log with log.read ("": the model run's).
func (p *Process) RunLog(run string) ([]store.LogRow, error) {
	if err := p.connect(); err != nil {
		return nil, err
	}
	id := p.modelRunID()
	if run != "" && run != p.data.run {
		r, err := p.runNamed(run)
		if err != nil {
			return nil, err
		}
		id = r.Get("id").Int()
	}
	rows, err := p.readLog(id)
	if err != nil {
		return nil, err
	}
	var out []store.LogRow
	for _, r := range rows {
		out = append(out, *r)
	}
	return out, nil
}

// Requests are the requests the scripted model received from run: the
// started run's (or every run's but those scripted on their own) from
// the scenario's model, another's from its own script.
func (p *Process) Requests(run string) []provider.Request {
	if run != p.data.run {
		if m, ok := p.script.Runs.Get(run); ok {
			return m.Requests
		}
		return nil
	}
	return p.script.Model.Requests
}

// RunStream is the stream's close status from its stream/concluded
// notification, 0 while none came and its entry exists.
func (p *Process) RunStream(target string) (exec.Stream, error) {
	notes, err := p.heard(context.Background())
	if err != nil {
		return exec.Stream{}, err
	}
	for _, n := range NotesOf(notes, "stream/concluded") {
		g := func(path string) gjson.Result { return gjson.GetBytes(n.Params, path) }
		if g("target").String() != target {
			continue
		}
		st := exec.Stream{Status: int(g("closeStatus").Int()), ExitCode: int(g("exitCode").Int())}
		p.ended(&st, target)
		if sig := g("signal").String(); sig != "" {
			// The daemon's own record of the signal it reaped.
			st.Signal = sig
		}
		return st, nil
	}
	e, err := p.Entry(target)
	if err != nil {
		return exec.Stream{}, err
	}
	if e == nil {
		return exec.Stream{}, fmt.Errorf("no stream %s", target)
	}
	// stream/concluded is a MAY (§notifications-stream-concluded): a
	// daemon that sends none shows a stream's end only by its channels'
	// final states, which do not give its close status.
	for _, ch := range e.Channels {
		if ch.State == store.StateClosed || ch.State == store.StateErrored {
			return exec.Stream{}, fmt.Errorf("%w: the stream %s has ended, but the daemon sent no stream/concluded (a MAY) to tell its close status", godog.ErrSkip, target)
		}
	}
	return exec.Stream{}, nil
}

// ended adds to a stream that has concluded how its command ended, as
// the command noted it: the signal it died of and when, on the commands'
// clock from its start. The command is the one the EXEC row of the
// stream ran, when it was spawned once; a real command notes nothing.
// When the harness cannot tell which process ran the stream, the stream
// ends an hour before it started, which no scenario expects.
func (p *Process) ended(st *exec.Stream, target string) {
	name := p.commandOf(target)
	var sps []spawn
	for _, sp := range p.noted() {
		if sp.Command == name {
			sps = append(sps, sp)
		}
	}
	if len(sps) != 1 {
		st.Started, st.Ended = time.Unix(0, 0), time.Unix(0, 0).Add(-time.Hour)
		return
	}
	sp := sps[0]
	var sig string
	var at int64
	_, _ = pollUntil(2*time.Second, 10*time.Millisecond, func() (bool, error) {
		var done bool
		sig, at, done = p.ending(sp)
		return done, nil
	})
	st.Signal = sig
	st.Started = time.Unix(0, 0).Add(time.Duration(sp.start) * time.Millisecond)
	st.Ended = time.Unix(0, 0).Add(time.Duration(at) * time.Millisecond)
}

// commandOf is the first word of the command the EXEC row of any run of
// the session whose stream is target ran; "" when there is none.
func (p *Process) commandOf(target string) string {
	raw, err := p.call("session.runs", nil)
	if err != nil {
		return ""
	}
	for _, r := range gjson.GetBytes(raw, "runs").Array() {
		rows, err := p.readLog(r.Get("id").Int())
		if err != nil {
			continue
		}
		for _, row := range rows {
			if row.Op != string(dsl.OpExec) || row.Target != target {
				continue
			}
			parsed := dsl.Parse(row.Tx)
			if len(parsed.Statements) != 1 || parsed.Statements[0].Body == nil {
				return ""
			}
			if f := strings.Fields(*parsed.Statements[0].Body); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

// pollUntil calls done every interval, for at most within of wall time,
// until it reports true or fails; it reports whether done came true.
func pollUntil(within, every time.Duration, done func() (bool, error)) (bool, error) {
	deadline := time.Now().Add(within)
	for {
		ok, err := done()
		if ok || err != nil {
			return ok, err
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		time.Sleep(every)
	}
}

func (p *Process) SessionEntry(target string) (*store.Entry, error) { return p.Entry(target) }
func (p *Process) RunSpawns() []exec.Spec                           { return p.Spawns() }

// Events reads the notifications the data plane's connection heard: the
// runs' loop/terminated and loop/quiesced, and stream/concluded.
func (p *Process) Events() []runs.Event {
	notes, err := p.heard(context.Background())
	if err != nil {
		return nil
	}
	names := map[int64]string{} // the session's runs, by id
	seqs := map[int64]int{}     // loop ids of the runs, by log.read
	if raw, err := p.call("session.runs", nil); err == nil {
		for _, x := range gjson.GetBytes(raw, "runs").Array() {
			names[x.Get("id").Int()] = x.Get("name").String()
			if rows, err := p.call("log.read", map[string]any{"runId": x.Get("id").Int()}); err == nil {
				for _, e := range gjson.GetBytes(rows, "entries").Array() {
					seqs[e.Get("loop_id").Int()] = int(e.Get("loop_seq").Int())
				}
			}
		}
	}
	var out []runs.Event
	for _, n := range notes {
		g := func(path string) gjson.Result { return gjson.GetBytes(n.Params, path) }
		run, ok := names[g("runId").Int()]
		if !ok {
			run = fmt.Sprintf("run %d", g("runId").Int())
		}
		switch n.Method {
		case "loop/terminated":
			out = append(out, runs.Event{Kind: n.Method, Run: run, LoopSeq: int(g("loopSeq").Int()), Status: int(g("finalStatus").Int())})
		case "loop/quiesced":
			out = append(out, runs.Event{Kind: n.Method, Run: run, LoopSeq: seqs[g("loopId").Int()], Status: int(g("status").Int())})
		case "stream/concluded":
			out = append(out, runs.Event{Kind: n.Method, Run: run, Target: g("target").String(), Status: int(g("closeStatus").Int()), WakeAction: g("wakeAction").String()})
		}
	}
	return out
}

// RunNames are session.runs' runs but the reserved plurnk run and the
// data plane's own client run.
func (p *Process) RunNames() ([]string, error) {
	raw, err := p.call("session.runs", nil)
	if err != nil {
		return nil, err
	}
	sess := p.conns[dataConn].Session
	var out []string
	for _, x := range gjson.GetBytes(raw, "runs").Array() {
		if x.Get("name").String() != store.PlurnkRun && x.Get("id").Int() != sess.Get("runId").Int() {
			out = append(out, x.Get("name").String())
		}
	}
	return out, nil
}

// CountEntries is the client's FIND of every entry of scheme (op.find
// scheme:///**): its catalog, a JSON array of one row an entry.
func (p *Process) CountEntries(scheme string) (int, error) {
	raw, err := p.call("op.find", map[string]any{"target": scheme + ":///**"})
	if err != nil {
		return 0, err
	}
	switch st := gjson.GetBytes(raw, "status").Int(); st {
	case 204:
		return 0, nil
	case 200:
	default:
		return 0, fmt.Errorf("op.find %s:///** answered %s", scheme, raw)
	}
	rows := gjson.Parse(gjson.GetBytes(raw, "content").String())
	if !rows.IsArray() {
		return 0, fmt.Errorf("op.find %s:///** answered a catalog that is no JSON array: %s", scheme, raw)
	}
	return len(rows.Array()), nil
}

// ParentOf reads run's parent and origin from session.runs.
func (p *Process) ParentOf(run string) (string, string, error) {
	x, err := p.runNamed(run)
	if err != nil {
		return "", "", err
	}
	return x.Get("parent").String(), x.Get("origin").String(), nil
}

// MaxActive is the operator's PLURNK_SESSION_RUNS_MAX_ACTIVE, which the
// daemon reads when it starts.
func (p *Process) MaxActive(n int) error {
	if err := p.Configure("PLURNK_SESSION_RUNS_MAX_ACTIVE"); err != nil {
		return err
	}
	p.setup.Env["PLURNK_SESSION_RUNS_MAX_ACTIVE"] = strconv.Itoa(n)
	return nil
}

// Tokenizer is the openai provider's token count, which the daemon reads
// when it starts (PLURNK_OPENAI_CHARS_PER_TOKEN).
func (p *Process) Tokenizer(n int) error {
	if err := p.Configure("the models' tokenizer"); err != nil {
		return err
	}
	p.script.Model.CharsPerToken = n
	return nil
}

// Resolve is loop.resolve of the row's proposal.
func (p *Process) Resolve(row int64, accept bool) error {
	d := "accept"
	if !accept {
		d = "reject"
	}
	return p.runCall("loop.resolve", map[string]any{"logEntryId": row, "decision": d})
}

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
		st, err := dsl.ParseStatement(Unescape(execStep.FindStringSubmatch(p.data.stepText[next.step])[4]))
		if err != nil {
			break
		}
		batch = append(batch, st)
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
