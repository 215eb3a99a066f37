// Package daemon holds the steps of the JSON-RPC daemon (the digest's
// methods, notifications, errors, proposals and yolo, operator config and
// provider contract as a daemon shows them): the daemon's setup, the
// client connections, their calls and answers, and the notifications they
// heard.
//
// It may import godog, features/kit, the world and the driver,
// impl/plurnk/... and sim/.
package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/rpc"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// Register registers the daemon's steps.
func Register(sc world.Steps) {
	registerSetup(sc)
	registerModel(sc)
	registerCommands(sc)
	registerCalls(sc)
	registerAnswers(sc)
	registerNotes(sc)
	registerModelSaw(sc)
	registerServerSaw(sc)
	registerHeld(sc)
	registerRestart(sc)
	registerSeedThens(sc)
}

// conn is the connection named who.
func conn(ctx context.Context, who string) (*driver.Conn, error) {
	return world.Get(ctx).Conns.Get(who)
}

func registerCalls(sc world.Steps) {
	sc.Step(`^a connection "(\w+)" to the daemon$`, daemonConnect)
	sc.Step(`^"(\w+)" creates a session named "([^"]*)"$`, func(ctx context.Context, who, name string) error {
		return daemonSession(ctx, who, "session.create", map[string]any{"name": name})
	})
	sc.Step(`^"(\w+)" attaches to the session of "(\w+)"$`, func(ctx context.Context, who, other string) error {
		o, err := conn(ctx, other)
		if err != nil {
			return err
		}
		return daemonSession(ctx, who, "session.attach", map[string]any{"id": o.Session.Get("id").Int()})
	})
	sc.Step(`^"(\w+)" calls ([\w./]+)$`, func(ctx context.Context, who, method string) error {
		return daemonCall(ctx, who, method, "")
	})
	sc.Step(`^"(\w+)" calls ([\w./]+) with (\{.*\})$`, daemonCall)
	sc.Step(`^"(\w+)" calls op\.edit on (\S+) with a body of (\d+) "(.)" characters$`, func(ctx context.Context, who, target string, n int, c string) error {
		b, err := json.Marshal(map[string]string{"target": target, "body": strings.Repeat(c, n)})
		if err != nil {
			return err
		}
		return daemonCall(ctx, who, "op.edit", string(b))
	})
	sc.Step(`^"(\w+)" calls ([\w./]+) for run "([^"]*)" with (\{.*\})$`, daemonCallForRun)
	sc.Step(`^"(\w+)" sends the frame (.+)$`, daemonSendFrame)
	sc.Step(`^"(\w+)" runs a loop with the prompt "([^"]*)"$`, func(ctx context.Context, who, prompt string) error {
		return daemonRunLoop(ctx, who, fmt.Sprintf(`{"prompt": %q}`, prompt))
	})
	sc.Step(`^"(\w+)" runs a loop with (\{.*\})$`, daemonRunLoop)
	sc.Step(`^the loop "(\w+)" started (?:ended|ends) with status (\d+)$`, daemonLoopEnded)
	sc.Step(`^the loop "(\w+)" started is parked at 202$`, func(ctx context.Context, who string) error {
		return daemonLoopAt(ctx, who, 202)
	})
	sc.Step(`^the loop "(\w+)" started is still running$`, func(ctx context.Context, who string) error {
		return daemonLoopAt(ctx, who, 102)
	})
	sc.Step(`^"(\w+)" (accepts|rejects|cancels) the proposal it was notified of$`, daemonResolveNoted)
	sc.Step(`^"(\w+)" resolves the row of the answer's (\S+) with "(\w+)"$`, func(ctx context.Context, who, field, decision string) error {
		c, err := conn(ctx, who)
		if err != nil {
			return err
		}
		id := gjson.GetBytes(c.Answer.Result, field)
		if !id.Exists() {
			return fmt.Errorf("the answer to %q has no %s: %s", who, field, c.Answer.Result)
		}
		return daemonCall(ctx, who, "loop.resolve", fmt.Sprintf(`{"logEntryId": %s, "decision": %q}`, id.Raw, decision))
	})
	sc.Step(`^(\d+) ms pass for the daemon's running commands$`, func(ctx context.Context, ms int) error {
		w := world.Get(ctx)
		if err := w.Drv.PassDaemonCommands(ms); err != nil {
			return err
		}
		// A call made while the model generated a resumed turn is
		// handed over once the daemon has settled, as in daemonRunLoop.
		for _, c := range w.Conns {
			if c.During != nil && c.DuringMethod != "loop.run" {
				c.Answer = *c.During
				c.During = nil
			}
		}
		return nil
	})
	sc.Step(`^(\d+) ms pass on the daemon's clock$`, func(ctx context.Context, ms int) error {
		return world.Get(ctx).Drv.PassClock(ms)
	})
}

func daemonConnect(ctx context.Context, who string) error {
	w := world.Get(ctx)
	if err := w.Drv.Boot(); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, driver.CallTimeout)
	defer cancel()
	c, err := rpc.Dial(cctx, w.Drv.URL())
	if err != nil {
		return err
	}
	w.Conns[who] = &driver.Conn{C: c}
	return nil
}

func daemonSession(ctx context.Context, who, method string, params map[string]any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := daemonCall(ctx, who, method, string(b)); err != nil {
		return err
	}
	c := world.Get(ctx).Conns[who]
	if c.Answer.Error != nil {
		return fmt.Errorf("%s: %v", method, c.Answer.Error)
	}
	c.Session = gjson.ParseBytes(c.Answer.Result)
	return nil
}

var placeholder = regexp.MustCompile(`<(\w+)\.(loop\.)?(\w+)>`)

// expand replaces each <conn.field> in s with that field of the
// connection's session answer, and each <conn.loop.field> with that field
// of its last loop.run answer.
func expand(ctx context.Context, s string) (string, error) {
	conns := world.Get(ctx).Conns
	var err error
	out := placeholder.ReplaceAllStringFunc(s, func(m string) string {
		p := placeholder.FindStringSubmatch(m)
		c, ok := conns[p[1]]
		var src gjson.Result
		if ok {
			src = c.Session
			if p[2] != "" {
				src = c.Loop
			}
		}
		if !ok || !src.Get(p[3]).Exists() {
			err = fmt.Errorf("placeholder %s: no such field", m)
			return m
		}
		return src.Get(p[3]).Raw
	})
	return out, err
}

func daemonCall(ctx context.Context, who, method, params string) error {
	c, err := conn(ctx, who)
	if err != nil {
		return err
	}
	var p any
	if params != "" {
		if params, err = expand(ctx, params); err != nil {
			return err
		}
		p = json.RawMessage(params)
	}
	cctx, cancel := context.WithTimeout(ctx, driver.CallTimeout)
	defer cancel()
	a, err := c.C.Call(cctx, method, p)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	c.Answer = a
	world.Get(ctx).Conns.NoteModelRun(c, a.Result)
	return nil
}

func daemonSendFrame(ctx context.Context, who, frame string) error {
	c, err := conn(ctx, who)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, driver.CallTimeout)
	defer cancel()
	var a rpc.Answer
	if id := gjson.Get(frame, "id"); gjson.Valid(frame) && id.Exists() && id.Type != gjson.Null {
		a, err = c.C.SendFor(cctx, []byte(frame), id.Raw)
	} else {
		a, err = c.C.Send(cctx, []byte(frame), true)
	}
	if err != nil {
		return err
	}
	c.Answer = a
	return nil
}

// runID finds the id of the run named run in who's session with
// session.runs (the connection's last answer is kept).
func runID(ctx context.Context, who, run string) (int64, error) {
	c, err := conn(ctx, who)
	if err != nil {
		return 0, err
	}
	a, err := call(ctx, c, "session.runs")
	if err != nil {
		return 0, err
	}
	if a.Error != nil {
		return 0, fmt.Errorf("session.runs: %s", a.Raw)
	}
	for _, r := range gjson.GetBytes(a.Result, "runs").Array() {
		if r.Get("name").String() == run {
			return r.Get("id").Int(), nil
		}
	}
	return 0, fmt.Errorf("no run %q in %s", run, a.Result)
}

// call calls method without params on c, keeping c's last answer.
func call(ctx context.Context, c *driver.Conn, method string) (rpc.Answer, error) {
	cctx, cancel := context.WithTimeout(ctx, driver.CallTimeout)
	defer cancel()
	a, err := c.C.Call(cctx, method, nil)
	if err != nil {
		return a, fmt.Errorf("%s: %w", method, err)
	}
	return a, nil
}

// daemonCallForRun calls method with params and the runId of the named run.
func daemonCallForRun(ctx context.Context, who, method, run, params string) error {
	id, err := runID(ctx, who, run)
	if err != nil {
		return err
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		return fmt.Errorf("params %s: %w", params, err)
	}
	p["runId"] = id
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return daemonCall(ctx, who, method, string(b))
}

func registerAnswers(sc world.Steps) {
	sc.Step(`^the answer to "(\w+)" has (\S+) = (.+?)$`, daemonAnswerHas)
	sc.Step(`^the entry in the answer to "(\w+)" has (\S+) = (.+?)$`, func(ctx context.Context, who, path, want string) error {
		return daemonAnswerHas(ctx, who, "entries.0."+path, want)
	})
	sc.Step(`^I note the answer to "(\w+)"'s (\S+)$`, func(ctx context.Context, who, path string) error {
		got, err := answerValue(ctx, who, path)
		if err != nil {
			return err
		}
		world.Get(ctx).Noted[who+" "+path] = got
		return nil
	})
	sc.Step(`^the answer to "(\w+)" has (\S+) as noted$`, func(ctx context.Context, who, path string) error {
		got, err := answerValue(ctx, who, path)
		if err != nil {
			return err
		}
		if want, ok := world.Get(ctx).Noted[who+" "+path]; !ok || got != want {
			return fmt.Errorf("answer %s is %s, noted %s", path, got, want)
		}
		return nil
	})
	sc.Step(`^the answer to "(\w+)" has (\S+) later than the noted (\S+)$`, thenLaterThanNoted)
	sc.Step(`^the answer to "(\w+)" is the error (-?\d+)$`, daemonAnswerError)
	sc.Step(`^the answer to "(\w+)" is a batch holding a result for id (\d+) and the error (-?\d+)$`, func(ctx context.Context, who string, id int, code int) error {
		// JSON-RPC 2.0: a batch is answered by an array with one response
		// per request, in any order.
		return answerIs(ctx, who, func(a rpc.Answer) error {
			batch := gjson.ParseBytes(a.Raw)
			items := batch.Array()
			if !batch.IsArray() || len(items) != 2 {
				return fmt.Errorf("want an array of 2 responses, got %s", a.Raw)
			}
			result, failed := false, false
			for _, it := range items {
				result = result || (it.Get("id").Int() == int64(id) && it.Get("result").Exists() && !it.Get("error").Exists())
				failed = failed || it.Get("error.code").Int() == int64(code)
			}
			if !result || !failed {
				return fmt.Errorf("want a result for id %d and an error %d, got %s", id, code, a.Raw)
			}
			return nil
		})
	})
	sc.Step(`^the answer to "(\w+)" holds (\d+) log entr(?:y|ies)$`, func(ctx context.Context, who string, n int) error {
		return answerIs(ctx, who, func(a rpc.Answer) error {
			if got := gjson.GetBytes(a.Result, "entries"); !got.IsArray() || len(got.Array()) != n {
				return fmt.Errorf("want %d entries, got %s", n, a.Result)
			}
			return nil
		})
	})
	sc.Step(`^the answer to "(\w+)" has (\S+) equal to its (\S+)$`, daemonAnswerSame)
	sc.Step(`^the answer to "(\w+)" has no (\S+)$`, func(ctx context.Context, who, path string) error {
		return answerIs(ctx, who, func(a rpc.Answer) error {
			if got := gjson.GetBytes(a.Result, path); got.Exists() {
				return fmt.Errorf("the answer has %s = %s", path, got.Raw)
			}
			return nil
		})
	})
	sc.Step(`^the error answered to "(\w+)" has data (\S+) = (.+?)$`, func(ctx context.Context, who, path, want string) error {
		c, err := conn(ctx, who)
		if err != nil {
			return err
		}
		got := gjson.GetBytes(c.Answer.Raw, "error.data."+path)
		if !got.Exists() {
			return fmt.Errorf("the answer has no error.data.%s: %s", path, c.Answer.Raw)
		}
		return sameJSON(got.Raw, want)
	})
	sc.Step(`^the error answered to "(\w+)" mentions "([^"]*)"$`, func(ctx context.Context, who, text string) error {
		c, err := conn(ctx, who)
		if err != nil {
			return err
		}
		if msg := gjson.GetBytes(c.Answer.Raw, "error.message").String(); !strings.Contains(msg, text) {
			return fmt.Errorf("the error's message %q does not mention %q", msg, text)
		}
		return nil
	})
}

// answerIs checks who's last answer, which must not be an error, with
// check.
func answerIs(ctx context.Context, who string, check func(rpc.Answer) error) error {
	c, err := conn(ctx, who)
	if err != nil {
		return err
	}
	if c.Answer.Error != nil {
		return fmt.Errorf("the answer is an error: %s", c.Answer.Raw)
	}
	return check(c.Answer)
}

// answerValue is the raw JSON at path in the last answer to who.
func answerValue(ctx context.Context, who, path string) (string, error) {
	var got gjson.Result
	err := answerIs(ctx, who, func(a rpc.Answer) error {
		if got = gjson.GetBytes(a.Result, path); !got.Exists() {
			return fmt.Errorf("the answer has no %s: %s", path, a.Result)
		}
		return nil
	})
	return got.Raw, err
}

func daemonAnswerHas(ctx context.Context, who, path, want string) error {
	got, err := answerValue(ctx, who, path)
	if err != nil {
		return err
	}
	if want, err = expand(ctx, want); err != nil {
		return err
	}
	if err := sameJSON(got, want); err != nil {
		return fmt.Errorf("answer %s: %w", path, err)
	}
	return nil
}

// answerAndNoted is a value of who's answer at path and the value noted
// earlier from it at notedPath ("I note the answer to …'s …").
func answerAndNoted(ctx context.Context, who, path, notedPath string) (got, noted string, err error) {
	if got, err = answerValue(ctx, who, path); err != nil {
		return "", "", err
	}
	noted, ok := world.Get(ctx).Noted[who+" "+notedPath]
	if !ok {
		return "", "", fmt.Errorf("no %s of %q was noted", notedPath, who)
	}
	return got, noted, nil
}

func thenLaterThanNoted(ctx context.Context, who, path, notedPath string) error {
	got, want, err := answerAndNoted(ctx, who, path, notedPath)
	if err != nil {
		return err
	}
	t1, err1 := time.Parse(time.RFC3339Nano, strings.Trim(want, `"`))
	t2, err2 := time.Parse(time.RFC3339Nano, strings.Trim(got, `"`))
	if err1 != nil || err2 != nil || !t2.After(t1) {
		return fmt.Errorf("answer %s is %s, not later than the noted %s %s", path, got, notedPath, want)
	}
	return nil
}

func daemonAnswerError(ctx context.Context, who string, code int) error {
	c, err := conn(ctx, who)
	if err != nil {
		return err
	}
	got := gjson.GetBytes(c.Answer.Raw, "error.code")
	if !got.Exists() || int(got.Int()) != code {
		return fmt.Errorf("want error %d, got %s", code, c.Answer.Raw)
	}
	if gjson.GetBytes(c.Answer.Raw, "error.message").String() == "" {
		return fmt.Errorf("error %d has no message: %s", code, c.Answer.Raw)
	}
	return nil
}

// daemonAnswerSame checks that two fields of who's last answer hold the
// same value, neither of them missing, null or zero.
func daemonAnswerSame(ctx context.Context, who, a, b string) error {
	c, err := conn(ctx, who)
	if err != nil {
		return err
	}
	if c.Answer.Error != nil {
		return fmt.Errorf("%q got the error %d: %s", who, c.Answer.Error.Code, c.Answer.Error.Message)
	}
	ga, gb := gjson.GetBytes(c.Answer.Result, a), gjson.GetBytes(c.Answer.Result, b)
	for _, g := range []gjson.Result{ga, gb} {
		if !g.Exists() || g.Type == gjson.Null || g.Raw == "0" {
			return fmt.Errorf("the answer to %q has %s = %s and %s = %s: want both set: %s", who, a, ga.Raw, b, gb.Raw, c.Answer.Result)
		}
	}
	if ga.Raw != gb.Raw {
		return fmt.Errorf("the answer to %q has %s = %s but %s = %s", who, a, ga.Raw, b, gb.Raw)
	}
	return nil
}

// sameJSON compares two JSON texts as values.
func sameJSON(got, want string) error {
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		return fmt.Errorf("got %q is not JSON", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		return fmt.Errorf("want %q is not JSON", want)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		return fmt.Errorf("(-want +got):\n%s", diff)
	}
	return nil
}

// The loops a connection runs, the proposals it resolves, and time passing
// for the daemon.

// daemonRunLoop calls loop.run, keeps its answer as who's loop, and lets
// the daemon run until its loops end or park (loop.run answers at once).
func daemonRunLoop(ctx context.Context, who, params string) error {
	if err := daemonCall(ctx, who, "loop.run", params); err != nil {
		return err
	}
	w := world.Get(ctx)
	c := w.Conns[who]
	if c.Answer.Error == nil {
		c.Loop = gjson.ParseBytes(c.Answer.Result)
	}
	w.Drv.Settle()
	if c.During != nil {
		c.Answer = *c.During
		if c.DuringMethod == "loop.run" && c.Answer.Error == nil {
			c.Loop = gjson.ParseBytes(c.Answer.Result)
		}
		c.During = nil
	}
	return nil
}

// loopNotes are the notifications who heard, after the daemon settled,
// and the id of the loop of who's last loop.run.
func loopNotes(ctx context.Context, who string) (*driver.Conn, gjson.Result, []rpc.Note, error) {
	c, err := conn(ctx, who)
	if err != nil {
		return nil, gjson.Result{}, nil, err
	}
	id := c.Loop.Get("loopId")
	notes, err := heard(ctx, who)
	return c, id, notes, err
}

// daemonLoopEnded checks that the loop who's last loop.run went to ended
// with status: a loop/terminated names that loop with that finalStatus.
func daemonLoopEnded(ctx context.Context, who string, status int) error {
	c, err := conn(ctx, who)
	if err != nil {
		return err
	}
	if id := c.Loop.Get("loopId"); !id.Exists() || id.Type == gjson.Null {
		return fmt.Errorf("the loop.run answer of %q names no loop: %s", who, c.Loop.Raw)
	}
	_, id, notes, err := loopNotes(ctx, who)
	if err != nil {
		return err
	}
	var seen []string
	for _, n := range driver.NotesOf(notes, "loop/terminated") {
		if gjson.GetBytes(n.Params, "loopId").Int() == id.Int() {
			if got := gjson.GetBytes(n.Params, "finalStatus").Int(); int(got) != status {
				return fmt.Errorf("loop %d ended with %d, want %d: %s", id.Int(), got, status, n.Params)
			}
			return nil
		}
		seen = append(seen, string(n.Params))
	}
	return fmt.Errorf("no loop/terminated for loop %d among:\n%s", id.Int(), strings.Join(seen, "\n"))
}

// daemonLoopAt checks that the loop who's last loop.run went to has not
// ended and its run is at status (202 parked, 102 running): no
// loop/terminated names it and session.runs shows its run at status.
func daemonLoopAt(ctx context.Context, who string, status int) error {
	c, id, notes, err := loopNotes(ctx, who)
	if err != nil {
		return err
	}
	for _, n := range driver.NotesOf(notes, "loop/terminated") {
		if gjson.GetBytes(n.Params, "loopId").Int() == id.Int() {
			return fmt.Errorf("loop %d ended: %s", id.Int(), n.Params)
		}
	}
	a, err := call(ctx, c, "session.runs")
	if err != nil {
		return err
	}
	run := c.Loop.Get("runId").Int()
	for _, r := range gjson.GetBytes(a.Result, "runs").Array() {
		if r.Get("id").Int() == run {
			if got := r.Get("status").Int(); got != int64(status) {
				return fmt.Errorf("run %d is at %d, not %d: %s", run, got, status, r.Raw)
			}
			return nil
		}
	}
	return fmt.Errorf("run %d not in session.runs: %s", run, a.Raw)
}

// daemonResolveNoted resolves the proposal of the last loop/proposal who
// was notified of.
func daemonResolveNoted(ctx context.Context, who, how string) error {
	notes, err := heard(ctx, who)
	if err != nil {
		return err
	}
	props := driver.NotesOf(notes, "loop/proposal")
	if len(props) == 0 {
		return fmt.Errorf("%q was notified of no proposal", who)
	}
	id := gjson.GetBytes(props[len(props)-1].Params, "logEntryId").Int()
	decision := map[string]string{"accepts": "accept", "rejects": "reject", "cancels": "cancel"}[how]
	return daemonCall(ctx, who, "loop.resolve", fmt.Sprintf(`{"logEntryId": %d, "decision": %q}`, id, decision))
}
