package driver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/llm"

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
