package plurnk

import (
	"context"
	"fmt"
	"strings"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/rpc"
	"anchorage/sim/vfs"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
	"github.com/tidwall/gjson"
)

// registerRestartSteps registers the steps of a daemon that keeps its state
// in a directory, dies on a failed save and starts again from it.
func registerRestartSteps(sc kit.Steps) {
	sc.Step(`^the daemon keeps its state in "([^"]*)"$`, func(ctx context.Context, dir string) error {
		d := getDaemon(ctx)
		if d.started() {
			return fmt.Errorf("the daemon has started already")
		}
		d.stateFS, d.stateDir = vfs.NewFaulty(d.stateBase(), 1), dir
		return nil
	})
	sc.Step(`^the daemon's saves of its state fail by (torn-write|rename-fail) after (\d+) whole saves?$`, func(ctx context.Context, point string, n int) error {
		d := getDaemon(ctx)
		if d.stateFS == nil {
			return fmt.Errorf("the daemon keeps no state")
		}
		if err := d.internal("injecting faults into the saves of its state"); err != nil {
			return err
		}
		return d.stateFS.Arm(vfs.Fault{Point: vfs.Failpoint(point), Pattern: d.stateDir + "/" + rpc.StateFile + "*", Skip: n, Count: 1})
	})
	sc.Step(`^the daemon's state directory holds (\S+) reading whole$`, func(ctx context.Context, name string) error {
		d := getDaemon(ctx)
		b, err := afero.ReadFile(d.stateFS, d.stateDir+"/"+name)
		if err != nil {
			return err
		}
		if !gjson.ValidBytes(b) {
			return fmt.Errorf("%s is not whole JSON: %d bytes", name, len(b))
		}
		return nil
	})
	sc.Step(`^the daemon's state faults fired (\d+) times?$`, func(ctx context.Context, n int) error {
		if err := getDaemon(ctx).internal("the faults injected into its saves"); err != nil {
			return err
		}
		if got := len(getDaemon(ctx).stateFS.Injections()); got != n {
			return fmt.Errorf("%d faults fired, want %d: %v", got, n, getDaemon(ctx).stateFS.Injections())
		}
		return nil
	})
	sc.Step(`^the daemon is stopped on purpose and starts again from its state directory$`, func(ctx context.Context) error {
		d := getDaemon(ctx)
		if d.stateFS == nil {
			return fmt.Errorf("the daemon keeps no state")
		}
		if d.proc != nil {
			return d.restartProcess(true)
		}
		d.stopOnPurpose()
		return d.boot()
	})
	sc.Step(`^the daemon is stopped on purpose, an editor replaces '([^']*)' by '([^']*)' in its state file, and it boots again$`, func(ctx context.Context, from, to string) error {
		d := getDaemon(ctx)
		if d.stateFS == nil {
			return fmt.Errorf("the daemon keeps no state")
		}
		if err := d.internal("editing the state file between two boots"); err != nil {
			return err
		}
		d.stopOnPurpose()
		file := d.stateDir + "/" + rpc.StateFile
		b, err := afero.ReadFile(d.stateFS, file)
		if err != nil {
			return err
		}
		if !strings.Contains(string(b), from) {
			return fmt.Errorf("the state file holds no %q", from)
		}
		if err := afero.WriteFile(d.stateFS, file, []byte(strings.ReplaceAll(string(b), from, to)), 0o644); err != nil {
			return err
		}
		_ = d.boot() // "the daemon refused to start" or "the daemon started" judges it
		return nil
	})
	sc.Step(`^the daemon starts again from its state directory$`, func(ctx context.Context) error {
		d := getDaemon(ctx)
		if d.stateFS == nil {
			return fmt.Errorf("the daemon keeps no state")
		}
		if d.proc != nil {
			return d.restartProcess(false)
		}
		// What the dead daemon still had running is ended in its own
		// memory; none of it is saved.
		d.backend.Shutdown()
		for _, c := range d.conns {
			c.c.Close()
		}
		d.srv.Close()
		d.srv = nil
		for _, p := range vfs.Failpoints() {
			d.stateFS.Disarm(p)
		}
		return d.boot()
	})
	sc.Step(`^the "log/entry" notifications "(\w+)" got before the daemon stopped are the rows log\.read answers to "(\w+)", in order$`, daemonHeardSurvived)
}

// stopOnPurpose stops the embedded daemon as plurnkd does on SIGINT or
// SIGTERM: its connections and server close, then the backend shuts down.
func (d *daemonWorld) stopOnPurpose() {
	for _, c := range d.conns {
		c.c.Close()
	}
	d.srv.Close()
	d.srv = nil
	d.backend.Shutdown()
}

func (d *daemonWorld) stateFSOrNil() afero.Fs {
	if d.stateFS == nil {
		return nil
	}
	return d.stateFS
}

// daemonHeardSurvived compares the log/entry notifications the first
// connection received before the daemon stopped with what log.read
// answers the second one, after the restart, for the same model run: the
// same rows, whole, in the same order.
func daemonHeardSurvived(ctx context.Context, before, after string) error {
	d := getDaemon(ctx)
	b, err := d.conn(before)
	if err != nil {
		return err
	}
	run := b.session.Get("modelRunId").Int()
	if run == 0 {
		// The loop.run answer went down with the daemon: the model run is
		// the run of the rows heard.
		for _, n := range notesOf(b.c.Notes(), "log/entry") {
			run = gjson.GetBytes(n.Params, "entry.run_id").Int()
			break
		}
	}
	if err := daemonCall(ctx, after, "log.read", fmt.Sprintf(`{"runId": %d}`, run)); err != nil {
		return err
	}
	a := d.conns[after]
	if a.answer.Error != nil {
		return fmt.Errorf("log.read: %s", a.answer.Raw)
	}
	var read, heard []any
	for _, e := range gjson.GetBytes(a.answer.Result, "entries").Array() {
		read = append(read, e.Value())
	}
	heard = lastHeard(notesOf(b.c.Notes(), "log/entry"), run)
	if len(heard) == 0 {
		return fmt.Errorf("%q heard no row of the model run before the daemon stopped", before)
	}
	if diff := cmp.Diff(heard, read); diff != "" {
		return fmt.Errorf("the rows heard before the stop differ from log.read after it (-heard +read):\n%s", diff)
	}
	return nil
}
