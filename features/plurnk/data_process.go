package plurnk

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/rpc"
	"anchorage/impl/plurnk/store"

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
	// Whens.
	`^the model emits (<<.+)$`,
	`^the model emits:$`,
	`^the model emits an EDIT of (\S+) with a body of (\d+) characters$`,
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
)

func regexpList(exprs ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		out[i] = regexp.MustCompile(e)
	}
	return out
}

// libraryStep returns the first step of the scenario that only the
// engine as a library can take, or "" when the daemon's public surface
// expresses every step.
func libraryStep(sc *godog.Scenario) string {
	for _, st := range sc.Steps {
		ok := false
		for _, re := range dataSteps {
			if re.MatchString(st.Text) {
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
	a, err := c.Call(ctx, "session.create", map[string]any{"name": "data plane"})
	if err != nil {
		return fmt.Errorf("session.create: %w", err)
	}
	if a.Error != nil {
		return fmt.Errorf("session.create: %v", a.Error)
	}
	p.d.conns[dataConn].session = gjson.ParseBytes(a.Result)
	p.c = c
	// The engine has no membership gate: every file of the workspace is
	// the session's, as a pick of them all makes it.
	a, err = c.Call(ctx, "session.constrain", map[string]any{"effect": "pick", "pattern": "**"})
	if err != nil {
		return fmt.Errorf("session.constrain: %w", err)
	}
	if a.Error != nil {
		p.d.proc.logf("plurnk process: session.constrain pick **: %v (taken as a daemon without membership)", a.Error)
	}
	return nil
}

// call makes one call on the data plane's connection; an error answer is
// an error.
func (p *daemonData) call(method string, params any) (json.RawMessage, error) {
	if err := p.connect(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	a, err := p.c.Call(ctx, method, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if a.Error != nil {
		return nil, fmt.Errorf("%s: the daemon answered the error %v", method, a.Error)
	}
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
func (p *daemonData) op(st dsl.Statement) (ops.Result, error) {
	params, err := p.opParams(st)
	if err != nil {
		return ops.Result{}, err
	}
	raw, err := p.call("op."+strings.ToLower(string(st.Op)), params)
	if err != nil {
		return ops.Result{}, err
	}
	var a opAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return ops.Result{}, fmt.Errorf("op.%s answered %s: %w", strings.ToLower(string(st.Op)), raw, err)
	}
	res := ops.Result{Status: a.Status, Target: a.Target, Content: a.Content, Reason: a.Reason}
	if n := len(a.Entries); n > 0 {
		res.Mimetype = a.Entries[n-1].Mimetype
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

func (p *daemonData) client(st dsl.Statement) (ops.Result, error) { return p.op(st) }

// do has the statement dispatched as one turn of the connection's client
// loop: the op.* mirror offers no model turn, so the writer is the client.
func (p *daemonData) do(run string, st dsl.Statement) (ops.Result, error) {
	if run != "model" {
		return ops.Result{}, p.d.proc.skip("run %q emits: the op.* mirror dispatches on the connection's own client run only", run)
	}
	if st.Target != nil && st.Op != dsl.OpRead && st.Op != dsl.OpFind {
		for _, s := range []string{st.Target.Scheme, destScheme(st)} {
			if s == "plurnk" || s == "skill" {
				return ops.Result{}, p.d.proc.skip("%s:// is writable by a client and not by the model, and the op.* mirror writes as the client", s)
			}
		}
	}
	if st.Body != nil && len(*st.Body) > maxFrameBody {
		return ops.Result{}, p.d.proc.skip("a body of %d bytes is more than one JSON-RPC frame of the protocol carries (%d)", len(*st.Body), maxFrameBody)
	}
	return p.op(st)
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
