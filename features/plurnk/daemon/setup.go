package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/rpc"
	"anchorage/sim/llm"
	"anchorage/sim/plurnkexec"
	"anchorage/sim/vfs"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
	"github.com/tidwall/gjson"
)

// What the daemon is given before it starts: the operator's variables and
// files, its model, its host and its workspace.

// before sets up the daemon with set, which must come before it starts.
func before(ctx context.Context, set func(*driver.DaemonSetup)) error {
	w := world.Get(ctx)
	if w.Drv.Started() {
		return fmt.Errorf("the daemon has started already")
	}
	set(&w.Script.Daemon)
	return nil
}

func registerSetup(sc world.Steps) {
	sc.Step(`^the daemon's operator sets (\S+) to "([^"]*)"$`, func(ctx context.Context, k, v string) error {
		return before(ctx, func(s *driver.DaemonSetup) { s.Env[k] = v })
	})
	sc.Step(`^the daemon's model is served over the OpenAI-compatible protocol( with streaming)?$`, func(ctx context.Context, streaming string) error {
		return before(ctx, func(s *driver.DaemonSetup) { s.HTTP, s.Stream = true, streaming != "" })
	})
	sc.Step(`^the daemon's model server waits for overlapping calls$`, func(ctx context.Context) error {
		world.Get(ctx).Script.Daemon.Company = true
		return nil
	})
	sc.Step(`^the daemon asks before host commands$`, func(ctx context.Context) error {
		return before(ctx, func(s *driver.DaemonSetup) { s.Ask = true })
	})
	sc.Step(`^the daemon's operator file (\S+) reads "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, path, text string) error {
		return afero.WriteFile(world.Get(ctx).Drv.DaemonFS(), path, []byte(driver.Unescape(text)), 0o644)
	})
	sc.Step(`^the daemon's operator variables are those of the shipped \.env\.example$`, func(ctx context.Context) error {
		b, err := os.ReadFile(filepath.Join("..", "impl", "plurnk", "cmd", "plurnkd", ".env.example"))
		if err != nil {
			return fmt.Errorf("the shipped .env.example: %w", err)
		}
		vars, err := exec.ParseDotEnv(string(b))
		if err != nil {
			return fmt.Errorf("the shipped .env.example: %w", err)
		}
		s := &world.Get(ctx).Script.Daemon
		for _, kv := range vars {
			k, v, _ := strings.Cut(kv, "=")
			s.Env[k] = v
		}
		s.Env["HOME"] = "/home/operator"
		s.Selector = true
		return nil
	})
	sc.Step(`^the daemon's host also offers an executor named "([^"]*)"$`, func(ctx context.Context, name string) error {
		if err := world.Get(ctx).Drv.Internal("a simulated executor beside sh"); err != nil {
			return err
		}
		return before(ctx, func(s *driver.DaemonSetup) { s.Extra = append(s.Extra, name) })
	})
	sc.Step(`^the daemon's host offers no executor$`, func(ctx context.Context) error {
		if err := world.Get(ctx).Drv.Internal("a host without sh"); err != nil {
			return err
		}
		return before(ctx, func(s *driver.DaemonSetup) { s.NoExec = true })
	})
	registerWorkspace(sc)
}

func registerWorkspace(sc world.Steps) {
	sc.Step(`^the daemon keeps a membership of a workspace without git holding:$`, func(ctx context.Context, tbl *godog.Table) error {
		_, err := daemonMembers(ctx, tbl, 2)
		return err
	})
	sc.Step(`^the daemon keeps a membership of a git workspace holding:$`, func(ctx context.Context, tbl *godog.Table) error {
		// Git (simulated) tracks the workspace as one repository holding
		// the rows marked yes.
		tracked, err := daemonMembers(ctx, tbl, 3)
		if err != nil {
			return err
		}
		sort.Strings(tracked)
		world.Get(ctx).Script.Daemon.Git = driver.SimGit{Root: driver.Workspace, Tracked: tracked}
		return nil
	})
	sc.Step(`^the daemon's git fails every listing with "([^"]*)"$`, func(ctx context.Context, msg string) error {
		// As a corrupt index would.
		w := world.Get(ctx)
		if err := w.Drv.Internal("a git that fails on demand"); err != nil {
			return err
		}
		g, ok := w.Script.Daemon.Git.(driver.SimGit)
		if !ok {
			return fmt.Errorf("the daemon keeps no git workspace")
		}
		g.Fail = msg
		w.Script.Daemon.Git = g
		return nil
	})
}

// daemonMembers writes the files of the table (| path | content | and,
// with 3 cells, | tracked |) into the daemon's workspace and has the
// daemon keep a membership over it; it lists the rows tracked.
func daemonMembers(ctx context.Context, tbl *godog.Table, cells int) ([]string, error) {
	w := world.Get(ctx)
	if w.Drv.Started() {
		return nil, fmt.Errorf("the daemon has already started")
	}
	w.Script.Daemon.Members = true
	var tracked []string
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) != cells {
			return nil, fmt.Errorf("row %d: want %s", i, map[int]string{2: "| path | content |", 3: "| path | content | tracked |"}[cells])
		}
		p := row.Cells[0].Value
		if err := afero.WriteFile(w.Drv.DaemonFS(), driver.Workspace+"/"+p, []byte(driver.Unescape(row.Cells[1].Value)), 0o644); err != nil {
			return nil, err
		}
		if cells == 3 && row.Cells[2].Value == "yes" {
			tracked = append(tracked, p)
		}
	}
	return tracked, nil
}

func registerModel(sc world.Steps) {
	sc.Step(`^the daemon's model will reply:$`, func(ctx context.Context, doc *godog.DocString) error {
		return world.Get(ctx).Reply(llm.Reply{Content: doc.Content})
	})
	sc.Step(`^the daemon's model will reply with meta (\{.*\}):$`, func(ctx context.Context, meta string, doc *godog.DocString) error {
		if err := world.Get(ctx).Drv.Internal("a reply's provider meta (the chat-completions protocol carries none)"); err != nil {
			return err
		}
		return world.Get(ctx).Reply(llm.Reply{Content: doc.Content, Meta: json.RawMessage(meta)})
	})
	sc.Step(`^the daemon's run "([^"]*)" will reply:$`, func(ctx context.Context, run string, doc *godog.DocString) error {
		// A daemon process's model server tells the runs apart by the
		// X-Plurnk-Run header of their requests.
		world.Get(ctx).Script.Runs.Add(run, llm.Reply{Content: doc.Content})
		return nil
	})
	sc.Step(`^the daemon's model "([^"]*)" will reply:$`, func(ctx context.Context, id string, doc *godog.DocString) error {
		world.Get(ctx).Script.ModelFor(id).Add(llm.Reply{Content: doc.Content})
		return nil
	})
	sc.Step(`^the daemon's model will reply, its stream broken after the first line:$`, func(ctx context.Context, doc *godog.DocString) error {
		return world.Get(ctx).Reply(llm.Reply{Content: doc.Content, Broken: true})
	})
	sc.Step(`^the daemon's model will reply, its connection dropped before the response ends:$`, func(ctx context.Context, doc *godog.DocString) error {
		return world.Get(ctx).Reply(llm.Reply{Content: doc.Content, Cut: true})
	})
	sc.Step(`^the daemon's model server will hang up on the next call$`, func(ctx context.Context) error {
		return world.Get(ctx).Reply(llm.Reply{Hangup: true})
	})
	sc.Step(`^the daemon's model will reply with the raw payload (.+):$`, func(ctx context.Context, raw string, doc *godog.DocString) error {
		return world.Get(ctx).Reply(llm.Reply{Content: doc.Content, Raw: driver.Unescape(raw)})
	})
	sc.Step(`^the daemon's model will reply without a finish reason:$`, func(ctx context.Context, doc *godog.DocString) error {
		return world.Get(ctx).Reply(llm.Reply{Content: doc.Content, Unfinished: true})
	})
	sc.Step(`^the daemon's model enforces grammars$`, func(ctx context.Context) error {
		world.Get(ctx).Script.Model.HonourGrammar = true
		return nil
	})
	sc.Step(`^the daemon's model will hold its next reply until "(\w+)" cancels the loop$`, func(ctx context.Context, who string) error {
		c, err := conn(ctx, who)
		if err != nil {
			return err
		}
		m := world.Get(ctx).Script.Model
		m.Add(llm.Reply{Hold: true})
		m.OnAbort = func() {
			cctx, cancel := context.WithTimeout(context.Background(), driver.CallTimeout)
			defer cancel()
			_, _ = c.C.Call(cctx, "loop.cancel", nil)
		}
		return nil
	})
	sc.Step(`^while the daemon's model generates reply (\d+), the daemon's operator file (\S+) comes to read "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, n int, path, text string) error {
		fs := world.Get(ctx).Drv.DaemonFS()
		return beforeReply(ctx, n, func() { _ = afero.WriteFile(fs, path, []byte(driver.Unescape(text)), 0o644) })
	})
	sc.Step(`^while the daemon's model generates reply (\d+), "(\w+)" calls ([\w./]+) with (\{.*\})$`, whileGenerating)
}

// beforeReply has the daemon's model do f before it gives its reply n.
func beforeReply(ctx context.Context, n int, f func()) error {
	m := world.Get(ctx).Script.Model
	if n < 1 || n > len(m.Replies) {
		return fmt.Errorf("the model has no reply %d queued", n)
	}
	m.Replies[n-1].Before = f
	return nil
}

// whileGenerating has who call method with params while the daemon's
// model generates its reply n; the answer is handed over once the daemon
// has settled.
func whileGenerating(ctx context.Context, n int, who, method, params string) error {
	c, err := conn(ctx, who)
	if err != nil {
		return err
	}
	if params, err = expand(ctx, params); err != nil {
		return err
	}
	return beforeReply(ctx, n, func() {
		cctx, cancel := context.WithTimeout(context.Background(), driver.CallTimeout)
		defer cancel()
		if a, err := c.C.Call(cctx, method, json.RawMessage(params)); err == nil {
			c.During, c.DuringMethod = &a, method
		}
	})
}

func registerCommands(sc world.Steps) {
	sc.Step(`^the daemon's simulated command "([^"]*)" prints:$`, func(ctx context.Context, name string, tbl *godog.Table) error {
		chunks, err := world.Chunks(tbl)
		if err != nil {
			return err
		}
		return world.Get(ctx).Command(name, func(s *plurnkexec.Script) { s.Chunks = append(s.Chunks, chunks...) })
	})
	sc.Step(`^the daemon's simulated command "([^"]*)" exits with code (\d+) after (\d+) ms$`, func(ctx context.Context, name string, code, ms int) error {
		return world.Get(ctx).Command(name, func(s *plurnkexec.Script) { s.Code, s.ExitAt = code, time.Duration(ms)*time.Millisecond })
	})
	sc.Step(`^the daemon's simulated command "([^"]*)" never exits$`, func(ctx context.Context, name string) error {
		// Through the driver, so a daemon process's executable for the
		// command is written again, never exiting.
		return world.Get(ctx).Command(name, func(s *plurnkexec.Script) { s.ExitAt = -1 })
	})
	sc.Step(`^the daemon's simulated command "([^"]*)" cannot be spawned$`, func(ctx context.Context, name string) error {
		// The simulated executor fails to start a command it has no
		// script for.
		w := world.Get(ctx)
		if err := w.Drv.Internal("a command that cannot be spawned"); err != nil {
			return err
		}
		delete(w.Script.Commands, name)
		return nil
	})
	sc.Step(`^the daemon boots$`, func(ctx context.Context) error {
		_ = world.Get(ctx).Drv.Boot()
		return nil
	})
	sc.Step(`^the daemon refused to start, saying "([^"]*)"$`, func(ctx context.Context, want string) error {
		err := world.Get(ctx).Drv.BootErr()
		if err == nil {
			return fmt.Errorf("the daemon started")
		}
		if !strings.Contains(err.Error(), want) {
			return fmt.Errorf("the daemon refused with %q, not mentioning %q", err, want)
		}
		return nil
	})
	sc.Step(`^the daemon started$`, func(ctx context.Context) error {
		drv := world.Get(ctx).Drv
		if drv.BootErr() != nil || !drv.Started() {
			return fmt.Errorf("the daemon did not start: %v", drv.BootErr())
		}
		return nil
	})
}

// A daemon that keeps its state in a directory, dies on a failed save and
// starts again from it; a call held while its command registers.

// state is the daemon's state directory and its file system.
func state(ctx context.Context) (*vfs.Faulty, string, error) {
	w := world.Get(ctx)
	fs := w.Drv.StateFS()
	if fs == nil {
		return nil, "", fmt.Errorf("the daemon keeps no state")
	}
	return fs, w.Script.Daemon.StateDir, nil
}

func registerRestart(sc world.Steps) {
	sc.Step(`^the daemon keeps its state in "([^"]*)"$`, func(ctx context.Context, dir string) error {
		drv := world.Get(ctx).Drv
		if drv.Started() {
			return fmt.Errorf("the daemon has started already")
		}
		drv.KeepState(dir)
		return nil
	})
	sc.Step(`^the daemon is given no state directory$`, func(ctx context.Context) error {
		// Sessions are durable: without -state or PLURNK_STATE_DIR the
		// daemon keeps them where it does by default.
		drv := world.Get(ctx).Drv
		if drv.Started() {
			return fmt.Errorf("the daemon has started already")
		}
		drv.KeepDefaultState()
		return nil
	})
	sc.Step(`^the daemon's saves of its state fail by (torn-write|rename-fail) after (\d+) whole saves?$`, func(ctx context.Context, point string, n int) error {
		fs, dir, err := state(ctx)
		if err != nil {
			return err
		}
		if err := world.Get(ctx).Drv.Internal("injecting faults into the saves of its state"); err != nil {
			return err
		}
		return fs.Arm(vfs.Fault{Point: vfs.Failpoint(point), Pattern: dir + "/" + rpc.StateFile + "*", Skip: n, Count: 1})
	})
	sc.Step(`^the daemon's state directory cannot be made$`, func(ctx context.Context) error {
		return armStateDir(ctx, vfs.MkdirError)
	})
	sc.Step(`^the daemon's state directory can be written to but not listed$`, func(ctx context.Context) error {
		return armStateDir(ctx, vfs.ListFail)
	})
	sc.Step(`^the daemon's state directory holds (\S+) reading whole$`, func(ctx context.Context, name string) error {
		fs, dir, err := state(ctx)
		if err != nil {
			return err
		}
		b, err := afero.ReadFile(fs, dir+"/"+name)
		if err != nil {
			return err
		}
		if !gjson.ValidBytes(b) {
			return fmt.Errorf("%s is not whole JSON: %d bytes", name, len(b))
		}
		return nil
	})
	sc.Step(`^the daemon's state faults fired (\d+) times?$`, func(ctx context.Context, n int) error {
		if err := world.Get(ctx).Drv.Internal("the faults injected into its saves"); err != nil {
			return err
		}
		fs, _, err := state(ctx)
		if err != nil {
			return err
		}
		if got := len(fs.Injections()); got != n {
			return fmt.Errorf("%d faults fired, want %d: %v", got, n, fs.Injections())
		}
		return nil
	})
	sc.Step(`^the daemon is stopped on purpose and starts again from its state directory$`, func(ctx context.Context) error {
		if _, _, err := state(ctx); err != nil {
			return err
		}
		return world.Get(ctx).Drv.Restart(true)
	})
	sc.Step(`^the daemon is stopped on purpose, an editor replaces '([^']*)' by '([^']*)' in its state file, and it boots again$`, thenEditedState)
	sc.Step(`^the daemon is stopped on purpose, its state file is made unreadable, and it boots again$`, thenUnreadableState)
	sc.Step(`^the daemon starts again from its state directory$`, func(ctx context.Context) error {
		if _, _, err := state(ctx); err != nil {
			return err
		}
		return world.Get(ctx).Drv.Restart(false)
	})
	sc.Step(`^"(\w+)" sends a batch of (\d+) discover requests and leaves without waiting for the answer$`, leaveMidBatch)
	sc.Step(`^the "log/entry" notifications "(\w+)" got before the daemon stopped are the rows log\.read answers to "(\w+)", in order$`, daemonHeardSurvived)
}

// armStateDir fails every operation point makes on the daemon's state
// directory itself (making it, listing it) from now on.
func armStateDir(ctx context.Context, point vfs.Failpoint) error {
	fs, dir, err := state(ctx)
	if err != nil {
		return err
	}
	if err := world.Get(ctx).Drv.Internal("injecting faults into its state directory"); err != nil {
		return err
	}
	return fs.Arm(vfs.Fault{Point: point, Pattern: dir})
}

// thenEditedState stops the daemon on purpose, has an editor replace from
// by to in its state file, and boots it again ("the daemon refused to
// start" or "the daemon started" judges it).
func thenEditedState(ctx context.Context, from, to string) error {
	fs, dir, err := state(ctx)
	if err != nil {
		return err
	}
	w := world.Get(ctx)
	if err := w.Drv.Internal("editing the state file between two boots"); err != nil {
		return err
	}
	e, err := w.Embedded()
	if err != nil {
		return err
	}
	if err := e.Stop(); err != nil {
		return err
	}
	file := dir + "/" + rpc.StateFile
	b, err := afero.ReadFile(fs, file)
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), from) {
		return fmt.Errorf("the state file holds no %q", from)
	}
	if err := afero.WriteFile(fs, file, []byte(strings.ReplaceAll(string(b), from, to)), 0o644); err != nil {
		return err
	}
	_ = e.Boot()
	return nil
}

// thenUnreadableState stops the daemon on purpose, puts a folder where its
// state file was, which no read of the file gets through (on a disk the
// read fails EISDIR; the state's file system refuses to open it, EACCES),
// and boots it again ("the daemon refused to start" judges it).
func thenUnreadableState(ctx context.Context) error {
	fs, dir, err := state(ctx)
	if err != nil {
		return err
	}
	file := dir + "/" + rpc.StateFile
	return world.Get(ctx).Drv.RestartAltered(func() error {
		if err := fs.Remove(file); err != nil {
			return fmt.Errorf("remove the state file: %w", err)
		}
		if err := fs.Mkdir(file, 0o755); err != nil {
			return fmt.Errorf("a folder in the state file's place: %w", err)
		}
		return fs.Arm(vfs.Fault{Point: vfs.ListFail, Pattern: file})
	})
}

// daemonHeardSurvived compares the log/entry notifications the first
// connection received before the daemon stopped with what log.read
// answers the second one, after the restart, for the same model run: the
// same rows, whole, in the same order.
func daemonHeardSurvived(ctx context.Context, before, after string) error {
	b, err := conn(ctx, before)
	if err != nil {
		return err
	}
	run := b.Session.Get("modelRunId").Int()
	if run == 0 {
		// The loop.run answer went down with the daemon: the model run is
		// the run of the rows heard.
		if n := driver.NotesOf(b.C.Notes(), "log/entry"); len(n) > 0 {
			run = gjson.GetBytes(n[0].Params, "entry.run_id").Int()
		}
	}
	read, err := readRows(ctx, after, run)
	if err != nil {
		return err
	}
	got := lastHeard(b.C.Notes(), run)
	if len(got) == 0 {
		return fmt.Errorf("%q heard no row of the model run before the daemon stopped", before)
	}
	if diff := cmp.Diff(got, read); diff != "" {
		return fmt.Errorf("the rows heard before the stop differ from log.read after it (-heard +read):\n%s", diff)
	}
	return nil
}

func registerHeld(sc world.Steps) {
	sc.Step(`^"(\w+)" calls ([\w./]+) with (\{.*\}) while the daemon holds its command's registration$`, callHeld)
	sc.Step(`^(\d+) ms pass on the daemon's clock while the call is held$`, func(ctx context.Context, ms int) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			e.DaemonClock.Advance(time.Duration(ms) * time.Millisecond)
			return nil
		})
	})
	sc.Step(`^the held call of "(\w+)" has no answer yet$`, func(ctx context.Context, who string) error {
		c, err := conn(ctx, who)
		if err != nil || c.Held == nil {
			return fmt.Errorf("no held call of %q", who)
		}
		select {
		case a := <-c.Held:
			return fmt.Errorf("the held call was answered: %s", a.Raw)
		case <-time.After(50 * time.Millisecond):
			return nil
		}
	})
	sc.Step(`^the held call of "(\w+)" is answered with the error (-?\d+)$`, func(ctx context.Context, who string, code int) error {
		c, err := conn(ctx, who)
		if err != nil || c.Held == nil {
			return fmt.Errorf("no held call of %q", who)
		}
		select {
		case a := <-c.Held:
			c.Answer = a
			return daemonAnswerError(ctx, who, code)
		case <-time.After(driver.CallTimeout):
			return fmt.Errorf("the held call was not answered")
		}
	})
	sc.Step(`^the daemon releases the held registration$`, func(ctx context.Context) error {
		return world.Get(ctx).Library(func(e *driver.Embedded) error {
			e.ReleaseRegistration()
			return nil
		})
	})
	sc.Step(`^the daemon logged that (\S+) answered after its timeout$`, func(ctx context.Context, method string) error {
		drv := world.Get(ctx).Drv
		deadline := time.Now().Add(driver.CallTimeout)
		for {
			logged := drv.Logged()
			for _, l := range logged {
				if strings.Contains(l, method+" answered after its timeout") {
					return nil
				}
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the daemon logged %q", logged)
			}
			time.Sleep(time.Millisecond)
		}
	})
}

// callHeld has who call method with params in the background, its
// command's registration held in the daemon, and returns once the call
// reached that registration.
func callHeld(ctx context.Context, who, method, params string) error {
	c, err := conn(ctx, who)
	if err != nil {
		return err
	}
	w := world.Get(ctx)
	if err := w.Drv.Internal("holding a command's registration"); err != nil {
		return err
	}
	e, err := w.Embedded()
	if err != nil {
		return err
	}
	held := e.HoldRegistration()
	c.Held = make(chan rpc.Answer, 1)
	go func(out chan rpc.Answer) {
		cctx, cancel := context.WithTimeout(context.Background(), 4*driver.CallTimeout)
		defer cancel()
		if a, err := c.C.Call(cctx, method, json.RawMessage(params)); err == nil {
			out <- a
		}
	}(c.Held)
	select {
	case <-held:
		return nil
	case <-time.After(driver.CallTimeout):
		return fmt.Errorf("%s never reached the registration of its command", method)
	}
}

// leaveMidBatch sends a batch of n discover requests on who's connection
// and closes it at once, while the daemon is still answering the batch.
func leaveMidBatch(ctx context.Context, who string, n int) error {
	c, err := world.Get(ctx).Conns.Get(who)
	if err != nil {
		return err
	}
	reqs := make([]string, n)
	for i := range reqs {
		reqs[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"discover"}`, i+1)
	}
	cctx, cancel := context.WithTimeout(ctx, driver.CallTimeout)
	defer cancel()
	if _, err := c.C.Send(cctx, []byte("["+strings.Join(reqs, ",")+"]"), false); err != nil {
		return fmt.Errorf("sending the batch: %w", err)
	}
	c.C.Close()
	return nil
}
