package chatlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"anchorage/impl/chatlog"
	"anchorage/sim/realm"

	"github.com/spf13/afero"
)

func (w *world) start() error {
	srv := chatlog.New(w.cfg)
	if err := srv.Start(); err != nil {
		return err
	}
	w.srv = srv
	return nil
}

// hub is what the simulated pages talk to: the server running now, so
// that a page outlives a server restart as a browser tab does.
type hub struct{ w *world }

func (h hub) Poll(id, token string) (*chatlog.Task, error) {
	t, _, err := h.w.srv.Poll(id, token)
	return t, err
}
func (h hub) Received(t chatlog.Task)          { h.w.srv.Received(&t) }
func (h hub) Heartbeat(id, token string) error { return h.w.srv.Heartbeat(id, token) }
func (h hub) Rejoin(id, name, url, lang string) (chatlog.Registration, error) {
	return h.w.srv.Rejoin(id, name, url, lang)
}
func (h hub) Result(id, token, jobID string, o chatlog.Outcome) error {
	return h.w.srv.Result(id, token, jobID, o)
}

// restart stops the server and starts a new one on the same workspace; the
// pages keep running and must find their way back by themselves.
func (w *world) restart() error {
	if w.srv == nil {
		return fmt.Errorf("no server")
	}
	w.srv.Stop()
	w.cfg.Seed++ // a new process draws other ids
	return w.start()
}

func (w *world) connect(name, title string) error {
	if w.srv == nil {
		return fmt.Errorf("no server")
	}
	p, err := realm.New(hub{w}, w.clk, realm.Config{Name: title, Latency: 5 * time.Millisecond, Seed: w.seed + uint64(len(w.pages)),
		Core: chatlog.CoreScriptFor(w.cfg.Vary)})
	if err != nil {
		return err
	}
	p.Work = func(chatlog.Task) time.Duration { return w.work[name] }
	if err := p.Start(); err != nil {
		return err
	}
	w.pages[name] = p
	w.regs[name] = p.Registration()
	return nil
}

func (w *world) page(name string) (*realm.Page, error) {
	p, ok := w.pages[name]
	if !ok {
		return nil, fmt.Errorf("no page %q", name)
	}
	return p, nil
}

func (w *world) agent(name string) *realm.Agent {
	if a, ok := w.agents[name]; ok {
		return a
	}
	a := &realm.Agent{Name: name, Fs: w.fs, Clock: w.d.clock()}
	w.agents[name] = a
	return a
}

// stem is the stem of the page's log, what agents address the page as:
// where the driver found the log, else the id the server registered it as.
func (w *world) stem(page string) string {
	if s := w.stems[page]; s != "" {
		return s
	}
	if r, ok := w.regs[page]; ok {
		return r.ID
	}
	return page
}

func (w *world) path(page string) string {
	if r, ok := w.regs[page]; ok {
		return r.Path
	}
	return chatlog.InstancePath(page)
}

// request is a request as the seed writes one: the header, then the code
// in a fence of three backticks tagged with the language.
func (w *world) request(agent, page, lang, code string) string {
	return fmt.Sprintf("**%s** to %s at %s\n```%s\n%s\n```\n", agent, w.stem(page), chatlog.Clock(w.d.clock().Now()), lang, code)
}

// registerHTTP registers a page through the realm protocol (the adapter
// transport over HTTP) with body, its own URL added, and notes where its
// log is.
func (w *world) registerHTTP(title string, body map[string]string) error {
	url := fmt.Sprintf("http://localhost:8302/http/%d", len(w.regs)+1)
	body["url"] = url
	b, _ := json.Marshal(body)
	resp, err := http.Post(w.base+"/api/register", "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var reg chatlog.Registration
	if err := json.NewDecoder(resp.Body).Decode(&reg); err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("register %q over HTTP: %d %v", title, resp.StatusCode, err)
	}
	return w.d.located(title, url, reg)
}

func (w *world) appendTo(page, text string) error {
	p := w.path(page)
	if err := w.agent("writer").AppendRaw(p, text); err != nil {
		return err
	}
	w.lastW = w.d.clock().Now()
	b, _ := afero.ReadFile(w.fs, p)
	w.snaps[p] = string(b)
	return nil
}

// expand replaces <page> with the page's stem, <name> with the name its
// registry line gives it, and the placeholders of expandAll.
func (w *world) expand(page, s string) string {
	s = strings.ReplaceAll(s, "<page>", w.stem(page))
	s = strings.ReplaceAll(s, "<name>", w.regName(page))
	return w.expandAll(s)
}

// expandAll replaces <stem:Name> with that page's stem, <name:Name> with
// its registry name, <page> and <name> likewise when one page is connected,
// and <now> with the clock's HH:MM:SS.
func (w *world) expandAll(s string) string {
	for name := range w.regs {
		s = strings.ReplaceAll(s, "<stem:"+name+">", w.stem(name))
		s = strings.ReplaceAll(s, "<name:"+name+">", w.regName(name))
		if len(w.regs) == 1 {
			s = strings.ReplaceAll(s, "<page>", w.stem(name))
			s = strings.ReplaceAll(s, "<name>", w.regName(name))
		}
	}
	return strings.ReplaceAll(s, "<now>", chatlog.Clock(w.d.clock().Now()))
}

// expandPath expands a URL path and refuses one that still holds a
// placeholder: "/debug/<page>.md" left unexpanded would answer 404 for the
// wrong reason.
func (w *world) expandPath(p string) (string, error) {
	out := w.expandAll(p)
	if strings.ContainsAny(out, "<>") {
		return "", fmt.Errorf("path %q still holds a placeholder after expansion: %q", p, out)
	}
	return out, nil
}

// getPath GETs the expanded path p from the server under test and
// returns the status and the body.
func (w *world) getPath(p string) (int, []byte, error) {
	url, err := w.expandPath(p)
	if err != nil {
		return 0, nil, err
	}
	base, err := w.d.serverURL()
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.Get(base + url)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

func (w *world) read(p string) string {
	b, err := afero.ReadFile(w.fs, p)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

func (w *world) job(code string) (chatlog.Job, error) {
	jobs, err := w.d.jobs("")
	if err != nil {
		return chatlog.Job{}, err
	}
	var found []chatlog.Job
	for _, j := range jobs {
		if j.Code == code {
			found = append(found, j)
		}
	}
	if len(found) != 1 {
		return chatlog.Job{}, fmt.Errorf("%d jobs run %q", len(found), code)
	}
	return found[0], nil
}

// checkAppendOnly compares every log with what it held after the previous
// step: the server may only have added bytes.
func (w *world) checkAppendOnly() {
	for name, r := range w.regs {
		_ = name
		b, err := afero.ReadFile(w.fs, r.Path)
		if err != nil {
			continue
		}
		if old, ok := w.snaps[r.Path]; ok && !bytes.HasPrefix(b, []byte(old)) {
			w.broken = append(w.broken, r.Path)
		}
		w.snaps[r.Path] = string(b)
	}
}

// bulk fills a page's log with size bytes of answered conversation, the
// way a long session leaves it, and lets the server see it.
func (w *world) bulk(page string, size int) error {
	var b bytes.Buffer
	stem := w.stem(page)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "**agent** to %s at 08:00:00\n```JS\n%d*2\n```\n", stem, i)
		fmt.Fprintf(&b, "**%s** to agent at 08:00:00 (3ms)\n```JSON\n%d\n```\n", stem, 2*i)
	}
	f, err := w.fs.OpenFile(w.path(page), os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(b.Bytes()); err != nil {
		return err
	}
	if err := w.d.pass(time.Second); err != nil {
		return err
	}
	b2, _ := afero.ReadFile(w.fs, w.path(page))
	w.snaps[w.path(page)] = string(b2)
	return nil
}

// lisp is a tiny Lisp realm: it sums (+ a b ...) and fails on anything
// else. It shows that an adapter of another language uses the same log
// format with its own fence tag.
type lisp struct{}

func (lisp) Language() string { return "Lisp" }

func (lisp) Evaluate(t chatlog.Task) chatlog.Outcome {
	src := strings.TrimSpace(t.Code)
	if !strings.HasPrefix(src, "(+") || !strings.HasSuffix(src, ")") {
		return chatlog.Outcome{Stack: "error: only (+ ...) is understood here: " + src}
	}
	sum := 0
	for _, f := range strings.Fields(src[2 : len(src)-1]) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return chatlog.Outcome{Stack: "error: not a number: " + f}
		}
		sum += n
	}
	return chatlog.Outcome{OK: true, IsJSON: true, JSON: strconv.Itoa(sum)}
}

func (w *world) connectLisp(name string) error {
	var ad chatlog.Adapter = lisp{}
	reg, err := w.srv.Rejoin("", name, "lisp://repl", ad.Language())
	if err != nil {
		return err
	}
	w.regs[name] = reg
	var poll func()
	poll = func() {
		task, _, err := w.srv.Poll(reg.ID, reg.Token)
		if err == nil && task != nil {
			w.srv.Received(task)
			out := ad.Evaluate(*task)
			w.clk.AfterFunc(4*time.Millisecond, func() { _ = w.srv.Result(reg.ID, reg.Token, task.JobID, out) })
		}
		w.clk.AfterFunc(100*time.Millisecond, poll)
	}
	w.clk.AfterFunc(100*time.Millisecond, poll)
	return nil
}
