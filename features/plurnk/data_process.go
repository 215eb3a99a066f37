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
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/packet"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/rpc"
	"anchorage/impl/plurnk/store"
	"anchorage/reports/catalog"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
	"github.com/tidwall/gjson"
)

// dataConn names the connection the data-plane steps hold to a daemon
// process.
const dataConn = "data plane"

// daemonData is the driver of the data-plane steps when the plurnk under
// test is a daemon process ($PLURNK_CMD): what the scenario gives is
// written as a client through the op.* mirror (or on disk, for workspace
// files), each emitted statement is one op.* call (one turn of the
// connection's client loop), its result is the call's answer, and the
// entries are read back with entry.read. The workspace files are the
// daemon's root on disk, which the world's fs is.
type daemonData struct {
	d *daemonWorld
	c *rpc.Client
	// given are the entries the scenario gives before the daemon starts,
	// written when it does: what the operator sets is read at the start.
	given []func() error
	// laidOut: the scenario lays out a project whose membership it pins,
	// so the session picks nothing but what the scenario says.
	laidOut bool
	rw      *runWorld // the session of runs, whose commands are this daemon's
	run     string    // the one run of a session of runs: the model run
	output  string    // the exec output given, its target
	relayed int       // what its command was given to print
	// execTarget is the stream of the model's first EXEC (execAccepted),
	// execPlan the scenario's EXEC steps, stepText the text of its steps,
	// execCalls the EXEC steps taken and execResults the results of those
	// the model's turn gave, by their place in execPlan.
	execTarget  string
	execPlan    []plannedExec
	stepText    []string
	execCalls   int
	execResults map[int]ops.Result
	eventsSeen  int // the stream/event notifications streamEvents gave
	opened      int // the sessions the data plane has opened
}

// dataSteps are the steps of a scenario that reaches no daemon which the
// daemon's public surface can express (driver daemonData). A scenario
// with any other step drives the engine as a library and is skipped for
// the process target.
var dataSteps = regexpList(
	// Givens.
	`^the entry (\S+) contains a line of (\d+) "(.)" characters, then "((?:[^"\\]|\\.)*)"$`,
	`^the entry (\S+) contains "((?:[^"\\]|\\.)*)"$`,
	`^the entry (\S+) contains:$`,
	`^the entry (\S+) contains "((?:[^"\\]|\\.)*)" tagged "([^"]*)"$`,
	`^the workspace file (\S+) contains "((?:[^"\\]|\\.)*)"$`,
	`^the workspace holds the binary file (\S+)$`,
	`^the exec output (sh:///1/1/\d+) has streamed "((?:[^"\\]|\\.)*)" on (stdout|stderr) and is still active$`,
	`^the exec output (sh:///1/1/\d+) streams "((?:[^"\\]|\\.)*)" on (stdout|stderr)$`,
	`^the exec output (\S+) has closed$`,
	`^the exec output (\S+) closes$`,
	// Whens.
	`^the model emits (<<.+)$`,
	`^the model emits:$`,
	`^the model emits an EDIT of (\S+) with a body of (\d+) characters$`,
	`^the packet is assembled$`,
	`^a second run "([^"]*)" in the session$`,
	`^a second session holds the entry (\S+) containing "((?:[^"\\]|\\.)*)"$`,
	`^run "([^"]*)" emits (<<.+)$`,
	// Thens.
	`^the action answers (\d+)$`,
	`^the action answers (\d+) on the same entry as before$`,
	`^the result content is:$`,
	`^the result content is "((?:[^"\\]|\\.)*)"$`,
	`^the result content is empty$`,
	`^the result mimetype is "([^"]*)"$`,
	`^the result reason mentions "((?:[^"\\]|\\.)*)"$`,
	`^the result lists (\d+) items?$`,
	`^item (\d+) is (\S+) with content:$`,
	`^the (\w+) channel of (\S+) holds "((?:[^"\\]|\\.)*)"$`,
	`^the (\w+) channel of (\S+) holds (\d+) characters$`,
	`^the (\w+) channel of (\S+) is (static|active|closed|errored)$`,
	`^the entry (\S+) has no (\w+) channel$`,
	`^the entry (\S+) has tags "([^"]*)"$`,
	`^the entry (\S+) does not exist$`,
	`^the workspace file (\S+) holds "((?:[^"\\]|\\.)*)"$`,
	`^the workspace file (\S+) does not exist$`,
	`^every action answered (\d+) or (\d+)$`,
	`^every action answered (\d+)$`,
	`^the result is the JSON:$`,
	`^the found paths are "([^"]*)"$`,
	// The engine loop: the scripted model, the operator, the loop and
	// what it left.
	`^the model will reply:$`,
	`^the model will reply, its text ending on the last character shown:$`,
	`^the model's context window is (\d+) tokens$`,
	`^the provider's tokenizer counts one token per (\d+) characters$`,
	`^the (\w+) channel of (\S+) stored (\d+) tokens$`,
	`^the row log:///(\S+) of the model run stored (\d+) tokens$`,
	`^the budget usage of packet (\d+) is the token count of the whole rendered packet$`,
	`^the operator sets (PLURNK_\w+) to "([^"]*)"$`,
	`^the operator's file (\S+) reads:$`,
	`^the entry (\S+) holds (\d+) lines of text$`,
	`^the handbook (\S+) grows to (\d+) lines$`,
	`^the user starts a loop with the prompt "([^"]*)"$`,
	`^the user starts a loop with the prompt "([^"]*)" asking for at most (\d+) turns$`,
	`^the loop ends with status (\d+)$`,
	`^the model was called (\d+) times?$`,
	`^packet (\d+) has the (system|user) sections "([^"]*)"$`,
	`^the (\S+) section of packet (\d+) reads:$`,
	`^the (\S+) section of packet (\d+) contains "((?:[^"\\]|\\.)*)"$`,
	`^the (\S+) section of packet (\d+) does not contain "((?:[^"\\]|\\.)*)"$`,
	`^packet (\d+) has no (\S+) section$`,
	`^the (system|user) slot of packet (\d+) shows the header "([^"]*)"$`,
	`^the (system|user) slot of packet (\d+) shows, in order, the headers:$`,
	`^no packet mentions "([^"]*)"$`,
	`^the (model|plurnk) run's row log:///(\S+) is (folded|expanded)$`,
	`^the (model|plurnk) run's log records (\w+) (\S+) with status (\d+)(?: by (\w+))?$`,
	`^the (model|plurnk) run's log has no row for (\S+)$`,
	`^the (model|plurnk) run has no (\w+) of (\S+) in its log$`,
	`^the budget headline of packet (\d+) gives usage as a percent of a (\d+)-token ceiling$`,
	`^the heaviest-entries table of packet (\d+) lists (\S+) first$`,
	`^the heaviest-entries table of packet (\d+) has (\d+) rows?$`,
	`^the turn table of packet (\d+) lists the turns "([^"]*)"$`,
	`^every delivered packet is within its ceiling$`,
	`^the model was called once per turn, (\d+) times in all$`,
	`^the loop's meta is (.+)$`,
	// The action's rows, as its op.* answer lists them (their coordinates
	// are the client loop's: the steps naming one are not here).
	`^the action's log row records status (\d+) for (\S+)$`,
	`^the action wrote no log row$`,
	// Membership: the project on disk, the overlay, the members.
	`^a git repository holding:$`,
	`^a project directory without git holding:$`,
	`^the session's overlay (picks|hides|views) "([^"]*)"$`,
	`^the members are:$`,
	`^the hidden files are "([^"]*)"$`,
	`^the session has no members$`,
	`^run "([^"]*)" (picks|hides|views) "([^"]*)"$`,
	`^the members run "([^"]*)" resolves are:$`,
	`^a second session over the same project$`,
	`^the second session's members are:$`,
	`^the project file (\S+) holds "((?:[^"\\]|\\.)*)"$`,
	`^the membership check refuses a write to (\S+) with (\d+)$`,
	`^the membership check allows a write to (\S+)$`,
	`^a project holding the git repositories:$`,
	`^the session's overlay declares the repo "([^"]*)"$`,
	`^the service runs with PLURNK_GIT_ALLOWED="([^"]*)" and PLURNK_GIT_AUTO="([^"]*)"$`,
)

func regexpList(exprs ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		out[i] = regexp.MustCompile(e)
	}
	return out
}

// targetBound are steps of the data plane whose expectation holds for the
// engine as the scenario sets it up and not for a daemon process, with
// why: a scenario taking one is skipped for the process target.
var targetBound = []struct {
	step *regexp.Regexp
	why  string
}{
	{regexp.MustCompile(`^packet (\d+) has the system sections "([^"]*)"$|^packet (\d+) has no tools section$`),
		"the engine of these scenarios has no executor, while the daemon under test offers host commands, so its packets carry the tools sheet"},
}

// boundScenarios are the scenarios of the data plane whose expectation
// holds for the engine as the scenario sets it up and not for a daemon
// process, by name, with why.
var boundScenarios = []struct {
	name *regexp.Regexp
	why  string
}{
	{regexp.MustCompile(`^(PLURNK_MANIFEST_ITEMS=2 foists|unset or 0, there is no preview|with nine rows in the log the heaviest-entries table lists all nine)`),
		"the daemon wires a client's writes into the model run's log (rows by plurnk) where the engine's givens write outside any run's log, and this scenario pins the packet's rows"},
	{regexp.MustCompile(`^text the service derives is markdown; exec's declared text/plain survives$`),
		"it reads the mimetype of an OPEN, which writes no row, while an op.* answer carries a mimetype on its rows only; and it names rows log:///1/1/… of the model run, where the mirror's are the client loop's"},
	{regexp.MustCompile(`^a run:// target with a path is scratch storage, not a run: the entry engine hands it to the scheme registry$`),
		"it pins what the entry engine alone answers to a run:// target, where a daemon's runs service answers run:// itself first (§run-scheme-scratch)"},
	{regexp.MustCompile(`^the grinder acts only above the ceiling: `),
		"it pins a packet of exactly 2245 tokens as the embedded scripted model's tokenizer counts it; a daemon process measures with its own provider's tokenizer"},
}

// libraryReasons say why a step only the engine as a library takes has no
// daemon counterpart, by the kind of step: the first that matches.
var libraryReasons = []struct {
	step *regexp.Regexp
	why  string
}{
	{regexp.MustCompile(`^the model's turn \d+/\d+ begins$|^the model's EXEC \d+/\d+/\d+ is accepted|^the exec output sh:///|at log:///|^the errors of turn|^the action's log rows are:$|^the model's log holds|'s log row log:///|EDITs of (\S+) in one turn$`),
		"it places a model's action at a coordinate L/T/S of the model run, while a client of the daemon acts on its own client loop (op.*, one turn a call) or through whole model turns (loop.run)"},
	{regexp.MustCompile(`mimetype handler|^the packet is assembled$|^a scheme "|^a packet plugin|counts one token per|^the provider (charges|will fail|priced)|^the members have been synced$|^the next sync|outside plurnk|its record for the plurnk run|^the model will reply with the (meta|raw payload)|forwarding the notice|^the session was notified of the notices|child run|^a second (run|session)|carried the run's abort signal|generates reply|when its drain|while its next command registers|before the daemon applies|^the client will cancel the loop|stored \d+ tokens|pico-USD|^the engine offers`),
		"it reaches inside the embedded engine or service (a handler, plugin, scheme or provider of the harness's own, a sync pass, a seam of the drain), which no daemon protocol exposes"},
	{regexp.MustCompile(`^the simulated command|^the real sh executor|^PLURNK_EXEC_KILL_GRACE_MS|ms pass for the running commands$|^the commands run to completion$|^the stream (\S+) (ended|is still)|ignores the polite signal|by SIG\w+ at \d+ ms|seconds pass on the session clock|^the stream events|^the stdout of|^the shell environment|^the project's \.env|^an executor "|^the model cancels`),
		"it drives the exec scheme's simulated executors on the simulated clock as a library (spawns, chunks and signals at simulated times)"},
}

// libraryReason says why the step has no daemon counterpart.
func libraryReason(step string) string {
	for _, r := range libraryReasons {
		if r.step.MatchString(step) {
			return r.why
		}
	}
	return "it drives the engine as a library, which no daemon protocol exposes"
}

// libraryStep returns the first step of the scenario that only the
// engine as a library can take, or "" when the daemon's public surface
// expresses every step.
func libraryStep(sc *godog.Scenario) string {
	for _, st := range sc.Steps {
		ok := false
		text, _, _ := catalog.DecidedStep(st.Text) // a decided step is the same step
		for _, re := range append(append(append(dataSteps, runSteps...), execSteps...), seedDataSteps...) {
			if re.MatchString(text) {
				ok = true
				break
			}
		}
		if !ok {
			return st.Text
		}
	}
	return ""
}

// boundStep returns why the scenario expects what only the engine as the
// scenario sets it up shows, and the step (or the scenario) that does; ""
// when none.
func boundStep(sc *godog.Scenario) (why, step string) {
	if startsRun(sc) {
		if _, why := oneRun(sc); why != "" {
			return why, "(its runs)"
		}
	}
	for _, b := range boundScenarios {
		if b.name.MatchString(sc.Name) {
			return b.why, "(the whole scenario)"
		}
	}
	for _, st := range sc.Steps {
		if st.Text == `the engine offers the EXEC runtimes "sh"` {
			// The engine of this scenario has the daemon's executor.
			return "", ""
		}
	}
	for _, st := range sc.Steps {
		for _, b := range targetBound {
			if text, _, _ := catalog.DecidedStep(st.Text); b.step.MatchString(text) {
				return b.why, st.Text
			}
		}
	}
	return "", ""
}

// connect boots the daemon and opens the data plane's connection and
// session, on first use.
func (p *daemonData) connect() error {
	if p.c != nil {
		return nil
	}
	if err := p.d.boot(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	c, err := rpc.Dial(ctx, p.d.url)
	if err != nil {
		return err
	}
	p.d.conns[dataConn] = &daemonConn{c: c}
	// Sessions are durable: a daemon started again still holds the data
	// plane's earlier session, so each one opened gets a name of its own.
	p.opened++
	name := dataConn
	if p.opened > 1 {
		name = fmt.Sprintf("%s %d", dataConn, p.opened)
	}
	params := map[string]any{"name": name}
	if p.run != "" {
		// The scenario's started run is the session's model run.
		params["modelRun"] = p.run
	}
	a, err := c.Call(ctx, "session.create", params)
	if err != nil {
		return fmt.Errorf("session.create: %w", err)
	}
	if a.Error != nil {
		return fmt.Errorf("session.create: %v", a.Error)
	}
	p.d.conns[dataConn].session = gjson.ParseBytes(a.Result)
	p.c = c
	if !p.laidOut {
		// The engine has no membership gate: every file of the
		// workspace is the session's, as a pick of them all makes it.
		a, err = c.Call(ctx, "session.constrain", map[string]any{"effect": "pick", "pattern": "**"})
		if err != nil {
			return fmt.Errorf("session.constrain: %w", err)
		}
		if a.Error != nil {
			p.d.proc.logf("plurnk process: session.constrain pick **: %v (taken as a daemon without membership)", a.Error)
		}
	}
	given := p.given
	p.given = nil
	for _, f := range given {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// call makes one call on the data plane's connection; an error answer is
// an error.
func (p *daemonData) call(method string, params any) (json.RawMessage, error) {
	return p.callOn(nil, method, params)
}

// callOn is call on the connection c (nil: the data plane's).
func (p *daemonData) callOn(c *rpc.Client, method string, params any) (json.RawMessage, error) {
	if err := p.connect(); err != nil {
		return nil, err
	}
	if c == nil {
		c = p.c
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	a, err := c.Call(ctx, method, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if a.Error != nil {
		return nil, fmt.Errorf("%s: the daemon answered the error %v", method, a.Error)
	}
	p.d.noteModelRun(p.d.conns[dataConn], a.Result)
	return a.Result, nil
}

// maxFrameBody is the largest body the harness sends in one op.* call:
// the protocol's frames carry 16 MiB (features/README.md).
const maxFrameBody = 16 << 20

// mirrored are the ops the op.* mirror offers (§methods-op-mirror).
var mirrored = map[dsl.Op]bool{dsl.OpFind: true, dsl.OpRead: true, dsl.OpEdit: true, dsl.OpCopy: true, dsl.OpMove: true,
	dsl.OpOpen: true, dsl.OpFold: true, dsl.OpExec: true, dsl.OpKill: true, dsl.OpSend: true}

// opParams spells st as the params of its op.* method: its target, body,
// signal and <L> marks as the statement writes them.
func (p *daemonData) opParams(st dsl.Statement) (map[string]any, error) {
	if !mirrored[st.Op] {
		return nil, p.d.proc.skip("the op.* mirror offers no %s", st.Op)
	}
	if st.Suffix != "" {
		return nil, p.d.proc.skip("the op.* mirror writes the close tag :%s, not the suffixed :%s%s", st.Op, st.Op, st.Suffix)
	}
	params := map[string]any{}
	if st.Target != nil {
		params["target"] = st.Target.String()
	}
	if st.Body != nil {
		params["body"] = *st.Body
	}
	if st.Scope != nil {
		params["lines"] = st.Scope.String()
	}
	if st.Signal != nil {
		switch st.Op.SignalFamily() {
		case dsl.FamilyInt:
			params["signal"] = strconv.Itoa(st.Signal.Code)
		case dsl.FamilyIdent:
			params["signal"] = st.Signal.Executor
		default:
			params["signal"] = strings.Join(st.Signal.Tags, ",")
		}
	}
	return params, nil
}

// opAnswer is an op.* method's answer.
type opAnswer struct {
	Status  int            `json:"status"`
	Target  string         `json:"target"`
	Content string         `json:"content"`
	Reason  string         `json:"reason"`
	Entries []rpc.LogEntry `json:"entries"`
}

// op dispatches st through its op.* method and makes the answer a result:
// status, target, content and reason from the answer, the mimetype from
// its last log row, the items of a READ that fans out from its rows, and
// the entry the op left at its target from entry.read.
func (p *daemonData) op(st dsl.Statement) (ops.Result, error) { return p.opOn(nil, st) }

// opOn is op on the connection c (nil: the data plane's).
func (p *daemonData) opOn(c *rpc.Client, st dsl.Statement) (ops.Result, error) {
	params, err := p.opParams(st)
	if err != nil {
		return ops.Result{}, err
	}
	raw, err := p.callOn(c, "op."+strings.ToLower(string(st.Op)), params)
	if err != nil {
		return ops.Result{}, err
	}
	var a opAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return ops.Result{}, fmt.Errorf("op.%s answered %s: %w", strings.ToLower(string(st.Op)), raw, err)
	}
	res := ops.Result{Status: a.Status, Target: a.Target, Content: a.Content, Reason: a.Reason}
	for _, e := range a.Entries {
		res.Rows = append(res.Rows, *logRow(e))
	}
	if n := len(res.Rows); n > 0 {
		res.Row = res.Rows[n-1]
		res.Mimetype = res.Row.Mimetype
	}
	if st.Op == dsl.OpRead && st.Target != nil && strings.ContainsAny(st.Target.Path, "*?[{") {
		for _, e := range a.Entries {
			if e.Status == 200 {
				res.Items = append(res.Items, ops.Result{Status: e.Status, Target: e.Target, Content: e.Rx, Mimetype: e.Mimetype})
			}
		}
	}
	if res.Status < 400 && res.Target != "" {
		if e, err := p.entry(res.Target); err == nil && e != nil {
			res.EntryID = e.ID
		}
	}
	return res, nil
}

// client writes what the scenario gives through the op.* mirror; before
// the daemon has started, when it starts (checked then).
func (p *daemonData) client(st dsl.Statement) (ops.Result, error) {
	if p.c == nil {
		p.given = append(p.given, func() error {
			res, err := p.op(st)
			if err != nil {
				return err
			}
			if res.Status >= 300 {
				return fmt.Errorf("setting up %s %s: %d %s", st.Op, st.Target, res.Status, res.Reason)
			}
			return nil
		})
		return ops.Result{}, nil
	}
	return p.op(st)
}

// do has the statement dispatched as one turn of the connection's client
// loop: the op.* mirror offers no model turn, so the writer is the client.
func (p *daemonData) do(run string, st dsl.Statement) (ops.Result, error) {
	var c *rpc.Client
	if run != "model" {
		dc, ok := p.d.conns[run]
		if !ok {
			return ops.Result{}, fmt.Errorf("no run %q in the session", run)
		}
		c = dc.c
	}
	if why := asModel(st); why != "" {
		if run != "model" {
			return ops.Result{}, p.d.proc.skip("%s, and only the model run's emissions are the scripted model's turns", why)
		}
		return p.modelTurn(st)
	}
	if st.Body != nil && len(*st.Body) > maxFrameBody {
		return ops.Result{}, p.d.proc.skip("a body of %d bytes is more than one JSON-RPC frame of the protocol carries (%d)", len(*st.Body), maxFrameBody)
	}
	return p.opOn(c, st)
}

// asModel says why st must be the model's own and not the op.* mirror's
// (the connection's client writing), "" when the mirror expresses it.
func asModel(st dsl.Statement) string {
	if st.Suffix != "" {
		return fmt.Sprintf("the op.* mirror writes the close tag :%s, not the suffixed :%s%s", st.Op, st.Op, st.Suffix)
	}
	if st.Target != nil && st.Target.Scheme == "run" {
		return "a run:// target resolves against the run that emits it"
	}
	if st.Target != nil && st.Op != dsl.OpRead && st.Op != dsl.OpFind {
		for _, s := range []string{st.Target.Scheme, destScheme(st)} {
			if s == "plurnk" || s == "skill" {
				return s + ":// is writable by a client and not by the model"
			}
		}
	}
	return ""
}

// modelTurn has the scripted model emit st as the one action of a loop of
// one turn (loop.run) of the model run, and answers its result from the
// row it left in the model run's log.
func (p *daemonData) modelTurn(st dsl.Statement) (ops.Result, error) {
	if st.Body != nil && len(*st.Body) > maxFrameBody {
		return ops.Result{}, p.d.proc.skip("a body of %d bytes is more than the scripted model's turn carries here (%d)", len(*st.Body), maxFrameBody)
	}
	p.d.model.Add(llm.Reply{Content: "<<PLAN:act:PLAN\n" + dsl.Format(st) + "\n<<SEND[200]:done:SEND\n"})
	res, err := p.loop(context.Background(), "act", 1)
	if err != nil {
		return ops.Result{}, err
	}
	rows, err := p.runLog("")
	if err != nil {
		return ops.Result{}, err
	}
	// The rows of the loop's turn but its last, the terminal SEND.
	last, end := 0, 0
	for _, r := range rows {
		last = max(last, r.Loop)
	}
	for _, r := range rows {
		if r.Loop == last && r.Turn == 1 {
			end = max(end, r.Seq)
		}
	}
	var out ops.Result
	for _, r := range rows {
		if r.Loop != last || r.Turn != 1 || r.Seq == end || r.Op != string(st.Op) {
			continue
		}
		out.Rows = append(out.Rows, r)
	}
	if len(out.Rows) == 0 {
		return ops.Result{}, fmt.Errorf("the model's turn (loop ended %d, %s) left no %s row in the model run's log: %+v", res.Status, res.Reason, st.Op, rows)
	}
	out.Row = out.Rows[len(out.Rows)-1]
	r := out.Row
	out.Status, out.Target, out.Content, out.Reason, out.Mimetype = r.Status, r.Target, r.Content, r.Reason, r.Mimetype
	if out.Status < 400 && out.Target != "" {
		if e, err := p.entry(out.Target); err == nil && e != nil {
			out.EntryID = e.ID
		}
	}
	return out, nil
}

// destScheme is the scheme of a COPY's or MOVE's destination (its body).
func destScheme(st dsl.Statement) string {
	if st.Body == nil || (st.Op != dsl.OpCopy && st.Op != dsl.OpMove) {
		return ""
	}
	s, _, ok := strings.Cut(*st.Body, "://")
	if !ok {
		return ""
	}
	return s
}

// entry reads the entry with entry.read: 404 is no entry, another status
// an error.
func (p *daemonData) entry(t string) (*store.Entry, error) {
	raw, err := p.call("entry.read", map[string]any{"target": t})
	if err != nil {
		return nil, err
	}
	var a rpc.EntryResult
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("entry.read answered %s: %w", raw, err)
	}
	switch {
	case a.Status == 404:
		return nil, nil
	case a.Status != 200 || a.Entry == nil:
		return nil, fmt.Errorf("entry.read %s: %d %s", t, a.Status, a.Reason)
	}
	e := &store.Entry{ID: a.Entry.ID, Channels: map[string]store.Channel{}}
	if len(a.Entry.Tags) > 0 {
		e.Tags = a.Entry.Tags
	}
	for name, ch := range a.Entry.Channels {
		e.Channels[name] = store.Channel{Content: ch.Content, Mimetype: ch.Mimetype, Tokens: ch.Tokens, State: store.State(ch.State)}
	}
	return e, nil
}

// configure refuses what the daemon would have read when it started.
func (p *daemonData) configure(what string) error {
	if p.d.started() {
		return p.d.proc.skip("%s is set after the daemon started, and a daemon process reads it once, when it starts", what)
	}
	return nil
}

// assembledReply is the scripted model's answer to the turn that has the
// packet assembled: it ends the loop at once.
const assembledReply = "<<PLAN:the packet is assembled:PLAN\n<<SEND[200]:assembled:SEND\n"

// assemble runs a loop of one turn on the model run (loop.run): the
// daemon assembles the turn's packet, which runs its derivation pass, and
// the scripted model ends the loop.
func (p *daemonData) assemble(ctx context.Context) error {
	p.d.model.Add(llm.Reply{Content: assembledReply})
	res, err := p.loop(ctx, "assemble the packet", 1)
	if err != nil {
		return err
	}
	if len(res.Turns) != 1 || res.Status != 200 {
		return fmt.Errorf("the loop that assembles the packet: %d turns, status %d (%s)", len(res.Turns), res.Status, res.Reason)
	}
	return nil
}

// loop runs loop.run on the model run and waits until the daemon is
// quiet; the loop's end is its loop/terminated notification (or
// loop/quiesced for a parked loop), its stored status the model run's in
// session.runs, and its packets the requests the scripted model received
// meanwhile, read back into their sections by their headers.
func (p *daemonData) loop(ctx context.Context, prompt string, maxTurns int) (engine.Result, error) {
	params := map[string]any{"prompt": prompt}
	if maxTurns > 0 {
		params["maxTurns"] = maxTurns
	}
	if err := p.connect(); err != nil {
		return engine.Result{}, err
	}
	from := len(p.d.model.Requests)
	raw, err := p.call("loop.run", params)
	if err != nil {
		return engine.Result{}, err
	}
	id := gjson.GetBytes(raw, "loopId").Int()
	notes, err := p.d.settled(ctx, dataConn)
	if err != nil {
		return engine.Result{}, err
	}
	res := engine.Result{Status: 0}
	turns := -1 // the loop's turns as loop/terminated reports them
	for _, n := range notes {
		if gjson.GetBytes(n.Params, "loopId").Int() != id {
			continue
		}
		switch n.Method {
		case "loop/terminated":
			res.Status = int(gjson.GetBytes(n.Params, "finalStatus").Int())
			res.Reason = gjson.GetBytes(n.Params, "reason").String()
			res.Meta = json.RawMessage(gjson.GetBytes(n.Params, "meta").Raw)
			turns = int(gjson.GetBytes(n.Params, "turns").Int())
		case "loop/quiesced":
			if res.Status == 0 {
				res.Status = int(gjson.GetBytes(n.Params, "status").Int())
			}
		}
	}
	if res.Status == 0 {
		return engine.Result{}, fmt.Errorf("loop %d (loop.run answered %s) neither ended nor parked", id, raw)
	}
	runs, err := p.call("session.runs", nil)
	if err != nil {
		return engine.Result{}, err
	}
	model := p.d.conns[dataConn].session.Get("modelRunId").Int()
	for _, r := range gjson.GetBytes(runs, "runs").Array() {
		if r.Get("id").Int() == model {
			res.Loop = &store.Loop{ID: id, Status: int(r.Get("status").Int())}
		}
	}
	if res.Loop == nil {
		return engine.Result{}, fmt.Errorf("session.runs lists no model run %d: %s", model, runs)
	}
	// The turns the daemon reported, the packets the model received
	// riding the first of them (a parked loop reports none: one turn per
	// packet).
	reqs := p.d.model.Requests[from:]
	if turns < 0 {
		turns = len(reqs)
	}
	for i := 0; i < turns; i++ {
		t := engine.TurnRecord{Seq: i + 1}
		if i < len(reqs) {
			t.Packet = delivered(reqs[i])
		}
		res.Turns = append(res.Turns, t)
	}
	return res, nil
}

// sectionHeaders are the headers of the packet's sections (the digest's
// §packet-* and §tokenomics-*), by name.
var sectionHeaders = map[string]string{
	packet.HeaderTools: packet.Tools, packet.HeaderSchemes: packet.Schemes, packet.HeaderOperatorNotes: packet.OperatorNotes,
	packet.HeaderSystemPolicy: packet.SystemPolicy, packet.HeaderProjectPolicy: packet.ProjectPolicy, packet.HeaderBudget: packet.Budget,
	packet.HeaderPrompt: packet.Prompt, packet.HeaderErrors: packet.Errors, packet.HeaderLog: packet.Log, packet.HeaderGit: packet.Git,
	packet.HeaderRequirements: packet.Requirements,
}

// delivered reads a request the model received back into a packet: the
// system and user messages, each cut into sections at the lines that are
// a section's header after a blank line; the system message's text before
// its first header is the definition.
func delivered(req provider.Request) *engine.Delivered {
	out := &engine.Delivered{}
	for _, m := range req.Messages {
		switch m.Role {
		case provider.RoleSystem:
			out.System = m.Content
			out.Sections = append(out.Sections, sectionsOf(m.Content, packet.System)...)
		case provider.RoleUser:
			out.User = m.Content
			out.Sections = append(out.Sections, sectionsOf(m.Content, packet.User)...)
		}
	}
	return out
}

func sectionsOf(text string, slot packet.Slot) []packet.Section {
	var out []packet.Section
	cur := packet.Section{Slot: slot}
	if slot == packet.System {
		cur.Name = packet.Definition
	}
	var body []string
	flush := func() {
		cur.Content = strings.TrimRight(strings.Join(body, "\n"), "\n")
		if cur.Content != "" {
			cur.Content += "\n"
		}
		if cur.Name != "" && cur.Content != "" {
			out = append(out, cur)
		}
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if name, ok := sectionHeaders[line]; ok && (i == 0 || lines[i-1] == "") {
			flush()
			cur, body = packet.Section{Name: name, Slot: slot, Header: line}, nil
			continue
		}
		body = append(body, line)
	}
	flush()
	return out
}

// log reads the log of the session's run named run with log.read.
func (p *daemonData) log(run string) ([]*store.LogRow, error) {
	if err := p.connect(); err != nil {
		return nil, err
	}
	runs, err := p.call("session.runs", nil)
	if err != nil {
		return nil, err
	}
	var id int64
	for _, r := range gjson.GetBytes(runs, "runs").Array() {
		if r.Get("name").String() == run {
			id = r.Get("id").Int()
		}
	}
	if id == 0 {
		return nil, fmt.Errorf("session.runs lists no run %q: %s", run, runs)
	}
	return p.readLog(id)
}

// readLog reads the log of the run with id runID with log.read.
func (p *daemonData) readLog(runID int64) ([]*store.LogRow, error) {
	raw, err := p.call("log.read", map[string]any{"runId": runID})
	if err != nil {
		return nil, err
	}
	var a struct {
		Entries []rpc.LogEntry `json:"entries"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("log.read answered %s: %w", raw, err)
	}
	var out []*store.LogRow
	for _, e := range a.Entries {
		out = append(out, logRow(e))
	}
	return out, nil
}

// rowTokens reads the model run's row at coord (L/T/S) with log.read and
// answers the tokens stored for it.
func (p *daemonData) rowTokens(_ context.Context, coord string) (int, bool, error) {
	var l, t, s int
	if _, err := fmt.Sscanf(coord, "%d/%d/%d", &l, &t, &s); err != nil {
		return 0, false, fmt.Errorf("row log:///%s: want L/T/S", coord)
	}
	if err := p.connect(); err != nil {
		return 0, false, err
	}
	raw, err := p.call("log.read", map[string]any{"runId": p.d.conns[dataConn].session.Get("modelRunId").Int(), "loopSeq": l, "turnSeq": t, "sequence": s})
	if err != nil {
		return 0, false, err
	}
	e := gjson.GetBytes(raw, "entries.0")
	if !e.Exists() {
		return 0, false, fmt.Errorf("no row log:///%s", coord)
	}
	return int(e.Get("tokens").Int()), e.Get("tokens").Exists(), nil
}

// logRow is a row as log.read and the op.* answers give it.
func logRow(e rpc.LogEntry) *store.LogRow {
	return &store.LogRow{ID: e.ID, Loop: e.LoopSeq, Turn: e.TurnSeq, Seq: e.Sequence, Op: e.Op, Origin: e.Origin,
		Target: e.Target, Status: e.Status, Expanded: e.Expanded, Content: e.Rx, Mimetype: e.Mimetype, Reason: e.Reason, Tx: e.Tx}
}

// project writes the project's files into the daemon's root and, with
// git, makes it a repository tracking the rows marked yes, before the
// daemon starts; the membership is then the daemon's own.
func (p *daemonData) project(ctx context.Context, tbl *godog.Table, withGit bool) error {
	if p.d.started() {
		return p.d.proc.skip("the project is laid out after the daemon started")
	}
	files, order, tracked, err := projectFiles(tbl)
	if err != nil {
		return err
	}
	for _, f := range order {
		full := filepath.Join(p.d.proc.root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(files[f]), 0o644); err != nil {
			return err
		}
	}
	if withGit {
		if err := p.d.proc.gitInit(tracked); err != nil {
			return err
		}
		p.d.proc.gitDone = true
	}
	p.laidOut = true
	getExec(ctx).mem = &memWorld{dir: p.d.proc.root, daemon: true}
	return nil
}

// constrain is session.constrain on the connection of run (the data
// plane's for the session's own and the model's); before the daemon has
// started, when it starts.
func (p *daemonData) constrain(_ context.Context, run string, effect membership.Effect, pattern string) error {
	f := func() error {
		c, err := p.connOf(run)
		if err != nil {
			return err
		}
		_, err = p.callOn(c, "session.constrain", map[string]any{"effect": string(effect), "pattern": pattern})
		return err
	}
	if p.c == nil {
		p.given = append(p.given, f)
		return nil
	}
	return f()
}

// connOf is the connection that stands for who: "" and "model" the data
// plane's (nil), another run or the second session its own.
func (p *daemonData) connOf(who string) (*rpc.Client, error) {
	if who == "" || who == "model" {
		return nil, nil
	}
	c, ok := p.d.conns[who]
	if !ok {
		return nil, fmt.Errorf("no run or session %q", who)
	}
	return c.c, nil
}

// secondSession is a second connection's session.create.
func (p *daemonData) secondSession(context.Context) error {
	c, err := p.dial(secondSession)
	if err != nil {
		return err
	}
	_, err = p.callOn(c, "session.create", map[string]any{"name": secondSession})
	return err
}

// otherSession is a second connection's session, whose client writes t
// with op.edit.
func (p *daemonData) otherSession(t, body string) error {
	c, err := p.dial("other")
	if err != nil {
		return err
	}
	if _, err := p.callOn(c, "session.create", map[string]any{"name": "other"}); err != nil {
		return err
	}
	raw, err := p.callOn(c, "op.edit", map[string]any{"target": t, "body": body})
	if err != nil {
		return err
	}
	if st := gjson.GetBytes(raw, "status").Int(); st >= 300 {
		return fmt.Errorf("writing %s in the second session: %s", t, raw)
	}
	return nil
}

// dial opens another connection to the daemon, known to the world as name.
func (p *daemonData) dial(name string) (*rpc.Client, error) {
	if err := p.connect(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	c, err := rpc.Dial(ctx, p.d.url)
	if err != nil {
		return nil, err
	}
	p.d.conns[name] = &daemonConn{c: c}
	return c, nil
}

// forest writes the repositories into the daemon's root before it starts.
func (p *daemonData) forest(ctx context.Context, tbl *godog.Table) error {
	if p.d.started() {
		return p.d.proc.skip("the project is laid out after the daemon started")
	}
	if err := writeForest(p.d.proc.root, tbl); err != nil {
		return err
	}
	p.d.proc.gitDone, p.laidOut = true, true
	getExec(ctx).mem = &memWorld{dir: p.d.proc.root, daemon: true}
	return nil
}

// gitFlags are the operator's variables the daemon reads when it starts:
// a daemon already running is stopped and started again with them (the
// service now runs with them), and the data plane opens a new session.
func (p *daemonData) gitFlags(_ context.Context, allowed, auto string) error {
	p.d.env["PLURNK_GIT_ALLOWED"], p.d.env["PLURNK_GIT_AUTO"] = allowed, auto
	if !p.d.started() {
		return nil
	}
	if err := p.d.restartProcess(true); err != nil {
		return err
	}
	for name := range p.d.conns {
		delete(p.d.conns, name)
	}
	p.c = nil
	return p.connect()
}

// members is session.members on the connection that stands for who.
func (p *daemonData) members(_ context.Context, who string) (membership.Set, error) {
	if err := p.connect(); err != nil {
		return membership.Set{}, err
	}
	c, err := p.connOf(who)
	if err != nil {
		return membership.Set{}, err
	}
	raw, err := p.callOn(c, "session.members", nil)
	if err != nil {
		return membership.Set{}, err
	}
	var a rpc.MembersResult
	if err := json.Unmarshal(raw, &a); err != nil {
		return membership.Set{}, fmt.Errorf("session.members answered %s: %w", raw, err)
	}
	set := membership.Set{Members: a.Members, Hidden: a.Hidden}
	if len(set.Members) == 0 {
		set.Members = nil
	}
	if len(set.Hidden) == 0 {
		set.Hidden = nil
	}
	return set, nil
}

// streamedCommand is the host command that stands for an exec output the
// scenario gives: a relay of what the harness writes into relayDir, in
// order (NNNN.stdout and NNNN.stderr printed on that channel, NNNN.close
// ending it with 0), until the scenario is over.
const streamedCommand = "given-stream"

func (p *daemonData) relayDir() string { return filepath.Join(p.d.proc.spawned, "relay") }

// relay sends what the command prints next (ch "stdout" or "stderr", or
// "close"), in order.
func (p *daemonData) relay(ch, data string) error {
	p.relayed++
	tmp := filepath.Join(p.d.proc.spawned, "relay.tmp")
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(p.relayDir(), fmt.Sprintf("%04d.%s", p.relayed, ch)))
}

// streamed makes the exec output at sh:///1/1/S a real one: the relay
// command, started by the model's first turn (loop.run), whose S-1
// actions before its EXEC find nothing, so the EXEC lands at S; it prints
// chunk on ch at once. Only a first loop of the model run gets there.
func (p *daemonData) streamed(target, chunk, ch string) error {
	var seq int
	if _, err := fmt.Sscanf(target, "sh:///1/1/%d", &seq); err != nil || seq < 1 {
		return fmt.Errorf("exec output %s: want sh:///1/1/S", target)
	}
	if p.output != "" {
		return p.d.proc.skip("a second exec output given: the model's first turn gives one")
	}
	p.output = target
	dir := p.relayDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	script := fmt.Sprintf(`#!/bin/sh
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
`, dir, p.d.proc.clockFile())
	if err := os.WriteFile(filepath.Join(p.d.proc.bin, streamedCommand), []byte(script), 0o755); err != nil {
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
	p.d.model.Add(llm.Reply{Content: reply.String()})
	if err := p.connect(); err != nil {
		return err
	}
	if err := p.runCall("loop.run", map[string]any{"prompt": "start the command"}); err != nil {
		return err
	}
	return p.await(target, ch, func(c store.Channel) bool { return c.Content == chunk })
}

// await waits until the channel ch of target is as ok says.
func (p *daemonData) await(target, ch string, ok func(store.Channel) bool) error {
	var e *store.Entry
	done, err := pollUntil(callTimeout, 10*time.Millisecond, func() (bool, error) {
		var err error
		e, err = p.entry(target)
		return err == nil && e != nil && ok(e.Channels[ch]), err
	})
	if err != nil || done {
		return err
	}
	return fmt.Errorf("the exec output %s: its %s channel is not as the scenario gives it: %+v", target, ch, e)
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

// streamMore has the exec output print chunk on ch: the first chunk gives
// the output at target.
func (p *daemonData) streamMore(target, chunk, ch string) error {
	if p.output == "" {
		return p.streamed(target, chunk, ch)
	}
	if target != p.output {
		return p.d.proc.skip("a second exec output given: the model's first turn gives one")
	}
	e, err := p.entry(target)
	if err != nil || e == nil {
		return fmt.Errorf("the exec output %s: %v", target, err)
	}
	want := e.Channels[ch].Content + chunk
	if err := p.relay(ch, chunk); err != nil {
		return err
	}
	return p.await(target, ch, func(c store.Channel) bool { return c.Content == want })
}

// streamEnd ends the exec output: its command exits 0 and the daemon
// closes its channels. An exec output that fails needs the exec scheme's
// own transition, which no command's exit makes.
func (p *daemonData) streamEnd(target string, failed bool) error {
	if failed {
		return p.d.proc.skip("an exec output that fails: a command's own exit closes its channels, only a stop errors them")
	}
	if p.output == "" || target != p.output {
		return fmt.Errorf("no exec output %s was given", target)
	}
	if err := p.relay("close", ""); err != nil {
		return err
	}
	p.d.settle()
	return p.await(target, "stdout", func(c store.Channel) bool { return c.State == store.StateClosed })
}

// addRun gives the session a second run: a second connection attached to
// the session with that run's name (session.attach runName), whose client
// run the run's emissions go through.
func (p *daemonData) addRun(name string) error {
	c, err := p.dial(name)
	if err != nil {
		return err
	}
	id := p.d.conns[dataConn].session.Get("id").Int()
	if _, err := p.callOn(c, "session.attach", map[string]any{"id": id, "runName": name}); err != nil {
		return err
	}
	return nil
}
