package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/packet"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/rpc"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
	"github.com/spf13/afero"
	"github.com/tidwall/gjson"
)

// dataConn names the connection the data-plane steps hold to a daemon
// process.
const dataConn = "data plane"

// connect boots the daemon and opens the data plane's connection and
// session, on first use.
func (p *Process) connect() error {
	if p.data.c != nil {
		return nil
	}
	if err := p.Boot(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	c, err := rpc.Dial(ctx, p.url)
	if err != nil {
		return err
	}
	p.conns[dataConn] = &Conn{C: c}
	// Sessions are durable: a daemon started again still holds the data
	// plane's earlier session, so each one opened gets a name of its own.
	p.data.opened++
	name := dataConn
	if p.data.opened > 1 {
		name = fmt.Sprintf("%s %d", dataConn, p.data.opened)
	}
	params := map[string]any{"name": name}
	if p.data.run != "" {
		// The scenario's started run is the session's model run.
		params["modelRun"] = p.data.run
	}
	a, err := c.Call(ctx, "session.create", params)
	if err != nil {
		return fmt.Errorf("session.create: %w", err)
	}
	if a.Error != nil {
		return fmt.Errorf("session.create: %v", a.Error)
	}
	p.conns[dataConn].Session = gjson.ParseBytes(a.Result)
	p.data.c = c
	if !p.data.laidOut {
		// The engine has no membership gate: every file of the
		// workspace is the session's, as a pick of them all makes it.
		a, err = c.Call(ctx, "session.constrain", map[string]any{"effect": "pick", "pattern": "**"})
		if err != nil {
			return fmt.Errorf("session.constrain: %w", err)
		}
		if a.Error != nil {
			p.logf("plurnk process: session.constrain pick **: %v (taken as a daemon without membership)", a.Error)
		}
	}
	given := p.data.given
	p.data.given = nil
	for _, f := range given {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// heard are the notifications the data plane's connection heard once the
// daemon is quiet.
func (p *Process) heard(ctx context.Context) ([]rpc.Note, error) {
	if err := p.connect(); err != nil {
		return nil, err
	}
	p.Settle()
	return p.conns[dataConn].Barrier(ctx)
}

// modelRunID is the id of the data plane's session's model run.
func (p *Process) modelRunID() int64 { return p.conns[dataConn].Session.Get("modelRunId").Int() }

// call makes one call on the data plane's connection; an error answer is
// an error.
func (p *Process) call(method string, params any) (json.RawMessage, error) {
	return p.callOn(nil, method, params)
}

// callOn is call on the connection c (nil: the data plane's).
func (p *Process) callOn(c *rpc.Client, method string, params any) (json.RawMessage, error) {
	if err := p.connect(); err != nil {
		return nil, err
	}
	if c == nil {
		c = p.data.c
	}
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	a, err := c.Call(ctx, method, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if a.Error != nil {
		return nil, fmt.Errorf("%s: the daemon answered the error %v", method, a.Error)
	}
	p.conns.NoteModelRun(p.conns[dataConn], a.Result)
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
func (p *Process) opParams(st dsl.Statement) (map[string]any, error) {
	if !mirrored[st.Op] {
		return nil, p.skip("the op.* mirror offers no %s", st.Op)
	}
	if st.Suffix != "" {
		return nil, p.skip("the op.* mirror writes the close tag :%s, not the suffixed :%s%s", st.Op, st.Op, st.Suffix)
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

// op dispatches st through its op.* method on the connection c (nil: the
// data plane's) and makes the answer a result: status, target, content
// and reason from the answer, the mimetype from its last log row, the
// items of a READ that fans out from its rows, and the entry the op left
// at its target from entry.read.
func (p *Process) op(c *rpc.Client, st dsl.Statement) (ops.Result, error) {
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
	p.entryOf(&res)
	return res, nil
}

// entryOf sets the id of the entry a result that succeeded left at its
// target.
func (p *Process) entryOf(res *ops.Result) {
	if res.Status < 400 && res.Target != "" {
		if e, err := p.Entry(res.Target); err == nil && e != nil {
			res.EntryID = e.ID
		}
	}
}

func (p *Process) Workspace() afero.Fs { return p.fs }

// Client writes what the scenario gives through the op.* mirror; before
// the daemon has started, when it starts (checked then).
func (p *Process) Client(st dsl.Statement) (ops.Result, error) {
	if p.data.c == nil {
		p.data.given = append(p.data.given, func() error {
			res, err := p.op(nil, st)
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
	return p.op(nil, st)
}

// Do has the statement dispatched as one turn of the connection's client
// loop: the op.* mirror offers no model turn, so the writer is the client.
// A statement only the model may write is a turn of the scripted model.
func (p *Process) Do(run string, _, _ int, st dsl.Statement) (ops.Result, error) {
	var c *rpc.Client
	if run != "model" {
		dc, ok := p.conns[run]
		if !ok {
			return ops.Result{}, fmt.Errorf("no run %q in the session", run)
		}
		c = dc.C
	}
	if why := asModel(st); why != "" {
		if run != "model" {
			return ops.Result{}, p.skip("%s, and only the model run's emissions are the scripted model's turns", why)
		}
		return p.modelTurn(st)
	}
	if st.Body != nil && len(*st.Body) > maxFrameBody {
		return ops.Result{}, p.skip("a body of %d bytes is more than one JSON-RPC frame of the protocol carries (%d)", len(*st.Body), maxFrameBody)
	}
	return p.op(c, st)
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

// modelTurn has the scripted model emit st as the one action of a loop of
// one turn (loop.run) of the model run, and answers its result from the
// rows of that turn but its last, the terminal SEND.
func (p *Process) modelTurn(st dsl.Statement) (ops.Result, error) {
	if st.Body != nil && len(*st.Body) > maxFrameBody {
		return ops.Result{}, p.skip("a body of %d bytes is more than the scripted model's turn carries here (%d)", len(*st.Body), maxFrameBody)
	}
	p.script.Model.Add(llm.Reply{Content: "<<PLAN:act:PLAN\n" + dsl.Format(st) + "\n<<SEND[200]:done:SEND\n"})
	res, err := p.Loop(context.Background(), "act", 1)
	if err != nil {
		return ops.Result{}, err
	}
	rows, err := p.RunLog("")
	if err != nil {
		return ops.Result{}, err
	}
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
		if r.Loop == last && r.Turn == 1 && r.Seq != end && r.Op == string(st.Op) {
			out.Rows = append(out.Rows, r)
		}
	}
	if len(out.Rows) == 0 {
		return ops.Result{}, fmt.Errorf("the model's turn (loop ended %d, %s) left no %s row in the model run's log: %+v", res.Status, res.Reason, st.Op, rows)
	}
	out.Row = out.Rows[len(out.Rows)-1]
	r := out.Row
	out.Status, out.Target, out.Content, out.Reason, out.Mimetype = r.Status, r.Target, r.Content, r.Reason, r.Mimetype
	p.entryOf(&out)
	return out, nil
}

// Entry reads the entry with entry.read: 404 is no entry, another status
// an error.
func (p *Process) Entry(t string) (*store.Entry, error) {
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

// Configure refuses what the daemon would have read when it started.
func (p *Process) Configure(what string) error {
	if p.Started() {
		return p.skip("%s is set after the daemon started, and a daemon process reads it once, when it starts", what)
	}
	return nil
}

// SetEnv is the operator's variable, which the daemon reads when it
// starts.
func (p *Process) SetEnv(k, v string) error {
	if err := p.Configure(k); err != nil {
		return err
	}
	p.setup.Env[k] = v
	return nil
}

// AddRun gives the session a second run: a second connection attached to
// the session with that run's name (session.attach runName), whose client
// run the run's emissions go through.
func (p *Process) AddRun(name string) error {
	c, err := p.dial(name)
	if err != nil {
		return err
	}
	_, err = p.callOn(c, "session.attach", map[string]any{"id": p.conns[dataConn].Session.Get("id").Int(), "runName": name})
	return err
}

// OtherSession is a second connection's session, whose client writes t
// with op.edit.
func (p *Process) OtherSession(t, body string) error {
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

// dial opens another connection to the daemon, known to the scenario as
// name.
func (p *Process) dial(name string) (*rpc.Client, error) {
	if err := p.connect(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	c, err := rpc.Dial(ctx, p.url)
	if err != nil {
		return nil, err
	}
	p.conns[name] = &Conn{C: c}
	return c, nil
}

// assembledReply is the scripted model's answer to the turn that has the
// packet assembled: it ends the loop at once.
const assembledReply = "<<PLAN:the packet is assembled:PLAN\n<<SEND[200]:assembled:SEND\n"

// Assemble runs a loop of one turn on the model run (loop.run): the
// daemon assembles the turn's packet, which runs its derivation pass, and
// the scripted model ends the loop.
func (p *Process) Assemble(ctx context.Context) error {
	p.script.Model.Add(llm.Reply{Content: assembledReply})
	res, err := p.Loop(ctx, "assemble the packet", 1)
	if err != nil {
		return err
	}
	if len(res.Turns) != 1 || res.Status != 200 {
		return fmt.Errorf("the loop that assembles the packet: %d turns, status %d (%s)", len(res.Turns), res.Status, res.Reason)
	}
	return nil
}

// Loop runs loop.run on the model run and waits until the daemon is
// quiet; the loop's end is its loop/terminated notification (or
// loop/quiesced for a parked loop), its stored status the model run's in
// session.runs, and its packets the requests the scripted model received
// meanwhile, read back into their sections by their headers.
func (p *Process) Loop(ctx context.Context, prompt string, maxTurns int) (engine.Result, error) {
	params := map[string]any{"prompt": prompt}
	if maxTurns > 0 {
		params["maxTurns"] = maxTurns
	}
	if err := p.connect(); err != nil {
		return engine.Result{}, err
	}
	from := len(p.script.Model.Requests)
	raw, err := p.call("loop.run", params)
	if err != nil {
		return engine.Result{}, err
	}
	id := gjson.GetBytes(raw, "loopId").Int()
	res, turns, err := p.loopEnd(ctx, id)
	if err != nil {
		return engine.Result{}, err
	}
	if res.Status == 0 {
		return engine.Result{}, fmt.Errorf("loop %d (loop.run answered %s) neither ended nor parked", id, raw)
	}
	if res.Loop, err = p.storedLoop(id); err != nil {
		return engine.Result{}, err
	}
	// The turns the daemon reported, the packets the model received
	// riding the first of them (a parked loop reports none: one turn per
	// packet).
	reqs := p.script.Model.Requests[from:]
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

// loopEnd reads how the loop id ended from the data plane's
// notifications: its status, reason and meta, and the turns
// loop/terminated reports (-1 for a parked loop).
func (p *Process) loopEnd(ctx context.Context, id int64) (engine.Result, int, error) {
	notes, err := p.heard(ctx)
	if err != nil {
		return engine.Result{}, 0, err
	}
	res := engine.Result{Status: 0}
	turns := -1
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
	return res, turns, nil
}

// storedLoop is the loop id with the model run's status in session.runs.
func (p *Process) storedLoop(id int64) (*store.Loop, error) {
	runs, err := p.call("session.runs", nil)
	if err != nil {
		return nil, err
	}
	model := p.modelRunID()
	for _, r := range gjson.GetBytes(runs, "runs").Array() {
		if r.Get("id").Int() == model {
			return &store.Loop{ID: id, Status: int(r.Get("status").Int())}, nil
		}
	}
	return nil, fmt.Errorf("session.runs lists no model run %d: %s", model, runs)
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

// Log reads the log of the session's run named run with log.read.
func (p *Process) Log(run string) ([]*store.LogRow, error) {
	if err := p.connect(); err != nil {
		return nil, err
	}
	r, err := p.runNamed(run)
	if err != nil {
		return nil, err
	}
	return p.readLog(r.Get("id").Int())
}

// readLog reads the log of the run with id runID with log.read.
func (p *Process) readLog(runID int64) ([]*store.LogRow, error) {
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

// RowTokens reads the model run's row at coord (L/T/S) with log.read and
// answers the tokens stored for it.
func (p *Process) RowTokens(_ context.Context, coord string) (int, bool, error) {
	var l, t, s int
	if _, err := fmt.Sscanf(coord, "%d/%d/%d", &l, &t, &s); err != nil {
		return 0, false, fmt.Errorf("row log:///%s: want L/T/S", coord)
	}
	if err := p.connect(); err != nil {
		return 0, false, err
	}
	raw, err := p.call("log.read", map[string]any{"runId": p.modelRunID(), "loopSeq": l, "turnSeq": t, "sequence": s})
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

// The membership through a daemon process: the project is its root on
// disk, the membership the daemon's own.

// Project writes the project's files into the daemon's root and, with
// git, makes it a repository tracking the rows marked yes, before the
// daemon starts.
func (p *Process) Project(_ context.Context, tbl *godog.Table, withGit bool) error {
	if p.Started() {
		return p.skip("the project is laid out after the daemon started")
	}
	tracked, err := layFiles(p.root, tbl)
	if err != nil {
		return err
	}
	if withGit {
		if err := p.gitInit(tracked); err != nil {
			return err
		}
		p.gitDone = true
	}
	p.data.laidOut, p.data.projectDir = true, p.root
	return nil
}

// Forest writes the repositories into the daemon's root before it starts.
func (p *Process) Forest(_ context.Context, tbl *godog.Table) error {
	if p.Started() {
		return p.skip("the project is laid out after the daemon started")
	}
	if err := writeForest(p.root, harnessGitEnv(), tbl); err != nil {
		return err
	}
	p.gitDone, p.data.laidOut, p.data.projectDir = true, true, p.root
	return nil
}

func (p *Process) ProjectDir() (string, error) {
	if p.data.projectDir == "" {
		return "", fmt.Errorf("the scenario has no project directory")
	}
	return p.data.projectDir, nil
}

// Constrain is session.constrain on the connection of run (the data
// plane's for the session's own and the model's); before the daemon has
// started, when it starts.
func (p *Process) Constrain(_ context.Context, run string, effect membership.Effect, pattern string) error {
	f := func() error {
		c, err := p.connOf(run)
		if err != nil {
			return err
		}
		_, err = p.callOn(c, "session.constrain", map[string]any{"effect": string(effect), "pattern": pattern})
		return err
	}
	if p.data.c == nil {
		p.data.given = append(p.data.given, f)
		return nil
	}
	return f()
}

// connOf is the connection that stands for who: "" and "model" the data
// plane's (nil), another run or the second session its own.
func (p *Process) connOf(who string) (*rpc.Client, error) {
	if who == "" || who == "model" {
		return nil, nil
	}
	c, ok := p.conns[who]
	if !ok {
		return nil, fmt.Errorf("no run or session %q", who)
	}
	return c.C, nil
}

// Members is session.members on the connection that stands for who.
func (p *Process) Members(_ context.Context, who string) (membership.Set, error) {
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

// OpenSecondSession is a second connection's session.create.
func (p *Process) OpenSecondSession(context.Context) error {
	c, err := p.dial(SecondSession)
	if err != nil {
		return err
	}
	_, err = p.callOn(c, "session.create", map[string]any{"name": SecondSession})
	return err
}

// GitFlags are the operator's variables the daemon reads when it starts:
// a daemon already running is stopped and started again with them (the
// service now runs with them), and the data plane opens a new session.
func (p *Process) GitFlags(_ context.Context, allowed, auto string) error {
	p.setup.Env["PLURNK_GIT_ALLOWED"], p.setup.Env["PLURNK_GIT_AUTO"] = allowed, auto
	return p.restartWithEnv()
}

// GitEnviron sets key to value in the daemon's environment, as GitFlags
// sets the operator's variables.
func (p *Process) GitEnviron(_ context.Context, key, value string) error {
	p.setup.Env[key] = value
	return p.restartWithEnv()
}

// GitMissing: the daemon finds git on the PATH the harness gives it.
func (p *Process) GitMissing(context.Context) error {
	return p.skip("the daemon process finds git on its PATH")
}

// restartWithEnv has a daemon already running stopped and started again
// with the environment set up now, and the data plane open a new session.
func (p *Process) restartWithEnv() error {
	if !p.Started() {
		return nil
	}
	if err := p.Restart(true); err != nil {
		return err
	}
	for name := range p.conns {
		delete(p.conns, name)
	}
	p.data.c = nil
	return p.connect()
}
