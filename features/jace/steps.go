// Package jace holds the godog step definitions for the jace features: a thin
// adapter from the Gherkin in features/jace/*.feature to the JACE runtime,
// spoken to over HTTP only. By default each scenario gets a fresh embedded
// reference server (impl/jace on httptest, simulated clock, seeded from the
// scenario); with $JACE_URL set the steps drive that external runtime, and
// scenarios needing the embedded server skip with a reason.
// It may import godog, features/kit, impl/, sim/, go-cmp and gjson.
package jace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"anchorage/features/kit"
	impl "anchorage/impl/jace"
	"anchorage/impl/vary"
	"anchorage/sim/clock"
)

// world is one scenario's state.
type world struct {
	d        *driver
	last     *response
	saved    map[string]response
	streams  map[string]*stream
	pending  map[string]chan result // requests sent in the background
	tmp      string                 // temp dir for module files and binaries
	procs    []*exec.Cmd
	module   *[2]string // the last module loaded: name, source
	script   string     // the recorded request sequence
	recorded []string   // its answers
	event    string     // the last event received
	bin      string     // the built jace command
	memoryKB int        // the embedded runtime's memory when last measured
	cmdAddr  string     // where the started command listens

	restoreTZ func() error // gives the C library's TZ back its value, once changed
}

// result is the answer to a background request.
type result struct {
	resp response
	err  error
}

type worldKey struct{}

func from(ctx context.Context) (*world, error) {
	w, ok := ctx.Value(worldKey{}).(*world)
	if !ok {
		return nil, errors.New("jace: no scenario state in the context (Before hook not run)")
	}
	return w, nil
}

// InitializeScenario registers the jace steps with a scenario context.
func InitializeScenario(sc kit.Steps) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		s, err := kit.From(ctx)
		if err != nil {
			return ctx, err
		}
		seed := int64(s.Seeds.Derive("jace.runtime") >> 1)
		variations, err := vary.Parse(os.Getenv(EnvVary), impl.Variations())
		if err != nil {
			return ctx, fmt.Errorf("%s: %w", EnvVary, err)
		}
		w := &world{
			d:       newDriver(seed, variations),
			saved:   map[string]response{},
			streams: map[string]*stream{},
			pending: map[string]chan result{},
		}
		return context.WithValue(ctx, worldKey{}, w), nil
	})
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		w, ferr := from(ctx)
		if ferr != nil {
			return ctx, nil
		}
		for _, s := range w.streams {
			s.cancel()
		}
		for _, p := range w.procs {
			if p.Process != nil {
				_ = p.Process.Kill()
				_ = p.Wait()
			}
		}
		w.d.close()
		if err := restoreTimeZone(w); err != nil {
			return ctx, err
		}
		if w.tmp != "" {
			_ = kit.RemoveTemp(w.tmp, "jace-features-")
		}
		return ctx, nil
	})

	// Runtime set-up.
	sc.Step(`^the runtime is the embedded reference$`, step(func(_ context.Context, w *world) error { return embeddedOnly(w) }))
	sc.Step(`^the scenario runs the reference's own jace command$`, step(ownCommand))
	sc.Step(`^the embedded reference runtime with a fuel budget of (\d+) units?$`, step(withFuel))
	sc.Step(`^the embedded reference runtime with seed (\d+)$`, step(withSeed))
	sc.Step(`^the embedded reference runtime with a body limit of (\d+) bytes$`, step(withMaxBody))
	sc.Step(`^the embedded reference runtime remembering at most (\d+) Idempotency-Keys per session$`, step(withMaxKeys))
	sc.Step(`^the embedded reference runtime keeping at most (\d+) session VMs$`, step(withMaxVMs))
	sc.Step(`^the embedded reference runtime with an output limit of (\d+) bytes$`, step(withMaxOutput))
	sc.Step(`^the action time limit is the 2 s wall clock$`, step(wallClockLimit))
	sc.Step(`^the action time limit is the runtime's default wall-clock watchdog$`, step(defaultWatchdog))
	sc.Step(`^the agent posts to (\S+) (\{.*\}) and is answered once (\d+) ms have passed on the runtime's clock, not before$`, step(postTimed))
	sc.Step(`^the host's time zone is "([^"]+)"$`, step(hostTimeZone))
	sc.Step(`^the calculator module is loaded$`, step(loadCalculator))
	sc.Step(`^the module "([^"]+)" is loaded:$`, step(loadModule))
	sc.Step(`^a module file "([^"]+)" containing:$`, step(writeModuleFile))

	// Requests.
	sc.Step(`^(?:the agent|the client|a client) (?:posts|post) to (/[\w./?=&-]*) (\{.*\})(?: with Idempotency-Key (\S+))?$`, step(postInline))
	sc.Step(`^(?:the agent|the client|a client) (?:posts|post) to (/[\w./?=&-]*)(?: with Idempotency-Key (\S+))?:$`, step(postDoc))
	sc.Step(`^(?:the agent|the client) posts to (/[\w./?=&-]*) (\{.*\}) accepting "([^"]*)"$`, step(postAccept))
	sc.Step(`^(?:the agent|the client) posts to (/[\w./?=&-]*) the raw body '([^']*)'(?: as "([^"]+)")?$`, step(postRaw))
	sc.Step(`^(?:the agent|the client) posts to (/[\w./?=&-]*) the raw body '([^']*)' without a Content-Type$`, step(postUntyped))
	sc.Step(`^(?:the agent|the client) posts to (/[\w./?=&-]*) a JSON body of (\d+) bytes( sent in chunks)?$`, step(postLarge))
	sc.Step(`^(?:the agent|the client) posts to (/[\w./?=&-]*) the raw body '([^']*)' with "([^"]+)" standing for a (tab|line break)$`, step(postWithMarks))
	sc.Step(`^(?:the agent|the client) sends (GET|POST|PUT|DELETE|HEAD) (/[\w./?=-]*)$`, step(sendBare))
	sc.Step(`^the agent presses "([^"]+)"(?: with params (\{.*\}))?(?: in session "([^"]+)")?$`, step(pressAction))
	sc.Step(`^the agent starts (/[\w./?=&-]*) (\{.*\}) with Idempotency-Key (\S+) in the background as "([^"]+)"$`, step(postBackground))
	sc.Step(`^the background request "([^"]+)" finishes$`, step(awaitBackground))
	sc.Step(`^the response is remembered as "([^"]+)"$`, step(remember))
	sc.Step(`^the action "([^"]+)" in session "([^"]*)" gives the result ([^ ]+)$`, step(actionGives))
	sc.Step(`^the agent posts to (/[\w./?=&-]*) (\{.*\}) padded with blanks to (\d+) bytes$`, step(postPadded))
	sc.Step(`^the session "([^"]*)" is viewed by an agent$`, step(viewSession))

	// Assertions on the last response.
	sc.Step(`^the response status is (\d+)$`, step(statusIs))
	sc.Step(`^the response status is (\d+) and (\$\S*) is (.+?)$`, step(statusAndPath))
	sc.Step(`^(\$\S*) is (.+?)$`, step(pathIs))
	sc.Step(`^where (\$\S*) is ("[^"]*"), (\$\S*) is (.+?)$`, step(pathIsWhere))
	sc.Step(`^(\$\S*) contains "((?:[^"\\]|\\.)*)"$`, step(pathContains))
	sc.Step(`^(\$\S*) has exactly the keys (.+?)$`, step(pathKeys))
	sc.Step(`^the response is a JSON error "([^"]+)" with status (\d+)$`, step(jsonError))
	sc.Step(`^the response is a JSON error$`, step(anyError))
	sc.Step(`^the response, if it is an error, is a JSON error$`, step(errorIfFailed))
	sc.Step(`^the response is a JSON error with a ([45])xx status$`, step(classError))
	sc.Step(`^the response is a JSON error with status (\d+)$`, step(statusError))
	sc.Step(`^its code is "([^"]+)"$`, step(codeIs))
	sc.Step(`^its code is the spec family's code for its status$`, step(familyCodeForStatus))
	sc.Step(`^the response is JSON$`, step(isJSON))
	sc.Step(`^the response's media type is "([^"]+)"$`, step(mediaTypeIs))
	sc.Step(`^the response header "([^"]+)" lists "([^"]+)"$`, step(headerLists))
	sc.Step(`^if the answer is a 405, its Allow header names "([^"]+)"$`, step(allowNames))
	sc.Step(`^the response is an HTML document$`, step(isHTML))
	sc.Step(`^the HTML shows the text "((?:[^"\\]|\\.)*)"$`, step(htmlShows))
	sc.Step(`^the response is a JACE Action Result$`, step(isActionResult))
	sc.Step(`^the response status is that of the remembered "([^"]+)"$`, step(sameStatus))
	sc.Step(`^every number in (\$\S*) is at least 0 and below 1$`, step(unitNumbers))
	sc.Step(`^the error message contains "((?:[^"\\]|\\.)*)"$`, step(errorMessageContains))
	sc.Step(`^the response body contains "((?:[^"\\]|\\.)*)"$`, step(bodyContains))
	sc.Step(`^the response body ends with "((?:[^"\\]|\\.)*)"$`, step(bodyEndsWith))
	sc.Step(`^the response body is "((?:[^"\\]|\\.)*)"$`, step(bodyIs))
	sc.Step(`^the response body does not contain "((?:[^"\\]|\\.)*)"$`, step(bodyLacks))
	sc.Step(`^the response header "([^"]+)" (is|starts with) "([^"]*)"$`, step(headerIs))
	sc.Step(`^the response header "([^"]+)" is absent$`, step(headerAbsent))
	sc.Step(`^the response is byte-for-byte the remembered "([^"]+)"$`, step(sameBytes))
	sc.Step(`^(\$\S*) differs from that of the remembered "([^"]+)"$`, step(pathDiffers))
	sc.Step(`^(\$\S*) equals that of the remembered "([^"]+)"$`, step(pathEquals))

	// Whole runs.
	sc.Step(`^the request sequence is recorded:$`, step(recordSequence))
	sc.Step(`^the recorded sequence gives byte-identical responses on a second run from a freshly loaded module$`, step(replayFresh))
	sc.Step(`^the recorded sequence gives byte-identical responses on a second embedded runtime with the same seed$`, step(replaySecondServer))

	// Events.
	sc.Step(`^a client listens on (/[\w./?=-]*)$`, step(listen))
	sc.Step(`^the listener on (/[\w./?=-]*) receives an event whose (\$\S*) is (.+?)$`, step(receives))
	sc.Step(`^the stream on (/[\w./?=-]*) is answered with the header "([^"]+)" set to "([^"]*)"$`, step(streamHeader))
	sc.Step(`^the runtime shuts down$`, step(shutDown))
	sc.Step(`^the stream on (/[\w./?=-]*) ends cleanly$`, step(streamEnds))
	sc.Step(`^the last event has exactly the keys (.+?)$`, step(lastEventKeys))
	sc.Step(`^the last event has at least the keys (.+?)$`, step(lastEventHasKeys))
	sc.Step(`^the last event came as one data line$`, step(lastEventOneLine))
	sc.Step(`^the listener on (/[\w./?=-]*) receives an event$`, step(receivesAny))
	sc.Step(`^the listener on (/[\w./?=-]*) has heard an event whose (\$\S*) is (.+?)$`, step(hasHeard))
	sc.Step(`^the last event's (\$\S*) is (.+?)$`, step(lastEventField))

	// Memory.
	sc.Step(`^the runtime's memory is measured$`, step(memoryMeasured))
	sc.Step(`^the module is loaded again and "([^"]+)" run in the sessions (.+), (\d+) times over$`, step(reloadRounds))
	sc.Step(`^"([^"]+)" is run once in each of (\d+) new sessions$`, step(actionsIn))
	sc.Step(`^"([^"]+)" breaches a guard once in each of (\d+) new sessions "([^"]+)"$`, step(breachesIn))
	sc.Step(`^"([^"]+)" is committed (\d+) times in session "([^"]*)", each time with a new Idempotency-Key$`, step(commitsWithKeys))
	sc.Step(`^(\d+) clients listen on (/[\w./?=-]*) one after another, each going away once answered$`, step(listenersComeAndGo))
	sc.Step(`^the runtime's memory has grown by less than (\d+) MB$`, step(memoryGrewLessThan))

	// Operational log.
	sc.Step(`^the runtime's log has an? (INFO|WARN) line saying "([^"]*)"$`, step(logSays))

	// Audit log.
	sc.Step(`^the audit log has (\d+) records?$`, step(auditCount))
	sc.Step(`^audit record (\d+) has (\$\S*) written as (\S+)$`, step(auditFieldText))
	sc.Step(`^audit record (\d+) has (\$\S*) (?:is|=) (.+?)$`, step(auditField))

	// The command.
	sc.Step(`^the jace command is built$`, step(buildCommand))
	sc.Step(`^the jace command is started with (.*)$`, step(startCommand))
	sc.Step(`^the command listens on (\S+)$`, step(commandListensOn))
	sc.Step(`^the jace command started with (.*) exits with status (\d+), saying "([^"]*)"$`, step(commandExits))
	sc.Step(`^the port 3323 on 127\.0\.0\.1 is free$`, step(portFree))
}

// step adapts a func(ctx, *world, args...) error to a godog step, fetching
// the scenario's world from the context.
func step(fn any) any {
	switch f := fn.(type) {
	case func(context.Context, *world) error:
		return func(ctx context.Context) error {
			w, err := from(ctx)
			if err != nil {
				return err
			}
			return skipNote(ctx, f(ctx, w))
		}
	case func(context.Context, *world, string) error:
		return func(ctx context.Context, a string) error {
			w, err := from(ctx)
			if err != nil {
				return err
			}
			return skipNote(ctx, f(ctx, w, a))
		}
	case func(context.Context, *world, string, string) error:
		return func(ctx context.Context, a, b string) error {
			w, err := from(ctx)
			if err != nil {
				return err
			}
			return skipNote(ctx, f(ctx, w, a, b))
		}
	case func(context.Context, *world, string, string, string) error:
		return func(ctx context.Context, a, b, c string) error {
			w, err := from(ctx)
			if err != nil {
				return err
			}
			return skipNote(ctx, f(ctx, w, a, b, c))
		}
	case func(context.Context, *world, string, string, string, string) error:
		return func(ctx context.Context, a, b, c, e string) error {
			w, err := from(ctx)
			if err != nil {
				return err
			}
			return skipNote(ctx, f(ctx, w, a, b, c, e))
		}
	case func(context.Context, *world, string, *godog.DocString) error:
		return func(ctx context.Context, a string, doc *godog.DocString) error {
			w, err := from(ctx)
			if err != nil {
				return err
			}
			return skipNote(ctx, f(ctx, w, a, doc))
		}
	case func(context.Context, *world, string, string, *godog.DocString) error:
		return func(ctx context.Context, a, b string, doc *godog.DocString) error {
			w, err := from(ctx)
			if err != nil {
				return err
			}
			return skipNote(ctx, f(ctx, w, a, b, doc))
		}
	case func(context.Context, *world, *godog.DocString) error:
		return func(ctx context.Context, doc *godog.DocString) error {
			w, err := from(ctx)
			if err != nil {
				return err
			}
			return skipNote(ctx, f(ctx, w, doc))
		}
	}
	return func() error { return fmt.Errorf("jace: step function of unsupported type %T", fn) }
}

// skipNote makes a skip visible: godog reports the scenario's steps as
// skipped, and the reason is logged on the scenario's go test.
func skipNote(ctx context.Context, err error) error {
	if errors.Is(err, godog.ErrSkip) {
		if t := godog.T(ctx); t != nil {
			t.Logf("SKIPPED (%v)", err)
		}
	}
	return err
}

// ---- set-up ----

func embeddedOnly(w *world) error {
	if !w.d.embedded() {
		return fmt.Errorf("%w: needs the embedded reference runtime (%s=%s is set)", godog.ErrSkip, EnvURL, w.d.external)
	}
	return nil
}

// ownCommand skips a scenario that builds and starts this tree's jace
// command when another runtime is under test: it would check the reference,
// not that runtime.
func ownCommand(_ context.Context, w *world) error {
	if !w.d.embedded() {
		return fmt.Errorf("%w: builds and starts the reference's own jace command, not the runtime at %s=%s", godog.ErrSkip, EnvURL, w.d.external)
	}
	return nil
}

func configure(w *world, apply func(*impl.Config, int64), n string) error {
	if err := embeddedOnly(w); err != nil {
		return err
	}
	v, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return fmt.Errorf("number %q: %w", n, err)
	}
	cfg, err := w.d.configurable()
	if err != nil {
		return err
	}
	apply(cfg, v)
	return nil
}

// wallClockLimit makes the embedded runtime use the real 2 s watchdog (on
// the real clock) instead of its deterministic fuel stand-in; an external
// runtime is taken as configured.
func wallClockLimit(_ context.Context, w *world) error {
	if !w.d.embedded() {
		return nil
	}
	cfg, err := w.d.configurable()
	if err != nil {
		return err
	}
	cfg.Clock = clock.Real()
	cfg.TimeoutFuel = 0
	cfg.Timeout = 0 // the runtime's default, not restated here
	return nil
}

// defaultWatchdog makes the embedded runtime stop actions with its
// wall-clock watchdog at its default limit (no limit is configured, so the
// scenario measures the default rather than restating it), on the
// scenario's simulated clock; an external runtime is taken as configured.
func defaultWatchdog(_ context.Context, w *world) error {
	if !w.d.embedded() {
		return nil
	}
	cfg, err := w.d.configurable()
	if err != nil {
		return err
	}
	cfg.TimeoutFuel = 0
	cfg.Timeout = 0
	return nil
}

// postTimed posts an action that never ends by itself and checks when its
// answer comes: on the embedded runtime, by moving the simulated clock to
// just before the limit (no answer may come) and then to the limit (the
// answer must come); on an external runtime, by the real time it took.
func postTimed(ctx context.Context, w *world, path, body, ms string) error {
	limit, err := time.ParseDuration(ms + "ms")
	if err != nil {
		return err
	}
	body = expand(w, body)
	if !w.d.embedded() {
		t0 := time.Now()
		if err := w.post(ctx, path, body, nil); err != nil {
			return err
		}
		if took := time.Since(t0); took < limit-50*time.Millisecond || took > limit+4*time.Second {
			return fmt.Errorf("answered after %s, want about %s", took, limit)
		}
		return nil
	}
	clk, ok := w.d.cfg.Clock.(*clock.Sim)
	if !ok {
		return errors.New("the embedded runtime does not run on a simulated clock")
	}
	if _, err := w.d.base(); err != nil {
		return err
	}
	before := clk.Pending()
	done := make(chan result, 1)
	go func() {
		r, err := w.d.do(ctx, http.MethodPost, path, []byte(body), nil)
		done <- result{r, err}
	}()
	// Wait until the call has armed its watchdog on the clock: a timer
	// that stays (shorter guarded calls before the action arm and stop
	// theirs).
	steady := time.Time{}
	for deadline := time.Now().Add(10 * time.Second); ; {
		select {
		case r := <-done:
			return fmt.Errorf("answered before any time passed: %d %s (%v)", r.resp.status, r.resp.body, r.err)
		case <-time.After(time.Millisecond):
		}
		switch {
		case clk.Pending() <= before:
			steady = time.Time{}
		case steady.IsZero():
			steady = time.Now()
		}
		if !steady.IsZero() && time.Since(steady) > 300*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("the action never armed a timer on the runtime's clock")
		}
	}
	clk.Advance(limit - time.Millisecond)
	select {
	case r := <-done:
		return fmt.Errorf("answered when only %s had passed: %d %s (%v)", limit-time.Millisecond, r.resp.status, r.resp.body, r.err)
	case <-time.After(300 * time.Millisecond):
	}
	clk.Advance(time.Millisecond)
	select {
	case r := <-done:
		if r.err != nil {
			return r.err
		}
		w.last = &r.resp
		return nil
	case <-time.After(5 * time.Second):
	}
	// Let a later watchdog fire so that the runtime can be closed.
	clk.Advance(time.Hour)
	r := <-done
	return fmt.Errorf("no answer when %s had passed; an hour later: %d %s (%v)", limit, r.resp.status, r.resp.body, r.err)
}

func withFuel(_ context.Context, w *world, n string) error {
	return configure(w, func(c *impl.Config, v int64) { c.Fuel = v }, n)
}

func withSeed(_ context.Context, w *world, n string) error {
	return configure(w, func(c *impl.Config, v int64) { c.Seed = v }, n)
}

func withMaxBody(_ context.Context, w *world, n string) error {
	return configure(w, func(c *impl.Config, v int64) { c.MaxBody = v }, n)
}

func withMaxVMs(_ context.Context, w *world, n string) error {
	return configure(w, func(c *impl.Config, v int64) { c.MaxVMs = int(v) }, n)
}

func withMaxOutput(_ context.Context, w *world, n string) error {
	return configure(w, func(c *impl.Config, v int64) { c.MaxOutput = int(v) }, n)
}

func withMaxKeys(_ context.Context, w *world, n string) error {
	return configure(w, func(c *impl.Config, v int64) { c.MaxKeysPerSession = int(v) }, n)
}

// load loads a module through POST /load with the seed's member source
// (and no other: a name member is the reference's extension).
func load(ctx context.Context, w *world, name, source string) error {
	body, err := json.Marshal(map[string]string{"source": source})
	if err != nil {
		return fmt.Errorf("encoding the /load body: %w", err)
	}
	r, err := w.d.do(ctx, http.MethodPost, "/load", body, nil)
	if err != nil {
		return err
	}
	if r.status != 200 {
		return fmt.Errorf("loading %s: status %d: %s", name, r.status, r.body)
	}
	w.module = &[2]string{name, source}
	return nil
}

// loadCalculator loads the demo explicitly, so that an external runtime
// starts the scenario from the same module with every session reset.
func loadCalculator(ctx context.Context, w *world) error {
	return load(ctx, w, "calculator.js", impl.CalculatorModule())
}

func loadModule(ctx context.Context, w *world, name string, doc *godog.DocString) error {
	return load(ctx, w, name, doc.Content)
}

func tempDir(w *world) (string, error) {
	if w.tmp == "" {
		dir, err := os.MkdirTemp("", "jace-features-")
		if err != nil {
			return "", fmt.Errorf("making a temp dir: %w", err)
		}
		w.tmp = dir
	}
	return w.tmp, nil
}

// writeModuleFile writes a module on disk; the scenario refers to it by
// its name, which the steps replace with the full path ("<file:name>").
func writeModuleFile(_ context.Context, w *world, name string, doc *godog.DocString) error {
	if !w.d.embedded() && !isLoopback(w.d.external) {
		return fmt.Errorf("%w: the module file must be on the runtime's disk, and %s is not on this host", godog.ErrSkip, w.d.external)
	}
	dir, err := tempDir(w)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(doc.Content), 0o644); err != nil {
		return fmt.Errorf("writing module file %s: %w", name, err)
	}
	return nil
}

func isLoopback(u string) bool {
	return strings.Contains(u, "://127.0.0.1") || strings.Contains(u, "://localhost") || strings.Contains(u, "://[::1]")
}

var filePlaceholder = regexp.MustCompile(`<file:([^>]+)>`)

// expand replaces <file:name> with the path of a module file of this
// scenario.
func expand(w *world, s string) string {
	return filePlaceholder.ReplaceAllStringFunc(s, func(m string) string {
		name := filePlaceholder.FindStringSubmatch(m)[1]
		p := filepath.Join(w.tmp, name)
		b, err := json.Marshal(p)
		if err != nil {
			return p
		}
		return strings.Trim(string(b), `"`)
	})
}

// ---- requests ----

func (w *world) post(ctx context.Context, path, body string, headers map[string]string) error {
	body = expand(w, body)
	if !json.Valid([]byte(body)) {
		return fmt.Errorf("the scenario's body for %s is not JSON: %s", path, body)
	}
	r, err := w.d.do(ctx, http.MethodPost, path, []byte(body), headers)
	if err != nil {
		return err
	}
	w.last = &r
	return nil
}

func keyHeader(key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{impl.IdempotencyHeader: key}
}

func postInline(ctx context.Context, w *world, path, body, key string) error {
	return w.post(ctx, path, body, keyHeader(key))
}

func postDoc(ctx context.Context, w *world, path, key string, doc *godog.DocString) error {
	return w.post(ctx, path, doc.Content, keyHeader(key))
}

func postAccept(ctx context.Context, w *world, path, body, accept string) error {
	return w.post(ctx, path, body, map[string]string{"Accept": accept})
}

func postRaw(ctx context.Context, w *world, path, body, ctype string) error {
	headers := map[string]string{}
	if ctype != "" {
		headers["Content-Type"] = ctype
	}
	r, err := w.d.do(ctx, http.MethodPost, path, []byte(body), headers)
	if err != nil {
		return err
	}
	w.last = &r
	return nil
}

// postUntyped sends body with no Content-Type header at all.
func postUntyped(ctx context.Context, w *world, path, body string) error {
	r, err := w.d.do(ctx, http.MethodPost, path, []byte(body), map[string]string{"Content-Type": ""})
	if err != nil {
		return err
	}
	w.last = &r
	return nil
}

// postLarge sends a syntactically valid /load body of exactly n bytes,
// with its Content-Length or, sent in chunks, without one (so that only
// the bytes read can tell the runtime how long it is).
func postLarge(ctx context.Context, w *world, path, n, chunked string) error {
	size, err := strconv.Atoi(n)
	if err != nil {
		return fmt.Errorf("size %q: %w", n, err)
	}
	head, tail := `{"source":"`, `"}`
	if size < len(head)+len(tail) {
		return fmt.Errorf("size %d is too small for a JSON body", size)
	}
	body := head + strings.Repeat("x", size-len(head)-len(tail)) + tail
	if chunked != "" {
		r, err := w.d.doChunked(ctx, path, []byte(body))
		if err != nil {
			return err
		}
		w.last = &r
		return nil
	}
	r, err := w.d.do(ctx, http.MethodPost, path, []byte(body), nil)
	if err != nil {
		return err
	}
	w.last = &r
	return nil
}

// postWithMarks sends body with every mark replaced by a raw tab or line
// feed byte.
func postWithMarks(ctx context.Context, w *world, path, body, mark, what string) error {
	c := "\t"
	if what == "line break" {
		c = "\n"
	}
	return postRaw(ctx, w, path, strings.ReplaceAll(body, mark, c), "")
}

func sendBare(ctx context.Context, w *world, method, path string) error {
	r, err := w.d.do(ctx, method, path, nil, nil)
	if err != nil {
		return err
	}
	w.last = &r
	return nil
}

func pressAction(ctx context.Context, w *world, action, params, session string) error {
	env := map[string]any{"action": action}
	if params != "" {
		env["params"] = json.RawMessage(params)
	}
	if session != "" {
		env["session_id"] = session
	}
	b, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("encoding the envelope: %w", err)
	}
	if err := w.post(ctx, "/actions", string(b), nil); err != nil {
		return err
	}
	if w.last.status != 200 {
		return fmt.Errorf("pressing %s: status %d: %s", action, w.last.status, w.last.body)
	}
	return nil
}

// actionGives runs an action without params in a session through /actions
// and checks that it succeeds with the given result.
func actionGives(ctx context.Context, w *world, action, session, want string) error {
	b, err := json.Marshal(map[string]string{"action": action, "session_id": session})
	if err != nil {
		return fmt.Errorf("encoding the envelope: %w", err)
	}
	if err := w.post(ctx, "/actions", string(b), nil); err != nil {
		return err
	}
	if w.last.status != 200 {
		return fmt.Errorf("%s in session %q: status %d: %s", action, session, w.last.status, clip(w.last.body))
	}
	if err := matchJSON(w.last.body, "$.result", want); err != nil {
		return fmt.Errorf("%s in session %q: %w", action, session, err)
	}
	return nil
}

func postBackground(ctx context.Context, w *world, path, body, key, name string) error {
	if _, err := w.d.base(); err != nil {
		return err
	}
	ch := make(chan result, 1)
	w.pending[name] = ch
	go func() {
		r, err := w.d.do(context.WithoutCancel(ctx), http.MethodPost, path, []byte(body), keyHeader(key))
		ch <- result{r, err}
	}()
	// Give the runtime a moment to receive the request and claim its key.
	time.Sleep(300 * time.Millisecond)
	return nil
}

func awaitBackground(_ context.Context, w *world, name string) error {
	ch, ok := w.pending[name]
	if !ok {
		return fmt.Errorf("no background request %q was started", name)
	}
	select {
	case res := <-ch:
		if res.err != nil {
			return res.err
		}
		r := res.resp
		w.last = &r
		return nil
	case <-time.After(20 * time.Second):
		return fmt.Errorf("the background request %q did not finish within 20 s", name)
	}
}

func remember(_ context.Context, w *world, name string) error {
	if w.last == nil {
		return errors.New("no response to remember yet")
	}
	w.saved[name] = *w.last
	return nil
}

func viewSession(ctx context.Context, w *world, session string) error {
	body := `{"audience":"agent"}`
	if session != "" {
		b, err := json.Marshal(map[string]string{"audience": "agent", "session_id": session})
		if err != nil {
			return fmt.Errorf("encoding the view request: %w", err)
		}
		body = string(b)
	}
	if err := w.post(ctx, "/view", body, nil); err != nil {
		return err
	}
	if w.last.status != 200 {
		return fmt.Errorf("viewing session %q: status %d: %s", session, w.last.status, w.last.body)
	}
	return nil
}

// ---- assertions ----

func (w *world) response() (*response, error) {
	if w.last == nil {
		return nil, errors.New("no request has been sent yet")
	}
	return w.last, nil
}

// gpath turns "$.a.b" into the gjson path "a.b"; "$" is the whole body.
func gpath(p string) string {
	p = strings.TrimPrefix(p, "$")
	return strings.TrimPrefix(p, ".")
}

func lookup(body, path string) gjson.Result {
	if gpath(path) == "" {
		return gjson.Parse(body)
	}
	return gjson.Get(body, gpath(path))
}

// decode parses JSON into a comparable Go value.
func decode(s string) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("not JSON: %w: %s", err, s)
	}
	return v, nil
}

// matchJSON compares the value at path in body with a JSON literal.
func matchJSON(body, path, want string) error {
	got := lookup(body, path)
	if !got.Exists() {
		return fmt.Errorf("%s is absent in %s", path, clip(body))
	}
	wv, err := decode(strings.TrimSpace(want))
	if err != nil {
		return fmt.Errorf("the expected value of %s: %w", path, err)
	}
	gv, err := decode(got.Raw)
	if err != nil {
		return fmt.Errorf("the value of %s: %w", path, err)
	}
	if diff := cmp.Diff(wv, gv); diff != "" {
		return fmt.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
	return nil
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

func statusIs(_ context.Context, w *world, n string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if strconv.Itoa(r.status) != n {
		return fmt.Errorf("status %d, want %s; body %s", r.status, n, clip(r.body))
	}
	return nil
}

func statusAndPath(ctx context.Context, w *world, n, path, want string) error {
	if err := statusIs(ctx, w, n); err != nil {
		return err
	}
	return pathIs(ctx, w, path, want)
}

func pathIs(_ context.Context, w *world, path, want string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if want == "absent" {
		return pathAbsent(w, path)
	}
	return matchValue(r.body, path, want)
}

// pathIsWhere checks that the answer's path is want only where its member
// when is given: an answer whose when is something else passes.
func pathIsWhere(_ context.Context, w *world, when, given, path, want string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if matchValue(r.body, when, given) != nil {
		return nil
	}
	if err := matchValue(r.body, path, want); err != nil {
		return fmt.Errorf("%s is %s: %w", when, given, err)
	}
	return nil
}

func pathAbsent(w *world, path string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if got := lookup(r.body, path); got.Exists() {
		return fmt.Errorf("%s is present: %s", path, clip(got.Raw))
	}
	// "absent" only means something where the path's parent is there: a
	// typo or a renamed container would otherwise pass.
	if parent := parentPath(path); parent != "" {
		if !lookup(r.body, parent).Exists() {
			return fmt.Errorf("%s cannot be absent: its parent %s is missing too in %s", path, parent, clip(r.body))
		}
	}
	return nil
}

// parentPath drops the last component of a $-path ("$.a.b" gives "$.a",
// "$.a" gives "$"); dots inside a #(...) query do not split.
func parentPath(p string) string {
	depth, cut := 0, -1
	for i, c := range p {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case '.':
			if depth == 0 {
				cut = i
			}
		}
	}
	if cut < 0 {
		return ""
	}
	return p[:cut]
}

func unquote(s string) string {
	u, err := strconv.Unquote(`"` + s + `"`)
	if err != nil {
		return s
	}
	return u
}

func pathContains(_ context.Context, w *world, path, sub string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	got := lookup(r.body, path)
	if !got.Exists() {
		return fmt.Errorf("%s is absent in %s", path, clip(r.body))
	}
	if !strings.Contains(got.String(), unquote(sub)) {
		return fmt.Errorf("%s = %q does not contain %q", path, got.String(), unquote(sub))
	}
	return nil
}

// keyList parses `"a", "b" and "c"` into a sorted list.
func keyList(s string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return sorted(out)
}

func sorted(in []string) []string {
	out := append([]string(nil), in...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func keysOf(raw gjson.Result) []string {
	var keys []string
	raw.ForEach(func(k, _ gjson.Result) bool {
		keys = append(keys, k.String())
		return true
	})
	return sorted(keys)
}

func pathKeys(_ context.Context, w *world, path, list string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	got := lookup(r.body, path)
	if !got.IsObject() {
		return fmt.Errorf("%s is not an object in %s", path, clip(r.body))
	}
	if diff := cmp.Diff(keyList(list), keysOf(got)); diff != "" {
		return fmt.Errorf("keys of %s differ (-want +got):\n%s", path, diff)
	}
	return nil
}

// jsonError checks an error answer (checkError) with its exact status and
// code.
func jsonError(ctx context.Context, w *world, code, status string) error {
	if err := statusError(ctx, w, status); err != nil {
		return err
	}
	return codeIs(ctx, w, code)
}

func errorMessageContains(ctx context.Context, w *world, sub string) error {
	return pathContains(ctx, w, "$.error.message", sub)
}

func bodyContains(_ context.Context, w *world, sub string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if !strings.Contains(r.body, unquote(sub)) {
		return fmt.Errorf("the body lacks %q: %s", unquote(sub), clip(r.body))
	}
	return nil
}

func bodyEndsWith(_ context.Context, w *world, suffix string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if !strings.HasSuffix(r.body, unquote(suffix)) {
		return fmt.Errorf("the body does not end with %q: %s", unquote(suffix), clip(r.body))
	}
	return nil
}

func bodyIs(_ context.Context, w *world, want string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if r.body != unquote(want) {
		return fmt.Errorf("the body is %q, want %q", r.body, unquote(want))
	}
	return nil
}

func bodyLacks(_ context.Context, w *world, sub string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if strings.Contains(r.body, unquote(sub)) {
		return fmt.Errorf("the body contains %q: %s", unquote(sub), clip(r.body))
	}
	return nil
}

func headerIs(_ context.Context, w *world, name, how, want string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	got := r.header.Get(name)
	ok := got == want
	if how == "starts with" {
		ok = strings.HasPrefix(got, want)
	}
	if !ok {
		return fmt.Errorf("header %s = %q, want it to %s %q", name, got, how, want)
	}
	return nil
}

func headerAbsent(_ context.Context, w *world, name string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if got := r.header.Get(name); got != "" {
		return fmt.Errorf("header %s = %q, want none", name, got)
	}
	return nil
}

func (w *world) remembered(name string) (response, error) {
	r, ok := w.saved[name]
	if !ok {
		return response{}, fmt.Errorf("no response remembered as %q", name)
	}
	return r, nil
}

func sameBytes(_ context.Context, w *world, name string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	old, err := w.remembered(name)
	if err != nil {
		return err
	}
	if old.status != r.status {
		return fmt.Errorf("status %d, remembered %d", r.status, old.status)
	}
	if diff := cmp.Diff(old.body, r.body); diff != "" {
		return fmt.Errorf("the body differs from %q (-remembered +now):\n%s", name, diff)
	}
	return nil
}

// pathPair looks path up in the response remembered as name and in the
// current one; both must hold it.
func pathPair(w *world, path, name string) (remembered, now gjson.Result, err error) {
	r, err := w.response()
	if err != nil {
		return remembered, now, err
	}
	old, err := w.remembered(name)
	if err != nil {
		return remembered, now, err
	}
	remembered, now = lookup(old.body, path), lookup(r.body, path)
	if !remembered.Exists() || !now.Exists() {
		return remembered, now, fmt.Errorf("%s is missing: remembered %s, now %s", path, clip(old.body), clip(r.body))
	}
	return remembered, now, nil
}

func pathEquals(_ context.Context, w *world, path, name string) error {
	a, b, err := pathPair(w, path, name)
	if err != nil {
		return err
	}
	if diff := cmp.Diff(a.Raw, b.Raw); diff != "" {
		return fmt.Errorf("%s differs from %q (-remembered +now):\n%s", path, name, diff)
	}
	return nil
}

func pathDiffers(_ context.Context, w *world, path, name string) error {
	a, b, err := pathPair(w, path, name)
	if err != nil {
		return err
	}
	if a.Raw == b.Raw {
		return fmt.Errorf("%s is %s in both", path, a.Raw)
	}
	return nil
}
