// Package chatlog holds the godog step definitions for the chatlog features:
// a thin adapter from the Gherkin in features/chatlog/*.feature to
// impl/chatlog (the server, its parser and HTTP transport) and sim/ (the
// simulated clock, filesystem and QuickJS pages of sim/realm).
// It may import godog, features/kit, impl/ and sim/.
package chatlog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/chatlog"
	"anchorage/sim/clock"
	"anchorage/sim/realm"
	"anchorage/sim/vfs"

	"github.com/cucumber/godog"
	"github.com/spf13/afero"
)

// world is one scenario's state.
type world struct {
	seed          uint64
	clk           *clock.Sim
	fs            afero.Fs
	cfg           chatlog.Config
	srv           *chatlog.Server
	con           bytes.Buffer
	pages         map[string]*realm.Page
	regs          map[string]chatlog.Registration
	stems         map[string]string // page → the stem of its log, where the driver found it
	names         map[string]string // page → the name its registry line gives it
	seen          map[string]string // page → the last-seen time its registry line showed last
	check         lastCheck         // what the last step that quoted text compared
	prefilled     map[string]bool   // logs the scenario put in debug/ itself
	registrations []registration    // registrations over HTTP not yet judged
	work          map[string]time.Duration
	agents        map[string]*realm.Agent
	snaps         map[string]string // log contents after the last step, for the append-only check
	broken        []string          // append-only violations seen
	parsed        chatlog.ParseReport
	parsedText    string        // the log the server wrote, as it was parsed
	lastW         time.Time     // time of the last agent write
	faulty        *vfs.Faulty   // the server's disk, which can fail its writes
	count         *vfs.Counting // the server's filesystem, counting what it reads
	gate          *createGate   // the server's filesystem, which can refuse new files
	mark          int64         // bytes the server had read when noted
	http          *httptest.Server
	refusal       int
	polls         map[string]chan polled  // background HTTP polls by page
	lastPoll      polled                  // the last background poll that answered
	taken         map[string]chatlog.Task // the last job each HTTP page was given
	d             driver                  // the implementation under test (driver.go)
	base          string                  // the adapter transport's base URL
}

// registration is how the server answered a registration over HTTP.
type registration struct {
	origin, allow, body string
	status              int
}

// polled is the answer to a background HTTP poll.
type polled struct {
	status  int
	task    chatlog.Task
	err     error
	chunked bool // the answer came in chunks: it was flushed before the handler ended
}

type worldKey struct{}

func get(ctx context.Context) *world { return ctx.Value(worldKey{}).(*world) }

// InitializeScenario registers the chatlog steps with a scenario context.
func InitializeScenario(sc kit.Steps) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		s, err := kit.From(ctx)
		if err != nil {
			return ctx, err
		}
		variations, err := chatlog.ParseVary(os.Getenv(EnvVary))
		if err != nil {
			return ctx, fmt.Errorf("%s: %w", EnvVary, err)
		}
		w := &world{seed: s.Seeds.Derive("chatlog"), pages: map[string]*realm.Page{}, regs: map[string]chatlog.Registration{},
			stems: map[string]string{}, names: map[string]string{}, seen: map[string]string{},
			work: map[string]time.Duration{}, agents: map[string]*realm.Agent{}, snaps: map[string]string{}}
		w.clk = clock.NewSim(time.Time{})
		w.fs = vfs.NewMem(w.clk)
		w.faulty = vfs.NewFaulty(w.fs, w.seed)
		w.count = vfs.NewCounting(w.faulty)
		w.gate = &createGate{Fs: w.count}
		w.cfg = chatlog.Config{Fs: w.gate, Clock: w.clk, Console: &w.con, Seed: w.seed, Vary: variations}
		return context.WithValue(ctx, worldKey{}, w), nil
	})
	registerDriver(sc)
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		if w, ok := ctx.Value(worldKey{}).(*world); ok && w.d != nil {
			w.d.close()
		}
		return ctx, nil
	})
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
		if w, ok := ctx.Value(worldKey{}).(*world); ok {
			w.checkAppendOnly()
		}
		return ctx, err
	})

	// Setting up.
	sc.Step(`^a running server$`, func(ctx context.Context) error { return get(ctx).d.start() })
	sc.Step(`^a running server with a (\d+) s job timeout$`, func(ctx context.Context, s int) error {
		w := get(ctx)
		w.cfg.Timeout = time.Duration(s) * time.Second
		return w.d.start()
	})
	sc.Step(`^a running server in single-file mode$`, func(ctx context.Context) error {
		w := get(ctx)
		w.cfg.SingleFile = true
		return w.d.start()
	})
	sc.Step(`^an empty workspace$`, func(ctx context.Context) error {
		return expectMissing(get(ctx).fs, "debug")
	})
	sc.Step(`^the server starts$`, func(ctx context.Context) error { return get(ctx).d.start() })
	sc.Step(`^the server restarts$`, func(ctx context.Context) error { return get(ctx).d.restart() })
	sc.Step(`^the page "([^"]*)" is still registered as before$`, func(ctx context.Context, name string) error {
		w := get(ctx)
		got, err := w.d.registration(name)
		if err != nil {
			return err
		}
		if want := w.regs[name]; got.ID != want.ID || got.Path != want.Path {
			return fmt.Errorf("the page is now %s (%s), was %s (%s)", got.ID, got.Path, want.ID, want.Path)
		}
		return nil
	})
	sc.Step(`^a page titled "([^"]*)" connects$`, func(ctx context.Context, title string) error {
		return get(ctx).d.connect(title, title)
	})
	sc.Step(`^debug/ already holds a log for every 4-digit short id of "([a-z0-9-]+)"$`, func(ctx context.Context, base string) error {
		w := get(ctx)
		if err := w.d.internal("filling the server's debug/ with 65536 logs"); err != nil {
			return err
		}
		if err := w.fs.MkdirAll("debug", 0o755); err != nil {
			return err
		}
		w.prefilled = map[string]bool{}
		for i := 0; i < 1<<16; i++ {
			p := fmt.Sprintf("debug/%s-%04x.md", base, i)
			w.prefilled[p] = true
			if err := afero.WriteFile(w.fs, p, nil, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	sc.Step(`^a page titled with (\d+) "(.)" characters connects$`, func(ctx context.Context, n int, c string) error {
		return get(ctx).d.connect("long", strings.Repeat(c, n))
	})
	sc.Step(`^(\d+) pages connect$`, func(ctx context.Context, n int) error {
		w := get(ctx)
		for i := 0; i < n; i++ {
			if _, err := w.d.register(fmt.Sprintf("Tab %d", i), "http://localhost:8302/"); err != nil {
				return err
			}
		}
		return nil
	})
	sc.Step(`^the page "([^"]*)" is connected$`, func(ctx context.Context, name string) error {
		return get(ctx).d.connect(name, name)
	})
	sc.Step(`^the page "([^"]*)" takes (\d+) ms to run each job$`, func(ctx context.Context, name string, ms int) error {
		return get(ctx).d.pace(name, time.Duration(ms)*time.Millisecond)
	})
	sc.Step(`^the page "([^"]*)" hangs$`, func(ctx context.Context, name string) error {
		return get(ctx).d.hang(name)
	})
	sc.Step(`^the page "([^"]*)" recovers and posts what it held$`, func(ctx context.Context, name string) error {
		return get(ctx).d.release(name)
	})
	sc.Step(`^a log for "([^"]*)" that no realm polls$`, func(ctx context.Context, name string) error {
		return get(ctx).d.quiet(name)
	})
	sc.Step(`^a Lisp realm "([^"]*)" is connected$`, func(ctx context.Context, name string) error {
		return get(ctx).d.connectLisp(name)
	})

	// Agents and editors.
	sc.Step(`^agent "([^"]*)" asks "([^"]*)" to run "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, agent, page, code string) error {
		w := get(ctx)
		return w.appendTo(page, w.request(agent, page, "JS", unquote(code)))
	})
	sc.Step(`^agent "([^"]*)" asks "([^"]*)" in "([^"]*)" to run "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, agent, page, lang, code string) error {
		w := get(ctx)
		return w.appendTo(page, w.request(agent, page, lang, unquote(code)))
	})
	sc.Step(`^agent "([^"]*)" asks "([^"]*)" to run (\d+) jobs one second apart$`, func(ctx context.Context, agent, page string, n int) error {
		w := get(ctx)
		for i := 0; i < n; i++ {
			if err := w.appendTo(page, w.request(agent, page, "JS", fmt.Sprintf("%d*%d", i, i))); err != nil {
				return err
			}
			if err := w.d.pass(time.Second); err != nil {
				return err
			}
		}
		return nil
	})
	sc.Step(`^agent "([^"]*)" appends to the log of "([^"]*)":$`, func(ctx context.Context, agent, page string, doc *godog.DocString) error {
		w := get(ctx)
		return w.appendTo(page, w.expand(page, doc.Content)+"\n")
	})
	sc.Step(`^agent "([^"]*)" appends (\d+) copies of this to the log of "([^"]*)" in one write:$`, func(ctx context.Context, agent string, n int, page string, doc *godog.DocString) error {
		w := get(ctx)
		return w.appendTo(page, strings.Repeat(w.expand(page, doc.Content)+"\n", n))
	})
	sc.Step(`^agent "([^"]*)" deletes the log of "([^"]*)"$`, func(ctx context.Context, agent, page string) error {
		w := get(ctx)
		if err := w.d.internal("deleting a log on the simulated disk"); err != nil {
			return err
		}
		return w.fs.Remove(w.path(page))
	})
	sc.Step(`^agent "([^"]*)" appends to the log of "([^"]*)" in two writes (\d+) ms apart:$`, func(ctx context.Context, agent, page string, gap int, doc *godog.DocString) error {
		w := get(ctx)
		text := w.expand(page, doc.Content) + "\n"
		p := w.path(page)
		_, err := w.agent(agent).Torn(p, text, len(text)/2, time.Duration(gap)*time.Millisecond, nil)
		w.lastW = w.d.clock().Now().Add(time.Duration(gap) * time.Millisecond)
		return err
	})
	sc.Step(`^an editor saves the log of "([^"]*)" without the request "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, page, code string) error {
		w := get(ctx)
		p := w.path(page)
		code = unquote(code)
		ed := &realm.Agent{Name: "editor", Fs: w.fs, Clock: w.d.clock()}
		found := false
		err := ed.Rewrite(p, func(s string) string {
			out, n := withoutRequests(s, map[string]bool{code: true})
			found = n > 0
			return out
		})
		b, _ := afero.ReadFile(w.fs, p)
		w.snaps[p] = string(b) // a rewrite by a person, not a server write
		if err == nil && !found {
			// Saving the file unchanged would let the orphan scenario pass
			// (or fail) for the wrong reason.
			return fmt.Errorf("the log of %q holds no request %q to remove", page, code)
		}
		return err
	})
	sc.Step(`^an editor saves the log of "([^"]*)" with "((?:[^"\\]|\\.)*)" replaced by "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, page, old, repl string) error {
		w := get(ctx)
		p := w.path(page)
		old, repl = unquote(old), unquote(repl)
		found := false
		ed := &realm.Agent{Name: "editor", Fs: w.fs, Clock: w.d.clock()}
		err := ed.Rewrite(p, func(s string) string {
			found = strings.Contains(s, old)
			return strings.Replace(s, old, repl, 1)
		})
		b, _ := afero.ReadFile(w.fs, p)
		w.snaps[p] = string(b) // a rewrite by a person, not a server write
		if err == nil && !found {
			return fmt.Errorf("the log of %q holds no %q to replace", page, old)
		}
		return err
	})
	sc.Step(`^an editor saves the log of "([^"]*)" without the requests "((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)" and "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, page, c1, c2, c3 string) error {
		w := get(ctx)
		p := w.path(page)
		codes := map[string]bool{unquote(c1): true, unquote(c2): true, unquote(c3): true}
		ed := &realm.Agent{Name: "editor", Fs: w.fs, Clock: w.d.clock()}
		removed := 0
		err := ed.Rewrite(p, func(s string) string {
			out, n := withoutRequests(s, codes)
			removed = n
			return out
		})
		b, _ := afero.ReadFile(w.fs, p)
		w.snaps[p] = string(b)
		if err == nil && removed != 3 {
			return fmt.Errorf("removed %d of the 3 requests from the log of %q", removed, page)
		}
		return err
	})
	sc.Step(`^the log of "([^"]*)" holds an executing placeholder$`, func(ctx context.Context, page string) error {
		w := get(ctx)
		for _, e := range readEntries(w.read(w.path(page))) {
			if e.placeholder() {
				return nil
			}
		}
		return skip(stepLog(ctx), "the server wrote no executing placeholder (the seed's MAY) for the scenario to edit")
	})
	sc.Step(`^someone types "([^"]*)" into the registry$`, func(ctx context.Context, text string) error {
		w := get(ctx)
		f, err := w.fs.OpenFile(chatlog.RegistryFile, 0x401, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Write([]byte(text + "\n"))
		return err
	})
	sc.Step(`^someone replaces the registry with "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, text string) error {
		return afero.WriteFile(get(ctx).fs, chatlog.RegistryFile, []byte(unquote(text)), 0o644)
	})
	sc.Step(`^the log of "([^"]*)" already holds (\d+) MB of earlier conversation$`, func(ctx context.Context, page string, mb int) error {
		return get(ctx).bulk(page, mb<<20)
	})
	sc.Step(`^the page "([^"]*)" throws "((?:[^"\\]|\\.)*)" in the background$`, func(ctx context.Context, name, code string) error {
		return get(ctx).d.throwInBackground(name, unquote(code))
	})
	sc.Step(`^the page "([^"]*)" leaves "((?:[^"\\]|\\.)*)" unhandled in the background$`, func(ctx context.Context, name, code string) error {
		return get(ctx).d.rejectInBackground(name, unquote(code))
	})

	sc.Step(`^the disk fails the server's next write to the log of "([^"]*)" (?:after (\d+) good ones )?with (EIO|ENOSPC|a torn write|a short write|a failed close|a refused open)$`, func(ctx context.Context, page, skipped, how string) error {
		skip, _ := strconv.Atoi(skipped)
		w := get(ctx)
		if err := w.d.internal("fault injection on the server's disk"); err != nil {
			return err
		}
		pt := map[string]vfs.Failpoint{"EIO": vfs.WriteError, "ENOSPC": vfs.NoSpace, "a torn write": vfs.TornWrite, "a short write": vfs.ShortWrite,
			"a failed close": vfs.CloseError, "a refused open": vfs.OpenError}[how]
		return w.faulty.Arm(vfs.Fault{Point: pt, Pattern: w.path(page), Skip: skip, Count: 1})
	})
	sc.Step(`^the disk (fails every read of|reads again) the log of "([^"]*)"$`, func(ctx context.Context, what, page string) error {
		w := get(ctx)
		if err := w.d.internal("fault injection on the server's disk"); err != nil {
			return err
		}
		if what == "reads again" {
			w.faulty.Disarm(vfs.ReadError)
			return nil
		}
		return w.faulty.Arm(vfs.Fault{Point: vfs.ReadError, Pattern: w.path(page)})
	})
	sc.Step(`^the disk fails every write of the registry$`, func(ctx context.Context) error {
		if err := get(ctx).d.internal("fault injection on the server's disk"); err != nil {
			return err
		}
		// The server may write debug.md in place or write it aside and
		// rename it over: both ways of writing it fail.
		f := get(ctx).faulty
		if err := f.Arm(vfs.Fault{Point: vfs.WriteError, Pattern: "*" + chatlog.RegistryFile + "*"}); err != nil {
			return err
		}
		return f.Arm(vfs.Fault{Point: vfs.RenameFail, Pattern: chatlog.RegistryFile})
	})
	sc.Step(`^the disk (refuses|accepts) new files$`, func(ctx context.Context, what string) error {
		w := get(ctx)
		if err := w.d.internal("fault injection on the server's disk"); err != nil {
			return err
		}
		w.gate.refuse(what == "refuses")
		return nil
	})
	sc.Step(`^agent "([^"]*)" appends to the log of "([^"]*)" without a final line break:$`, func(ctx context.Context, agent, page string, doc *godog.DocString) error {
		w := get(ctx)
		return w.appendTo(page, w.expand(page, doc.Content))
	})

	// Time.
	sc.Step(`^(\d+(?:\.\d+)?) (ms|s|seconds|second) pass(?:es)?$`, func(ctx context.Context, n float64, unit string) error {
		d := time.Duration(n * float64(time.Millisecond))
		if unit != "ms" {
			d = time.Duration(n * float64(time.Second))
		}
		return get(ctx).d.pass(d)
	})
	sc.Step(`^someone touches the log of "([^"]*)" (\d+) times, a second apart$`, func(ctx context.Context, page string, n int) error {
		w := get(ctx)
		for i := 0; i < n; i++ {
			now := w.d.clock().Now()
			if err := w.fs.Chtimes(w.path(page), now, now); err != nil {
				return err
			}
			if err := w.d.pass(time.Second); err != nil {
				return err
			}
		}
		return nil
	})
	sc.Step(`^I note how much the server has read$`, func(ctx context.Context) error {
		w := get(ctx)
		if err := w.d.internal("counting what the server reads from its disk"); err != nil {
			return err
		}
		w.mark = w.count.BytesRead()
		return nil
	})

	// Outcomes: files.
	sc.Step(`^the file "([^"]*)" exists$`, func(ctx context.Context, p string) error {
		return expectExists(get(ctx).fs, p)
	})
	sc.Step(`^the file "([^"]*)" does not exist$`, func(ctx context.Context, p string) error {
		if ok, _ := afero.Exists(get(ctx).fs, p); ok {
			return fmt.Errorf("%s exists", p)
		}
		return nil
	})
	sc.Step(`^the directory "([^"]*)" exists$`, func(ctx context.Context, p string) error {
		fi, err := get(ctx).fs.Stat(p)
		if err != nil || !fi.IsDir() {
			return fmt.Errorf("%s is not a directory: %v", p, err)
		}
		return nil
	})
	sc.Step(`^the log of "([^"]*)" is "([^"]*)"$`, func(ctx context.Context, page, pattern string) error {
		w := get(ctx)
		re, err := regexp.Compile("^" + pattern + "$")
		if err != nil {
			return err
		}
		p := w.path(page)
		if !re.MatchString(p) {
			return fmt.Errorf("log path %q does not match %q", p, pattern)
		}
		return expectExists(w.fs, p) // the server must have created it, not only named it
	})
	sc.Step(`^the log of "([^"]*)" lies inside "debug/"$`, func(ctx context.Context, page string) error {
		p := get(ctx).path(page)
		if !strings.HasPrefix(p, "debug/") || strings.Contains(p[len("debug/"):], "/") || strings.Contains(p, "..") {
			return fmt.Errorf("unsafe log path %q", p)
		}
		return expectExists(get(ctx).fs, p)
	})
	sc.Step(`^the name of the log of "([^"]*)" is at most (\d+) characters$`, func(ctx context.Context, page string, n int) error {
		if p := get(ctx).path(page); len(p)-len("debug/") > n {
			return fmt.Errorf("the log's name %q is longer than %d characters", p, n)
		}
		return nil
	})
	sc.Step(`^the log of "([^"]*)" is new$`, func(ctx context.Context, page string) error {
		w := get(ctx)
		if w.prefilled[w.path(page)] {
			return fmt.Errorf("the log %s is one that was in debug/ before the page came", w.path(page))
		}
		return nil
	})
	sc.Step(`^the logs of "([^"]*)" and "([^"]*)" differ$`, func(ctx context.Context, a, b string) error {
		w := get(ctx)
		if w.path(a) == w.path(b) {
			return fmt.Errorf("both use %s", w.path(a))
		}
		if err := expectExists(w.fs, w.path(a)); err != nil {
			return err
		}
		return expectExists(w.fs, w.path(b))
	})
	sc.Step(`^no server write changed a byte that was already in a log$`, func(ctx context.Context) error {
		w := get(ctx)
		if len(w.snaps) == 0 {
			return fmt.Errorf("no log was watched")
		}
		if len(w.broken) > 0 {
			return fmt.Errorf("append-only broken: %s", strings.Join(w.broken, "; "))
		}
		return nil
	})

	registerLevels(sc)

	// Outcomes: jobs.
	sc.Step(`^"([^"]*)" has (\d+) jobs?$`, func(ctx context.Context, page string, n int) error {
		w := get(ctx)
		jobs, err := w.d.jobs(w.stem(page))
		if err != nil {
			return err
		}
		if got := len(jobs); got != n {
			return fmt.Errorf("%d jobs, want %d", got, n)
		}
		return nil
	})
	sc.Step(`^job (\d+) of "([^"]*)" went through ([a-z]+(?:, [a-z]+)*)$`, func(ctx context.Context, n int, page, states string) error {
		w := get(ctx)
		jobs, err := w.d.jobs(w.stem(page))
		if err != nil {
			return err
		}
		if n < 1 || n > len(jobs) {
			return fmt.Errorf("%q has %d jobs, no job %d", page, len(jobs), n)
		}
		if g := historyOf(jobs[n-1]); g != states {
			return fmt.Errorf("job %d went through %s, want %s", n, g, states)
		}
		return nil
	})
	sc.Step(`^the job running "((?:[^"\\]|\\.)*)" was never dispatched$`, func(ctx context.Context, code string) error {
		j, err := get(ctx).job(unquote(code))
		if err != nil {
			return err
		}
		for _, st := range j.History {
			if st == chatlog.Dispatched {
				return fmt.Errorf("the job went through %v", j.History)
			}
		}
		return nil
	})
	sc.Step(`^the job running "((?:[^"\\]|\\.)*)" went through ([a-z]+(?:, [a-z]+)*)$`, func(ctx context.Context, code, states string) error {
		j, err := get(ctx).job(unquote(code))
		if err != nil {
			return err
		}
		if g := historyOf(j); g != states {
			return fmt.Errorf("job went through %s, want %s", g, states)
		}
		return nil
	})
	sc.Step(`^the job running "((?:[^"\\]|\\.)*)" was requested (\d+) ms after the last write, started (\d+) ms after that and finished (\d+) ms after it started$`,
		func(ctx context.Context, code string, req, start, fin int) error {
			w := get(ctx)
			if err := w.d.internal("a job's times on the simulated clock"); err != nil {
				return err
			}
			j, err := w.job(unquote(code))
			if err != nil {
				return err
			}
			got := [3]int64{j.RequestedAt.Sub(w.lastW).Milliseconds(), j.StartedAt.Sub(j.RequestedAt).Milliseconds(), j.Duration().Milliseconds()}
			if got != [3]int64{int64(req), int64(start), int64(fin)} {
				return fmt.Errorf("requested +%dms, started +%dms, finished +%dms; want %d, %d, %d", got[0], got[1], got[2], req, start, fin)
			}
			return nil
		})
	sc.Step(`^the job running "((?:[^"\\]|\\.)*)" was requested between (\d+) and (\d+) ms after the last write$`, func(ctx context.Context, code string, lo, hi int) error {
		w := get(ctx)
		if err := w.d.internal("a job's times on the simulated clock"); err != nil {
			return err
		}
		j, err := w.job(unquote(code))
		if err != nil {
			return err
		}
		d := j.RequestedAt.Sub(w.lastW).Milliseconds()
		if d < int64(lo) || d > int64(hi) {
			return fmt.Errorf("requested %d ms after the last write", d)
		}
		return nil
	})
	sc.Step(`^the job running "((?:[^"\\]|\\.)*)" is stamped "([^"]*)"$`, func(ctx context.Context, code, at string) error {
		w := get(ctx)
		if err := w.d.internal("a time of day on the simulated clock"); err != nil {
			return err
		}
		j, err := w.job(unquote(code))
		if err != nil {
			return err
		}
		if j.At != at {
			return fmt.Errorf("job stamped %q, want %q", j.At, at)
		}
		return nil
	})
	sc.Step(`^noticing it read less than (\d+) KB$`, func(ctx context.Context, kb int) error {
		w := get(ctx)
		if err := w.d.internal("counting what the server reads from its disk"); err != nil {
			return err
		}
		d := w.count.BytesRead() - w.mark
		if d <= 0 || d >= int64(kb)<<10 {
			return fmt.Errorf("the server read %d bytes from its filesystem", d)
		}
		return nil
	})

	// Parsing a log on its own.
	sc.Step(`^the log:$`, func(ctx context.Context, doc *godog.DocString) error {
		w := get(ctx)
		var err error
		w.parsed, err = w.d.parse(doc.Content + "\n")
		return err
	})
	sc.Step(`^the log "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, text string) error {
		w := get(ctx)
		var err error
		w.parsed, err = w.d.parse(unquote(text) + "\n")
		return err
	})
	sc.Step(`^a log whose request's (header|opening fence|closing fence) line is padded with spaces to (\d+) bytes$`, func(ctx context.Context, which string, n int) error {
		lines := []string{"**a** to t at 10:00:00", "```JS", "1", "```"}
		i := map[string]int{"header": 0, "opening fence": 1, "closing fence": 3}[which]
		if n < len(lines[i]) {
			return fmt.Errorf("%d bytes is shorter than %q", n, lines[i])
		}
		lines[i] += strings.Repeat(" ", n-len(lines[i]))
		w := get(ctx)
		var err error
		w.parsed, err = w.d.parse(strings.Join(lines, "\n") + "\n")
		return err
	})
	sc.Step(`^every request the log has comes from "([^"]*)" to "([^"]*)" and runs "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, agent, page, code string) error {
		w := get(ctx)
		for _, r := range w.parsed.Requests {
			if r.Agent != agent || r.Page != page || r.Code != unquote(code) {
				return fmt.Errorf("request on line %d: from %q to %q running %q, want from %q to %q running %q", r.Line, r.Agent, r.Page, r.Code, agent, page, unquote(code))
			}
		}
		return nil
	})
	sc.Step(`^the reply on line (\d+) took (\d+) ms$`, func(ctx context.Context, l int, ms int64) error {
		w := get(ctx)
		for _, rp := range w.parsed.Replies {
			if rp.Line == l {
				if rp.DurationMS == nil || *rp.DurationMS != ms {
					return fmt.Errorf("reply on line %d: duration %v, want %d ms: %s", l, rp.DurationMS, ms, w.parsed.JSON())
				}
				return nil
			}
		}
		return fmt.Errorf("no reply on line %d: %s", l, w.parsed.JSON())
	})
	sc.Step(`^the reply on line (\d+) (is|is not) an error$`, func(ctx context.Context, l int, is string) error {
		w := get(ctx)
		for _, rp := range w.parsed.Replies {
			if rp.Line == l {
				if rp.Error != (is == "is") {
					return fmt.Errorf("reply on line %d: error %v: %s", l, rp.Error, w.parsed.JSON())
				}
				return nil
			}
		}
		return fmt.Errorf("no reply on line %d: %s", l, w.parsed.JSON())
	})
	sc.Step(`^the request on line (\d+) runs "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, l int, code string) error {
		w := get(ctx)
		for _, r := range w.parsed.Requests {
			if r.Line == l {
				if r.Code != unquote(code) {
					return fmt.Errorf("request on line %d runs %q, want %q", l, r.Code, unquote(code))
				}
				return nil
			}
		}
		return fmt.Errorf("no request on line %d: %s", l, w.parsed.JSON())
	})
	sc.Step(`^the log of "([^"]*)" is parsed$`, func(ctx context.Context, page string) error {
		w := get(ctx)
		b, err := afero.ReadFile(w.fs, w.path(page))
		if err != nil {
			return err
		}
		w.parsedText = string(b)
		w.parsed, err = w.d.parse(w.parsedText)
		return err
	})
	sc.Step(`^the reply on line (\d+) pairs with the request on line (\d+)$`, func(ctx context.Context, rl, ql int) error {
		w := get(ctx)
		for _, rp := range w.parsed.Replies {
			if rp.Line == rl {
				if rp.RequestLine != ql {
					return fmt.Errorf("reply on line %d pairs with line %d", rl, rp.RequestLine)
				}
				return nil
			}
		}
		return fmt.Errorf("no reply on line %d: %s", rl, w.parsed.JSON())
	})
	sc.Step(`^the reply on line (\d+) pairs with no request$`, func(ctx context.Context, rl int) error {
		w := get(ctx)
		for _, rp := range w.parsed.Replies {
			if rp.Line == rl {
				if rp.RequestLine != 0 {
					return fmt.Errorf("reply on line %d pairs with line %d, want no request", rl, rp.RequestLine)
				}
				return nil
			}
		}
		return fmt.Errorf("no reply on line %d: %s", rl, w.parsed.JSON())
	})
	sc.Step(`^the (request|reply) on line (\d+) is stamped "(\d\d:\d\d:\d\d)"$`, func(ctx context.Context, what string, l int, at string) error {
		w := get(ctx)
		found, got := false, ""
		if what == "request" {
			for _, r := range w.parsed.Requests {
				if r.Line == l {
					found, got = true, r.At
				}
			}
		} else {
			for _, rp := range w.parsed.Replies {
				if rp.Line == l {
					found, got = true, rp.At
				}
			}
		}
		if !found {
			return fmt.Errorf("no %s on line %d: %s", what, l, w.parsed.JSON())
		}
		if got != at {
			return fmt.Errorf("%s on line %d stamped %q, want %q", what, l, got, at)
		}
		return nil
	})
	sc.Step(`^the request on line (\d+) is (closed|a draft)$`, func(ctx context.Context, l int, what string) error {
		w := get(ctx)
		for _, r := range w.parsed.Requests {
			if r.Line == l {
				if r.Closed != (what == "closed") {
					return fmt.Errorf("request on line %d closed=%v", l, r.Closed)
				}
				return nil
			}
		}
		return fmt.Errorf("no request on line %d: %s", l, w.parsed.JSON())
	})
	sc.Step(`^the log has no request on line (\d+)$`, func(ctx context.Context, l int) error {
		w := get(ctx)
		for _, r := range w.parsed.Requests {
			if r.Line == l {
				return fmt.Errorf("a request on line %d: %s", l, w.parsed.JSON())
			}
		}
		return nil
	})
	sc.Step(`^the log has (\d+) requests? and (\d+) repl(?:y|ies)$`, func(ctx context.Context, q, r int) error {
		w := get(ctx)
		if len(w.parsed.Requests) != q || len(w.parsed.Replies) != r {
			return fmt.Errorf("%d requests and %d replies: %s", len(w.parsed.Requests), len(w.parsed.Replies), w.parsed.JSON())
		}
		return nil
	})

	// Transport.
	sc.Step(`^the adapter transport is served over HTTP$`, func(ctx context.Context) error {
		w := get(ctx)
		var err error
		w.base, err = w.d.transport(0)
		return err
	})
	sc.Step(`^the adapter transport is served over HTTP with a (\d+) s long poll$`, func(ctx context.Context, sec int) error {
		w := get(ctx)
		var err error
		w.base, err = w.d.transport(time.Duration(sec) * time.Second)
		return err
	})
	sc.Step(`^a page titled "([^"]*)" registers over HTTP$`, func(ctx context.Context, title string) error {
		w := get(ctx)
		return w.registerHTTP(title, map[string]string{"name": title, "lang": "JS"})
	})
	sc.Step(`^a page titled "([^"]*)" registers over HTTP as "([^"]*)" without a language$`, func(ctx context.Context, title, id string) error {
		w := get(ctx)
		return w.registerHTTP(title, map[string]string{"name": title, "id": w.expandAll(id)})
	})
	sc.Step(`^the workspace holds an empty log "(debug/[a-z0-9-]+\.md)"$`, func(ctx context.Context, p string) error {
		return afero.WriteFile(get(ctx).fs, p, nil, 0o644)
	})
	sc.Step(`^the page "([^"]*)" polls over HTTP in the background$`, func(ctx context.Context, page string) error {
		w := get(ctx)
		reg, ok := w.regs[page]
		if !ok {
			return fmt.Errorf("no page %q", page)
		}
		if w.polls == nil {
			w.polls = map[string]chan polled{}
		}
		ch := make(chan polled, 1)
		w.polls[page] = ch
		go func() {
			resp, err := http.Get(w.base + "/api/poll?id=" + reg.ID + "&token=" + reg.Token)
			if err != nil {
				ch <- polled{err: err}
				return
			}
			defer resp.Body.Close()
			// The page has the job once the whole answer is in, as a
			// browser's fetch has it (§chatlog-job-times): read to the end.
			body, err := io.ReadAll(resp.Body)
			p := polled{status: resp.StatusCode, chunked: slices.Contains(resp.TransferEncoding, "chunked"), err: err}
			if err == nil && resp.StatusCode == http.StatusOK {
				p.err = json.Unmarshal(body, &p.task)
			}
			ch <- p
		}()
		return nil
	})
	sc.Step(`^the background poll of "([^"]*)" has not answered$`, func(ctx context.Context, page string) error {
		select {
		case p := <-get(ctx).polls[page]:
			return fmt.Errorf("the poll answered %d %q (%v)", p.status, p.task.Code, p.err)
		case <-time.After(300 * time.Millisecond):
			return nil
		}
	})
	sc.Step(`^the background poll of "([^"]*)" answers (\d+)(?: with the job running "((?:[^"\\]|\\.)*)")?$`, func(ctx context.Context, page string, code int, job string) error {
		select {
		case p := <-get(ctx).polls[page]:
			if p.err != nil || p.status != code || p.task.Code != unquote(job) {
				return fmt.Errorf("the poll answered %d %q (%v), want %d %q", p.status, p.task.Code, p.err, code, unquote(job))
			}
			get(ctx).lastPoll = p
			if w := get(ctx); p.status == http.StatusOK {
				if w.taken == nil {
					w.taken = map[string]chatlog.Task{}
				}
				w.taken[page] = p.task
			}
			return nil
		case <-time.After(5 * time.Second):
			return fmt.Errorf("the poll of %q did not answer", page)
		}
	})
	sc.Step(`^that answer was flushed to the page before the job counted as started$`, func(ctx context.Context) error {
		// A handler that flushes its answer before it ends sends it chunked;
		// one that ends first sends it with a Content-Length.
		if !get(ctx).lastPoll.chunked {
			return fmt.Errorf("the poll's answer came whole, with a Content-Length: the server took the job as started before it sent the answer")
		}
		return nil
	})
	sc.Step(`^the page "([^"]*)" posts the result (\S+) for the job running "((?:[^"\\]|\\.)*)", which it was never given, over HTTP: (\d+)$`, func(ctx context.Context, poster, value, code string, status int) error {
		w := get(ctx)
		reg, ok := w.regs[poster]
		if !ok {
			return fmt.Errorf("no page %q", poster)
		}
		jobs, err := w.d.jobs(reg.ID)
		if err != nil {
			return err
		}
		id := ""
		for _, j := range jobs {
			if j.Code == unquote(code) {
				id = j.ID
			}
		}
		if id == "" {
			return fmt.Errorf("no job of %q runs %q", poster, code)
		}
		body, _ := json.Marshal(map[string]any{"id": reg.ID, "token": reg.Token, "jobId": id, "ok": true, "isJSON": true, "json": value})
		got, err := statusOf(http.Post(w.base+"/api/result", "application/json", bytes.NewReader(body)))
		if err != nil {
			return err
		}
		if got != status {
			return fmt.Errorf("POST /api/result for %s answered %d, want %d", id, got, status)
		}
		return nil
	})
	sc.Step(`^the page "([^"]*)" posts the result (\S+) for the job "([^"]*)" was given over HTTP: (refused|accepted)$`, func(ctx context.Context, poster, value, owner, verdict string) error {
		w := get(ctx)
		reg, ok := w.regs[poster]
		task, given := w.taken[owner]
		if !ok || !given {
			return fmt.Errorf("no page %q, or %q was given no job", poster, owner)
		}
		body, _ := json.Marshal(map[string]any{"id": reg.ID, "token": reg.Token, "jobId": task.JobID, "ok": true, "isJSON": true, "json": value})
		got, err := statusOf(http.Post(w.base+"/api/result", "application/json", bytes.NewReader(body)))
		if err != nil {
			return err
		}
		if (got/100 == 2) != (verdict == "accepted") || got/100 == 5 {
			return fmt.Errorf("result from %q for the job of %q: %d, want it %s", poster, owner, got, verdict)
		}
		return nil
	})
	sc.Step(`^GET "([^"]*)" answers (\d+)$`, func(ctx context.Context, p string, code int) error {
		status, body, err := get(ctx).getPath(p)
		if err != nil {
			return err
		}
		if status != code {
			return fmt.Errorf("GET %s: %d, want %d", p, status, code)
		}
		if code != 200 && bytes.Contains(body, []byte("```")) {
			return fmt.Errorf("GET %s leaked log content", p)
		}
		return nil
	})
	sc.Step(`^GET "([^"]*)" answers (\d+) with a body$`, func(ctx context.Context, p string, code int) error {
		status, body, err := get(ctx).getPath(p)
		if err != nil {
			return err
		}
		if status != code || len(bytes.TrimSpace(body)) == 0 {
			return fmt.Errorf("GET %s: %d with %d bytes of body, want %d with a body", p, status, len(body), code)
		}
		return nil
	})
	sc.Step(`^GET "([^"]*)" serves no log$`, func(ctx context.Context, p string) error {
		status, body, err := get(ctx).getPath(p)
		if err != nil {
			return err
		}
		if bytes.Contains(body, []byte("```")) || bytes.Contains(body, []byte("# Connected pages:")) || bytes.Contains(body, []byte("**agent** to")) {
			return fmt.Errorf("GET %s: %d, served a log or the registry:\n%s", p, status, body)
		}
		return nil
	})
	sc.Step(`^the body of GET "([^"]*)" contains "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, p, want string) error {
		status, body, err := get(ctx).getPath(p)
		if err != nil {
			return err
		}
		if status != http.StatusOK || !strings.Contains(string(body), unquote(want)) {
			return fmt.Errorf("GET %s: %d, body lacks %q:\n%s", p, status, unquote(want), body)
		}
		return nil
	})
	sc.Step(`^a page (served from "[^"]*"|served by the REPL server itself) titled "([^"]*)" registers over HTTP$`, func(ctx context.Context, from, title string) error {
		w := get(ctx)
		origin, foreign := w.base, false
		if o, ok := strings.CutPrefix(from, "served from "); ok {
			origin, foreign = strings.Trim(o, `"`), true
		}
		req, err := http.NewRequest(http.MethodPost, w.base+"/api/register",
			strings.NewReader(fmt.Sprintf(`{"name":%q,"url":%q,"lang":"JS"}`, title, origin+"/app.html")))
		if err != nil {
			return err
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if origin == "" || !foreign {
			origin = "" // no CORS answer is due
		}
		req.Header.Set("Content-Type", "text/plain") // a simple request: no preflight would stop it
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		w.registrations = append(w.registrations, registration{origin: origin, status: resp.StatusCode,
			allow: resp.Header.Get("Access-Control-Allow-Origin"), body: string(body)})
		return nil
	})
	sc.Step(`^a page titled "([^"]*)" that registers over HTTP is refused$`, func(ctx context.Context, title string) error {
		w := get(ctx)
		b, _ := json.Marshal(map[string]string{"name": title, "url": "http://localhost:8302/refused", "lang": "JS"})
		resp, err := http.Post(w.base+"/api/register", "application/json", bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("register %q over HTTP: no answer: %w", title, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode < 400 || resp.StatusCode > 599 {
			return fmt.Errorf("register %q over HTTP: %d %s, want it refused (4xx or 5xx)", title, resp.StatusCode, body)
		}
		return nil
	})
	sc.Step(`^each of these registrations was refused$`, func(ctx context.Context) error {
		// The registrations stay to be judged by the next step.
		for _, r := range get(ctx).registrations {
			var reg chatlog.Registration
			if r.status < 400 || r.status > 499 {
				return fmt.Errorf("register from %q: %d, want it refused (4xx): %s", r.origin, r.status, r.body)
			}
			if json.Unmarshal([]byte(r.body), &reg) == nil && (reg.ID != "" || reg.Token != "") {
				return fmt.Errorf("refused register from %q still gave an id or a token: %s", r.origin, r.body)
			}
		}
		return nil
	})
	sc.Step(`^each of these registrations was answered (200, the pages of other origins with their origin allowed|403)$`, func(ctx context.Context, what string) error {
		w := get(ctx)
		regs := w.registrations
		w.registrations = nil
		for _, r := range regs {
			var reg chatlog.Registration
			switch {
			case what == "403" && r.status != http.StatusForbidden:
				return fmt.Errorf("register from %q: %d, want 403: %s", r.origin, r.status, r.body)
			case what == "403" && r.allow != "":
				return fmt.Errorf("refused register from %q still allows the origin: %q", r.origin, r.allow)
			case what == "403":
			case r.status != http.StatusOK:
				return fmt.Errorf("register from %q: %d, want 200: %s", r.origin, r.status, r.body)
			case r.allow != r.origin:
				return fmt.Errorf("register from %q: Access-Control-Allow-Origin %q", r.origin, r.allow)
			case json.Unmarshal([]byte(r.body), &reg) != nil || reg.ID == "" || reg.Token == "":
				return fmt.Errorf("register from %q: the answer %q has no id and token", r.origin, r.body)
			}
		}
		return nil
	})
	sc.Step(`^a preflight from "([^"]*)" for POST "([^"]*)" allows (origin \S+, methods [A-Z, ]+, headers \S+, max age \d+, private network \w+)$`, func(ctx context.Context, origin, p, what string) error {
		w := get(ctx)
		resp, err := preflight(w.base+p, origin, "Access-Control-Request-Headers", "content-type", "Access-Control-Request-Private-Network", "true")
		if err != nil {
			return err
		}
		resp.Body.Close()
		got := fmt.Sprintf("origin %s, methods %s, headers %s, max age %s, private network %s",
			resp.Header.Get("Access-Control-Allow-Origin"), resp.Header.Get("Access-Control-Allow-Methods"),
			resp.Header.Get("Access-Control-Allow-Headers"), resp.Header.Get("Access-Control-Max-Age"),
			resp.Header.Get("Access-Control-Allow-Private-Network"))
		if resp.StatusCode/100 != 2 || got != what {
			return fmt.Errorf("preflight: %d, %s; want %s", resp.StatusCode, got, what)
		}
		return nil
	})
	sc.Step(`^a preflight from "([^"]*)" for POST "([^"]*)" answers (\d+) with no body$`, func(ctx context.Context, origin, p string, code int) error {
		w := get(ctx)
		resp, err := preflight(w.base+p, origin, "Access-Control-Request-Headers", "content-type")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return fmt.Errorf("preflight from %s: reading the body: %w", origin, err)
		}
		if resp.StatusCode != code || len(body) != 0 {
			return fmt.Errorf("preflight from %s: %d with %d bytes of body, want %d with none", origin, resp.StatusCode, len(body), code)
		}
		return nil
	})
	sc.Step(`^a preflight from "([^"]*)" for POST "([^"]*)" is refused$`, func(ctx context.Context, origin, p string) error {
		w := get(ctx)
		resp, err := preflight(w.base+p, origin)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode/100 == 2 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
			return fmt.Errorf("preflight from %s: %d, allow-origin %q", origin, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
		}
		return nil
	})
	sc.Step(`^GET "([^"]*)" is served as "([^"]*)"$`, func(ctx context.Context, p, ctype string) error {
		base, err := get(ctx).d.serverURL()
		if err != nil {
			return err
		}
		resp, err := http.Get(base + p)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, ctype) {
			return fmt.Errorf("GET %s: Content-Type %q, want %s", p, got, ctype)
		}
		return nil
	})
	sc.Step(`^a heartbeat of "([^"]*)" over HTTP answers (\d+) with no body$`, func(ctx context.Context, page string, code int) error {
		w := get(ctx)
		reg, ok := w.regs[page]
		if !ok {
			return fmt.Errorf("no page %q", page)
		}
		b, _ := json.Marshal(map[string]string{"id": reg.ID, "token": reg.Token})
		resp, err := http.Post(w.base+"/api/heartbeat", "application/json", bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("heartbeat of %q: %w", page, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return fmt.Errorf("heartbeat of %q: reading the body: %w", page, err)
		}
		if resp.StatusCode != code || len(body) != 0 {
			return fmt.Errorf("heartbeat of %q: %d with %q, want %d with no body", page, resp.StatusCode, body, code)
		}
		return nil
	})
	sc.Step(`^a heartbeat for "([^"]*)" with a forged token answers (\d+)$`, func(ctx context.Context, page string, code int) error {
		w := get(ctx)
		body, _ := json.Marshal(map[string]string{"id": w.stem(page), "token": "forged"})
		got, err := statusOf(http.Post(w.base+"/api/heartbeat", "application/json", bytes.NewReader(body)))
		if err != nil {
			return err
		}
		if got != code {
			return fmt.Errorf("heartbeat with forged token: %d, want %d", got, code)
		}
		return nil
	})
	sc.Step(`^a heartbeat for "([^"]*)" with a forged token answers (\d+) in JSON$`, func(ctx context.Context, page string, code int) error {
		w := get(ctx)
		body, _ := json.Marshal(map[string]string{"id": w.stem(page), "token": "forged"})
		resp, err := http.Post(w.base+"/api/heartbeat", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var answer struct{ Error string }
		if resp.StatusCode != code {
			return fmt.Errorf("heartbeat with forged token: %d, want %d", resp.StatusCode, code)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			return fmt.Errorf("heartbeat refusal served as %q, want application/json", ct)
		}
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || answer.Error == "" {
			return fmt.Errorf("heartbeat refusal is not a JSON error: %v", err)
		}
		return nil
	})
	sc.Step(`^POST "(/api/[a-z]+)" with the body "((?:[^"\\]|\\.)*)" is refused$`, func(ctx context.Context, p, body string) error {
		w := get(ctx)
		got, err := statusOf(http.Post(w.base+p, "application/json", strings.NewReader(unquote(body))))
		if err != nil {
			return err
		}
		if got/100 != 4 {
			return fmt.Errorf("POST %s %q: %d, want it refused (4xx)", p, body, got)
		}
		return nil
	})
	sc.Step(`^a preflight from "([^"]*)" for POST "([^"]*)" with a JSON body is allowed$`, func(ctx context.Context, origin, p string) error {
		w := get(ctx)
		resp, err := preflight(w.base+p, origin, "Access-Control-Request-Headers", "content-type")
		if err != nil {
			return err
		}
		resp.Body.Close()
		h := resp.Header
		methods, headers := strings.ToLower(h.Get("Access-Control-Allow-Methods")), strings.ToLower(h.Get("Access-Control-Allow-Headers"))
		if resp.StatusCode/100 != 2 || h.Get("Access-Control-Allow-Origin") != origin || !strings.Contains(methods, "post") ||
			!(strings.Contains(headers, "content-type") || headers == "*") {
			return fmt.Errorf("preflight from %s: %d, allow origin %q, methods %q, headers %q: a page of that origin cannot post JSON", origin, resp.StatusCode, h.Get("Access-Control-Allow-Origin"), methods, headers)
		}
		return nil
	})
	sc.Step(`^POST "(/api/[a-z]+)" with the body "((?:[^"\\]|\\.)*)" answers (\d+)$`, func(ctx context.Context, p, body string, code int) error {
		w := get(ctx)
		got, err := statusOf(http.Post(w.base+p, "application/json", strings.NewReader(unquote(body))))
		if err != nil {
			return err
		}
		if got != code {
			return fmt.Errorf("POST %s %q: %d, want %d", p, body, got, code)
		}
		return nil
	})
	sc.Step(`^a result for the job running "((?:[^"\\]|\\.)*)" with a forged token is refused$`, func(ctx context.Context, code string) error {
		w := get(ctx)
		j, err := w.job(unquote(code))
		if err != nil {
			return err
		}
		body, _ := json.Marshal(map[string]any{"id": j.Instance, "token": "forged", "jobId": j.ID, "ok": true, "text": "forged"})
		got, err := statusOf(http.Post(w.base+"/api/result", "application/json", bytes.NewReader(body)))
		if err != nil {
			return fmt.Errorf("result with a forged token: %w", err)
		}
		if got/100 != 4 {
			return fmt.Errorf("result with a forged token: %d, want it refused (4xx)", got)
		}
		return nil
	})
	sc.Step(`^a poll for "([^"]*)" with a forged token answers (\d+)$`, func(ctx context.Context, page string, code int) error {
		w := get(ctx)
		// A refusal is immediate; a poll that waits for work instead was
		// taken for the page's own.
		client := &http.Client{Timeout: 5 * time.Second}
		got, err := statusOf(client.Get(w.base + "/api/poll?id=" + w.stem(page) + "&token=forged"))
		if err != nil {
			return fmt.Errorf("poll with forged token: %w", err)
		}
		if got != code {
			return fmt.Errorf("poll with forged token: %d, want %d", got, code)
		}
		return nil
	})
}

// historyOf lists the states a job went through, comma-separated.
func historyOf(j chatlog.Job) string {
	var got []string
	for _, s := range j.History {
		got = append(got, string(s))
	}
	return strings.Join(got, ", ")
}

func unquote(s string) string {
	u, err := strconv.Unquote(`"` + s + `"`)
	if err != nil {
		return s
	}
	return u
}

func expectExists(fs afero.Fs, p string) error {
	if ok, _ := afero.Exists(fs, p); !ok {
		return fmt.Errorf("%s does not exist", p)
	}
	return nil
}

func expectMissing(fs afero.Fs, p string) error {
	if ok, _ := afero.Exists(fs, p); ok {
		return fmt.Errorf("%s exists already", p)
	}
	return nil
}

// statusOf is the status code of an HTTP answer whose body the step does
// not read (the body is closed).
func statusOf(resp *http.Response, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// preflight sends a CORS preflight from origin for a POST to url, with the
// further request headers given as name, value pairs.
func preflight(url, origin string, headers ...string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodOptions, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return http.DefaultClient.Do(req)
}
