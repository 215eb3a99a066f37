package realm

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"anchorage/impl/chatlog"
	"anchorage/sim/clock"
	"anchorage/sim/vfs"

	"github.com/spf13/afero"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts' expected files")

// TestGoldenTranscripts replays golden/chatlog/<case>/: initial.md is the
// page's log before the server adopts it, events.txt the scripted events;
// final.md and registry.md are the expected log and registry afterwards.
func TestGoldenTranscripts(t *testing.T) {
	dirs, _ := filepath.Glob("../../golden/chatlog/*/events.txt")
	if len(dirs) == 0 {
		t.Fatal("no golden transcripts found")
	}
	for _, ev := range dirs {
		dir := filepath.Dir(ev)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			final, registry := replay(t, dir)
			for name, got := range map[string]string{"final.md": final, "registry.md": registry} {
				p := filepath.Join(dir, name)
				if *update {
					if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if string(want) != got {
					t.Errorf("%s differs (run with -update after checking):\n--- got\n%s\n--- want\n%s", p, got, want)
				}
			}
		})
	}
}

func replay(t *testing.T, dir string) (string, string) {
	initial, err := os.ReadFile(filepath.Join(dir, "initial.md"))
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewSim(time.Time{})
	fs := vfs.NewMem(clk)
	const stem = "index-7-zen-0001"
	if err := afero.WriteFile(fs, chatlog.InstancePath(stem), initial, 0o644); err != nil {
		t.Fatal(err)
	}
	var con bytes.Buffer
	srv := chatlog.New(chatlog.Config{Fs: fs, Clock: clk, Console: &con, Seed: 1})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	reg, err := srv.Rejoin(stem, "Index - 7 Zen", "http://localhost:8302/", "JS")
	if err != nil {
		t.Fatal(err)
	}
	page, err := New(serverHub{srv}, clk, Config{Name: "Index - 7 Zen", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	var work time.Duration
	page.Work = func(chatlog.Task) time.Duration { return work }
	page.Attach(reg)
	agent := &Agent{Name: "agent", Fs: fs, Clock: clk}
	start := clk.Now()
	f, err := os.Open(filepath.Join(dir, "events.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, " ", 3)
		ms, err := strconv.Atoi(fields[0])
		if err != nil || len(fields) < 2 {
			t.Fatalf("events.txt:%d: expected <ms> <event> [arg], got %q", n, line)
		}
		if err := clk.AdvanceTo(start.Add(time.Duration(ms) * time.Millisecond)); err != nil {
			t.Fatalf("events.txt:%d: %v", n, err)
		}
		arg := ""
		if len(fields) == 3 {
			if arg, err = strconv.Unquote(fields[2]); err != nil {
				arg = fields[2]
			}
		}
		switch fields[1] {
		case "append":
			err = agent.AppendRaw(reg.Path, arg)
		case "ask":
			err = agent.Request(reg.Path, "index-7-zen", arg)
		case "work":
			var d int
			d, err = strconv.Atoi(arg)
			work = time.Duration(d) * time.Millisecond
		case "background":
			page.ThrowInBackground(arg)
		case "hang":
			page.Hang()
		case "release":
			page.Release()
		case "end":
		default:
			err = fmt.Errorf("unknown event %q", fields[1])
		}
		if err != nil {
			t.Fatalf("events.txt:%d: %v", n, err)
		}
	}
	final, _ := afero.ReadFile(fs, reg.Path)
	if !bytes.HasPrefix(final, initial) {
		t.Fatalf("the initial log was changed")
	}
	registry, _ := afero.ReadFile(fs, chatlog.RegistryFile)
	return string(final), string(registry)
}
