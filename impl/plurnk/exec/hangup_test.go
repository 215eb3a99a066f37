package exec

import (
	"errors"
	"os"
	osexec "os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestChildHangupsUnderNohup starts this test binary with SIGHUP ignored
// (through sh's trap, as nohup does) and has it check, with and without
// KeepChildHangups, whether a command it starts ends on SIGHUP.
func TestChildHangupsUnderNohup(t *testing.T) {
	if os.Getenv("HANGUP_CHILD") != "" {
		t.Skip("run by the parent test")
	}
	for _, tc := range []struct {
		keep string
		want syscall.Signal
	}{{"1", syscall.SIGHUP}, {"", syscall.SIGTERM}} {
		cmd := osexec.Command("sh", "-c", `trap "" HUP; exec "$0" -test.run='^TestHangupChild$' -test.v`, os.Args[0])
		cmd.Env = append(os.Environ(), "HANGUP_CHILD=1", "HANGUP_KEEP="+tc.keep)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("keep=%q: %v\n%s", tc.keep, err, out)
		}
		if want := "ended by " + tc.want.String(); !strings.Contains(string(out), want) {
			t.Errorf("keep=%q: want %q in\n%s", tc.keep, want, out)
		}
	}
}

// TestHangupChild runs only as the child of TestChildHangupsUnderNohup. It
// sends a sleeping command SIGHUP and then SIGTERM: Linux delivers the
// lower-numbered SIGHUP first, so the command ends by SIGHUP unless it
// ignores it.
func TestHangupChild(t *testing.T) {
	if os.Getenv("HANGUP_CHILD") == "" {
		t.Skip("run by TestChildHangupsUnderNohup")
	}
	if os.Getenv("HANGUP_KEEP") != "" {
		KeepChildHangups()
	}
	sleep := osexec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	_ = sleep.Process.Signal(syscall.SIGHUP)
	_ = sleep.Process.Signal(syscall.SIGTERM)
	err := sleep.Wait()
	var ee *osexec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("sleep: %v", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	t.Logf("ended by %v", ws.Signal())
}
