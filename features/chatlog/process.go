package chatlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/chatlog"
	"anchorage/sim/clock"

	"github.com/spf13/afero"
)

// maxWait is the longest "N s pass" the process driver waits for on the
// wall clock; a scenario that needs more needs simulated time.
const maxWait = 10 * time.Second

const workspacePrefix = "chatlog-workspace-"

// process drives a chatlog server started from CHATLOG_SERVER on a real
// temporary directory: the harness plays the agents and editors by writing
// the real files, and the realms are headless Chromium tabs opening pages
// that load the server's adapter. Parsing goes through CHATLOG_PARSE.
type process struct {
	w        *world
	server   string // the CHATLOG_SERVER template
	parseCmd string // the CHATLOG_PARSE template
	logf     func(string, ...any)
	dir      string // the workspace, made with MkdirTemp
	port     int
	base     string // http://127.0.0.1:PORT

	cmd      *exec.Cmd
	done     chan struct{}
	con      kit.SyncBuffer
	br       *browser
	urls     map[string]string     // page name → the URL its tab registered with
	proxies  map[string]*pageProxy // page name → what its tab calls the server through
	claimed  map[string]string     // log path → the page whose log it is
	protocol error                 // why the server does not speak the realm protocol; nil when it does (after a probe)
	probed   bool
	quit     chan struct{} // closed when the scenario ends: the Lisp realm stops
}

func newProcess(w *world, server, parse string, logf func(string, ...any)) (*process, error) {
	dir, err := os.MkdirTemp("", workspacePrefix)
	if err != nil {
		return nil, fmt.Errorf("chatlog workspace: %w", err)
	}
	p := &process{w: w, server: server, parseCmd: parse, logf: logf, dir: dir, urls: map[string]string{}, proxies: map[string]*pageProxy{},
		claimed: map[string]string{}}
	// The steps read and write the server's real workspace.
	w.fs = afero.NewBasePathFs(afero.NewOsFs(), dir)
	return p, nil
}

func (p *process) skip(format string, args ...any) error { return skip(p.logf, format, args...) }

func (p *process) start() error {
	if p.server == "" {
		return p.skip("%s is not set: only the parser runs through %s", EnvServer, EnvParse)
	}
	if p.w.cfg.SingleFile {
		return p.skip("single-file mode is a setting of the embedded server; %s has no placeholder for it", EnvServer)
	}
	if p.w.cfg.Timeout != 0 && !strings.Contains(p.server, "{timeout}") {
		return p.skip("a %v job timeout: %s has no {timeout} placeholder", p.w.cfg.Timeout, EnvServer)
	}
	if p.port == 0 {
		port, err := kit.FreePort()
		if err != nil {
			return fmt.Errorf("pick a port: %w", err)
		}
		p.port = port
		p.base = "http://127.0.0.1:" + strconv.Itoa(p.port)
	}
	timeout := p.w.cfg.Timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	p.probed = false
	line := strings.NewReplacer("{dir}", p.dir, "{port}", strconv.Itoa(p.port), "{timeout}", timeout.String()).Replace(p.server)
	argv := strings.Fields(line)
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Stdout, p.cmd.Stderr = &p.con, &p.con
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", line, err)
	}
	p.done = make(chan struct{})
	go func(c *exec.Cmd, done chan struct{}) { _ = c.Wait(); close(done) }(p.cmd, p.done)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it listened:\n%s", line, p.con.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(p.port), 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s did not listen on port %d within 20 s:\n%s", line, p.port, p.con.String())
}

// stop ends the server with SIGTERM (SIGKILL after 5 s).
func (p *process) stop() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	p.cmd = nil
}

func (p *process) restart() error {
	if p.cmd == nil {
		return fmt.Errorf("no server")
	}
	p.stop()
	return p.start()
}

// registry reads the registry as the server last wrote it.
func (p *process) registry() string {
	b, err := os.ReadFile(filepath.Join(p.dir, chatlog.RegistryFile))
	if err != nil {
		return ""
	}
	return string(b)
}

// instanceLine is an instance line of the registry as the seed gives it:
// `* NAME (URL) last HH:MM:SS state: STATE`.
var instanceLine = regexp.MustCompile(`^\* (.+?) \((\S+)\) last \d\d:\d\d:\d\d state: `)

// logPointer is a path of a log under debug/, as a registry may point to it
// in any form.
var logPointer = regexp.MustCompile(`debug/[A-Za-z0-9._-]+\.md`)

// logFiles names the logs under debug/ now.
func (p *process) logFiles() map[string]bool {
	out := map[string]bool{}
	ents, _ := os.ReadDir(filepath.Join(p.dir, chatlog.InstanceDir))
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".md") && !e.IsDir() {
			out[chatlog.InstanceDir+"/"+e.Name()] = true
		}
	}
	return out
}

// find reads where the realm that registered from pageURL is: the
// registry's instance line that names the URL gives the instance's name,
// and its log is the one under debug/ named after it (the name, then a
// short id) or one the registry points to on a line naming the instance or
// its URL. A log another page holds is not it; of several, the one the page
// already holds (mine), else one that appeared since before, else the one
// pointed to. It returns the log's path and the instance's name.
func (p *process) find(pageURL, mine string, before map[string]bool) (path, name string, ok bool) {
	reg := p.registry()
	var lines []string
	for _, l := range strings.Split(reg, "\n") {
		if m := instanceLine.FindStringSubmatch(l); m != nil && m[2] == pageURL {
			name = m[1]
		}
	}
	if name == "" {
		return "", "", false
	}
	for _, l := range strings.Split(reg, "\n") {
		if strings.Contains(l, name) || strings.Contains(l, pageURL) {
			lines = append(lines, l)
		}
	}
	files := p.logFiles()
	cands, pointed := map[string]bool{}, map[string]bool{}
	for f := range files {
		stem := strings.TrimSuffix(strings.TrimPrefix(f, chatlog.InstanceDir+"/"), ".md")
		if id, ok := strings.CutPrefix(stem, name+"-"); stem == name || ok && shortID(id) {
			cands[f] = true
		}
	}
	for _, l := range lines {
		for _, f := range logPointer.FindAllString(l, -1) {
			if files[f] {
				cands[f], pointed[f] = true, true
			}
		}
	}
	for f := range cands {
		if owner, held := p.claimed[f]; held && owner != mine {
			delete(cands, f)
		}
	}
	if mine != "" {
		if held := p.w.path(mine); cands[held] {
			return held, name, true
		}
	}
	narrow := func(keep func(string) bool) {
		n := map[string]bool{}
		for f := range cands {
			if keep(f) {
				n[f] = true
			}
		}
		if len(n) > 0 {
			cands = n
		}
	}
	if before != nil {
		narrow(func(f string) bool { return !before[f] })
	}
	narrow(func(f string) bool { return pointed[f] })
	if len(cands) != 1 {
		return "", "", false
	}
	for f := range cands {
		path = f
	}
	return path, name, true
}

// shortID reports whether s is 4 to 8 lowercase hex digits.
func shortID(s string) bool {
	if len(s) < 4 || len(s) > 8 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// await waits until the realm that registered from pageURL is in the
// registry with its log, and notes where: name is how the steps call it.
func (p *process) await(name, pageURL string, before map[string]bool) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if path, regName, ok := p.find(pageURL, name, before); ok {
			p.hold(name, path, regName)
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	chromium := ""
	if p.br != nil {
		chromium = p.br.console()
	}
	return fmt.Errorf("no instance line of the registry names %s with a log under debug/ after 30 s\nregistry:\n%s\nlogs: %v\nserver console:\n%s\nchromium:\n%s",
		pageURL, p.registry(), p.logFiles(), p.con.String(), chromium)
}

// hold notes that the page name's log is path and its instance is called
// regName in the registry.
func (p *process) hold(name, path, regName string) {
	reg := p.w.regs[name]
	reg.Path = path
	if reg.ID == "" {
		reg.ID = strings.TrimSuffix(strings.TrimPrefix(path, chatlog.InstanceDir+"/"), ".md")
	}
	p.w.regs[name] = reg
	p.w.stems[name] = strings.TrimSuffix(strings.TrimPrefix(path, chatlog.InstanceDir+"/"), ".md")
	p.w.names[name] = regName
	p.claimed[path] = name
}

func (p *process) connect(name, title string) error {
	if p.cmd == nil {
		return fmt.Errorf("no server")
	}
	if p.br == nil {
		br, err := newBrowser()
		if err != nil {
			return err
		}
		p.br = br
	}
	px, err := newPageProxy(p.base)
	if err != nil {
		return err
	}
	p.proxies[name] = px
	before := p.logFiles()
	u, err := p.br.open(title, px.srv.URL)
	if err != nil {
		return err
	}
	p.urls[name] = u
	return p.await(name, u, before)
}

// quiet opens a tab titled name, waits until it is registered with its
// log, then freezes it: every call of its adapter from then on is held
// and never reaches the server, and the calls under way are cut. So no
// realm polls that log, as a page whose tab stopped would not.
func (p *process) quiet(name string) error {
	if err := p.connect(name, name); err != nil {
		return err
	}
	p.proxies[name].freeze()
	time.Sleep(300 * time.Millisecond) // the server sees the cut calls end
	return nil
}

// realmProtocol makes sure the server speaks the contract's optional realm
// protocol (features/README.md), the transport the harness's own realms
// use besides the tabs: a poll for an instance the server does not know
// answers 403. A server that does not gets the step skipped.
func (p *process) realmProtocol() error {
	if p.cmd == nil {
		return fmt.Errorf("no server")
	}
	if !p.probed {
		p.probed, p.protocol = true, nil
		resp, err := http.Get(p.base + "/api/poll?id=anchorage-probe&token=none")
		switch {
		case err != nil:
			p.protocol = err
		case resp.StatusCode != http.StatusForbidden:
			p.protocol = fmt.Errorf("GET /api/poll for an unknown instance answers %d, not 403", resp.StatusCode)
		}
		if err == nil {
			resp.Body.Close()
		}
	}
	if p.protocol != nil {
		return p.skip("the server does not speak the contract's optional realm protocol (%v)", p.protocol)
	}
	return nil
}

// registerOver registers a realm through the realm protocol: POST
// /api/register answers its id and token.
func (p *process) registerOver(name, pageURL, lang string) (chatlog.Registration, error) {
	if err := p.realmProtocol(); err != nil {
		return chatlog.Registration{}, err
	}
	body, _ := json.Marshal(map[string]string{"name": name, "url": pageURL, "lang": lang})
	resp, err := http.Post(p.base+"/api/register", "application/json", bytes.NewReader(body))
	if err != nil {
		return chatlog.Registration{}, err
	}
	defer resp.Body.Close()
	var reg chatlog.Registration
	if err := json.NewDecoder(resp.Body).Decode(&reg); err != nil || resp.StatusCode != http.StatusOK || reg.ID == "" || reg.Token == "" {
		return reg, fmt.Errorf("register %q through the realm protocol: %d, an id %q and a token: %v", name, resp.StatusCode, reg.ID, err)
	}
	return reg, nil
}

func (p *process) register(name, pageURL string) (chatlog.Registration, error) {
	return p.registerOver(name, pageURL, "JS")
}

// located finds the log of a realm registered through the realm protocol.
func (p *process) located(name, pageURL string, reg chatlog.Registration) error {
	p.w.regs[name] = reg
	return p.await(name, pageURL, nil)
}

// connectLisp plays the harness's Lisp realm through the realm protocol:
// it registers in "Lisp", long-polls for jobs and posts each result 4 ms
// after taking the job, until the scenario ends.
func (p *process) connectLisp(name string) error {
	reg, err := p.registerOver(name, "lisp://repl", lisp{}.Language())
	if err != nil {
		return err
	}
	if err := p.located(name, "lisp://repl", reg); err != nil {
		return err
	}
	if p.quit == nil {
		p.quit = make(chan struct{})
	}
	go func(quit chan struct{}) {
		for {
			select {
			case <-quit:
				return
			default:
			}
			resp, err := http.Get(p.base + "/api/poll?id=" + url.QueryEscape(reg.ID) + "&token=" + url.QueryEscape(reg.Token))
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			var task chatlog.Task
			ok := resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&task) == nil
			resp.Body.Close()
			if !ok {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			out := lisp{}.Evaluate(task)
			time.Sleep(4 * time.Millisecond)
			res := map[string]any{"id": reg.ID, "token": reg.Token, "jobId": task.JobID, "ok": out.OK, "isJSON": out.IsJSON, "json": out.JSON, "stack": out.Stack}
			b, _ := json.Marshal(res)
			if r, err := http.Post(p.base+"/api/result", "application/json", bytes.NewReader(b)); err == nil {
				r.Body.Close()
			}
		}
	}(p.quit)
	return nil
}

func (p *process) registration(name string) (chatlog.Registration, error) {
	u, ok := p.urls[name]
	if !ok {
		return chatlog.Registration{}, fmt.Errorf("no page %q", name)
	}
	path, _, ok := p.find(u, name, nil)
	if !ok {
		return chatlog.Registration{}, fmt.Errorf("the page %q (%s) is not in the registry with one log:\n%s", name, u, p.registry())
	}
	return chatlog.Registration{ID: strings.TrimSuffix(strings.TrimPrefix(path, chatlog.InstanceDir+"/"), ".md"), Path: path}, nil
}

// pace makes the tab's results reach the server d after the tab posts
// them: the page takes d (and the few milliseconds of the tab) per job.
func (p *process) pace(name string, d time.Duration) error {
	px, ok := p.proxies[name]
	if !ok {
		return fmt.Errorf("no page %q", name)
	}
	px.setDelay(d)
	return nil
}

func (p *process) hang(name string) error {
	px, ok := p.proxies[name]
	if !ok {
		return fmt.Errorf("no page %q", name)
	}
	px.hang()
	return nil
}

func (p *process) release(name string) error {
	px, ok := p.proxies[name]
	if !ok {
		return fmt.Errorf("no page %q", name)
	}
	return px.release()
}

func (p *process) throwInBackground(name, code string) error {
	u, ok := p.urls[name]
	if !ok {
		return fmt.Errorf("no page %q", name)
	}
	return p.br.run(u, code)
}

func (p *process) rejectInBackground(name, code string) error {
	return p.throwInBackground(name, code)
}

func (p *process) clock() clock.Clock { return clock.Real() }

// pass waits d on the wall clock, then until the logs have been still for
// a moment (the server and the tab run at their own pace).
func (p *process) pass(d time.Duration) error {
	if d > maxWait {
		return p.skip("%v must pass: the process driver waits on the wall clock, at most %v (simulated time is the embedded server's)", d, maxWait)
	}
	time.Sleep(d)
	p.settle(500*time.Millisecond, 5*time.Second)
	return nil
}

// settle waits until no log under debug/ has changed for quiet, at most max.
func (p *process) settle(quiet, max time.Duration) {
	deadline := time.Now().Add(max)
	last, still := p.snapshot(), time.Now()
	for time.Now().Before(deadline) && time.Since(still) < quiet {
		time.Sleep(50 * time.Millisecond)
		if s := p.snapshot(); s != last {
			last, still = s, time.Now()
		}
	}
}

// snapshot names every log's size.
func (p *process) snapshot() string {
	var b strings.Builder
	ents, _ := os.ReadDir(filepath.Join(p.dir, chatlog.InstanceDir))
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			fmt.Fprintf(&b, "%s %d\n", e.Name(), fi.Size())
		}
	}
	return b.String()
}

func (p *process) console() string { return p.con.String() }

func (p *process) transport(longPoll time.Duration) (string, error) {
	if p.cmd == nil {
		return "", fmt.Errorf("no server")
	}
	if longPoll != 0 {
		return "", p.skip("a %v long poll is a setting of the embedded transport", longPoll)
	}
	if err := p.realmProtocol(); err != nil {
		return "", err
	}
	return p.base, nil
}

func (p *process) serverURL() (string, error) {
	if p.cmd == nil {
		return "", fmt.Errorf("no server")
	}
	return p.base, nil
}

const parsePrefix = "chatlog-parse-"

func (p *process) parse(text string) (chatlog.ParseReport, error) {
	var rep chatlog.ParseReport
	if p.parseCmd == "" {
		return rep, p.skip("%s is not set: the parser's reading of a log has no other way out", EnvParse)
	}
	dir, err := os.MkdirTemp("", parsePrefix)
	if err != nil {
		return rep, err
	}
	defer kit.RemoveTemp(dir, parsePrefix)
	file := filepath.Join(dir, "log.md")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		return rep, err
	}
	argv := strings.Fields(p.parseCmd)
	for i := range argv {
		argv[i] = strings.ReplaceAll(argv[i], "{file}", file)
	}
	var out, errb bytes.Buffer
	c := exec.Command(argv[0], argv[1:]...)
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return rep, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return rep, fmt.Errorf("%s: the parse report is not JSON: %w\n%s", strings.Join(argv, " "), err, out.String())
	}
	return rep, nil
}

// jobs reads the job table from the server's optional debug port, GET
// /conformance/jobs (replserve -debug-jobs). It is not counted in the
// registry's list of recent jobs: a job the server refuses at once (a
// request in no language) is a job that list leaves out.
func (p *process) jobs(stem string) ([]chatlog.Job, error) {
	if p.cmd == nil {
		return nil, fmt.Errorf("no server")
	}
	resp, err := http.Get(p.base + "/conformance/jobs?instance=" + url.QueryEscape(stem))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, p.skip("the server's job table: the server does not answer GET /conformance/jobs (the optional debug port)")
	}
	var views []struct {
		ID       string             `json:"id"`
		Instance string             `json:"instance"`
		Agent    string             `json:"agent"`
		At       string             `json:"at"`
		Lang     string             `json:"lang"`
		Code     string             `json:"code"`
		History  []chatlog.JobState `json:"history"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&views); err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /conformance/jobs: %d %v", resp.StatusCode, err)
	}
	var out []chatlog.Job
	for _, v := range views {
		j := chatlog.Job{ID: v.ID, Instance: v.Instance, Agent: v.Agent, At: v.At, Lang: v.Lang, Code: v.Code, History: v.History}
		if len(v.History) > 0 {
			j.State = v.History[len(v.History)-1]
		}
		out = append(out, j)
	}
	return out, nil
}

func (p *process) level() seedLevel { return seedLevel{wall: true} }

func (p *process) internal(what string) error {
	return p.skip("%s is the embedded server's internal state, which a server process does not show", what)
}

// pattern makes times of day, durations and the simulated page's URL in
// want stand for any: on the wall clock they are the server's to choose,
// while every other byte is still compared.
func (p *process) pattern(want string) string {
	want = v8Messages(want, false)
	timeOfDay := regexp.MustCompile(`\d\d:\d\d:\d\d`)
	pageURL := regexp.MustCompile(`http://localhost:8302/`) // the simulated page's URL
	q := regexp.QuoteMeta(want)
	q = timeOfDay.ReplaceAllString(q, `\d\d:\d\d:\d\d`)
	q = anyDuration(q)
	q = pageURL.ReplaceAllString(q, `[^ ()]+`)
	return q
}

// regexp makes the times of day and durations of an expected regular
// expression stand for any, and names V8's messages for QuickJS's.
func (p *process) regexp(re string) string {
	re = v8Messages(re, true)
	re = regexp.MustCompile(`\d\d:\d\d:\d\d`).ReplaceAllString(re, `\d\d:\d\d:\d\d`)
	return anyDuration(re)
}

// anyDuration makes each duration in the regular expression q stand for
// any, except a timeout's: the timeout is the server's setting, not a
// measurement ("after 5s, timeout", "failed after 5000ms (timeout)",
// "timeout: no result after 5s" stay exact).
func anyDuration(q string) string {
	var b strings.Builder
	last := 0
	for _, m := range regexp.MustCompile(`\b\d+(?:\\\.\d+)?m?s\b`).FindAllStringIndex(q, -1) {
		before, after := q[max(0, m[0]-30):m[0]], q[m[1]:min(len(q), m[1]+14)]
		if strings.Contains(before, "timeout") || strings.Contains(after, "timeout") {
			continue
		}
		b.WriteString(q[last:m[0]])
		b.WriteString(`\d+(?:\.\d+)?m?s`)
		last = m[1]
	}
	b.WriteString(q[last:])
	return b.String()
}

// v8Messages rewrites the messages of QuickJS, the simulated page's
// engine, that the steps quote into V8's, the engine of the Chromium tab
// that is the realm here: the same errors in that engine's own words. In a
// regular expression (re) V8's parentheses are escaped.
func v8Messages(s string, re bool) string {
	lp, rp := "(", ")"
	if re {
		lp, rp = `\(`, `\)`
	}
	s = regexp.MustCompile(`cannot read property '(\w+)' of (null|undefined)`).ReplaceAllString(s, "Cannot read properties of $2 "+lp+"reading '$1'"+rp)
	return regexp.MustCompile(`'(\w+)' is not defined`).ReplaceAllString(s, `$1 is not defined`)
}

func mustMatch(pat, got string) bool {
	re, err := regexp.Compile(pat)
	return err == nil && re.MatchString(got)
}

func (p *process) close() {
	if p.br != nil {
		p.br.close()
	}
	for _, px := range p.proxies {
		px.close()
	}
	if p.quit != nil {
		close(p.quit)
	}
	p.stop()
	if err := kit.RemoveTemp(p.dir, workspacePrefix); err != nil {
		p.logf("%v", err)
	}
}
