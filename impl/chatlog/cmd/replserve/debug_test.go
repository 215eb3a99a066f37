package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDebugJobs pins the optional debug port of conformance runs: with
// -debug-jobs, GET /conformance/jobs lists each job with the states it went
// through and sends no Access-Control header; without it, 404.
func TestDebugJobs(t *testing.T) {
	for _, on := range []bool{true, false} {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		errb := &lockedBuffer{}
		args := []string{"-dir", dir, "-addr", "127.0.0.1:0", "-seed", "7"}
		if on {
			args = append(args, "-debug-jobs")
		}
		done := make(chan int, 1)
		go func() { done <- run(ctx, args, &bytes.Buffer{}, errb) }()
		re := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)/`)
		var base string
		for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if m := re.FindStringSubmatch(errb.String()); m != nil {
				base = m[1]
			}
		}
		if base == "" {
			t.Fatalf("no address in %q", errb.String())
		}
		resp, err := http.Post(base+"/api/register", "application/json", strings.NewReader(`{"name":"Tab","url":"http://localhost:1/","lang":"JS"}`))
		if err != nil {
			t.Fatal(err)
		}
		var reg struct{ ID, Path string }
		if err := json.NewDecoder(resp.Body).Decode(&reg); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if err := os.WriteFile(filepath.Join(dir, reg.Path), []byte("**agent** to "+reg.ID+" at 10:00:00\n```JS\n6*7\n```\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var body string
		var code int
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			resp, err := http.Get(base + "/conformance/jobs?instance=" + reg.ID)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body, code = string(b), resp.StatusCode
			if code != http.StatusOK || strings.Contains(body, "6*7") {
				if resp.Header.Get("Access-Control-Allow-Origin") != "" {
					t.Errorf("GET /conformance/jobs allows the origin %q", resp.Header.Get("Access-Control-Allow-Origin"))
				}
				break
			}
		}
		want := `[{"id":"` + reg.ID + `#1","instance":"` + reg.ID + `","agent":"agent","at":"10:00:00","lang":"JS","code":"6*7","history":["requested"]}]` + "\n"
		if on && (code != http.StatusOK || body != want) {
			t.Errorf("with -debug-jobs: %d %q, want 200 %q", code, body, want)
		}
		if !on && code != http.StatusNotFound {
			t.Errorf("without -debug-jobs: %d %q, want 404", code, body)
		}
		cancel()
		<-done
	}
}
