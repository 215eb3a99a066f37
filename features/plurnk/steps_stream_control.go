package plurnk

import (
	"context"
	"fmt"
	"strconv"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/runs"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
)

// registerStreamControlSteps registers the steps of stream_control.feature:
// the model stopping its own streams inside a run.
func registerStreamControlSteps(sc kit.Steps) {
	sc.Step(`^run "([^"]*)"'s log holds exactly these rows:$`, thenRunRowsExactly)
	sc.Step(`^the daemon's simulated command "([^"]*)" never exits$`, func(ctx context.Context, name string) error {
		d := getDaemon(ctx)
		s := d.scripts[name]
		s.ExitAt = -1
		// Through setScript, so a daemon process's executable for the
		// command is written again, never exiting.
		return d.setScript(name, s)
	})
	sc.Step(`^the session was notified stream/concluded for (\S+) with close status (\d+) and wake action "([^"]*)"$`, thenConcluded)
}

// thenRunRowsExactly compares every row of run's log, in order, with the
// table | row | op | target | status |: a row per chunk would show up here.
func thenRunRowsExactly(ctx context.Context, run string, tbl *godog.Table) error {
	rows, err := getRuns(ctx).log(run)
	if err != nil {
		return err
	}
	var want, got []string
	for i, r := range tbl.Rows {
		if i == 0 {
			continue // | row | op | target | status |
		}
		if len(r.Cells) != 4 {
			return fmt.Errorf("row %d: want | row | op | target | status |", i)
		}
		want = append(want, fmt.Sprintf("%s %s %s %s", r.Cells[0].Value, r.Cells[1].Value, r.Cells[2].Value, r.Cells[3].Value))
	}
	for _, r := range rows {
		t := r.Target
		if t == "" {
			t = "-"
		}
		got = append(got, fmt.Sprintf("%s %s %s %d", r.Coord(), r.Op, t, r.Status))
	}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("run %q's log (-want +got):\n%s", run, d)
	}
	return nil
}

// thenConcluded finds exactly one stream/concluded for target among the
// session's notifications and checks its close status and wake action.
func thenConcluded(ctx context.Context, target string, status int, wake string) error {
	var seen []string
	for _, ev := range getRuns(ctx).drv.events() {
		if ev.Kind == runs.KindConcluded && ev.Target == target {
			seen = append(seen, strconv.Itoa(ev.Status)+" "+ev.WakeAction)
		}
	}
	want := []string{strconv.Itoa(status) + " " + wake}
	if d := cmp.Diff(want, seen); d != "" {
		return fmt.Errorf("stream/concluded for %s (-want +got):\n%s", target, d)
	}
	return nil
}
