package plurnk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"anchorage/features/kit"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/rpc"

	"anchorage/sim/llm"

	"github.com/spf13/afero"

	"github.com/cucumber/godog"
	"github.com/tidwall/gjson"
)

// registerControlSteps registers the steps of the tier 3b daemon
// features: the operator's variables, the model reached over the
// OpenAI-compatible protocol, model aliases, the boot check, and what the
// model saw.
func registerControlSteps(sc kit.Steps) {
	sc.Step(`^the daemon's operator sets (\S+) to "([^"]*)"$`, func(ctx context.Context, k, v string) error {
		d := getDaemon(ctx)
		if d.started() {
			return fmt.Errorf("the daemon has started already")
		}
		d.env[k] = v
		return nil
	})
	sc.Step(`^the daemon's model is served over the OpenAI-compatible protocol( with streaming)?$`, func(ctx context.Context, streaming string) error {
		d := getDaemon(ctx)
		if d.started() {
			return fmt.Errorf("the daemon has started already")
		}
		d.http, d.stream = true, streaming != ""
		return nil
	})
	sc.Step(`^the daemon's model server waits for overlapping calls$`, func(ctx context.Context) error {
		getDaemon(ctx).company = true
		return nil
	})
	sc.Step(`^the daemon's model enforces grammars$`, func(ctx context.Context) error {
		getDaemon(ctx).model.HonourGrammar = true
		return nil
	})
	sc.Step(`^the daemon's model "([^"]*)" will reply:$`, func(ctx context.Context, id string, doc *godog.DocString) error {
		getDaemon(ctx).modelFor(id).Add(llm.Reply{Content: doc.Content})
		return nil
	})
	sc.Step(`^the daemon's model will reply, its stream broken after the first line:$`, func(ctx context.Context, doc *godog.DocString) error {
		getDaemon(ctx).model.Add(llm.Reply{Content: doc.Content, Broken: true})
		return nil
	})
	sc.Step(`^"(\w+)" got a "([^"]+)" notification whose (\S+) mentions "([^"]*)"$`, func(ctx context.Context, who, method, path, want string) error {
		d := getDaemon(ctx)
		notes, err := d.settled(ctx, who)
		if err != nil {
			return err
		}
		var seen []string
		for _, n := range notesOf(notes, method) {
			if got := gjson.GetBytes(n.Params, path); got.Type == gjson.String && strings.Contains(got.String(), want) {
				return nil
			}
			seen = append(seen, string(n.Params))
		}
		return fmt.Errorf("no %s notification whose %s mentions %q among:\n%s", method, path, want, strings.Join(seen, "\n"))
	})
	sc.Step(`^the daemon's model will reply with the raw payload (.+):$`, func(ctx context.Context, raw string, doc *godog.DocString) error {
		getDaemon(ctx).model.Add(llm.Reply{Content: doc.Content, Raw: unescape(raw)})
		return nil
	})
	sc.Step(`^the answer to "(\w+)" has (\S+) equal to its (\S+)$`, daemonAnswerSame)
	sc.Step(`^"(\w+)" heard the "log/entry" of its (\S+) before the answer$`, daemonHeardBefore)
	sc.Step(`^"(\w+)" got the "log/entry" of (\S+) before its first "(telemetry/event|loop/terminated|loop/quiesced|stream/concluded)"$`, daemonRowBefore)
	sc.Step(`^"(\w+)" got a "([^"]+)" notification whose (\S+) is the answer's (\S+)$`, func(ctx context.Context, who, method, field, answerField string) error {
		d := getDaemon(ctx)
		c, err := d.conn(who)
		if err != nil {
			return err
		}
		want := gjson.GetBytes(c.answer.Result, answerField)
		if !want.Exists() || want.Type == gjson.Null {
			return fmt.Errorf("the answer to %q has no %s: %s", who, answerField, c.answer.Result)
		}
		return daemonNoteWith(ctx, who, method, field, want.Raw)
	})
	sc.Step(`^the answer to "(\w+)" has no (\S+)$`, func(ctx context.Context, who, path string) error {
		c, err := getDaemon(ctx).conn(who)
		if err != nil {
			return err
		}
		if c.answer.Error != nil {
			return fmt.Errorf("the answer is an error: %s", c.answer.Raw)
		}
		if got := gjson.GetBytes(c.answer.Result, path); got.Exists() {
			return fmt.Errorf("the answer has %s = %s", path, got.Raw)
		}
		return nil
	})
	sc.Step(`^the daemon's model's packet (\d+) (contains|does not contain) "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, n int, how, text string) error {
		d := getDaemon(ctx)
		d.settle()
		if n < 1 || n > len(d.model.Requests) {
			return fmt.Errorf("the model was called %d times, no packet %d", len(d.model.Requests), n)
		}
		var b strings.Builder
		for _, m := range d.model.Requests[n-1].Messages {
			b.WriteString(m.Content + "\n")
		}
		if has := strings.Contains(b.String(), unescape(text)); has != (how == "contains") {
			return fmt.Errorf("packet %d %s %q:\n%s", n, map[bool]string{true: "contains", false: "lacks"}[has], text, b.String())
		}
		return nil
	})
	sc.Step(`^"(\w+)" got a "([^"]+)" notification without (\S+)$`, func(ctx context.Context, who, method, path string) error {
		notes, err := getDaemon(ctx).settled(ctx, who)
		if err != nil {
			return err
		}
		got := notesOf(notes, method)
		if len(got) == 0 {
			return fmt.Errorf("%q got no %s", who, method)
		}
		for _, n := range got {
			if !gjson.GetBytes(n.Params, path).Exists() {
				return nil
			}
		}
		return fmt.Errorf("every %s has %s", method, path)
	})
	sc.Step(`^the daemon's operator file (\S+) reads "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, path, text string) error {
		return afero.WriteFile(getDaemon(ctx).fs, path, []byte(unescape(text)), 0o644)
	})
	sc.Step(`^while the daemon's model generates reply (\d+), the daemon's operator file (\S+) comes to read "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, n int, path, text string) error {
		d := getDaemon(ctx)
		if n < 1 || n > len(d.model.Replies) {
			return fmt.Errorf("the model has no reply %d queued", n)
		}
		fs := d.fs
		d.model.Replies[n-1].Before = func() { _ = afero.WriteFile(fs, path, []byte(unescape(text)), 0o644) }
		return nil
	})
	sc.Step(`^the daemon's operator variables are those of the shipped \.env\.example$`, func(ctx context.Context) error {
		d := getDaemon(ctx)
		b, err := os.ReadFile(filepath.Join("..", "impl", "plurnk", "cmd", "plurnkd", ".env.example"))
		if err != nil {
			return fmt.Errorf("the shipped .env.example: %w", err)
		}
		vars, err := exec.ParseDotEnv(string(b))
		if err != nil {
			return fmt.Errorf("the shipped .env.example: %w", err)
		}
		for _, kv := range vars {
			k, v, _ := strings.Cut(kv, "=")
			d.env[k] = v
		}
		d.env["HOME"] = "/home/operator"
		d.selector = true
		return nil
	})
	sc.Step(`^the daemon's model's packet (\d+) holds "((?:[^"\\]|\\.)*)" exactly once$`, func(ctx context.Context, n int, text string) error {
		d := getDaemon(ctx)
		d.settle()
		if n < 1 || n > len(d.model.Requests) {
			return fmt.Errorf("the model was called %d times, no packet %d", len(d.model.Requests), n)
		}
		var b strings.Builder
		for _, m := range d.model.Requests[n-1].Messages {
			b.WriteString(m.Content + "\n")
		}
		if got := strings.Count(b.String(), unescape(text)); got != 1 {
			return fmt.Errorf("packet %d holds %q %d times:\n%s", n, text, got, b.String())
		}
		return nil
	})
	sc.Step(`^"(\w+)" calls ([\w./]+) with (\{.*\}) while the daemon holds its command's registration$`, func(ctx context.Context, who, method, params string) error {
		d := getDaemon(ctx)
		c, err := d.conn(who)
		if err != nil {
			return err
		}
		if err := d.internal("holding a command's registration"); err != nil {
			return err
		}
		d.mu.Lock()
		d.hold, d.held = make(chan struct{}), make(chan struct{}, 1)
		held := d.held
		d.mu.Unlock()
		c.held = make(chan rpc.Answer, 1)
		go func(out chan rpc.Answer) {
			cctx, cancel := context.WithTimeout(context.Background(), 4*callTimeout)
			defer cancel()
			if a, err := c.c.Call(cctx, method, json.RawMessage(params)); err == nil {
				out <- a
			}
		}(c.held)
		select {
		case <-held:
			return nil
		case <-time.After(callTimeout):
			return fmt.Errorf("%s never reached the registration of its command", method)
		}
	})
	sc.Step(`^(\d+) ms pass on the daemon's clock while the call is held$`, func(ctx context.Context, ms int) error {
		getDaemon(ctx).clk.Advance(time.Duration(ms) * time.Millisecond)
		return nil
	})
	sc.Step(`^the held call of "(\w+)" has no answer yet$`, func(ctx context.Context, who string) error {
		c, err := getDaemon(ctx).conn(who)
		if err != nil || c.held == nil {
			return fmt.Errorf("no held call of %q", who)
		}
		select {
		case a := <-c.held:
			return fmt.Errorf("the held call was answered: %s", a.Raw)
		case <-time.After(50 * time.Millisecond):
			return nil
		}
	})
	sc.Step(`^the held call of "(\w+)" is answered with the error (-?\d+)$`, func(ctx context.Context, who string, code int) error {
		c, err := getDaemon(ctx).conn(who)
		if err != nil || c.held == nil {
			return fmt.Errorf("no held call of %q", who)
		}
		select {
		case a := <-c.held:
			c.answer = a
			return daemonAnswerError(ctx, who, code)
		case <-time.After(callTimeout):
			return fmt.Errorf("the held call was not answered")
		}
	})
	sc.Step(`^the daemon releases the held registration$`, func(ctx context.Context) error {
		d := getDaemon(ctx)
		d.mu.Lock()
		if d.hold != nil {
			close(d.hold)
			d.hold = nil
		}
		d.mu.Unlock()
		return nil
	})
	sc.Step(`^the daemon logged that (\S+) answered after its timeout$`, func(ctx context.Context, method string) error {
		d := getDaemon(ctx)
		deadline := time.Now().Add(callTimeout)
		for {
			logged := d.loggedLines()
			for _, l := range logged {
				if strings.Contains(l, method+" answered after its timeout") {
					return nil
				}
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the daemon logged %q", logged)
			}
			time.Sleep(time.Millisecond)
		}
	})
	sc.Step(`^the error answered to "(\w+)" has data (\S+) = (.+?)$`, func(ctx context.Context, who, path, want string) error {
		c, err := getDaemon(ctx).conn(who)
		if err != nil {
			return err
		}
		got := gjson.GetBytes(c.answer.Raw, "error.data."+path)
		if !got.Exists() {
			return fmt.Errorf("the answer has no error.data.%s: %s", path, c.answer.Raw)
		}
		return sameJSON(got.Raw, want)
	})
	sc.Step(`^"(\w+)" resolves the row of the answer's (\S+) with "(\w+)"$`, func(ctx context.Context, who, field, decision string) error {
		c, err := getDaemon(ctx).conn(who)
		if err != nil {
			return err
		}
		id := gjson.GetBytes(c.answer.Result, field)
		if !id.Exists() {
			return fmt.Errorf("the answer to %q has no %s: %s", who, field, c.answer.Result)
		}
		return daemonCall(ctx, who, "loop.resolve", fmt.Sprintf(`{"logEntryId": %s, "decision": %q}`, id.Raw, decision))
	})
	sc.Step(`^the error answered to "(\w+)" mentions "([^"]*)"$`, func(ctx context.Context, who, text string) error {
		c, err := getDaemon(ctx).conn(who)
		if err != nil {
			return err
		}
		if msg := gjson.GetBytes(c.answer.Raw, "error.message").String(); !strings.Contains(msg, text) {
			return fmt.Errorf("the error's message %q does not mention %q", msg, text)
		}
		return nil
	})
	sc.Step(`^the daemon's host also offers an executor named "([^"]*)"$`, func(ctx context.Context, name string) error {
		d := getDaemon(ctx)
		if err := d.internal("a simulated executor beside sh"); err != nil {
			return err
		}
		if d.started() {
			return fmt.Errorf("the daemon has started already")
		}
		d.extra = append(d.extra, name)
		return nil
	})
	sc.Step(`^the daemon's host offers no executor$`, func(ctx context.Context) error {
		d := getDaemon(ctx)
		if err := d.internal("a host without sh"); err != nil {
			return err
		}
		if d.started() {
			return fmt.Errorf("the daemon has started already")
		}
		d.noExec = true
		return nil
	})
	sc.Step(`^the daemon boots$`, func(ctx context.Context) error {
		_ = getDaemon(ctx).boot()
		return nil
	})
	sc.Step(`^the daemon refused to start, saying "([^"]*)"$`, func(ctx context.Context, want string) error {
		d := getDaemon(ctx)
		if d.bootErr == nil {
			return fmt.Errorf("the daemon started")
		}
		if !strings.Contains(d.bootErr.Error(), want) {
			return fmt.Errorf("the daemon refused with %q, not mentioning %q", d.bootErr, want)
		}
		return nil
	})
	sc.Step(`^the daemon started$`, func(ctx context.Context) error {
		d := getDaemon(ctx)
		if d.bootErr != nil || !d.started() {
			return fmt.Errorf("the daemon did not start: %v", d.bootErr)
		}
		return nil
	})
	sc.Step(`^the daemon's model was called (\d+) times?$`, func(ctx context.Context, n int) error {
		d := getDaemon(ctx)
		d.settle()
		if got := len(d.model.Requests); got != n {
			return fmt.Errorf("the model was called %d times, want %d", got, n)
		}
		return nil
	})
	sc.Step(`^the daemon's model "([^"]*)" was called (\d+) times?$`, func(ctx context.Context, id string, n int) error {
		d := getDaemon(ctx)
		d.settle()
		if got := len(d.modelFor(id).Requests); got != n {
			return fmt.Errorf("the model %q was called %d times, want %d", id, got, n)
		}
		return nil
	})
	sc.Step(`^every call to the daemon's model carried the client "([^"]*)"$`, func(ctx context.Context, want string) error {
		d := getDaemon(ctx)
		d.settle()
		if len(d.model.Requests) == 0 {
			return fmt.Errorf("the model was never called")
		}
		for i, r := range d.model.Requests {
			if r.Client != want {
				return fmt.Errorf("call %d carried the client %q, want %q", i+1, r.Client, want)
			}
		}
		return nil
	})
	sc.Step(`^no call to the daemon's model carried a client$`, func(ctx context.Context) error {
		d := getDaemon(ctx)
		d.settle()
		if len(d.model.Requests) == 0 {
			return fmt.Errorf("the model was never called")
		}
		for i, r := range d.model.Requests {
			if r.Client != "" {
				return fmt.Errorf("call %d carried the client %q", i+1, r.Client)
			}
		}
		return nil
	})
	sc.Step(`^the daemon's model server saw (\d+) calls?, the last one abandoned by its client$`, func(ctx context.Context, n int) error {
		d := getDaemon(ctx)
		d.settle()
		if d.llmSrv == nil {
			return fmt.Errorf("the model is not served over HTTP")
		}
		// The server learns of the abandon when the connection closes,
		// which the loop's end does not wait for: give it a moment.
		deadline := time.Now().Add(callTimeout)
		for {
			calls := d.llmSrv.Calls()
			if len(calls) == n && calls[n-1].Cancelled {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the server saw %+v, want %d calls, the last one cancelled", calls, n)
			}
			time.Sleep(time.Millisecond)
		}
	})
	sc.Step(`^the daemon's model server saw the user "([^"]*)" on every call$`, func(ctx context.Context, want string) error {
		return getDaemon(ctx).everyCall("the user", want, func(c llm.ServedCall) string { return c.Client })
	})
	sc.Step(`^the daemon's model server saw the header X-Plurnk-Client "([^"]*)" on every call$`, func(ctx context.Context, want string) error {
		return getDaemon(ctx).everyCall("X-Plurnk-Client", want, func(c llm.ServedCall) string { return c.ClientHeader })
	})
	sc.Step(`^the daemon's model server saw the header X-Plurnk-Run "([^"]*)" on every call$`, func(ctx context.Context, want string) error {
		return getDaemon(ctx).everyCall("X-Plurnk-Run", want, func(c llm.ServedCall) string { return c.RunHeader })
	})
	sc.Step(`^the daemon's model server saw (no bearer key|the bearer key "([^"]*)") on every call$`, func(ctx context.Context, which, key string) error {
		want := ""
		if key != "" {
			want = "Bearer " + key
		}
		return getDaemon(ctx).everyCall("Authorization", want, func(c llm.ServedCall) string { return c.Authorization })
	})
	sc.Step(`^no two calls to the daemon's model were in flight at once$`, func(ctx context.Context) error {
		d := getDaemon(ctx)
		d.settle()
		if d.llmSrv == nil {
			return fmt.Errorf("the model is not served over HTTP")
		}
		if p := d.llmSrv.Peak(); p != 1 {
			return fmt.Errorf("%d calls were in flight at once", p)
		}
		return nil
	})
	sc.Step(`^the daemon's model will hold its next reply until "(\w+)" cancels the loop$`, func(ctx context.Context, who string) error {
		d := getDaemon(ctx)
		c, err := d.conn(who)
		if err != nil {
			return err
		}
		d.model.Add(llm.Reply{Hold: true})
		d.model.OnAbort = func() {
			cctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			_, _ = c.c.Call(cctx, "loop.cancel", nil)
		}
		return nil
	})
	sc.Step(`^while the daemon's model generates reply (\d+), "(\w+)" calls ([\w./]+) with (\{.*\})$`, func(ctx context.Context, n int, who, method, params string) error {
		d := getDaemon(ctx)
		c, err := d.conn(who)
		if err != nil {
			return err
		}
		if n < 1 || n > len(d.model.Replies) {
			return fmt.Errorf("the model has no reply %d queued", n)
		}
		if params, err = d.expand(params); err != nil {
			return err
		}
		d.model.Replies[n-1].Before = func() {
			cctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			a, err := c.c.Call(cctx, method, json.RawMessage(params))
			if err == nil {
				// Handed over once the daemon has settled (daemonRunLoop).
				c.during = &a
				c.duringMethod = method
			}
		}
		return nil
	})
	sc.Step(`^the daemon's simulated command "([^"]*)" ran in the workspace root$`, func(ctx context.Context, cmd string) error {
		d := getDaemon(ctx)
		d.settle()
		var dirs []string
		for _, sp := range d.spawns() {
			if sp.Command == cmd {
				dirs = append(dirs, sp.Dir)
			}
		}
		if len(dirs) == 0 {
			return fmt.Errorf("%q never ran", cmd)
		}
		for _, dir := range dirs {
			if dir != workspace {
				return fmt.Errorf("%q ran in %v, want the workspace root %s", cmd, dirs, workspace)
			}
		}
		return nil
	})
	sc.Step(`^the daemon's simulated command "([^"]*)" was spawned (\d+) times?$`, func(ctx context.Context, cmd string, n int) error {
		d := getDaemon(ctx)
		d.settle()
		got := 0
		for _, sp := range d.spawns() {
			if sp.Command == cmd {
				got++
			}
		}
		if got != n {
			return fmt.Errorf("%q spawned %d times, want %d", cmd, got, n)
		}
		return nil
	})
	sc.Step(`^(\d+) ms pass on the daemon's clock$`, func(ctx context.Context, ms int) error {
		return getDaemon(ctx).passClock(ms)
	})
	sc.Step(`^every notification "(\w+)" got, but session/created, names the session of "(\w+)"$`, func(ctx context.Context, who, owner string) error {
		d := getDaemon(ctx)
		notes, err := d.settled(ctx, who)
		if err != nil {
			return err
		}
		o, err := d.conn(owner)
		if err != nil {
			return err
		}
		want := o.session.Get("id").Int()
		count := 0
		for _, n := range notes {
			if n.Method == "session/created" {
				continue
			}
			count++
			if got := gjson.GetBytes(n.Params, "sessionId"); !got.Exists() || got.Int() != want {
				return fmt.Errorf("%s does not name session %d: %s", n.Method, want, n.Params)
			}
		}
		if count == 0 {
			return fmt.Errorf("%q got no notification", who)
		}
		return nil
	})
}

// modelFor returns the scripted model of id, made on first use.
func (d *daemonWorld) modelFor(id string) *llm.Mock {
	m, ok := d.models[id]
	if !ok {
		m = &llm.Mock{}
		d.models[id] = m
	}
	return m
}

// settle lets the daemon's loops run until they end or park.
func (d *daemonWorld) settle() {
	if d.proc != nil {
		d.proc.settle(d)
		return
	}
	if d.backend != nil {
		d.backend.Settle()
	}
}

// daemonAnswerSame checks that two fields of who's last answer hold the
// same value, neither of them missing, null or zero.
func daemonAnswerSame(ctx context.Context, who, a, b string) error {
	d := getDaemon(ctx)
	c, err := d.conn(who)
	if err != nil {
		return err
	}
	if c.answer.Error != nil {
		return fmt.Errorf("%q got the error %d: %s", who, c.answer.Error.Code, c.answer.Error.Message)
	}
	ga, gb := gjson.GetBytes(c.answer.Result, a), gjson.GetBytes(c.answer.Result, b)
	for _, g := range []gjson.Result{ga, gb} {
		if !g.Exists() || g.Type == gjson.Null || g.Raw == "0" {
			return fmt.Errorf("the answer to %q has %s = %s and %s = %s: want both set: %s", who, a, ga.Raw, b, gb.Raw, c.answer.Result)
		}
	}
	if ga.Raw != gb.Raw {
		return fmt.Errorf("the answer to %q has %s = %s but %s = %s", who, a, ga.Raw, b, gb.Raw)
	}
	return nil
}

// daemonHeardBefore checks that a log/entry naming the path the last
// answer gives at field reached the connection before that answer did.
func daemonHeardBefore(ctx context.Context, who, field string) error {
	d := getDaemon(ctx)
	c, err := d.conn(who)
	if err != nil {
		return err
	}
	want := gjson.GetBytes(c.answer.Result, field)
	if !want.Exists() || want.String() == "" {
		return fmt.Errorf("the answer to %q has no %s: %s", who, field, c.answer.Result)
	}
	notes := c.c.Notes()
	if c.answer.Heard > len(notes) {
		return fmt.Errorf("the answer to %q followed %d notifications, only %d recorded", who, c.answer.Heard, len(notes))
	}
	var seen []string
	for _, n := range notesOf(notes[:c.answer.Heard], "log/entry") {
		p := gjson.GetBytes(n.Params, "entry.path").String()
		if p == want.String() {
			return nil
		}
		seen = append(seen, p)
	}
	return fmt.Errorf("no log/entry of %s reached %q before the answer; before it: %v", want.String(), who, seen)
}

// daemonRowBefore checks that who heard the log/entry of path before the
// first notification of method (the rows written before a notice or an
// event go out before it).
func daemonRowBefore(ctx context.Context, who, path, method string) error {
	notes, err := getDaemon(ctx).settled(ctx, who)
	if err != nil {
		return err
	}
	for _, n := range notes {
		switch {
		case n.Method == method:
			return fmt.Errorf("%q got a %s before the log/entry of %s", who, method, path)
		case n.Method == "log/entry" && gjson.GetBytes(n.Params, "entry.path").String() == path:
			return nil
		}
	}
	return fmt.Errorf("%q got no log/entry of %s", who, path)
}

// everyCall checks that every call the model server saw carried want in
// the field of it what names, and that there was a call.
func (d *daemonWorld) everyCall(what, want string, field func(llm.ServedCall) string) error {
	d.settle()
	if d.llmSrv == nil || len(d.llmSrv.Calls()) == 0 {
		return fmt.Errorf("the model server saw no call")
	}
	for i, c := range d.llmSrv.Calls() {
		if got := field(c); got != want {
			return fmt.Errorf("HTTP call %d carried %s %q, want %q", i+1, what, got, want)
		}
	}
	return nil
}
