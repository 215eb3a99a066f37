package chatlog

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"anchorage/sim/clock"

	"github.com/spf13/afero"
)

type harness struct {
	t   *testing.T
	fs  afero.Fs
	clk *clock.Sim
	srv *Server
	con *bytes.Buffer
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := &harness{t: t, fs: afero.NewMemMapFs(), clk: clock.NewSim(time.Time{}), con: &bytes.Buffer{}}
	if cfg.Fs == nil {
		cfg.Fs = h.fs
	}
	h.fs = cfg.Fs
	cfg.Clock, cfg.Console = h.clk, h.con
	srv := New(cfg)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	return h
}

func (h *harness) appendText(p, text string) {
	h.t.Helper()
	f, err := h.fs.OpenFile(p, 0x401|0x40, 0o644) // O_WRONLY|O_APPEND|O_CREATE
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := f.Write([]byte(text)); err != nil {
		h.t.Fatal(err)
	}
	f.Close()
}

func (h *harness) read(p string) string {
	b, err := afero.ReadFile(h.fs, p)
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func TestServerRoundTrip(t *testing.T) {
	h := newHarness(t, Config{Seed: 1})
	reg, err := h.srv.Rejoin("", "Index - 7 Zen", "http://localhost:8302/", "JS")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(reg.Path, "debug/index-7-zen-") {
		t.Fatalf("path %s", reg.Path)
	}
	h.appendText(reg.Path, renderRequest("agent", reg.ID, Clock(h.clk.Now()), "JS", "12+13"))
	h.clk.Advance(300 * time.Millisecond)
	task, err := h.poll(reg.ID, reg.Token)
	if err != nil || task == nil {
		t.Fatalf("poll: %v %v\n%s", task, err, h.con)
	}
	h.clk.Advance(17 * time.Millisecond)
	if err := h.srv.Result(reg.ID, reg.Token, task.JobID, Outcome{OK: true, IsJSON: true, JSON: "25"}); err != nil {
		t.Fatal(err)
	}
	log := h.read(reg.Path)
	if !strings.Contains(log, "(17ms)\n```JSON\n25\n```\n") {
		t.Fatalf("log:\n%s", log)
	}
	h.clk.Advance(time.Second)
	if got := len(h.srv.Jobs("")); got != 1 {
		t.Fatalf("%d jobs", got)
	}
	reg2 := h.read(RegistryFile)
	if !strings.HasPrefix(reg2, "# Connected pages:\n* index-7-zen (http://localhost:8302/) last ") || !strings.Contains(reg2, "state: completed") {
		t.Fatalf("registry:\n%s", reg2)
	}
	if testing.Verbose() {
		t.Logf("\n%s\n%s\n%s", log, reg2, h.con)
	}
}
