package plurnk

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/rpc"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/plurnk/telemetry"
	"anchorage/sim/clock"
	"anchorage/sim/llm"
	"anchorage/sim/vfs"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
	"github.com/tidwall/gjson"
)

// callTimeout bounds every wait on the loopback socket.
const callTimeout = 5 * time.Second

// daemonWorld is one scenario's daemon: the runs-service backend on a
// simulated clock with the scripted model (one script per run when the
// scenario gives one, else the shared one) and simulated executors, served
// on a real loopback WebSocket, and the named client connections.
type daemonWorld struct {
	clk    *clock.Sim
	model  *llm.Mock
	router *daemonRouter
	// mainRun names the run a session of runs starts, the model run of
	// a daemon process; every other run answers from its own script.
	mainRun string
	ask     bool // host commands wait for loop.resolve
	scripts map[string]exec.Script
	backend *rpc.Orchestrator
	srv     *httptest.Server
	url     string
	conns   map[string]*daemonConn

	env     map[string]string    // the operator's variables
	http    bool                 // the model is reached over the OpenAI-compatible protocol
	stream  bool                 // … streaming
	company bool                 // the model server waits for overlapping calls
	llmSrv  *llm.Server          // the loopback model server, when http
	llmHS   *httptest.Server     // its listener
	models  map[string]*llm.Mock // the models of PLURNK_MODEL_<alias>=mock/<id>, by id
	bootErr error                // why the daemon refused to start
	fs      afero.Fs             // the workspace and the operator's files
	members bool                 // the daemon keeps a membership (no git: picks only)
	git     membership.Git       // the daemon's git, when its workspace is a repository
	// selector: the model is chosen by the operator's aliases alone, as
	// plurnkd chooses it (no alias declared: no model).
	selector bool
	// hold, when set, holds an EXEC dispatch while its stream registers
	// until it is closed (the runs service's Registering seam).
	hold   chan struct{}
	held   chan struct{} // signalled when a dispatch is being held
	logged []string      // what the server only logged
	// stateFS and stateDir keep the daemon's state across a restart
	// (stateFS a memfs with failpoints).
	stateFS  *vfs.Faulty
	stateDir string
	mu       sync.Mutex // guards hold, held and logged
	sh       *exec.SimExecutor
	proc     *daemonProcess    // the daemon is a process ($PLURNK_CMD), else embedded
	extra    []string          // runtimes of further executors the host offers
	noExec   bool              // the host offers no executor at all, not even sh
	noted    map[string]string // answer values a scenario noted, by "who path"
}

type daemonConn struct {
	c       *rpc.Client
	session gjson.Result // the session.create / session.attach answer
	answer  rpc.Answer   // the last answer
	loop    gjson.Result // the last loop.run answer
	// during is the answer of a call made while the model generated,
	// taken as the last answer once the daemon has settled.
	during       *rpc.Answer
	duringMethod string
	// held receives the answer of a call held in the daemon.
	held chan rpc.Answer
}

type daemonKey struct{}

func getDaemon(ctx context.Context) *daemonWorld {
	if d, ok := ctx.Value(daemonKey{}).(*daemonWorld); ok {
		return d
	}
	return nil
}

// registerDaemonSteps registers the steps of the daemon features: JSON-RPC
// methods and notifications over a loopback WebSocket.
func registerDaemonSteps(sc kit.Steps) {
	sc.Before(func(ctx context.Context, sc *godog.Scenario) (context.Context, error) {
		d := &daemonWorld{clk: clock.NewSim(time.Time{}), model: &llm.Mock{}, router: &daemonRouter{byRun: map[string]*llm.Mock{}}, scripts: map[string]exec.Script{}, conns: map[string]*daemonConn{},
			env: map[string]string{}, models: map[string]*llm.Mock{}, fs: afero.NewMemMapFs()}
		ctx = context.WithValue(ctx, daemonKey{}, d)
		proc, err := processDriver(ctx, d, sc)
		d.proc = proc
		if w, ok := ctx.Value(worldKey{}).(*world); ok && proc != nil && proc.data {
			// The data-plane and loop steps reach this daemon: the
			// scripted model and the operator's environment are the
			// daemon's, the workspace its root on disk.
			dd := &daemonData{d: d, execPlan: planExecs(sc)}
			for _, st := range sc.Steps {
				dd.stepText = append(dd.stepText, st.Text)
			}
			w.drv, w.fs = dd, d.fs
			if ew, ok := ctx.Value(engineKey{}).(*engineWorld); ok {
				for k, v := range ew.env {
					d.env[k] = v
				}
				ew.llm, ew.env = d.model, d.env
			}
			if rw, ok := ctx.Value(runKey{}).(*runWorld); ok {
				dd.rw, rw.drv = rw, daemonRuns{dd}
				dd.run, _ = oneRun(sc)
				d.mainRun = dd.run
				d.ask = asks(sc)
			}
		}
		return ctx, err
	})
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		if d := getDaemon(ctx); d != nil {
			if err != nil && d.proc != nil {
				d.proc.logf("the daemon's console:\n%s", d.proc.console())
			}
			d.close()
		}
		return ctx, err
	})

	sc.Step(`^the daemon's model will reply:$`, func(ctx context.Context, doc *godog.DocString) error {
		getDaemon(ctx).model.Add(llm.Reply{Content: doc.Content})
		return nil
	})
	sc.Step(`^the daemon's model will reply with meta (\{.*\}):$`, func(ctx context.Context, meta string, doc *godog.DocString) error {
		if err := getDaemon(ctx).internal("a reply's provider meta (the chat-completions protocol carries none)"); err != nil {
			return err
		}
		getDaemon(ctx).model.Add(llm.Reply{Content: doc.Content, Meta: json.RawMessage(meta)})
		return nil
	})
	sc.Step(`^the daemon's run "([^"]*)" will reply:$`, func(ctx context.Context, run string, doc *godog.DocString) error {
		// A daemon process's model server tells the runs apart by the
		// X-Plurnk-Run header of their requests.
		getDaemon(ctx).router.add(run, llm.Reply{Content: doc.Content})
		return nil
	})
	sc.Step(`^the daemon asks before host commands$`, func(ctx context.Context) error {
		d := getDaemon(ctx)
		if d.started() {
			return fmt.Errorf("the daemon has started already")
		}
		d.ask = true
		return nil
	})
	sc.Step(`^the daemon's simulated command "([^"]*)" prints:$`, daemonScriptPrints)
	sc.Step(`^the daemon's simulated command "([^"]*)" exits with code (\d+) after (\d+) ms$`, func(ctx context.Context, name string, code, ms int) error {
		d := getDaemon(ctx)
		s := d.scripts[name]
		s.Code, s.ExitAt = code, time.Duration(ms)*time.Millisecond
		return d.setScript(name, s)
	})
	sc.Step(`^the daemon's simulated command "([^"]*)" cannot be spawned$`, func(ctx context.Context, name string) error {
		// The simulated executor fails to start a command it has no
		// script for.
		if err := getDaemon(ctx).internal("a command that cannot be spawned"); err != nil {
			return err
		}
		delete(getDaemon(ctx).scripts, name)
		return nil
	})
	sc.Step(`^a connection "(\w+)" to the daemon$`, daemonConnect)
	sc.Step(`^"(\w+)" creates a session named "([^"]*)"$`, func(ctx context.Context, who, name string) error {
		return daemonSession(ctx, who, "session.create", map[string]any{"name": name})
	})
	sc.Step(`^"(\w+)" attaches to the session of "(\w+)"$`, func(ctx context.Context, who, other string) error {
		d := getDaemon(ctx)
		o, ok := d.conns[other]
		if !ok {
			return fmt.Errorf("no connection %q", other)
		}
		return daemonSession(ctx, who, "session.attach", map[string]any{"id": o.session.Get("id").Int()})
	})
	sc.Step(`^"(\w+)" runs a loop with the prompt "([^"]*)"$`, func(ctx context.Context, who, prompt string) error {
		return daemonRunLoop(ctx, who, fmt.Sprintf(`{"prompt": %q}`, prompt))
	})
	sc.Step(`^"(\w+)" runs a loop with (\{.*\})$`, daemonRunLoop)
	sc.Step(`^the loop "(\w+)" started (?:ended|ends) with status (\d+)$`, daemonLoopEnded)
	sc.Step(`^the loop "(\w+)" started is parked at 202$`, func(ctx context.Context, who string) error {
		return daemonLoopAt(ctx, who, 202)
	})
	sc.Step(`^the loop "(\w+)" started is still running$`, func(ctx context.Context, who string) error {
		return daemonLoopAt(ctx, who, 102)
	})
	registerControlSteps(sc)
	registerRestartSteps(sc)
	sc.Step(`^"(\w+)" calls ([\w./]+)$`, func(ctx context.Context, who, method string) error {
		return daemonCall(ctx, who, method, "")
	})
	sc.Step(`^"(\w+)" calls ([\w./]+) with (\{.*\})$`, daemonCall)
	sc.Step(`^"(\w+)" sends the frame (.+)$`, daemonSendFrame)
	sc.Step(`^(\d+) ms pass for the daemon's running commands$`, func(ctx context.Context, ms int) error {
		d := getDaemon(ctx)
		if err := d.passCommands(ms); err != nil {
			return err
		}
		// A call made while the model generated a resumed turn is
		// handed over once the daemon has settled, as in daemonRunLoop.
		for _, c := range d.conns {
			if c.during != nil && c.duringMethod != "loop.run" {
				c.answer = *c.during
				c.during = nil
			}
		}
		return nil
	})
	sc.Step(`^"(\w+)" calls ([\w./]+) for run "([^"]*)" with (\{.*\})$`, daemonCallForRun)
	sc.Step(`^"(\w+)" (accepts|rejects|cancels) the proposal it was notified of$`, daemonResolveNoted)
	sc.Step(`^"(\w+)" got a "([^"]+)" notification for run "([^"]*)" with (\S+) = (.+?)$`, daemonNoteForRun)
	sc.Step(`^"(\w+)" got "log/entry" notifications for run "([^"]*)"$`, func(ctx context.Context, who, run string) error {
		return daemonNoteForRun(ctx, who, "log/entry", run, "", "")
	})

	sc.Step(`^the answer to "(\w+)" has (\S+) = (.+?)$`, daemonAnswerHas)
	sc.Step(`^I note the answer to "(\w+)"'s (\S+)$`, func(ctx context.Context, who, path string) error {
		d := getDaemon(ctx)
		got, err := d.answerValue(who, path)
		if err != nil {
			return err
		}
		if d.noted == nil {
			d.noted = map[string]string{}
		}
		d.noted[who+" "+path] = got
		return nil
	})
	sc.Step(`^the answer to "(\w+)" has (\S+) as noted$`, func(ctx context.Context, who, path string) error {
		d := getDaemon(ctx)
		got, err := d.answerValue(who, path)
		if err != nil {
			return err
		}
		if want, ok := d.noted[who+" "+path]; !ok || got != want {
			return fmt.Errorf("answer %s is %s, noted %s", path, got, want)
		}
		return nil
	})
	sc.Step(`^the answer to "(\w+)" has (\S+) later than the noted (\S+)$`, func(ctx context.Context, who, path, notedPath string) error {
		d := getDaemon(ctx)
		got, err := d.answerValue(who, path)
		if err != nil {
			return err
		}
		want, ok := d.noted[who+" "+notedPath]
		if !ok {
			return fmt.Errorf("no %s of %q was noted", notedPath, who)
		}
		t1, err1 := time.Parse(time.RFC3339Nano, strings.Trim(want, `"`))
		t2, err2 := time.Parse(time.RFC3339Nano, strings.Trim(got, `"`))
		if err1 != nil || err2 != nil || !t2.After(t1) {
			return fmt.Errorf("answer %s is %s, not later than the noted %s %s", path, got, notedPath, want)
		}
		return nil
	})
	sc.Step(`^the answer to "(\w+)" is the error (-?\d+)$`, daemonAnswerError)
	sc.Step(`^the answer to "(\w+)" holds (\d+) log entr(?:y|ies)$`, daemonAnswerEntries)
	sc.Step(`^the entry in the answer to "(\w+)" has (\S+) = (.+?)$`, func(ctx context.Context, who, path, want string) error {
		return daemonAnswerHas(ctx, who, "entries.0."+path, want)
	})
	sc.Step(`^"(\w+)" got (\d+) "([^"]+)" notifications?$`, daemonNoteCount)
	sc.Step(`^"(\w+)" got no "([^"]+)" notification$`, func(ctx context.Context, who, method string) error {
		return daemonNoteCount(ctx, who, 0, method)
	})
	sc.Step(`^"(\w+)" got a "([^"]+)" notification with (\S+) = (.+?)$`, daemonNoteWith)
	sc.Step(`^the "log/entry" notifications "(\w+)" got are the rows log\.read answers, in order$`, daemonLogMatchesNotes)
	sc.Step(`^every log entry "(\w+)" has seen carries (.+?)$`, daemonEntriesCarry)
	sc.Step(`^"(\w+)" got these "stream/event" notifications:$`, daemonStreamEvents)
	sc.Step(`^each "telemetry/event" "(\w+)" got is a line of the daemon's next packet$`, daemonTelemetryInPacket)
}

func (d *daemonWorld) close() {
	for _, c := range d.conns {
		c.c.Close()
	}
	if d.srv != nil {
		d.srv.Close()
	}
	if d.llmHS != nil {
		d.llmHS.Close()
	}
	if d.proc != nil {
		d.proc.close()
	}
}

// boot starts the backend and the loopback server on first use.
func (d *daemonWorld) boot() error {
	if d.started() {
		return nil
	}
	if d.proc != nil {
		return d.proc.boot(d)
	}
	sh := &exec.SimExecutor{Name: "sh", Eff: exec.EffectHost, Avail: exec.Probe{Available: true, Detail: "simulated sh"}, Clock: d.clk, Scripts: d.scripts}
	d.router.fallback = d.model
	var prov provider.Provider = d.router
	var aliases func(string) bool
	providers := []string{"mock"}
	factories := map[string]provider.Factory{"mock": func(id string) (provider.Provider, error) {
		return d.modelFor(id), nil
	}}
	if d.http {
		d.llmSrv = llm.NewServer(d.model)
		d.llmSrv.HonourGrammar = d.model.HonourGrammar
		if d.company {
			d.llmSrv.Company = 200 * time.Millisecond
		}
		d.llmHS = d.llmSrv.Start()
		prov = &provider.OpenAI{BaseURL: d.llmHS.URL + "/v1", Model: "scripted", Stream: d.stream}
		if d.env[provider.EnvOpenAIBaseURL] == "" {
			d.env[provider.EnvOpenAIBaseURL] = d.llmHS.URL + "/v1"
		}
		factories["openai"] = provider.OpenAIFactory(d.env)
	}
	if as, perr := provider.ParseAliases(d.env); perr != nil || len(as) > 0 || d.selector {
		sel, err := provider.NewSelector(d.env, factories)
		if err != nil {
			d.bootErr = err
			return err
		}
		prov, aliases, providers = sel, sel.Has, sel.Packages()
	}
	executors := []exec.Executor{sh}
	if d.noExec {
		executors = nil
	}
	for _, name := range d.extra {
		executors = append(executors, &exec.SimExecutor{Name: name, Eff: exec.EffectPure, Avail: exec.Probe{Available: true, Detail: "simulated " + name}, Clock: d.clk, Scripts: d.scripts})
	}
	varied, err := worldVary() // ANCHORAGE_VARY
	if err != nil {
		d.bootErr = err
		return err
	}
	b, err := rpc.NewOrchestrator(rpc.OrchestratorConfig{Vary: varied, Clock: d.clk, FS: d.fs, Root: workspace, Provider: prov,
		Executors: executors, Yolo: !d.ask, Env: d.env, Aliases: aliases, Providers: providers,
		Registering: d.registering, Members: d.members, Git: d.git, StateFS: d.stateFSOrNil(), StateDir: d.stateDir})
	if err != nil {
		d.bootErr = err
		return err
	}
	d.backend = b
	d.sh = sh
	timeout := time.Duration(0)
	if v := d.env["PLURNK_RPC_TIMEOUT"]; v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("PLURNK_RPC_TIMEOUT=%q: %w", v, err)
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
	d.srv = httptest.NewServer(rpc.NewServerWith(b, rpc.ServerConfig{Vary: varied, Clock: d.clk, Timeout: timeout, Logf: d.logf}))
	d.url = "ws" + strings.TrimPrefix(d.srv.URL, "http")
	return nil
}

func daemonScriptPrints(ctx context.Context, name string, table *godog.Table) error {
	d := getDaemon(ctx)
	s := d.scripts[name]
	for _, row := range table.Rows[1:] {
		ms, err := strconv.Atoi(row.Cells[0].Value)
		if err != nil {
			return fmt.Errorf("after ms %q: %w", row.Cells[0].Value, err)
		}
		s.Chunks = append(s.Chunks, exec.ScriptChunk{At: time.Duration(ms) * time.Millisecond, Channel: row.Cells[1].Value, Data: unescape(row.Cells[2].Value)})
	}
	return d.setScript(name, s)
}

func daemonConnect(ctx context.Context, who string) error {
	d := getDaemon(ctx)
	if err := d.boot(); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, err := rpc.Dial(cctx, d.url)
	if err != nil {
		return err
	}
	d.conns[who] = &daemonConn{c: c}
	return nil
}

func (d *daemonWorld) conn(who string) (*daemonConn, error) {
	c, ok := d.conns[who]
	if !ok {
		return nil, fmt.Errorf("no connection %q", who)
	}
	return c, nil
}

func daemonSession(ctx context.Context, who, method string, params map[string]any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := daemonCall(ctx, who, method, string(b)); err != nil {
		return err
	}
	c := getDaemon(ctx).conns[who]
	if c.answer.Error != nil {
		return fmt.Errorf("%s: %v", method, c.answer.Error)
	}
	c.session = gjson.ParseBytes(c.answer.Result)
	return nil
}

// expand replaces each <conn.field> in s with that field of the
// connection's session answer, and each <conn.loop.field> with that field
// of its last loop.run answer.
func (d *daemonWorld) expand(s string) (string, error) {
	placeholder := regexp.MustCompile(`<(\w+)\.(loop\.)?(\w+)>`)
	var err error
	out := placeholder.ReplaceAllStringFunc(s, func(m string) string {
		p := placeholder.FindStringSubmatch(m)
		c, ok := d.conns[p[1]]
		src := c.session
		if ok && p[2] != "" {
			src = c.loop
		}
		if !ok || !src.Get(p[3]).Exists() {
			err = fmt.Errorf("placeholder %s: no such field", m)
			return m
		}
		return src.Get(p[3]).Raw
	})
	return out, err
}

func daemonCall(ctx context.Context, who, method, params string) error {
	d := getDaemon(ctx)
	c, err := d.conn(who)
	if err != nil {
		return err
	}
	var p any
	if params != "" {
		params, err = d.expand(params)
		if err != nil {
			return err
		}
		p = json.RawMessage(params)
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	a, err := c.c.Call(cctx, method, p)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	c.answer = a
	d.noteModelRun(c, a.Result)
	return nil
}

func daemonSendFrame(ctx context.Context, who, frame string) error {
	d := getDaemon(ctx)
	c, err := d.conn(who)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var a rpc.Answer
	if id := gjson.Get(frame, "id"); gjson.Valid(frame) && id.Exists() && id.Type != gjson.Null {
		a, err = c.c.SendFor(cctx, []byte(frame), id.Raw)
	} else {
		a, err = c.c.Send(cctx, []byte(frame), true)
	}
	if err != nil {
		return err
	}
	c.answer = a
	return nil
}

// sameJSON compares two JSON texts as values.
func sameJSON(got, want string) error {
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		return fmt.Errorf("got %q is not JSON", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		return fmt.Errorf("want %q is not JSON", want)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		return fmt.Errorf("(-want +got):\n%s", diff)
	}
	return nil
}

// answerValue is the raw JSON at path in the last answer to who.
func (d *daemonWorld) answerValue(who, path string) (string, error) {
	c, err := d.conn(who)
	if err != nil {
		return "", err
	}
	if c.answer.Error != nil {
		return "", fmt.Errorf("the answer is an error: %s", c.answer.Raw)
	}
	got := gjson.GetBytes(c.answer.Result, path)
	if !got.Exists() {
		return "", fmt.Errorf("the answer has no %s: %s", path, c.answer.Result)
	}
	return got.Raw, nil
}

func daemonAnswerHas(ctx context.Context, who, path, want string) error {
	d := getDaemon(ctx)
	got, err := d.answerValue(who, path)
	if err != nil {
		return err
	}
	if want, err = d.expand(want); err != nil {
		return err
	}
	if err := sameJSON(got, want); err != nil {
		return fmt.Errorf("answer %s: %w", path, err)
	}
	return nil
}

func daemonAnswerError(ctx context.Context, who string, code int) error {
	c, err := getDaemon(ctx).conn(who)
	if err != nil {
		return err
	}
	got := gjson.GetBytes(c.answer.Raw, "error.code")
	if !got.Exists() || int(got.Int()) != code {
		return fmt.Errorf("want error %d, got %s", code, c.answer.Raw)
	}
	if gjson.GetBytes(c.answer.Raw, "error.message").String() == "" {
		return fmt.Errorf("error %d has no message: %s", code, c.answer.Raw)
	}
	return nil
}

func daemonAnswerEntries(ctx context.Context, who string, n int) error {
	c, err := getDaemon(ctx).conn(who)
	if err != nil {
		return err
	}
	if c.answer.Error != nil {
		return fmt.Errorf("the answer is an error: %s", c.answer.Raw)
	}
	got := gjson.GetBytes(c.answer.Result, "entries")
	if !got.IsArray() || len(got.Array()) != n {
		return fmt.Errorf("want %d entries, got %s", n, c.answer.Result)
	}
	return nil
}

// settled returns the notifications of who after a round trip on its
// socket, so every notification queued before the step has arrived.
func (d *daemonWorld) settled(ctx context.Context, who string) ([]rpc.Note, error) {
	c, err := d.conn(who)
	if err != nil {
		return nil, err
	}
	d.settle()
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := c.c.SendFor(cctx, []byte(`{"jsonrpc":"2.0","id":"barrier","method":"rpc.barrier"}`), `"barrier"`); err != nil {
		return nil, fmt.Errorf("barrier: %w", err)
	}
	return c.c.Notes(), nil
}

func notesOf(notes []rpc.Note, method string) []rpc.Note {
	var out []rpc.Note
	for _, n := range notes {
		if n.Method == method {
			out = append(out, n)
		}
	}
	return out
}

func daemonNoteCount(ctx context.Context, who string, n int, method string) error {
	notes, err := getDaemon(ctx).settled(ctx, who)
	if err != nil {
		return err
	}
	got := notesOf(notes, method)
	if len(got) != n {
		var raws []string
		for _, g := range got {
			raws = append(raws, string(g.Params))
		}
		return fmt.Errorf("want %d %s notifications, got %d: %s", n, method, len(got), strings.Join(raws, "\n"))
	}
	return nil
}

func daemonNoteWith(ctx context.Context, who, method, path, want string) error {
	d := getDaemon(ctx)
	notes, err := d.settled(ctx, who)
	if err != nil {
		return err
	}
	if want, err = d.expand(want); err != nil {
		return err
	}
	var seen []string
	for _, n := range notesOf(notes, method) {
		got := gjson.GetBytes(n.Params, path)
		if got.Exists() && sameJSON(got.Raw, want) == nil {
			return nil
		}
		seen = append(seen, string(n.Params))
	}
	return fmt.Errorf("no %s notification with %s = %s among:\n%s", method, path, want, strings.Join(seen, "\n"))
}

// daemonLogMatchesNotes reads the connection's run with log.read and
// compares it, entry by entry, with the log/entry notifications received.
func daemonLogMatchesNotes(ctx context.Context, who string) error {
	d := getDaemon(ctx)
	notes, err := d.settled(ctx, who)
	if err != nil {
		return err
	}
	c := d.conns[who]
	if err := daemonCall(ctx, who, "log.read", fmt.Sprintf(`{"runId": %d}`, c.session.Get("modelRunId").Int())); err != nil {
		return err
	}
	if c.answer.Error != nil {
		return fmt.Errorf("log.read: %s", c.answer.Raw)
	}
	var read, heard []any
	for _, e := range gjson.GetBytes(c.answer.Result, "entries").Array() {
		read = append(read, e.Value())
	}
	// The model run's rows, each as last announced (the other runs of the
	// session, the plurnk run's among them, are announced too).
	heard = lastHeard(notesOf(notes, "log/entry"), c.session.Get("modelRunId").Int())
	if len(read) == 0 {
		return fmt.Errorf("log.read answered no entries")
	}
	if diff := cmp.Diff(read, heard); diff != "" {
		return fmt.Errorf("log/entry notifications differ from log.read (-read +heard):\n%s", diff)
	}
	return nil
}

// daemonEntriesCarry checks every LogEntry of the last answer and of the
// log/entry notifications for the listed fields, each a whole number.
func daemonEntriesCarry(ctx context.Context, who, list string) error {
	d := getDaemon(ctx)
	notes, err := d.settled(ctx, who)
	if err != nil {
		return err
	}
	var entries []gjson.Result
	for _, n := range notesOf(notes, "log/entry") {
		entries = append(entries, gjson.GetBytes(n.Params, "entry"))
	}
	entries = append(entries, gjson.GetBytes(d.conns[who].answer.Result, "entries").Array()...)
	if len(entries) == 0 {
		return fmt.Errorf("no log entry seen")
	}
	fields := strings.FieldsFunc(strings.ReplaceAll(list, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' })
	for _, e := range entries {
		for _, f := range fields {
			v := e.Get(f)
			if v.Type != gjson.Number || v.Float() != float64(v.Int()) {
				return fmt.Errorf("entry %s: %s is not a whole number", e.Raw, f)
			}
			if strings.HasSuffix(f, "_id") && v.Int() <= 0 {
				return fmt.Errorf("entry %s: %s is not a key", e.Raw, f)
			}
		}
	}
	return nil
}

func daemonStreamEvents(ctx context.Context, who string, table *godog.Table) error {
	notes, err := getDaemon(ctx).settled(ctx, who)
	if err != nil {
		return err
	}
	var want, got [][]string
	for _, row := range table.Rows[1:] {
		want = append(want, []string{row.Cells[0].Value, row.Cells[1].Value, row.Cells[2].Value})
	}
	for _, n := range notesOf(notes, "stream/event") {
		p := gjson.ParseBytes(n.Params)
		if p.Get("entryId").Int() <= 0 {
			return fmt.Errorf("stream/event without an entryId: %s", n.Params)
		}
		got = append(got, []string{p.Get("channel").String(), p.Get("state").String(), p.Get("contentLength").Raw})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("stream/event (-want +got):\n%s", diff)
	}
	return nil
}

// daemonTelemetryInPacket checks that every telemetry/event notice is
// rendered, as the same canonical JSON, on the packet the model received
// next.
func daemonTelemetryInPacket(ctx context.Context, who string) error {
	d := getDaemon(ctx)
	notes, err := d.settled(ctx, who)
	if err != nil {
		return err
	}
	tel := notesOf(notes, "telemetry/event")
	if len(tel) == 0 {
		return fmt.Errorf("no telemetry/event received")
	}
	var packets []string
	for _, r := range d.model.Requests {
		var b strings.Builder
		for _, m := range r.Messages {
			b.WriteString(m.Content + "\n")
		}
		packets = append(packets, b.String())
	}
	for _, n := range tel {
		var v map[string]any
		if err := json.Unmarshal([]byte(gjson.GetBytes(n.Params, "event").Raw), &v); err != nil {
			return err
		}
		line, err := telemetry.Canonical(v)
		if err != nil {
			return err
		}
		found := false
		for _, p := range packets {
			if strings.Contains(p, "* "+line+"\n") {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("the notice %s is on no packet as %q", n.Params, "* "+line)
		}
	}
	return nil
}

// runID finds the id of the run named run in who's session with
// session.runs (the connection's last answer is kept).
func (d *daemonWorld) runID(ctx context.Context, who, run string) (int64, error) {
	c, err := d.conn(who)
	if err != nil {
		return 0, err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	a, err := c.c.Call(cctx, "session.runs", nil)
	if err != nil {
		return 0, fmt.Errorf("session.runs: %w", err)
	}
	if a.Error != nil {
		return 0, fmt.Errorf("session.runs: %s", a.Raw)
	}
	for _, r := range gjson.GetBytes(a.Result, "runs").Array() {
		if r.Get("name").String() == run {
			return r.Get("id").Int(), nil
		}
	}
	return 0, fmt.Errorf("no run %q in %s", run, a.Result)
}

// daemonCallForRun calls method with params and the runId of the named run.
func daemonCallForRun(ctx context.Context, who, method, run, params string) error {
	d := getDaemon(ctx)
	id, err := d.runID(ctx, who, run)
	if err != nil {
		return err
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		return fmt.Errorf("params %s: %w", params, err)
	}
	p["runId"] = id
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return daemonCall(ctx, who, method, string(b))
}

// daemonResolveNoted resolves the proposal of the last loop/proposal who
// was notified of.
func daemonResolveNoted(ctx context.Context, who, how string) error {
	d := getDaemon(ctx)
	notes, err := d.settled(ctx, who)
	if err != nil {
		return err
	}
	props := notesOf(notes, "loop/proposal")
	if len(props) == 0 {
		return fmt.Errorf("%q was notified of no proposal", who)
	}
	id := gjson.GetBytes(props[len(props)-1].Params, "logEntryId").Int()
	decision := map[string]string{"accepts": "accept", "rejects": "reject", "cancels": "cancel"}[how]
	return daemonCall(ctx, who, "loop.resolve", fmt.Sprintf(`{"logEntryId": %d, "decision": %q}`, id, decision))
}

// daemonNoteForRun finds a notification of method about the named run (its
// runId, or entry.run_id for log/entry) with path = want; an empty path
// asks for any such notification.
func daemonNoteForRun(ctx context.Context, who, method, run, path, want string) error {
	d := getDaemon(ctx)
	id, err := d.runID(ctx, who, run)
	if err != nil {
		return err
	}
	notes, err := d.settled(ctx, who)
	if err != nil {
		return err
	}
	if want, err = d.expand(want); err != nil {
		return err
	}
	var seen []string
	for _, n := range notesOf(notes, method) {
		rid := gjson.GetBytes(n.Params, "runId")
		if method == "log/entry" {
			rid = gjson.GetBytes(n.Params, "entry.run_id")
		}
		if rid.Int() != id {
			continue
		}
		if path == "" {
			return nil
		}
		got := gjson.GetBytes(n.Params, path)
		if got.Exists() && sameJSON(got.Raw, want) == nil {
			return nil
		}
		seen = append(seen, string(n.Params))
	}
	return fmt.Errorf("no %s notification for run %q (id %d) with %s = %s among:\n%s", method, run, id, path, want, strings.Join(seen, "\n"))
}

// daemonRouter is the daemon's model: each run named in a "the daemon's
// run … will reply" step answers from its own script, every other run
// from the shared one. Scripts may be added while the daemon runs.
type daemonRouter struct {
	mu       sync.Mutex
	byRun    map[string]*llm.Mock
	fallback *llm.Mock
}

func (r *daemonRouter) add(run string, reply llm.Reply) { r.ensure(run).Add(reply) }

// ensure is the script of run, empty until replies are added.
func (r *daemonRouter) ensure(run string) *llm.Mock {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.byRun[run]
	if !ok {
		m = &llm.Mock{}
		r.byRun[run] = m
	}
	return m
}

// mock is the script of the run named run, when the scenario scripts it
// on its own.
func (r *daemonRouter) mock(run string) (*llm.Mock, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.byRun[run]
	return m, ok
}

func (r *daemonRouter) Generate(ctx context.Context, req provider.Request) (provider.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.byRun[runs.RunName(ctx)]
	if !ok {
		m = r.fallback
	}
	return m.Generate(ctx, req)
}

func (r *daemonRouter) CountTokens(text string) int { return r.fallback.CountTokens(text) }

func (r *daemonRouter) CostFor(u provider.Usage) int64 { return r.fallback.CostFor(u) }

func (r *daemonRouter) ContextSize() (int, bool) { return r.fallback.ContextSize() }

// daemonRunLoop calls loop.run, keeps its answer as who's loop, and lets
// the daemon run until its loops end or park (loop.run answers at once).
func daemonRunLoop(ctx context.Context, who, params string) error {
	if err := daemonCall(ctx, who, "loop.run", params); err != nil {
		return err
	}
	d := getDaemon(ctx)
	c := d.conns[who]
	if c.answer.Error == nil {
		c.loop = gjson.ParseBytes(c.answer.Result)
	}
	d.settle()
	if c.during != nil {
		c.answer = *c.during
		if c.duringMethod == "loop.run" && c.answer.Error == nil {
			c.loop = gjson.ParseBytes(c.answer.Result)
		}
		c.during = nil
	}
	return nil
}

// daemonLoopEnded checks that the loop who's last loop.run went to ended
// with status: a loop/terminated names that loop with that finalStatus.
func daemonLoopEnded(ctx context.Context, who string, status int) error {
	d := getDaemon(ctx)
	c, err := d.conn(who)
	if err != nil {
		return err
	}
	id := c.loop.Get("loopId")
	if !id.Exists() || id.Type == gjson.Null {
		return fmt.Errorf("the loop.run answer of %q names no loop: %s", who, c.loop.Raw)
	}
	notes, err := d.settled(ctx, who)
	if err != nil {
		return err
	}
	var seen []string
	for _, n := range notesOf(notes, "loop/terminated") {
		if gjson.GetBytes(n.Params, "loopId").Int() == id.Int() {
			if got := gjson.GetBytes(n.Params, "finalStatus").Int(); int(got) != status {
				return fmt.Errorf("loop %d ended with %d, want %d: %s", id.Int(), got, status, n.Params)
			}
			return nil
		}
		seen = append(seen, string(n.Params))
	}
	return fmt.Errorf("no loop/terminated for loop %d among:\n%s", id.Int(), strings.Join(seen, "\n"))
}

// daemonLoopAt checks that the loop who's last loop.run went to has not
// ended and its run is at status (202 parked, 102 running): no
// loop/terminated names it and session.runs shows its run at status.
func daemonLoopAt(ctx context.Context, who string, status int) error {
	d := getDaemon(ctx)
	c, err := d.conn(who)
	if err != nil {
		return err
	}
	id := c.loop.Get("loopId").Int()
	notes, err := d.settled(ctx, who)
	if err != nil {
		return err
	}
	for _, n := range notesOf(notes, "loop/terminated") {
		if gjson.GetBytes(n.Params, "loopId").Int() == id {
			return fmt.Errorf("loop %d ended: %s", id, n.Params)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	a, err := c.c.Call(cctx, "session.runs", nil)
	if err != nil {
		return err
	}
	run := c.loop.Get("runId").Int()
	for _, r := range gjson.GetBytes(a.Result, "runs").Array() {
		if r.Get("id").Int() == run {
			if got := r.Get("status").Int(); got != int64(status) {
				return fmt.Errorf("run %d is at %d, not %d: %s", run, got, status, r.Raw)
			}
			return nil
		}
	}
	return fmt.Errorf("run %d not in session.runs: %s", run, a.Raw)
}

// registering is the Registering seam: when the scenario holds dispatches,
// it signals held and waits for hold to close.
func (d *daemonWorld) registering(int64, string, string) {
	d.mu.Lock()
	hold, held := d.hold, d.held
	d.mu.Unlock()
	if hold == nil {
		return
	}
	held <- struct{}{}
	<-hold
}

func (d *daemonWorld) logf(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.logged = append(d.logged, fmt.Sprintf(format, args...))
}
