package exec

import (
	"os"
	"os/signal"
	"syscall"
)

// KeepChildHangups lets the commands this process starts end on SIGHUP, the
// signal a bare KILL sends (§run-lifecycle-total-reap), even when the
// process itself was started with SIGHUP ignored, as under nohup: an ignored
// signal stays ignored across exec, so without this a KILL would leave every
// command running. It catches SIGHUP into a channel nobody reads, which the
// process goes on ignoring, while the commands it starts get the default
// action back. It changes process-wide state: a main calls it once.
func KeepChildHangups() {
	if signal.Ignored(syscall.SIGHUP) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
}
