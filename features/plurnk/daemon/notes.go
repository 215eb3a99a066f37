package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/exec"
	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/rpc"
	"anchorage/sim/llm"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// The notifications the connections heard.

// heard returns the notifications of who once the daemon has settled,
// after a round trip on its socket, so every notification queued before
// the step has arrived.
func heard(ctx context.Context, who string) ([]rpc.Note, error) {
	c, err := conn(ctx, who)
	if err != nil {
		return nil, err
	}
	world.Get(ctx).Drv.Settle()
	return c.Barrier(ctx)
}

func registerNotes(sc world.Steps) {
	sc.Step(`^"(\w+)" got (\d+) "([^"]+)" notifications?$`, daemonNoteCount)
	sc.Step(`^"(\w+)" got no "([^"]+)" notification$`, func(ctx context.Context, who, method string) error {
		return daemonNoteCount(ctx, who, 0, method)
	})
	sc.Step(`^"(\w+)" got a "([^"]+)" notification with (\S+) = (.+?)$`, daemonNoteWith)
	sc.Step(`^"(\w+)" got a telemetry notice with (\S+) = (.+?)$`, daemonNoticeWith)
	sc.Step(`^"(\w+)" got a "([^"]+)" notification for run "([^"]*)" with (\S+) = (.+?)$`, daemonNoteForRun)
	sc.Step(`^"(\w+)" got "log/entry" notifications for run "([^"]*)"$`, func(ctx context.Context, who, run string) error {
		return daemonNoteForRun(ctx, who, "log/entry", run, "", "")
	})
	sc.Step(`^"(\w+)" got a "([^"]+)" notification whose (\S+) mentions "([^"]*)"$`, func(ctx context.Context, who, method, path, want string) error {
		return noteSuch(ctx, who, method, fmt.Sprintf("whose %s mentions %q", path, want), func(p []byte) bool {
			got := gjson.GetBytes(p, path)
			return got.Type == gjson.String && strings.Contains(got.String(), want)
		})
	})
	sc.Step(`^"(\w+)" got a "([^"]+)" notification without (\S+)$`, func(ctx context.Context, who, method, path string) error {
		return noteSuch(ctx, who, method, "without "+path, func(p []byte) bool { return !gjson.GetBytes(p, path).Exists() })
	})
	sc.Step(`^"(\w+)" got a "([^"]+)" notification whose (\S+) is the answer's (\S+)$`, func(ctx context.Context, who, method, field, answerField string) error {
		c, err := conn(ctx, who)
		if err != nil {
			return err
		}
		want := gjson.GetBytes(c.Answer.Result, answerField)
		if !want.Exists() || want.Type == gjson.Null {
			return fmt.Errorf("the answer to %q has no %s: %s", who, answerField, c.Answer.Result)
		}
		return daemonNoteWith(ctx, who, method, field, want.Raw)
	})
	sc.Step(`^"(\w+)" got a "loop/terminated" notification whose usage.promptTokens is the sum the daemon's model reported over its (\d+) calls$`, thenUsageSum)
	sc.Step(`^every notification "(\w+)" got, but session/created, names the session of "(\w+)"$`, thenNamesSession)
	sc.Step(`^"(\w+)" got these "stream/event" notifications:$`, daemonStreamEvents)
	sc.Step(`^each "telemetry/event" "(\w+)" got is a line of the daemon's next packet$`, daemonTelemetryInPacket)
	sc.Step(`^"(\w+)" heard the "log/entry" of its (\S+) before the answer$`, daemonHeardBefore)
	sc.Step(`^"(\w+)" got the "log/entry" of (\S+) before its first "(telemetry/event|loop/terminated|loop/quiesced|stream/concluded)"$`, daemonRowBefore)
	sc.Step(`^the "log/entry" notifications "(\w+)" got are the rows log\.read answers, in order$`, func(ctx context.Context, who string) error {
		// Compares them entry by entry.
		notes, err := heard(ctx, who)
		if err != nil {
			return err
		}
		run := world.Get(ctx).Conns[who].Session.Get("modelRunId").Int()
		read, err := readRows(ctx, who, run)
		if err != nil {
			return err
		}
		if len(read) == 0 {
			return fmt.Errorf("log.read answered no entries")
		}
		// The model run's rows, each as last announced (the other runs of
		// the session, the plurnk run's among them, are announced too).
		if diff := cmp.Diff(read, lastHeard(notes, run)); diff != "" {
			return fmt.Errorf("log/entry notifications differ from log.read (-read +heard):\n%s", diff)
		}
		return nil
	})
	sc.Step(`^every log entry "(\w+)" has seen carries (.+?)$`, daemonEntriesCarry)
}

func daemonNoteCount(ctx context.Context, who string, n int, method string) error {
	notes, err := heard(ctx, who)
	if err != nil {
		return err
	}
	got := driver.NotesOf(notes, method)
	if len(got) != n {
		var raws []string
		for _, g := range got {
			raws = append(raws, string(g.Params))
		}
		return fmt.Errorf("want %d %s notifications, got %d: %s", n, method, len(got), strings.Join(raws, "\n"))
	}
	return nil
}

// noteSuch checks that who got a notification of method whose params ok
// takes; such says which.
func noteSuch(ctx context.Context, who, method, such string, ok func([]byte) bool) error {
	notes, err := heard(ctx, who)
	if err != nil {
		return err
	}
	got := driver.NotesOf(notes, method)
	if len(got) == 0 {
		return fmt.Errorf("%q got no %s", who, method)
	}
	var seen []string
	for _, n := range got {
		if ok(n.Params) {
			return nil
		}
		seen = append(seen, string(n.Params))
	}
	return fmt.Errorf("no %s notification %s among:\n%s", method, such, strings.Join(seen, "\n"))
}

func daemonNoteWith(ctx context.Context, who, method, path, want string) error {
	want, err := expand(ctx, want)
	if err != nil {
		return err
	}
	return noteSuch(ctx, who, method, fmt.Sprintf("with %s = %s", path, want), func(p []byte) bool {
		got := gjson.GetBytes(p, path)
		return got.Exists() && sameJSON(got.Raw, want) == nil
	})
}

// daemonNoteForRun finds a notification of method about the named run (its
// runId, or entry.run_id for log/entry) with path = want; an empty path
// asks for any such notification.
func daemonNoteForRun(ctx context.Context, who, method, run, path, want string) error {
	id, err := runID(ctx, who, run)
	if err != nil {
		return err
	}
	notes, err := heard(ctx, who)
	if err != nil {
		return err
	}
	if want, err = expand(ctx, want); err != nil {
		return err
	}
	var seen []string
	for _, n := range driver.NotesOf(notes, method) {
		rid := gjson.GetBytes(n.Params, "runId")
		if method == "log/entry" {
			rid = gjson.GetBytes(n.Params, "entry.run_id")
		}
		if rid.Int() != id {
			continue
		}
		if path == "" {
			return nil
		}
		if got := gjson.GetBytes(n.Params, path); got.Exists() && sameJSON(got.Raw, want) == nil {
			return nil
		}
		seen = append(seen, string(n.Params))
	}
	return fmt.Errorf("no %s notification for run %q (id %d) with %s = %s among:\n%s", method, run, id, path, want, strings.Join(seen, "\n"))
}

// thenUsageSum checks the loop/terminated usage against the usage the
// daemon's model reported over its n calls.
func thenUsageSum(ctx context.Context, who string, n int) error {
	if _, err := heard(ctx, who); err != nil {
		return err
	}
	calls := world.Get(ctx).Script.Model.CostCalls
	if len(calls) != n {
		return fmt.Errorf("the daemon's model reported usage for %d calls, want %d", len(calls), n)
	}
	sum := 0
	for _, u := range calls {
		if u.PromptTokens <= 0 {
			return fmt.Errorf("a call reported %d prompt tokens", u.PromptTokens)
		}
		sum += u.PromptTokens
	}
	return daemonNoteWith(ctx, who, "loop/terminated", "usage.promptTokens", strconv.Itoa(sum))
}

func thenNamesSession(ctx context.Context, who, owner string) error {
	notes, err := heard(ctx, who)
	if err != nil {
		return err
	}
	o, err := conn(ctx, owner)
	if err != nil {
		return err
	}
	want := o.Session.Get("id").Int()
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
}

func daemonStreamEvents(ctx context.Context, who string, table *godog.Table) error {
	notes, err := heard(ctx, who)
	if err != nil {
		return err
	}
	var want, got [][]string
	for _, row := range table.Rows[1:] {
		want = append(want, []string{row.Cells[0].Value, row.Cells[1].Value, row.Cells[2].Value})
	}
	for _, n := range driver.NotesOf(notes, "stream/event") {
		p := gjson.ParseBytes(n.Params)
		if p.Get("entryId").Int() <= 0 {
			return fmt.Errorf("stream/event without an entryId: %s", n.Params)
		}
		got = append(got, []string{p.Get("channel").String(), p.Get("state").String(), p.Get("contentLength").Raw})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("stream/event (-want +got):\n%s", diff)
	}
	return nil
}

// daemonTelemetryInPacket checks that every telemetry/event notice is
// rendered, as the same canonical JSON, on the packet the model received
// next.
func daemonTelemetryInPacket(ctx context.Context, who string) error {
	notes, err := heard(ctx, who)
	if err != nil {
		return err
	}
	tel := driver.NotesOf(notes, "telemetry/event")
	if len(tel) == 0 {
		return fmt.Errorf("no telemetry/event received")
	}
	// Every "* {…}" line of every packet, as JSON values.
	var lines []any
	for i := range world.Get(ctx).Script.Model.Requests {
		for _, l := range strings.Split(packetText(ctx, i), "\n") {
			var v any
			if strings.HasPrefix(l, "* {") && json.Unmarshal([]byte(l[2:]), &v) == nil {
				lines = append(lines, v)
			}
		}
	}
	for _, n := range tel {
		var v any
		if err := json.Unmarshal([]byte(notice(n.Params).Raw), &v); err != nil {
			return err
		}
		found := false
		for _, l := range lines {
			found = found || cmp.Equal(l, v)
		}
		if !found {
			return fmt.Errorf("the notice %s is on no packet as a \"* {…}\" line", n.Params)
		}
	}
	return nil
}

// notice is the engine notice a telemetry/event carries: the seed sends
// the same event the model's packet shows, so the params are the notice
// itself, or (this build's choice, Decision §notifications-telemetry-event)
// hold it as their "event" member.
func notice(params []byte) gjson.Result {
	if ev := gjson.GetBytes(params, "event"); ev.IsObject() {
		return ev
	}
	return gjson.ParseBytes(params)
}

// daemonNoticeWith finds a telemetry/event whose notice has path = want.
func daemonNoticeWith(ctx context.Context, who, path, want string) error {
	want, err := expand(ctx, want)
	if err != nil {
		return err
	}
	return noteSuch(ctx, who, "telemetry/event", fmt.Sprintf("whose notice has %s = %s", path, want), func(p []byte) bool {
		got := notice(p).Get(path)
		return got.Exists() && sameJSON(got.Raw, want) == nil
	})
}

// packetText is the text of the i-th request the daemon's model received,
// its messages one after another.
func packetText(ctx context.Context, i int) string {
	var b strings.Builder
	for _, m := range world.Get(ctx).Script.Model.Requests[i].Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

// readRows are the entries log.read answers reader for the run.
func readRows(ctx context.Context, reader string, run int64) ([]any, error) {
	if err := daemonCall(ctx, reader, "log.read", fmt.Sprintf(`{"runId": %d}`, run)); err != nil {
		return nil, err
	}
	a := world.Get(ctx).Conns[reader].Answer
	if a.Error != nil {
		return nil, fmt.Errorf("log.read: %s", a.Raw)
	}
	var read []any
	for _, e := range gjson.GetBytes(a.Result, "entries").Array() {
		read = append(read, e.Value())
	}
	return read, nil
}

// lastHeard reduces the log/entry notifications of run among notes to the
// rows they leave: each row as its last notification shows it, in the
// order the rows were first heard, a row announced deleted left out (every
// write to a row is announced, its append and each later change).
func lastHeard(notes []rpc.Note, run int64) []any {
	var order []int64
	last := map[int64]gjson.Result{}
	for _, n := range driver.NotesOf(notes, "log/entry") {
		e := gjson.GetBytes(n.Params, "entry")
		if e.Get("run_id").Int() != run {
			continue
		}
		id := e.Get("id").Int()
		if _, seen := last[id]; !seen {
			order = append(order, id)
		}
		last[id] = e
	}
	var out []any
	for _, id := range order {
		if e := last[id]; !e.Get("deleted").Bool() {
			out = append(out, e.Value())
		}
	}
	return out
}

// daemonEntriesCarry checks every LogEntry of the last answer and of the
// log/entry notifications for the listed fields, each a whole number.
func daemonEntriesCarry(ctx context.Context, who, list string) error {
	notes, err := heard(ctx, who)
	if err != nil {
		return err
	}
	var entries []gjson.Result
	for _, n := range driver.NotesOf(notes, "log/entry") {
		entries = append(entries, gjson.GetBytes(n.Params, "entry"))
	}
	entries = append(entries, gjson.GetBytes(world.Get(ctx).Conns[who].Answer.Result, "entries").Array()...)
	if len(entries) == 0 {
		return fmt.Errorf("no log entry seen")
	}
	fields := strings.FieldsFunc(strings.ReplaceAll(list, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' })
	for _, e := range entries {
		for _, f := range fields {
			v := e.Get(f)
			if v.Type != gjson.Number || v.Float() != float64(v.Int()) {
				return fmt.Errorf("entry %s: %s is not a whole number", e.Raw, f)
			}
			if strings.HasSuffix(f, "_id") && v.Int() <= 0 {
				return fmt.Errorf("entry %s: %s is not a key", e.Raw, f)
			}
		}
	}
	return nil
}

// daemonHeardBefore checks that a log/entry naming the path the last
// answer gives at field reached the connection before that answer did.
func daemonHeardBefore(ctx context.Context, who, field string) error {
	c, err := conn(ctx, who)
	if err != nil {
		return err
	}
	want := gjson.GetBytes(c.Answer.Result, field)
	if !want.Exists() || want.String() == "" {
		return fmt.Errorf("the answer to %q has no %s: %s", who, field, c.Answer.Result)
	}
	notes := c.C.Notes()
	if c.Answer.Heard > len(notes) {
		return fmt.Errorf("the answer to %q followed %d notifications, only %d recorded", who, c.Answer.Heard, len(notes))
	}
	var seen []string
	for _, n := range driver.NotesOf(notes[:c.Answer.Heard], "log/entry") {
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
	notes, err := heard(ctx, who)
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

// What the daemon's model and its host saw, once the daemon has settled.

// requests are the calls the daemon's model received, once it settled.
func requests(ctx context.Context) []provider.Request {
	w := world.Get(ctx)
	w.Drv.Settle()
	return w.Script.Model.Requests
}

// packet is the text of the daemon's model's packet n, once it settled.
func packet(ctx context.Context, n int) (string, error) {
	if reqs := requests(ctx); n < 1 || n > len(reqs) {
		return "", fmt.Errorf("the model was called %d times, no packet %d", len(reqs), n)
	}
	return packetText(ctx, n-1), nil
}

// everyClient checks that every call to the daemon's model carried the
// client want, and that there was a call.
func everyClient(ctx context.Context, want string) error {
	reqs := requests(ctx)
	if len(reqs) == 0 {
		return fmt.Errorf("the model was never called")
	}
	for i, r := range reqs {
		if r.Client != want {
			return fmt.Errorf("call %d carried the client %q, want %q", i+1, r.Client, want)
		}
	}
	return nil
}

func registerModelSaw(sc world.Steps) {
	sc.Step(`^the daemon's model was called (\d+) times?$`, func(ctx context.Context, n int) error {
		if got := len(requests(ctx)); got != n {
			return fmt.Errorf("the model was called %d times, want %d", got, n)
		}
		return nil
	})
	sc.Step(`^the daemon's model "([^"]*)" was called (\d+) times?$`, func(ctx context.Context, id string, n int) error {
		w := world.Get(ctx)
		w.Drv.Settle()
		if got := len(w.Script.ModelFor(id).Requests); got != n {
			return fmt.Errorf("the model %q was called %d times, want %d", id, got, n)
		}
		return nil
	})
	sc.Step(`^every call to the daemon's model carried the client "([^"]*)"$`, everyClient)
	sc.Step(`^no call to the daemon's model carried a client$`, func(ctx context.Context) error { return everyClient(ctx, "") })
	sc.Step(`^the daemon's model's packet (\d+) (contains|does not contain) "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, n int, how, text string) error {
		p, err := packet(ctx, n)
		if err != nil {
			return err
		}
		if has := strings.Contains(p, driver.Unescape(text)); has != (how == "contains") {
			return fmt.Errorf("packet %d %s %q:\n%s", n, map[bool]string{true: "contains", false: "lacks"}[has], text, p)
		}
		return nil
	})
	sc.Step(`^the daemon's model's packet (\d+) holds "((?:[^"\\]|\\.)*)" exactly once$`, func(ctx context.Context, n int, text string) error {
		p, err := packet(ctx, n)
		if err != nil {
			return err
		}
		if got := strings.Count(p, driver.Unescape(text)); got != 1 {
			return fmt.Errorf("packet %d holds %q %d times:\n%s", n, text, got, p)
		}
		return nil
	})
	sc.Step(`^the daemon's simulated command "([^"]*)" ran in the workspace root$`, func(ctx context.Context, cmd string) error {
		var dirs []string
		for _, sp := range spawns(ctx) {
			if sp.Command == cmd {
				dirs = append(dirs, sp.Dir)
			}
		}
		if len(dirs) == 0 {
			return fmt.Errorf("%q never ran", cmd)
		}
		for _, dir := range dirs {
			if dir != driver.Workspace {
				return fmt.Errorf("%q ran in %v, want the workspace root %s", cmd, dirs, driver.Workspace)
			}
		}
		return nil
	})
	sc.Step(`^the daemon's simulated command "([^"]*)" was spawned (\d+) times?$`, func(ctx context.Context, cmd string, n int) error {
		return world.Spawned(cmd, n, spawns(ctx))
	})
}

// spawns are the host commands the daemon started, once it settled.
func spawns(ctx context.Context) []exec.Spec {
	drv := world.Get(ctx).Drv
	drv.Settle()
	return drv.Spawns()
}

// server is the daemon's model server, once the daemon settled.
func server(ctx context.Context) (*llm.Server, error) {
	drv := world.Get(ctx).Drv
	drv.Settle()
	s := drv.ModelServer()
	if s == nil {
		return nil, fmt.Errorf("the model is not served over HTTP")
	}
	return s, nil
}

// everyCall checks that every call the model server saw carried want in
// the field of it what names, and that there was a call.
func everyCall(ctx context.Context, what, want string, field func(llm.ServedCall) string) error {
	s, err := server(ctx)
	if err != nil || len(s.Calls()) == 0 {
		return fmt.Errorf("the model server saw no call")
	}
	for i, c := range s.Calls() {
		if got := field(c); got != want {
			return fmt.Errorf("HTTP call %d carried %s %q, want %q", i+1, what, got, want)
		}
	}
	return nil
}

func registerServerSaw(sc world.Steps) {
	sc.Step(`^the daemon's model server saw (\d+) calls?, the last one abandoned by its client$`, func(ctx context.Context, n int) error {
		s, err := server(ctx)
		if err != nil {
			return err
		}
		// The server learns of the abandon when the connection closes,
		// which the loop's end does not wait for: give it a moment.
		deadline := time.Now().Add(driver.CallTimeout)
		for {
			calls := s.Calls()
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
		return everyCall(ctx, "the user", want, func(c llm.ServedCall) string { return c.Client })
	})
	sc.Step(`^the daemon's model server saw the header X-Plurnk-Client "([^"]*)" on every call$`, func(ctx context.Context, want string) error {
		return everyCall(ctx, "X-Plurnk-Client", want, func(c llm.ServedCall) string { return c.ClientHeader })
	})
	sc.Step(`^the daemon's model server saw the header X-Plurnk-Run "([^"]*)" on every call$`, func(ctx context.Context, want string) error {
		return everyCall(ctx, "X-Plurnk-Run", want, func(c llm.ServedCall) string { return c.RunHeader })
	})
	sc.Step(`^the daemon's model server saw (no bearer key|the bearer key "([^"]*)") on every call$`, func(ctx context.Context, which, key string) error {
		want := ""
		if key != "" {
			want = "Bearer " + key
		}
		return everyCall(ctx, "Authorization", want, func(c llm.ServedCall) string { return c.Authorization })
	})
	sc.Step(`^no two calls to the daemon's model were in flight at once$`, func(ctx context.Context) error {
		s, err := server(ctx)
		if err != nil {
			return err
		}
		if p := s.Peak(); p != 1 {
			return fmt.Errorf("%d calls were in flight at once", p)
		}
		return nil
	})
}
