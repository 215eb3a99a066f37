package rpc

import (
	"reflect"
	"testing"
	"time"

	"anchorage/impl/plurnk/membership"
	"anchorage/sim/clock"
	"anchorage/sim/llm"

	"github.com/spf13/afero"
)

// listGit is a git that tracks a fixed list of files at the root alone.
type listGit struct {
	root    string
	tracked []string
}

func (g listGit) LsFiles(dir string) ([]string, error) {
	if dir != g.root {
		return nil, membership.ErrNoRepo
	}
	return append([]string(nil), g.tracked...), nil
}

func membersDaemon(t *testing.T, work, state afero.Fs) *Orchestrator {
	t.Helper()
	o, err := NewOrchestrator(OrchestratorConfig{Clock: clock.NewSim(time.Time{}), FS: work, Root: "/work", Provider: llm.New(),
		Members: true, Git: listGit{root: "/work", tracked: []string{"main.go"}}, StateFS: state, StateDir: "/state"})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func paths(t *testing.T, o *Orchestrator, session int64) []string {
	t.Helper()
	m, err := o.Members(session)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, x := range m.Members {
		out = append(out, x.Path+":"+x.Effect)
	}
	return out
}

// TestOverlaySurvivesRestart: session.constrain's rules and settings.git
// false are session state, saved with it and restored by the next daemon.
func TestOverlaySurvivesRestart(t *testing.T) {
	work, state := afero.NewMemMapFs(), afero.NewMemMapFs()
	for _, f := range []string{"/work/main.go", "/work/notes.md", "/work/todo.md"} {
		if err := afero.WriteFile(work, f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := membersDaemon(t, work, state)
	a, err := o.CreateSession(SessionParams{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	off := false
	b, err := o.CreateSession(SessionParams{Name: "b", Settings: &SessionSettings{Git: &off}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []ConstrainParams{{Effect: "pick", Pattern: "*.md"}, {Effect: "view", Pattern: "notes.md"}} {
		if _, err := o.Constrain(a.ID, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := o.Constrain(b.ID, ConstrainParams{Effect: "pick", Pattern: "todo.md"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	wantA := []string{"main.go:member", "notes.md:view", "todo.md:member"}
	wantB := []string{"todo.md:member"}
	if got := paths(t, o, a.ID); !reflect.DeepEqual(got, wantA) {
		t.Fatalf("before the restart, a: %v, want %v", got, wantA)
	}
	if got := paths(t, o, b.ID); !reflect.DeepEqual(got, wantB) {
		t.Fatalf("before the restart, b: %v, want %v", got, wantB)
	}
	o.Shutdown()

	o2 := membersDaemon(t, work, state)
	if got := paths(t, o2, a.ID); !reflect.DeepEqual(got, wantA) {
		t.Errorf("after the restart, a: %v, want %v", got, wantA)
	}
	if got := paths(t, o2, b.ID); !reflect.DeepEqual(got, wantB) {
		t.Errorf("after the restart, b: %v, want %v", got, wantB)
	}
}
