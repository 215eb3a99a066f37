package vfs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"

	"anchorage/sim/clock"
)

func TestClockedStampsMtimeFromTheClock(t *testing.T) {
	clk := clock.NewSim(time.Time{})
	fsys := NewMem(clk)
	clk.Advance(3100 * time.Millisecond)
	if err := afero.WriteFile(fsys, "/a.md", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Stamp(fsys, "/a.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := clock.Epoch().Add(3100 * time.Millisecond); !got.Equal(want) {
		t.Fatalf("mtime %v, want %v", got, want)
	}
	clk.Advance(time.Second)
	f, err := fsys.OpenFile("/a.md", os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("y"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, _ = Stamp(fsys, "/a.md")
	if want := clock.Epoch().Add(4100 * time.Millisecond); !got.Equal(want) {
		t.Fatalf("mtime after append %v, want %v", got, want)
	}
}

func TestWatcherReportsCreateModifyRemove(t *testing.T) {
	clk := clock.NewSim(time.Time{})
	fsys := NewMem(clk)
	w := NewWatcher(fsys, "/debug")
	var got []Change
	stop := w.Poll(clk, 500*time.Millisecond, func(ch []Change, err error) {
		if err != nil {
			t.Errorf("scan: %v", err)
		}
		got = append(got, ch...)
	})
	defer stop()
	_ = afero.WriteFile(fsys, "/debug/a.md", []byte("one"), 0o644)
	clk.Advance(time.Second)
	_ = afero.WriteFile(fsys, "/debug/a.md", []byte("two"), 0o644) // same size: content decides
	clk.Advance(time.Second)
	_ = fsys.Remove("/debug/a.md")
	clk.Advance(time.Second)
	want := []Change{{"/debug/a.md", Created, 3}, {"/debug/a.md", Modified, 3}, {"/debug/a.md", Removed, 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("changes (-want +got):\n%s", diff)
	}
}

func TestFailpoints(t *testing.T) {
	base := afero.NewMemMapFs()
	_ = afero.WriteFile(base, "/log.md", []byte("old\n"), 0o644)
	f := NewFaulty(base, 1)

	appendTo := func(s string) (int, error) {
		file, err := f.OpenFile("/log.md", os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		return file.Write([]byte(s))
	}
	content := func() string { b, _ := afero.ReadFile(base, "/log.md"); return string(b) }

	if err := f.Arm(Fault{Point: "no-such"}); err == nil {
		t.Fatal("arming an unknown failpoint succeeded")
	}
	mustArm := func(ft Fault) {
		if err := f.Arm(ft); err != nil {
			t.Fatal(err)
		}
	}

	mustArm(Fault{Point: WriteError, Pattern: "/log.md", Count: 1})
	if _, err := appendTo("abcd"); !errors.Is(err, ErrInjected) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("write-error gave %v", err)
	}
	mustArm(Fault{Point: NoSpace, Count: 1})
	if _, err := appendTo("abcd"); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("enospc gave %v", err)
	}
	if content() != "old\n" {
		t.Fatalf("failed writes persisted data: %q", content())
	}
	mustArm(Fault{Point: ShortWrite, Count: 1})
	if n, err := appendTo("abcd"); n != 2 || !errors.Is(err, io.ErrShortWrite) {
		t.Fatalf("short write gave %d, %v", n, err)
	}
	mustArm(Fault{Point: TornWrite, Count: 1})
	if n, err := appendTo("wxyz"); n != 2 || !errors.Is(err, ErrInjected) {
		t.Fatalf("torn write gave %d, %v", n, err)
	}
	if n, err := appendTo("!"); n != 1 || err != nil {
		t.Fatalf("write after faults were spent: %d, %v", n, err)
	}
	if got, want := content(), "old\nabwx!"; got != want {
		t.Fatalf("content %q, want %q", got, want)
	}

	mustArm(Fault{Point: RenameFail, Pattern: "/*.md", Skip: 1, Count: 1})
	_ = afero.WriteFile(base, "/a.md", []byte("a"), 0o644)
	if err := f.Rename("/a.md", "/b.md"); err != nil { // skipped
		t.Fatalf("first rename should pass: %v", err)
	}
	if err := f.Rename("/b.md", "/c.md"); !errors.Is(err, ErrInjected) {
		t.Fatalf("second rename gave %v", err)
	}
	if ok, _ := afero.Exists(base, "/b.md"); !ok {
		t.Fatal("failed rename moved the file")
	}

	mustArm(Fault{Point: StaleRead, Pattern: "/log.md", Count: 1})
	_, _ = appendTo("new")
	if b, _ := afero.ReadFile(f, "/log.md"); string(b) != "old\nabwx!" {
		t.Fatalf("stale read gave %q", b)
	}
	if b, _ := afero.ReadFile(f, "/log.md"); string(b) != "old\nabwx!new" {
		t.Fatalf("read after the stale fault gave %q", b)
	}
	mustArm(Fault{Point: ListFail, Pattern: "/src", Count: 1})
	_ = afero.WriteFile(base, "/src/x.go", []byte("package x\n"), 0o644)
	if b, err := afero.ReadFile(f, "/src/x.go"); err != nil || string(b) != "package x\n" {
		t.Fatalf("reading a file under the refused folder gave %q, %v", b, err)
	}
	if _, err := afero.ReadDir(f, "/src"); !errors.Is(err, ErrInjected) || !errors.Is(err, syscall.EACCES) {
		t.Fatalf("list-fail gave %v", err)
	}
	if names, err := afero.ReadDir(f, "/src"); err != nil || len(names) != 1 {
		t.Fatalf("listing after the fault was spent gave %v, %v", names, err)
	}
	mustArm(Fault{Point: CloseError, Pattern: "/log.md", Count: 1})
	if b, err := afero.ReadFile(f, "/log.md"); err != nil || len(b) == 0 {
		t.Fatalf("a read's close failed: %q, %v", b, err)
	}
	file, err := f.OpenFile("/log.md", os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := file.Write([]byte("kept\n")); err != nil {
		t.Fatal(err)
	}
	if err := file.Close(); !errors.Is(err, ErrInjected) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("close-error gave %v", err)
	}
	if b, _ := afero.ReadFile(base, "/log.md"); !bytes.HasSuffix(b, []byte("kept\n")) {
		t.Fatalf("a failed close lost the write: %q", b)
	}
	mustArm(Fault{Point: ReadError, Pattern: "/log.md", Count: 1})
	if _, err := afero.ReadFile(f, "/log.md"); !errors.Is(err, ErrInjected) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("read-error gave %v", err)
	}
	if b, err := afero.ReadFile(f, "/log.md"); err != nil || len(b) == 0 {
		t.Fatalf("reading after the fault was spent gave %q, %v", b, err)
	}
	mustArm(Fault{Point: OpenError, Pattern: "/log.md", Count: 1})
	if b, err := afero.ReadFile(f, "/log.md"); err != nil || len(b) == 0 {
		t.Fatalf("open-error failed a read: %q, %v", b, err)
	}
	before, _ := afero.ReadFile(base, "/log.md")
	if _, err := f.OpenFile("/log.md", os.O_APPEND|os.O_WRONLY, 0); !errors.Is(err, ErrInjected) || !errors.Is(err, syscall.EACCES) {
		t.Fatalf("open-error gave %v", err)
	}
	if after, _ := afero.ReadFile(base, "/log.md"); !bytes.Equal(before, after) {
		t.Fatalf("a refused open changed the file: %q, then %q", before, after)
	}
	if file, err := f.OpenFile("/log.md", os.O_APPEND|os.O_WRONLY, 0); err != nil {
		t.Fatalf("opening after the fault was spent gave %v", err)
	} else {
		file.Close()
	}
	mustArm(Fault{Point: MkdirError, Pattern: "/src*", Count: 1})
	if err := f.MkdirAll("/src", 0o755); err != nil {
		t.Fatalf("mkdir-error refused a folder that exists: %v", err)
	}
	if err := f.MkdirAll("/srcnew", 0o755); !errors.Is(err, ErrInjected) || !errors.Is(err, syscall.EACCES) {
		t.Fatalf("mkdir-error gave %v", err)
	}
	if ok, _ := afero.DirExists(base, "/srcnew"); ok {
		t.Fatal("a refused mkdir made the folder")
	}
	if err := f.Mkdir("/srcnew", 0o755); err != nil {
		t.Fatalf("mkdir after the fault was spent gave %v", err)
	}
	points := []Failpoint{}
	for _, in := range f.Injections() {
		points = append(points, in.Point)
	}
	if diff := cmp.Diff([]Failpoint{WriteError, NoSpace, ShortWrite, TornWrite, RenameFail, StaleRead, ListFail, CloseError, ReadError, OpenError, MkdirError}, points); diff != "" {
		t.Fatalf("injection log (-want +got):\n%s", diff)
	}
}

func TestCountingCountsReads(t *testing.T) {
	mem := afero.NewMemMapFs()
	if err := afero.WriteFile(mem, "a.md", []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := NewCounting(mem)
	f, err := c.Open("a.md")
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	if _, err := f.ReadAt(b, 6); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := afero.ReadFile(c, "a.md"); err != nil {
		t.Fatal(err)
	}
	if got := c.BytesReadFrom("a.md"); got != 14 {
		t.Fatalf("read %d bytes from a.md, want 14", got)
	}
	if got := c.BytesRead(); got != 14 {
		t.Fatalf("read %d bytes in all, want 14", got)
	}
}
