package chatlog

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"anchorage/sim/clock"
	"anchorage/sim/vfs"

	"github.com/spf13/afero"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/text"
)

// logOfSize builds a well-formed log of about n bytes in memory.
func logOfSize(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		at := Clock(clock.Epoch().Add(time.Duration(i) * time.Second))
		b.WriteString(renderRequest("agent", "bench-page", at, "JS", fmt.Sprintf("%d+%d", i, i)))
		b.WriteString(renderReply("bench-page", "agent", at, 17, Outcome{OK: true, IsJSON: true, JSON: fmt.Sprint(2 * i)}))
	}
	return b.Bytes()
}

// benchNotice measures what it costs the server to notice one request
// appended to a log of the given size: the watcher's poll (stat, hash of
// the last 4 KiB) and the parse from the resume point, which creates the job.
func benchNotice(b *testing.B, size int) {
	fs := vfs.NewCounting(afero.NewMemMapFs()) // what the server reads, counted below it
	clk := clock.NewSim(time.Time{})
	srv := New(Config{Fs: fs, Clock: clk, Console: io.Discard})
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	if err := afero.WriteFile(fs, InstancePath("bench-0001"), logOfSize(size), 0o644); err != nil {
		b.Fatal(err)
	}
	// The server meets the existing log as after a restart: tail only.
	reg, err := srv.Rejoin("bench-0001", "bench", "http://x/", "JS")
	if err != nil {
		b.Fatal(err)
	}
	req := []byte(renderRequest("agent", reg.ID, "10:00:00", "JS", "12+13"))
	f, err := fs.OpenFile(reg.Path, 0x401, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	jobs, read := len(srv.Jobs(reg.ID)), fs.BytesRead()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.Write(req); err != nil {
			b.Fatal(err)
		}
		clk.Advance(time.Second) // the watcher notices the request and parses it
	}
	b.StopTimer()
	if got := len(srv.Jobs(reg.ID)) - jobs; got != b.N {
		b.Fatalf("%d jobs for %d requests", got, b.N)
	}
	b.ReportMetric(float64(fs.BytesRead()-read)/float64(b.N), "bytesRead/op")
}

func BenchmarkNoticeRequest1KB(b *testing.B)  { benchNotice(b, 1<<10) }
func BenchmarkNoticeRequest50MB(b *testing.B) { benchNotice(b, 50<<20) }

// BenchmarkGoldmark50MB is the reference the tail parser is compared with:
// a CommonMark parse of the whole 50 MB log.
func BenchmarkGoldmark50MB(b *testing.B) {
	src := logOfSize(50 << 20)
	md := goldmark.New()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = md.Parser().Parse(text.NewReader(src))
	}
}
