package jace

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"anchorage/impl/vary"
)

// ---- recorded sequences (determinism) ----

// runSequence sends each "/path {json}" line of script to d and returns
// the answers, one "status body" string each.
func runSequence(ctx context.Context, d *driver, script string) ([]string, error) {
	var out []string
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		path, body, ok := strings.Cut(line, " ")
		if !ok || !json.Valid([]byte(body)) {
			return nil, fmt.Errorf("sequence line %q: want /path {json}", line)
		}
		r, err := d.do(ctx, http.MethodPost, path, []byte(body), nil)
		if err != nil {
			return nil, err
		}
		out = append(out, strconv.Itoa(r.status)+" "+r.body)
	}
	return out, nil
}

func recordSequence(ctx context.Context, w *world, doc *godog.DocString) error {
	if w.module == nil {
		return errors.New("load a module before recording a sequence")
	}
	got, err := runSequence(ctx, w.d, doc.Content)
	if err != nil {
		return err
	}
	w.script, w.recorded = doc.Content, got
	return nil
}

func compareRuns(first, second []string) error {
	// Two runs that only ever failed alike (say, every request refused)
	// prove nothing about determinism: the first must have done some work.
	ok := 0
	for _, a := range first {
		if strings.HasPrefix(a, "200 ") {
			ok++
		}
	}
	if ok == 0 {
		return fmt.Errorf("no request of the recorded sequence succeeded:\n%s", strings.Join(first, "\n"))
	}
	if diff := cmp.Diff(first, second); diff != "" {
		return fmt.Errorf("the second run differs (-first +second):\n%s", diff)
	}
	return nil
}

// replayFresh reloads the module (which resets every session) on the same
// runtime and runs the recorded sequence again.
func replayFresh(ctx context.Context, w *world) error {
	if w.recorded == nil {
		return errors.New("no sequence was recorded")
	}
	if err := load(ctx, w, w.module[0], w.module[1]); err != nil {
		return err
	}
	again, err := runSequence(ctx, w.d, w.script)
	if err != nil {
		return err
	}
	return compareRuns(w.recorded, again)
}

// replaySecondServer runs the recorded sequence on a second embedded
// server built from the same configuration.
func replaySecondServer(ctx context.Context, w *world) error {
	if err := embeddedOnly(w); err != nil {
		return err
	}
	if w.recorded == nil {
		return errors.New("no sequence was recorded")
	}
	d2 := newDriver(w.d.cfg.Seed, w.d.cfg.Vary)
	d2.cfg = w.d.cfg
	d2.cfg.AuditLog = d2.audit
	defer d2.close()
	saved := w.d
	w.d = d2
	err := load(ctx, w, w.module[0], w.module[1])
	w.d = saved
	if err != nil {
		return err
	}
	again, err := runSequence(ctx, d2, w.script)
	if err != nil {
		return err
	}
	return compareRuns(w.recorded, again)
}

// ---- events ----

func listen(_ context.Context, w *world, path string) error {
	s, err := w.d.listen(path)
	if err != nil {
		return err
	}
	w.streams[path] = s
	if s.status != 200 {
		return fmt.Errorf("GET %s: status %d", path, s.status)
	}
	if mt := mediaType(s.header); mt != "text/event-stream" {
		return fmt.Errorf("GET %s: Content-Type %q, want the media type text/event-stream", path, s.header.Get("Content-Type"))
	}
	return nil
}

// streamHeader checks a header of the answer that opened a stream.
func streamHeader(_ context.Context, w *world, path, name, want string) error {
	s, ok := w.streams[path]
	if !ok {
		return fmt.Errorf("no client listens on %s", path)
	}
	if got := s.header.Get(name); got != want {
		return fmt.Errorf("GET %s: header %s = %q, want %q", path, name, got, want)
	}
	return nil
}

// shutDown closes the embedded runtime the way the jace command does when
// it stops, leaving its HTTP listener open so that later requests still
// reach it.
func shutDown(_ context.Context, w *world) error {
	if err := embeddedOnly(w); err != nil {
		return err
	}
	if _, err := w.d.base(); err != nil {
		return err
	}
	return w.d.srv.Close()
}

// streamEnds waits for the stream's body to end and checks that it ended
// as an HTTP body should (not cut off).
func streamEnds(_ context.Context, w *world, path string) error {
	s, ok := w.streams[path]
	if !ok {
		return fmt.Errorf("no client listens on %s", path)
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev, more := <-s.events:
			if !more {
				if !errors.Is(s.err, io.EOF) || errors.Is(s.err, io.ErrUnexpectedEOF) {
					return fmt.Errorf("the stream %s ended with %v, want a clean end", path, s.err)
				}
				return nil
			}
			return fmt.Errorf("the stream %s sent an event instead of ending: %s", path, ev.Data)
		case <-deadline:
			return fmt.Errorf("the stream %s did not end within 5 s", path)
		}
	}
}

func receives(_ context.Context, w *world, path, jpath, want string) error {
	s, ok := w.streams[path]
	if !ok {
		return fmt.Errorf("no client listens on %s", path)
	}
	got, err := s.next(5 * time.Second)
	if err != nil {
		return err
	}
	if got.Type != "message" {
		return fmt.Errorf("event on %s has type %q; the seed's client reads unnamed messages (EventSource onmessage)", path, got.Type)
	}
	ev := got.Data
	w.event = ev
	if !json.Valid([]byte(ev)) {
		return fmt.Errorf("event on %s is not JSON: %s", path, ev)
	}
	return matchValue(ev, jpath, want)
}

// hasHeard checks that the listener on path has heard an event whose
// jpath is want: one it heard before, or one of those that come next. It
// reads as many as it needs, so a stream may carry other events too.
func hasHeard(_ context.Context, w *world, path, jpath, want string) error {
	s, ok := w.streams[path]
	if !ok {
		return fmt.Errorf("no client listens on %s", path)
	}
	for _, ev := range s.seen {
		if matchValue(ev.Data, jpath, want) == nil {
			return nil
		}
	}
	for {
		got, err := s.next(5 * time.Second)
		if err != nil {
			return fmt.Errorf("no event on %s has %s %s (%d heard): %w", path, jpath, want, len(s.seen), err)
		}
		if matchValue(got.Data, jpath, want) == nil {
			w.event = got.Data
			return nil
		}
	}
}

func lastEventField(_ context.Context, w *world, jpath, want string) error {
	if w.event == "" {
		return errors.New("no event received yet")
	}
	return matchValue(w.event, jpath, want)
}

func lastEventKeys(_ context.Context, w *world, list string) error {
	if w.event == "" {
		return errors.New("no event received yet")
	}
	if diff := cmp.Diff(keyList(list), keysOf(gjson.Parse(w.event))); diff != "" {
		return fmt.Errorf("event keys differ (-want +got):\n%s", diff)
	}
	return nil
}

// ---- audit log ----

// logSays checks that the embedded reference's operational log has a line
// with a text.
func logSays(_ context.Context, w *world, level, text string) error {
	if err := embeddedOnly(w); err != nil {
		return err
	}
	for _, line := range strings.Split(w.d.log.String(), "\n") {
		if strings.Contains(line, "level="+level) && strings.Contains(line, text) {
			return nil
		}
	}
	return fmt.Errorf("the runtime's log has no %s line with %q:\n%s", level, text, w.d.log.String())
}

func auditLines(w *world) ([]string, error) {
	if err := embeddedOnly(w); err != nil {
		return nil, err
	}
	var lines []string
	for i, l := range strings.Split(w.d.audit.String(), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		// A record the log cannot be read back from logs nothing.
		if !gjson.Valid(l) || !gjson.Parse(l).IsObject() {
			return nil, fmt.Errorf("audit log line %d is not a record: %s", i+1, l)
		}
		lines = append(lines, l)
	}
	return lines, nil
}

func auditCount(_ context.Context, w *world, n string) error {
	lines, err := auditLines(w)
	if err != nil {
		return err
	}
	if strconv.Itoa(len(lines)) != n {
		return fmt.Errorf("the audit log has %d records, want %s:\n%s", len(lines), n, strings.Join(lines, "\n"))
	}
	return nil
}

// auditFieldText checks a field's JSON text exactly, as a number's digits
// must be when a float would round them.
func auditFieldText(_ context.Context, w *world, n, path, want string) error {
	lines, err := auditLines(w)
	if err != nil {
		return err
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 1 || i > len(lines) {
		return fmt.Errorf("audit record %s: the log has %d records", n, len(lines))
	}
	if got := lookup(lines[i-1], path); got.Raw != want {
		return fmt.Errorf("audit record %s: %s is written %s, want %s", n, path, got.Raw, want)
	}
	return nil
}

func auditField(_ context.Context, w *world, n, path, want string) error {
	lines, err := auditLines(w)
	if err != nil {
		return err
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 1 || i > len(lines) {
		return fmt.Errorf("audit record %s: the log has %d records", n, len(lines))
	}
	return matchJSON(lines[i-1], path, want)
}

// ---- the command ----

func buildCommand(ctx context.Context, w *world) error {
	dir, err := tempDir(w)
	if err != nil {
		return err
	}
	bin := filepath.Join(dir, "jace")
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "anchorage/impl/jace/cmd/jace").CombinedOutput()
	if err != nil {
		return fmt.Errorf("building cmd/jace: %w\n%s", err, out)
	}
	w.bin = bin
	return nil
}

var listeningAddr = regexp.MustCompile(`msg="jace listening" addr=(\S+)`)

// startCommand runs the built binary with args ("no arguments" for none)
// and points the scenario's driver at it once it logs its address.
func startCommand(_ context.Context, w *world, args string) error {
	if w.bin == "" {
		return errors.New("the jace command is not built")
	}
	var argv []string
	if strings.TrimSpace(args) != "no arguments" {
		argv = strings.Fields(expand(w, args))
	}
	cmd := exec.Command(w.bin, argv...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return fmt.Errorf("piping the command's stderr: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", w.bin, err)
	}
	w.procs = append(w.procs, cmd)
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() { // keep draining: the audit log goes to stderr too
			if m := listeningAddr.FindStringSubmatch(sc.Text()); m != nil && !sent {
				addr <- m[1]
				sent = true
			}
		}
		if !sent {
			close(addr)
		}
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			return fmt.Errorf("%s %s exited without listening", w.bin, args)
		}
		w.cmdAddr = a
		w.d.close()
		w.d = newDriver(0, vary.Set{})
		w.d.external = "http://" + a
		return nil
	case <-time.After(20 * time.Second):
		return fmt.Errorf("%s %s did not report listening within 20 s", w.bin, args)
	}
}

// commandExits runs the jace command with args and wants it to exit with
// the status want, within 20 s and without listening, its output saying
// says (a Go panic exits with 2 as well).
func commandExits(ctx context.Context, w *world, args, want, says string) error {
	if w.bin == "" {
		return errors.New("the jace command is not built")
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.bin, strings.Fields(expand(w, args))...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return fmt.Errorf("%s %s still runs after 20 s: %s", w.bin, args, clip(string(out)))
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return fmt.Errorf("%s %s exited with status 0 (error %v), want %s: %s", w.bin, args, err, want, clip(string(out)))
	}
	if got := strconv.Itoa(exit.ExitCode()); got != want {
		return fmt.Errorf("%s %s exited with status %s, want %s: %s", w.bin, args, got, want, clip(string(out)))
	}
	if !strings.Contains(string(out), says) {
		return fmt.Errorf("%s %s does not say %q: %s", w.bin, args, says, clip(string(out)))
	}
	return nil
}

func commandListensOn(_ context.Context, w *world, want string) error {
	if w.cmdAddr != want {
		return fmt.Errorf("the command listens on %q, want %q", w.cmdAddr, want)
	}
	return nil
}

func portFree(_ context.Context, _ *world) error {
	ln, err := net.Listen("tcp", "127.0.0.1:3323")
	if err != nil {
		return fmt.Errorf("%w: 127.0.0.1:3323 is in use (%v), so the default port cannot be checked here", godog.ErrSkip, err)
	}
	if err := ln.Close(); err != nil {
		return fmt.Errorf("releasing 127.0.0.1:3323: %w", err)
	}
	return nil
}
