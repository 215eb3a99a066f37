// Package exec holds the steps of the exec scheme (the digest's EXEC,
// streams and subscriptions): the commands, the model's EXEC accepted,
// time passing for them, and how their streams ended.
//
// It may import godog, features/kit, the world and the driver,
// impl/plurnk/... and sim/.
package exec

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/store"
	"anchorage/sim/plurnkexec"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
)

// Register registers the exec scheme's steps.
func Register(sc world.Steps) {
	registerCommands(sc)
	registerRunning(sc)
	registerEndings(sc)
}

// command changes the script of the simulated command name with change;
// a command not scripted yet never exits on its own.
func command(ctx context.Context, name string, change func(*plurnkexec.Script)) error {
	cmds := world.Get(ctx).Script.Exec.Commands
	s, ok := cmds[name]
	if !ok {
		s.ExitAt = -1
	}
	change(&s)
	cmds[name] = s
	return nil
}

func registerCommands(sc world.Steps) {
	sc.Public(`^the simulated command "([^"]*)" prints:$`, func(ctx context.Context, name string, tbl *godog.Table) error {
		chunks, err := world.Chunks(tbl)
		if err != nil {
			return err
		}
		return command(ctx, name, func(s *plurnkexec.Script) { s.Chunks = append(s.Chunks, chunks...) })
	})
	sc.Public(`^the simulated command "([^"]*)" exits with code (\d+) after (\d+) ms$`, func(ctx context.Context, name string, code, ms int) error {
		return command(ctx, name, func(s *plurnkexec.Script) { s.Code, s.ExitAt = code, time.Duration(ms)*time.Millisecond })
	})
	sc.Public(`^the simulated command "([^"]*)" never exits on its own$`, func(ctx context.Context, name string) error {
		return command(ctx, name, func(s *plurnkexec.Script) { s.ExitAt = -1 })
	})
	sc.Step(`^the simulated command "([^"]*)" ignores the polite signal$`, func(ctx context.Context, name string) error {
		return command(ctx, name, func(s *plurnkexec.Script) { s.IgnoreTerm = true })
	})
	sc.Step(`^an executor "([^"]*)" whose boot probe reports "([^"]*)"$`, func(ctx context.Context, name, detail string) error {
		e, err := world.Get(ctx).Embedded()
		if err != nil {
			return err
		}
		e.Extra = append(e.Extra, &plurnkexec.Executor{Name: name, Eff: exec.EffectHost, Avail: exec.Probe{Detail: detail}, Clock: e.ExecClock})
		return nil
	})
	sc.Public(`^PLURNK_EXEC_KILL_GRACE_MS is (\d+)$`, func(ctx context.Context, ms int) error {
		world.Get(ctx).Script.Exec.Grace = time.Duration(ms) * time.Millisecond
		return nil
	})
	sc.Public(`^the real sh executor runs the commands$`, func(ctx context.Context) error {
		world.Get(ctx).Script.Exec.Real = true
		return nil
	})
	sc.Public(`^the shell environment of the service is:$`, func(ctx context.Context, tbl *godog.Table) error {
		x := &world.Get(ctx).Script.Exec
		for i, row := range tbl.Rows {
			if i == 0 {
				continue // | name | value |
			}
			if len(row.Cells) != 2 {
				return fmt.Errorf("row %d: want | name | value |", i)
			}
			x.Shell = append(x.Shell, row.Cells[0].Value+"="+row.Cells[1].Value)
		}
		return nil
	})
	sc.Public(`^the project's \.env file reads:$`, func(ctx context.Context, doc *godog.DocString) error {
		vars, err := exec.ParseDotEnv(doc.Content)
		if err != nil {
			return err
		}
		x := &world.Get(ctx).Script.Exec
		x.DotEnv, x.DotEnvText = vars, doc.Content
		return nil
	})
}

func registerRunning(sc world.Steps) {
	sc.Public(`^the model's EXEC (\d+)/(\d+)/(\d+) is accepted: (<<.+)$`, func(ctx context.Context, loop, turn, seq int, src string) error {
		w := world.Get(ctx)
		st, err := dsl.ParseStatement(driver.Unescape(src))
		if err != nil {
			return fmt.Errorf("emission %q: want one EXEC: %w", src, err)
		}
		res, err := w.Drv.ExecAccepted(ctx, loop, turn, seq, st)
		if err != nil {
			return err
		}
		w.Results = append(w.Results, res)
		return nil
	})
	sc.Public(`^(\d+) ms pass for the running commands$`, func(ctx context.Context, ms int) error {
		return world.Get(ctx).Drv.PassCommands(ctx, ms)
	})
	sc.Public(`^the commands run to completion$`, func(ctx context.Context) error { return world.Get(ctx).Drv.Complete(ctx) })
	sc.Public(`^the model cancels (\S+) with SEND\[499\]$`, func(ctx context.Context, t string) error {
		// The model's own SEND[499] on the stream's address, which the
		// engine routes to the stream table through the subscription
		// registry.
		w := world.Get(ctx)
		if err := w.Emit("model", "<<SEND[499]("+t+")::SEND"); err != nil {
			return err
		}
		if r, _ := w.Last(); r.Status != 200 {
			return fmt.Errorf("the model's SEND[499](%s) answered %d (%s), want 200", t, r.Status, r.Reason)
		}
		return w.Drv.Drain(ctx)
	})
	sc.Public(`^the stdout of (\S+) has the line "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, t, want string) error {
		return hasLine(ctx, t, driver.Unescape(want))
	})
	sc.Public(`^the stdout of (\S+) has the line naming the directory the command was given$`, func(ctx context.Context, t string) error {
		// pwd prints the directory without symlinks.
		given, err := world.Get(ctx).Drv.CommandDir(ctx)
		if err != nil {
			return err
		}
		dir, err := filepath.EvalSymlinks(given)
		if err != nil {
			return err
		}
		return hasLine(ctx, t, dir)
	})
	sc.Public(`^the stdout of (\S+) has no line starting "([^"]*)"$`, func(ctx context.Context, t, prefix string) error {
		lines, err := stdoutLines(ctx, t)
		if err != nil {
			return err
		}
		if len(lines) < 2 {
			return fmt.Errorf("stdout of %s is empty: nothing to check", t)
		}
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return fmt.Errorf("stdout of %s has the line %q", t, l)
			}
		}
		return nil
	})
}

// streamIs checks the stream at t with check.
func streamIs(ctx context.Context, t string, check func(exec.Stream) error) error {
	s, err := world.Get(ctx).Drv.ExecStream(ctx, t)
	if err != nil {
		return err
	}
	return check(s)
}

func registerEndings(sc world.Steps) {
	sc.Public(`^the stream (\S+) ended with (\d+)$`, func(ctx context.Context, t string, status int) error {
		return streamIs(ctx, t, func(s exec.Stream) error {
			if s.Status != status {
				return fmt.Errorf("%s: status %d (%s), want %d", t, s.Status, s.Reason, status)
			}
			return nil
		})
	})
	sc.Public(`^the stream (\S+) ended with (\d+) by (SIG[A-Z0-9]+) at (\d+) ms$`, func(ctx context.Context, t string, status int, sig string, ms int) error {
		return streamIs(ctx, t, func(s exec.Stream) error { return world.CheckEnding(t, s, status, sig, ms) })
	})
	sc.Public(`^the stream (\S+) ended with (\d+) by (SIG[A-Z0-9]+)$`, func(ctx context.Context, t string, status int, sig string) error {
		// A real process: when it ended is the machine's business.
		return streamIs(ctx, t, func(s exec.Stream) error {
			if s.Status != status || s.Signal != sig {
				return fmt.Errorf("%s ended with %d by %q, want %d by %s", t, s.Status, s.Signal, status, sig)
			}
			return nil
		})
	})
	sc.Public(`^the stream (\S+) ended with (\d+) and exit code (\d+)$`, func(ctx context.Context, t string, status, code int) error {
		return streamIs(ctx, t, func(s exec.Stream) error {
			if s.Status != status || s.ExitCode != code {
				return fmt.Errorf("%s: status %d exit code %d, want %d and %d", t, s.Status, s.ExitCode, status, code)
			}
			return nil
		})
	})
	sc.Public(`^the stream (\S+) is still running$`, func(ctx context.Context, t string) error {
		return streamIs(ctx, t, func(s exec.Stream) error {
			if !s.Live() {
				return fmt.Errorf("%s ended with %d (%s)", t, s.Status, s.Reason)
			}
			return nil
		})
	})
	sc.Public(`^the stream events so far are:$`, thenEvents)
}

// thenEvents compares the stream/event notifications sent since the last
// check with the table | entry | channel | state | contentLength |.
func thenEvents(ctx context.Context, tbl *godog.Table) error {
	w := world.Get(ctx)
	var want []exec.StreamEvent
	for i, row := range tbl.Rows {
		if i == 0 {
			continue
		}
		if len(row.Cells) != 4 {
			return fmt.Errorf("row %d: want | entry | channel | state | contentLength |", i)
		}
		e, err := w.Drv.Entry(row.Cells[0].Value)
		if err != nil || e == nil {
			return fmt.Errorf("row %d: entry %s: %v", i, row.Cells[0].Value, err)
		}
		n, err := strconv.Atoi(row.Cells[3].Value)
		if err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
		want = append(want, exec.StreamEvent{EntryID: e.ID, Channel: row.Cells[1].Value, State: store.State(row.Cells[2].Value), ContentLength: n})
	}
	got, err := w.Drv.StreamEvents(ctx)
	if err != nil {
		return err
	}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("stream events (-want +got):\n%s", d)
	}
	return nil
}

func stdoutLines(ctx context.Context, t string) ([]string, error) {
	e, err := world.Get(ctx).Drv.Entry(t)
	if err != nil || e == nil {
		return nil, fmt.Errorf("entry %s: %v", t, err)
	}
	return strings.Split(e.Channels["stdout"].Content, "\n"), nil
}

func hasLine(ctx context.Context, t, want string) error {
	lines, err := stdoutLines(ctx, t)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if l == want {
			return nil
		}
	}
	return fmt.Errorf("stdout of %s has no line %q:\n%s", t, want, strings.Join(lines, "\n"))
}
