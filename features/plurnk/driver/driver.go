// Package driver is the plurnk under test as the plurnk steps reach it:
// the Plurnk interface and its two implementations, Embedded (the
// reference run in process on simulated clocks: the entry engine, the loop
// engine, the runs service, the exec stream table and the JSON-RPC daemon)
// and Process (a daemon started by $PLURNK_CMD and reached over its public
// JSON-RPC surface, features/README.md). New chooses one per scenario.
//
// It may import godog, features/kit, reports/catalog (a decided step's
// pattern), impl/plurnk/... and sim/; the world and the step packages
// import it, it imports neither.
package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/rpc"
	"anchorage/impl/plurnk/runs"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/llm"
	"anchorage/sim/plurnkexec"
	"anchorage/sim/vfs"

	"github.com/cucumber/godog"
	"github.com/spf13/afero"
	"github.com/tidwall/gjson"
)

// EnvCmd is the environment variable that runs the plurnk scenarios
// against a daemon started as a process (features/README.md, "PLURNK_CMD"):
// a command line with {port} and {root}.
const EnvCmd = "PLURNK_CMD"

// Workspace is the root of the project files, as the scenarios spell it.
const Workspace = "/work"

// OperatorHome is HOME in the engine's operator environment.
const OperatorHome = "/home/operator"

// Plurnk is the plurnk under test, one section of the digest a part.
type Plurnk interface {
	DataPlane
	Engine
	Runs
	Exec
	Membership
	Daemon
	// Close ends what the scenario left running; failed asks for what a
	// process printed in the scenario's log.
	Close(failed bool) error
}

// DataPlane is the session's entries and the actions on them.
type DataPlane interface {
	Workspace() afero.Fs // the workspace (/work) and the operator's files
	// Client writes st as a client would, outside any model turn; Do has
	// run's model emit st as its action at loop/turn.
	Client(st dsl.Statement) (ops.Result, error)
	Do(run string, loop, turn int, st dsl.Statement) (ops.Result, error)
	Entry(t string) (*store.Entry, error) // nil when there is none
	// Assemble has the packet assembled once, which runs the derivation
	// pass over the session's channels (the mimetype handlers).
	Assemble(ctx context.Context) error
	AddRun(name string) error
	OtherSession(t, body string) error // t holds body in a second session, as its client wrote it
	// Streamed gives an exec output at target that has streamed chunk on
	// ch and is still active; StreamMore has it stream chunk on ch;
	// StreamEnd ends it: closed, or errored when failed.
	Streamed(target, chunk, ch string) error
	StreamMore(target, chunk, ch string) error
	StreamEnd(target string, failed bool) error
}

// Engine is the loop of the model run: turns, packets, the operator's
// configuration.
type Engine interface {
	// Loop runs a loop of the model run with the user's prompt (at most
	// maxTurns turns; 0 leaves the cap to the operator) until it ends or
	// parks, and answers what it did and the packets the model received.
	Loop(ctx context.Context, prompt string, maxTurns int) (engine.Result, error)
	Log(run string) ([]*store.LogRow, error) // the model run's or the plurnk run's
	// RowTokens is the token count stored for the model run's row at
	// coord (L/T/S) when it was written, and whether one was.
	RowTokens(ctx context.Context, coord string) (int, bool, error)
	// Configure refuses, when it is too late, to set what the plurnk
	// under test reads when it starts (an operator's variable, the
	// model's context window); SetEnv sets the operator's variable k.
	Configure(what string) error
	SetEnv(k, v string) error
	Offers(ctx context.Context, runtimes []string) error // exactly these EXEC runtimes
}

// Runs is a session of several runs, each with its own model script,
// driven as a client drives them.
type Runs interface {
	Script(run, reply string) error // before the session starts
	// Command sets what the host command name of the session or of a
	// daemon does (Script.Commands).
	Command(name string, s plurnkexec.Script) error
	AcceptHostCommands()
	// Start, Inject and Cancel are the client's loop.run of run with
	// prompt, loop.inject of msg and loop.cancel; each, and Resolve of the
	// proposal of a row, returns once plurnk is quiet.
	Start(run, prompt string) error
	Inject(run, msg string) error
	Cancel(run string) error
	Resolve(row int64, accept bool) error
	PassSession(ms int) error                  // on the session's clock
	Loops(run string) (n, last int, err error) // and the status of the latest
	RunLog(run string) ([]store.LogRow, error)
	Requests(run string) []provider.Request       // the calls run made to its model
	RunStream(target string) (exec.Stream, error) // Status 0 while it runs
	SessionEntry(target string) (*store.Entry, error)
	RunSpawns() []exec.Spec
	Events() []runs.Event // loop/terminated, loop/quiesced, stream/concluded, oldest first
	RunNames() ([]string, error)
	CountEntries(scheme string) (int, error) // the runs' scratch left out
	ParentOf(run string) (parent, origin string, err error)
	// MaxActive caps the session's active runs; Tokenizer has every model
	// count one token per n characters; both before the session starts.
	MaxActive(n int) error
	Tokenizer(n int) error
}

// Exec is the exec scheme: the model's EXEC, its commands and their
// streams, as Script.Exec sets them up.
type Exec interface {
	ExecAccepted(ctx context.Context, loop, turn, seq int, st dsl.Statement) (ops.Result, error)
	// PassCommands lets ms go by for the running commands; Complete
	// waits until every command of the model run has ended; Drain lets
	// the streams take in what happened (after a cancel).
	PassCommands(ctx context.Context, ms int) error
	Complete(ctx context.Context) error
	Drain(ctx context.Context) error
	ExecStream(ctx context.Context, target string) (exec.Stream, error)
	// StreamEvents are the stream/event notifications since the last
	// call (their Session left zero).
	StreamEvents(ctx context.Context) ([]exec.StreamEvent, error)
	CommandDir(ctx context.Context) (string, error) // the directory a real command is given
}

// Membership is the project on disk and the session's membership of it.
type Membership interface {
	// Project lays out the project directory of tbl (| path | content |
	// tracked |), a git repository tracking the rows marked yes when
	// withGit; Forest one of several repositories (| repo | path |
	// content | tracked |).
	Project(ctx context.Context, tbl *godog.Table, withGit bool) error
	Forest(ctx context.Context, tbl *godog.Table) error
	ProjectDir() (string, error)
	// Constrain adds a rule to the session's overlay, as the client of
	// run asks ("": the session's own); Members is what the session (""),
	// the second session (SecondSession) or a run resolves.
	Constrain(ctx context.Context, run string, effect membership.Effect, pattern string) error
	Members(ctx context.Context, who string) (membership.Set, error)
	OpenSecondSession(ctx context.Context) error
	GitFlags(ctx context.Context, allowed, auto string) error // PLURNK_GIT_ALLOWED and PLURNK_GIT_AUTO
	GitEnviron(ctx context.Context, key, value string) error  // a variable of the service's environment git would read
	GitMissing(ctx context.Context) error                     // the service finds no git binary
}

// SecondSession names the second session over the same project.
const SecondSession = "second session"

// Daemon is the JSON-RPC daemon the scenario's connections reach, as
// Script.Daemon sets it up.
type Daemon interface {
	Boot() error // on first use
	Started() bool
	BootErr() error // why it refused to start
	URL() string
	// Internal refuses, for a daemon process, a step that needs the
	// embedded daemon's insides (what); nil for the embedded one.
	Internal(what string) error
	DaemonFS() afero.Fs // its workspace and operator files
	Spawns() []exec.Spec
	// PassDaemonCommands lets ms of the running commands' time go by;
	// PassClock lets ms go by on the daemon's clock; Settle lets its
	// loops run until they end or park.
	PassDaemonCommands(ms int) error
	PassClock(ms int) error
	Settle()
	Logged() []string         // what the daemon only logged
	ModelServer() *llm.Server // when the model is served over HTTP
	// KeepState has the daemon keep its state in dir of StateFS, with
	// its failpoints; Restart stops the daemon, on purpose or by killing
	// it, and starts it again from there.
	KeepState(dir string)
	// KeepDefaultState has the daemon keep its state where it does when
	// given no state directory (plurnkd: under $HOME, the scenario's).
	KeepDefaultState()
	StateFS() *vfs.Faulty
	Restart(onPurpose bool) error
	// RestartAltered stops the daemon on purpose, lets alter change what
	// it left in its state directory, and boots it again: a refusal to
	// start is BootErr's, not an error of RestartAltered.
	RestartAltered(alter func() error) error
}

// New chooses the scenario's driver: a daemon process when $PLURNK_CMD
// is set, else the embedded reference. public are the patterns of the
// steps a process takes too: a scenario with another step that reaches no
// daemon itself answers a godog.ErrSkip error, with the embedded driver
// beside it for the scenario's cleanup.
func New(ctx context.Context, sc *godog.Scenario, script *Script, conns Conns, public []string) (Plurnk, error) {
	cmdline := strings.TrimSpace(os.Getenv(EnvCmd))
	if cmdline == "" {
		return NewEmbedded(script, conns)
	}
	p, err := newProcess(ctx, sc, cmdline, script, conns, public)
	if err != nil {
		e, eerr := NewEmbedded(script, conns)
		if eerr != nil {
			return nil, eerr
		}
		return e, err
	}
	return p, nil
}

// CallTimeout bounds every wait on the loopback socket.
const CallTimeout = 5 * time.Second

// Script is what a scenario scripts for the plurnk under test: what its
// models reply, what its commands do, and the settings it starts with.
// The steps write it; a driver reads it.
type Script struct {
	// Model is the scenario's model: the engine loop's, a daemon's.
	Model *llm.Mock
	// Runs are the models of the runs scripted on their own.
	Runs *RunModels
	// Models are the models of PLURNK_MODEL_<alias>=mock/<id>, by id.
	Models map[string]*llm.Mock
	// Commands are the host commands of a session of runs or of a
	// daemon, by name.
	Commands map[string]plurnkexec.Script
	Exec     ExecSetup
	Daemon   DaemonSetup
}

// ExecSetup is what the exec scheme's scenarios set up.
type ExecSetup struct {
	// Commands are the simulated commands, by name: a table of their
	// own, as the exec scheme's features give theirs in Backgrounds that
	// the scenarios of runs in the same file do not share.
	Commands map[string]plurnkexec.Script
	// Real: the real sh executor runs the commands.
	Real  bool
	Grace time.Duration // PLURNK_EXEC_KILL_GRACE_MS
	// Shell is the service's shell environment (NAME=VALUE); DotEnv the
	// project's .env file, parsed, and DotEnvText as the scenario gives it.
	Shell      []string
	DotEnv     []string
	DotEnvText string
}

// DaemonSetup is what a daemon is given when it starts.
type DaemonSetup struct {
	Env     map[string]string // the operator's variables
	Ask     bool              // host commands wait for loop.resolve
	HTTP    bool              // the model is reached over the OpenAI-compatible protocol
	Stream  bool              // … streaming
	Company bool              // the model server waits for overlapping calls
	// Selector: the model is chosen by the operator's aliases alone, as
	// plurnkd chooses it (no alias declared: no model).
	Selector bool
	Members  bool           // the daemon keeps a membership (no git: picks only)
	Git      membership.Git // the daemon's git, when its workspace is a repository
	Extra    []string       // runtimes of further executors the host offers
	NoExec   bool           // the host offers no executor at all, not even sh
	// StateDir is where the daemon keeps its state (Daemon.KeepState),
	// "" for none.
	StateDir string
}

// NewScript is an empty script.
func NewScript() *Script {
	return &Script{Model: &llm.Mock{}, Runs: &RunModels{byRun: map[string]*llm.Mock{}}, Models: map[string]*llm.Mock{},
		Commands: map[string]plurnkexec.Script{}, Exec: ExecSetup{Commands: map[string]plurnkexec.Script{}},
		Daemon: DaemonSetup{Env: map[string]string{}}}
}

// ModelFor returns the scripted model of id, made on first use.
func (s *Script) ModelFor(id string) *llm.Mock {
	m, ok := s.Models[id]
	if !ok {
		m = &llm.Mock{}
		s.Models[id] = m
	}
	return m
}

// RunModels are the scripts of the runs scripted on their own, by run
// name. Replies may be added while a daemon's runs generate.
type RunModels struct {
	mu    sync.Mutex
	byRun map[string]*llm.Mock
}

// Add adds reply to the script of run.
func (r *RunModels) Add(run string, reply llm.Reply) { r.Ensure(run).Add(reply) }

// Ensure is the script of run, empty until replies are added.
func (r *RunModels) Ensure(run string) *llm.Mock {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.byRun[run]
	if !ok {
		m = &llm.Mock{}
		r.byRun[run] = m
	}
	return m
}

// Get is the script of run, when the scenario scripts it on its own.
func (r *RunModels) Get(run string) (*llm.Mock, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.byRun[run]
	return m, ok
}

// generate answers req from the script of run, or from fallback when the
// scenario does not script run on its own; one call at a time.
func (r *RunModels) generate(ctx context.Context, run string, fallback *llm.Mock, req provider.Request) (provider.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.byRun[run]
	if !ok {
		m = fallback
	}
	return m.Generate(ctx, req)
}

// Names lists the runs scripted on their own, in order.
func (r *RunModels) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.byRun))
	for name := range r.byRun {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Conn is a client connection to the daemon and what it was answered.
type Conn struct {
	C       *rpc.Client
	Session gjson.Result // the session.create / session.attach answer
	Answer  rpc.Answer   // the last answer
	Loop    gjson.Result // the last loop.run answer
	// During is the answer of a call made while the model generated,
	// taken as the last answer once the daemon has settled.
	During       *rpc.Answer
	DuringMethod string
	// Held receives the answer of a call held in the daemon.
	Held chan rpc.Answer
}

// Conns are the scenario's connections to the daemon, by name.
type Conns map[string]*Conn

// Get is the connection named who.
func (cs Conns) Get(who string) (*Conn, error) {
	c, ok := cs[who]
	if !ok {
		return nil, fmt.Errorf("no connection %q", who)
	}
	return c, nil
}

// NoteModelRun keeps the id of a session's model run with every
// connection attached to the session of caller, once an answer to caller
// (loop.run's) names it: the daemon allocates the model run on its first
// use, so session.create's answer does not (<A.modelRunId> reads it from
// there).
func (cs Conns) NoteModelRun(caller *Conn, result []byte) {
	id := gjson.GetBytes(result, "modelRunId")
	if caller == nil || !caller.Session.Exists() || !id.Exists() || id.Int() == 0 {
		return
	}
	session := caller.Session.Get("id").Int()
	for _, c := range cs {
		if !c.Session.Exists() || c.Session.Get("id").Int() != session || c.Session.Get("modelRunId").Int() == id.Int() {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(c.Session.Raw), &m); err != nil {
			continue
		}
		m["modelRunId"] = id.Value()
		b, err := json.Marshal(m)
		if err != nil {
			continue
		}
		c.Session = gjson.ParseBytes(b)
	}
}

// closeAll closes every connection.
func (cs Conns) closeAll() {
	for _, c := range cs {
		c.C.Close()
	}
}

// Barrier returns the notifications the connection heard after a round
// trip on its socket, so every notification queued before it has
// arrived.
func (c *Conn) Barrier(ctx context.Context) ([]rpc.Note, error) {
	cctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	if _, err := c.C.SendFor(cctx, []byte(`{"jsonrpc":"2.0","id":"barrier","method":"rpc.barrier"}`), `"barrier"`); err != nil {
		return nil, fmt.Errorf("barrier: %w", err)
	}
	return c.C.Notes(), nil
}

// NotesOf are the notifications of method among notes.
func NotesOf(notes []rpc.Note, method string) []rpc.Note {
	var out []rpc.Note
	for _, n := range notes {
		if n.Method == method {
			out = append(out, n)
		}
	}
	return out
}
