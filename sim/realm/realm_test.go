package realm

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"anchorage/impl/chatlog"
	"anchorage/sim/clock"

	"github.com/spf13/afero"
)

func TestPageEndToEnd(t *testing.T) {
	fs := afero.NewMemMapFs()
	clk := clock.NewSim(time.Time{})
	var con bytes.Buffer
	srv := chatlog.New(chatlog.Config{Fs: fs, Clock: clk, Console: &con, Seed: 7})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	page, err := New(serverHub{srv}, clk, Config{Name: "Index - 7 Zen", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	page.Work = func(chatlog.Task) time.Duration { return 12 * time.Millisecond }
	if err := page.Start(); err != nil {
		t.Fatal(err)
	}
	reg := page.Registration()
	ag := &Agent{Name: "agent", Fs: fs, Clock: clk}
	step := func(code string) {
		if err := ag.Request(reg.Path, reg.ID, code); err != nil {
			t.Fatal(err)
		}
		clk.Advance(2 * time.Second)
	}
	step("12+13")
	step("throw new Error('test error')")
	page.ThrowInBackground("null.x")
	page.RejectInBackground("Promise.reject(new RangeError('nope'))")
	step("({message: 'ok'})")
	step("await Promise.resolve(41) + 1")
	step("let f = () => 1; f")
	b, _ := afero.ReadFile(fs, reg.Path)
	log := string(b)
	for _, want := range []string{
		"```JSON\n25\n```", "(**ERROR** after ", "Error: test error\n", "```JSON\n{\"message\":\"ok\"}\n```",
		"TypeError: cannot read property 'x' of null", "---\nUnhandled rejection: RangeError: nope", "```JSON\n42\n```",
		"```Text\n() => 1\n```",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	lg := chatlog.Parse(b)
	if len(lg.Requests) != 5 {
		t.Errorf("%d requests", len(lg.Requests))
	}
	for _, rp := range lg.Replies {
		if rp.Request < 0 {
			t.Errorf("reply at line %d unpaired", rp.Line)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("log:\n%s\nconsole:\n%s", log, con.String())
	}
}

// serverHub is a page's transport straight to a server, in process.
type serverHub struct{ *chatlog.Server }

func (h serverHub) Poll(id, token string) (*chatlog.Task, error) {
	t, _, err := h.Server.Poll(id, token)
	return t, err
}
func (h serverHub) Received(t chatlog.Task) { h.Server.Received(&t) }
