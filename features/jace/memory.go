package jace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// The embedded runtime's memory, as the operating system counts it: the
// QuickJS engines live outside the Go heap, so a VM that is not closed, or
// a value it is not given back, shows only there.

// residentKB is the resident set of this process in kB, after a garbage
// collection that gives freed Go memory back to the system.
func residentKB() (int, error) {
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("reading the process's memory: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, errors.New("no VmRSS line in /proc/self/status")
}

// memoryMeasured notes the embedded runtime's memory.
func memoryMeasured(_ context.Context, w *world) error {
	if err := embeddedOnly(w); err != nil {
		return err
	}
	kb, err := residentKB()
	if err != nil {
		return err
	}
	w.memoryKB = kb
	return nil
}

// reloadRounds loads the scenario's last module again and runs an action
// without params in each of the sessions, n times over.
func reloadRounds(ctx context.Context, w *world, action, sessions, n string) error {
	rounds, err := strconv.Atoi(n)
	if err != nil {
		return fmt.Errorf("rounds %q: %w", n, err)
	}
	if w.module == nil {
		return errors.New("no module was loaded in this scenario")
	}
	for range rounds {
		if err := load(ctx, w, w.module[0], w.module[1]); err != nil {
			return err
		}
		for _, sid := range keyList(sessions) {
			if err := w.act(ctx, action, sid, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// actionsIn runs an action without params once in each of n sessions no
// request has named before.
func actionsIn(ctx context.Context, w *world, action, n string) error {
	count, err := strconv.Atoi(n)
	if err != nil {
		return fmt.Errorf("sessions %q: %w", n, err)
	}
	for i := range count {
		if err := w.act(ctx, action, fmt.Sprintf("new-%d", i), nil); err != nil {
			return err
		}
	}
	return nil
}

// breachesIn runs an action without params once in each of n sessions
// named prefix-0, prefix-1, …, and wants each to fail as a guard breach
// does: an INTERNAL error, status 500 (seed §4 "Timeouts & Fuel").
func breachesIn(ctx context.Context, w *world, action, n, prefix string) error {
	count, err := strconv.Atoi(n)
	if err != nil {
		return fmt.Errorf("sessions %q: %w", n, err)
	}
	for i := range count {
		sid := fmt.Sprintf("%s-%d", prefix, i)
		b, err := json.Marshal(map[string]string{"action": action, "session_id": sid})
		if err != nil {
			return fmt.Errorf("encoding the envelope: %w", err)
		}
		r, err := w.d.do(ctx, http.MethodPost, "/actions", b, nil)
		if err != nil {
			return err
		}
		if r.status != http.StatusInternalServerError {
			return fmt.Errorf("%s in session %s: status %d, want 500: %s", action, sid, r.status, clip(r.body))
		}
	}
	return nil
}

// commitsWithKeys commits an action without params n times in one session,
// each time with an Idempotency-Key not used before.
func commitsWithKeys(ctx context.Context, w *world, action, n, session string) error {
	count, err := strconv.Atoi(n)
	if err != nil {
		return fmt.Errorf("commits %q: %w", n, err)
	}
	for i := range count {
		if err := w.act(ctx, action, session, keyHeader(fmt.Sprintf("key-%d", i))); err != nil {
			return err
		}
	}
	return nil
}

// listenersComeAndGo opens path as an event stream n times, each closed by
// its client once the runtime has answered, and waits for each stream to
// end on the client's side.
func listenersComeAndGo(_ context.Context, w *world, n, path string) error {
	count, err := strconv.Atoi(n)
	if err != nil {
		return fmt.Errorf("listeners %q: %w", n, err)
	}
	for range count {
		s, err := w.d.listen(path)
		if err != nil {
			return err
		}
		s.cancel()
		for range s.events {
		}
		if s.status != http.StatusOK {
			return fmt.Errorf("GET %s: status %d", path, s.status)
		}
	}
	return nil
}

// act runs an action without params in a session through /actions and
// wants it to succeed.
func (w *world) act(ctx context.Context, action, session string, headers map[string]string) error {
	b, err := json.Marshal(map[string]string{"action": action, "session_id": session})
	if err != nil {
		return fmt.Errorf("encoding the envelope: %w", err)
	}
	r, err := w.d.do(ctx, http.MethodPost, "/actions", b, headers)
	if err != nil {
		return err
	}
	if r.status != 200 {
		return fmt.Errorf("%s in session %s: status %d: %s", action, session, r.status, clip(r.body))
	}
	return nil
}

// memoryGrewLessThan checks the embedded runtime's memory against the
// measure taken before.
func memoryGrewLessThan(_ context.Context, w *world, mb string) error {
	limit, err := strconv.Atoi(mb)
	if err != nil {
		return fmt.Errorf("megabytes %q: %w", mb, err)
	}
	if w.memoryKB == 0 {
		return errors.New("the runtime's memory was not measured before")
	}
	kb, err := residentKB()
	if err != nil {
		return err
	}
	if grown := kb - w.memoryKB; grown >= limit<<10 {
		return fmt.Errorf("the runtime's memory grew by %d kB (from %d kB to %d kB), want less than %d MB", grown, w.memoryKB, kb, limit)
	}
	return nil
}
