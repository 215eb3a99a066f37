package fe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// feTarget is the Fe implementation the corpus judges, chosen once from the
// environment: the Go VM in this process by default, or any Fe executable
// named by FE_CMD that speaks rxi/fe's standalone conventions (the protocol
// is written down in features/README.md):
//
//	$FE_CMD -arena BYTES FILE     file mode
//	$FE_CMD -arena BYTES < FILE   stdin REPL
//
// stdout and stderr go to one pipe, so the implementation must write them
// in program order (unbuffered, or flushing stdout before stderr).
// FE_VARIANT picks the recordings to compare with (out, out64 or out-m33:
// the variant file where a program has one, else NAME.out) and FE_TIERS the
// manifest tiers the implementation claims (comma-separated; default all).
type feTarget struct {
	cmd     []string // empty: the Go VM in this process
	variant string
	tiers   map[string]bool // nil: every tier
	opts    []Option        // the embedded VM's options for the variant
}

func targetFromEnv(t *testing.T) feTarget {
	t.Helper()
	ft := feTarget{cmd: strings.Fields(os.Getenv("FE_CMD")), variant: os.Getenv("FE_VARIANT")}
	switch ft.variant {
	case "", "out":
		ft.variant = "out"
	case "out64":
		ft.opts = []Option{WithModel(Model64())}
	case "out-m33":
		ft.opts = []Option{WithNaNStyle(NaNNewlib)}
	default:
		t.Fatalf("FE_VARIANT=%q: want out, out64 or out-m33", ft.variant)
	}
	if s := os.Getenv("FE_TIERS"); s != "" {
		ft.tiers = map[string]bool{}
		for _, tier := range strings.Split(s, ",") {
			ft.tiers[strings.TrimSpace(tier)] = true
		}
	}
	return ft
}

func (ft feTarget) String() string {
	if len(ft.cmd) == 0 {
		return "fe embedded (variant " + ft.variant + ")"
	}
	return fmt.Sprintf("fe process FE_CMD=%q (variant %s)", strings.Join(ft.cmd, " "), ft.variant)
}

// skip says why a row is not run against this target, or "".
func (ft feTarget) skip(r corpusRow) string {
	if ft.tiers != nil && !ft.tiers[r.tier] {
		return "tier " + r.tier + " not in FE_TIERS"
	}
	return ""
}

// want is the recording and exit status this target must reproduce.
func (ft feTarget) want(dir string, r corpusRow) (string, int, error) {
	exit := r.exit32
	if ft.variant == "out64" {
		exit = r.exit64
	}
	b, err := os.ReadFile(filepath.Join(dir, r.name+"."+ft.variant))
	if errors.Is(err, os.ErrNotExist) {
		b, err = os.ReadFile(filepath.Join(dir, r.name+".out"))
	}
	return string(b), exit, err
}

// run runs one corpus program and returns its combined, pointer-masked
// output and exit status.
func (ft feTarget) run(t *testing.T, dir string, r corpusRow, src []byte) (string, int) {
	t.Helper()
	if len(ft.cmd) == 0 {
		return runProgram(t, src, r.mode, r.arena, ft.opts...)
	}
	path, err := filepath.Abs(filepath.Join(dir, r.name+".fe"))
	if err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := append(append([]string{}, ft.cmd[1:]...), "-arena", strconv.Itoa(r.arena))
	if r.mode != "repl" {
		args = append(args, path)
	}
	cmd := exec.CommandContext(ctx, ft.cmd[0], args...)
	if r.mode == "repl" {
		cmd.Stdin = bytes.NewReader(src)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out // one pipe: the order of writes is kept
	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return maskPointers(out.String()), 0
	case errors.As(err, &exitErr) && exitErr.ExitCode() >= 0:
		return maskPointers(out.String()), exitErr.ExitCode()
	default:
		t.Errorf("%s: running %s: %v", r.name, ft.cmd[0], err)
		return maskPointers(out.String()), -1
	}
}
