package plurnk

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
	"github.com/tidwall/gjson"
)

// runSteps are the steps of a session of runs that a daemon process's
// public surface expresses (daemonData as the runsDriver), for a scenario
// of one run: the daemon's model run stands for it, its script the
// scripted model's.
var runSteps = regexpList(
	`^run "([^"]*)" will emit:$`,
	`^host commands are accepted without asking$`,
	`^the command "([^"]*)" prints "((?:[^"\\]|\\.)*)" on (stdout|stderr) after (\d+) ms$`,
	`^the command "([^"]*)" exits after (\d+) ms$`,
	`^the command "([^"]*)" never exits$`,
	`^the client starts run "([^"]*)" with the prompt "([^"]*)"$`,
	`^the client injects "([^"]*)" into run "([^"]*)"$`,
	`^the client cancels run "([^"]*)"$`,
	`^(\d+) ms pass on the session clock$`,
	`^run "([^"]*)" has (\d+) loops?(?:, the last with status (\d+))?$`,
	`^run "([^"]*)" has no loop$`,
	`^the model of run "([^"]*)" was called (\d+) times?$`,
	`^run "([^"]*)"'s log holds (?:an? )?(open|folded) (\w+) (\S+) with status (\d+)(?: reading "((?:[^"\\]|\\.)*)")?$`,
	`^run "([^"]*)"'s log has no (\w+) (\S+)$`,
	`^run "([^"]*)"'s row log:///(\S+) (?:is (open|folded) )?(?:with status (\d+) )?reads:$`,
	`^run "([^"]*)"'s row log:///(\S+) gives the reason "([^"]*)"$`,
	`^run "([^"]*)"'s row log:///(\S+) is (\w+) (\S+) with status (\d+)$`,
	`^packet (\d+) of run "([^"]*)" (contains|does not contain) "((?:[^"\\]|\\.)*)"$`,
	`^the run stream (\S+) ended with (\d+)$`,
	`^the run stream (\S+) ended with (\d+) by (SIG[A-Z0-9]+) at (\d+) ms$`,
	`^the run stream (\S+) is still running$`,
	`^the (\w+) channel of the run stream (\S+) holds "((?:[^"\\]|\\.)*)"$`,
	`^the command "([^"]*)" was spawned (\d+) times?$`,
	`^the session's entry (\S+) reads "((?:[^"\\]|\\.)*)"$`,
	`^the session was notified (loop/\w+) for loop (\d+) of run "([^"]*)" with status (\d+)$`,
	`^the session was notified (loop/\w+) (\d+) times? for run "([^"]*)"$`,
	`^the session was notified stream/concluded for (\S+) with close status (\d+) and wake action "([^"]*)"$`,
	`^the session holds (\d+) runs?$`,
	`^the client (accepts|rejects) the proposal of run "([^"]*)"'s row log:///(\S+)$`,
	`^every model of the session counts one token per (\d+) characters$`,
	`^the operator sets PLURNK_SESSION_RUNS_MAX_ACTIVE to (-?\d+)$`,
	`^run "([^"]*)"'s parent is run "([^"]*)" with origin "([^"]*)"$`,
	`^the session holds (\d+) entries of the (\w+) scheme$`,
	`^the session's entry (\S+) stored (\d+) tokens$`,
)

var (
	runtime = regexp.MustCompile(`<<EXEC\[(\w*)\]`)
	polled  = regexp.MustCompile(`<<EXEC(\[\w*\])?<[^>]*,`)
)

// clientStarts is a step of the client starting a run's loop.
var clientStarts = regexp.MustCompile(`^the client starts run "([^"]*)"`)

// oneRun returns the run of a scenario of runs that the client starts,
// which the session's model run stands for (session.create's modelRun
// names it so), or why the daemon cannot stand for its runs: several runs
// the client starts (the others are the model's to spawn), the polls of a
// stream timed on the session clock, a runtime the daemon does not offer.
// The model's script of each run is told apart by the X-Plurnk-Run
// header of its requests.
func oneRun(sc *godog.Scenario) (string, string) {
	started := map[string]bool{}
	for _, st := range sc.Steps {
		if m := clientStarts.FindStringSubmatch(st.Text); m != nil {
			started[m[1]] = true
		}
		texts := []string{st.Text}
		if st.Argument != nil && st.Argument.DocString != nil {
			texts = append(texts, st.Argument.DocString.Content)
		}
		for _, t := range texts {
			if polled.MatchString(t) {
				return "", "it times the polls of a stream (EXEC<T,P>) against the session clock, which the wall clock of a daemon process cannot resolve: the harness's settling waits themselves let time pass"
			}
			for _, m := range runtime.FindAllStringSubmatch(t, -1) {
				if m[1] != "" && m[1] != "sh" {
					return "", fmt.Sprintf("it runs the %q runtime, a simulated executor the daemon under test does not offer", m[1])
				}
			}
		}
	}
	if len(started) != 1 {
		var names []string
		for r := range started {
			names = append(names, r)
		}
		sort.Strings(names)
		return "", fmt.Sprintf("the client starts the runs %s, and a client starts the loops of the session's model run; the other runs are the model's to spawn", strings.Join(names, ", "))
	}
	for r := range started {
		return r, ""
	}
	return "", ""
}

// daemonRuns is the runsDriver of a daemon process: the scenario's one
// run is the session's model run.
type daemonRuns struct{ *daemonData }

func (r daemonRuns) log(run string) ([]store.LogRow, error) { return r.runLog(run) }

func (r daemonRuns) spawns() []exec.Spec { return r.d.spawns() }

func (p *daemonData) script(run, reply string) error {
	if p.d.started() {
		return fmt.Errorf("script run %q before the session starts", run)
	}
	if run != p.run {
		p.d.router.add(run, llm.Reply{Content: reply})
		return nil
	}
	p.d.model.Add(llm.Reply{Content: reply})
	return nil
}

func (p *daemonData) command(name string, s exec.Script) error {
	p.rw.scripts[name] = s
	return p.d.setScript(name, s)
}

// runCall makes a call on the model run and waits until the daemon is
// quiet.
func (p *daemonData) runCall(method string, params map[string]any) error {
	if _, err := p.call(method, params); err != nil {
		return err
	}
	p.d.settle()
	return nil
}

func (p *daemonData) start(run, prompt string) error {
	return p.runCallOn(run, "loop.run", map[string]any{"prompt": prompt})
}

func (p *daemonData) inject(run, msg string) error {
	return p.runCallOn(run, "loop.inject", map[string]any{"prompt": msg})
}

func (p *daemonData) cancel(run string) error {
	return p.runCallOn(run, "loop.cancel", map[string]any{})
}

// runCallOn is runCall aimed at the run named run (its runId), the model
// run when it is the scenario's started run.
func (p *daemonData) runCallOn(run, method string, params map[string]any) error {
	if run != p.run {
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
func (p *daemonData) runNamed(run string) (gjson.Result, error) {
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

func (p *daemonData) pass(ms int) error { return p.d.passClock(ms) }

// loops reads run's loops from session.runs.
func (p *daemonData) loops(run string) (int, int, error) {
	if err := p.connect(); err != nil {
		return 0, 0, err
	}
	r, err := p.runNamed(run)
	if err != nil {
		return 0, 0, err
	}
	return int(r.Get("loops").Int()), int(r.Get("status").Int()), nil
}

// runLog reads run's log with log.read ("": the model run's).
func (p *daemonData) runLog(run string) ([]store.LogRow, error) {
	if err := p.connect(); err != nil {
		return nil, err
	}
	id := p.d.conns[dataConn].session.Get("modelRunId").Int()
	if run != "" && run != p.run {
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

// requests are the requests the scripted model received from run: the
// started run's (or every run's but those scripted on their own) from
// the scenario's model, another's from its own script.
func (p *daemonData) requests(run string) []provider.Request {
	if run != p.run {
		if m, ok := p.d.router.mock(run); ok {
			return m.Requests
		}
		return nil
	}
	return p.d.model.Requests
}

// stream is the stream's close status from its stream/concluded
// notification, 0 while none came and its entry exists.
func (p *daemonData) stream(target string) (exec.Stream, error) {
	if err := p.connect(); err != nil {
		return exec.Stream{}, err
	}
	notes, err := p.d.settled(context.Background(), dataConn)
	if err != nil {
		return exec.Stream{}, err
	}
	for _, n := range notes {
		if n.Method == "stream/concluded" && gjson.GetBytes(n.Params, "target").String() == target {
			g := func(path string) gjson.Result { return gjson.GetBytes(n.Params, path) }
			st := exec.Stream{Status: int(g("closeStatus").Int()), ExitCode: int(g("exitCode").Int())}
			p.ended(&st, target)
			if sig := g("signal").String(); sig != "" {
				// The daemon's own record of the signal it reaped.
				st.Signal = sig
			}
			return st, nil
		}
	}
	e, err := p.entry(target)
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
func (p *daemonData) ended(st *exec.Stream, target string) {
	name := p.commandOf(target)
	var sps []spawn
	for _, sp := range p.d.proc.noted() {
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
		sig, at, done = p.d.proc.ending(sp)
		return done, nil
	})
	st.Signal = sig
	st.Started = time.Unix(0, 0).Add(time.Duration(sp.start) * time.Millisecond)
	st.Ended = time.Unix(0, 0).Add(time.Duration(at) * time.Millisecond)
}

// commandOf is the first word of the command the EXEC row of any run of
// the session whose stream is target ran; "" when there is none.
func (p *daemonData) commandOf(target string) string {
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

// startsRun reports whether the scenario drives a session of runs.
func startsRun(sc *godog.Scenario) bool {
	for _, st := range sc.Steps {
		if strings.HasPrefix(st.Text, "the client starts run ") {
			return true
		}
	}
	return false
}

// asks reports whether host commands wait for the client in a session of
// runs: unless the scenario accepts them without asking.
func asks(sc *godog.Scenario) bool {
	for _, st := range sc.Steps {
		if st.Text == "host commands are accepted without asking" {
			return false
		}
	}
	return startsRun(sc)
}

// events reads the notifications the data plane's connection heard: the
// model run's loop/terminated and loop/quiesced (the scenario's run), and
// stream/concluded.
func (r daemonRuns) events() []runs.Event {
	if err := r.connect(); err != nil {
		return nil
	}
	notes, err := r.d.settled(context.Background(), dataConn)
	if err != nil {
		return nil
	}
	names := map[int64]string{} // the session's runs, by id
	seqs := map[int64]int{}     // loop ids of the runs, by log.read
	if raw, err := r.call("session.runs", nil); err == nil {
		for _, x := range gjson.GetBytes(raw, "runs").Array() {
			names[x.Get("id").Int()] = x.Get("name").String()
			if rows, err := r.call("log.read", map[string]any{"runId": x.Get("id").Int()}); err == nil {
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

// runs are session.runs' runs but the reserved plurnk run and the data
// plane's own client run.
func (r daemonRuns) runs() ([]string, error) {
	raw, err := r.call("session.runs", nil)
	if err != nil {
		return nil, err
	}
	sess := r.d.conns[dataConn].session
	var out []string
	for _, x := range gjson.GetBytes(raw, "runs").Array() {
		if x.Get("name").String() != store.PlurnkRun && x.Get("id").Int() != sess.Get("runId").Int() {
			out = append(out, x.Get("name").String())
		}
	}
	return out, nil
}

// countEntries is the client's FIND of every entry of scheme (op.find
// scheme:///**): its catalog, a JSON array of one row an entry.
func (r daemonRuns) countEntries(scheme string) (int, error) {
	raw, err := r.call("op.find", map[string]any{"target": scheme + ":///**"})
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

// parentOf reads run's parent and origin from session.runs.
func (r daemonRuns) parentOf(run string) (string, string, error) {
	x, err := r.runNamed(run)
	if err != nil {
		return "", "", err
	}
	return x.Get("parent").String(), x.Get("origin").String(), nil
}

// maxActive is the operator's PLURNK_SESSION_RUNS_MAX_ACTIVE, which the
// daemon reads when it starts.
func (r daemonRuns) maxActive(n int) error {
	if err := r.configure("PLURNK_SESSION_RUNS_MAX_ACTIVE"); err != nil {
		return err
	}
	r.d.env["PLURNK_SESSION_RUNS_MAX_ACTIVE"] = strconv.Itoa(n)
	return nil
}

// tokenizer is the openai provider's token count, which the daemon reads
// when it starts (PLURNK_OPENAI_CHARS_PER_TOKEN).
func (r daemonRuns) tokenizer(n int) error {
	if err := r.configure("the models' tokenizer"); err != nil {
		return err
	}
	r.d.model.CharsPerToken = n
	return nil
}

// resolve is loop.resolve of the row's proposal.
func (r daemonRuns) resolve(row int64, accept bool) error {
	d := "accept"
	if !accept {
		d = "reject"
	}
	return r.runCall("loop.resolve", map[string]any{"logEntryId": row, "decision": d})
}
