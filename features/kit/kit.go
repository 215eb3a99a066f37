// Package kit is what every system's step code shares: the scenario the
// runner is executing (its location, its own seed derived from the master
// seed, and the one-line command that replays it), carried in the context
// that godog hands to steps and hooks.
//
// A scenario's seed depends only on its identity — its feature file (without
// any :line a selection added), its name, and which row of an outline it is —
// never on how the run selected it, so the replay line of a failure reruns it
// with the same streams. The runner checks that by comparing fingerprints
// (Observe, Fingerprint) between a full run and replays.
//
// Step packages (features/<system>) are thin adapters over impl/ and sim/;
// they may import godog, this package, impl/ and sim/. impl/ never imports
// them.
package kit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"anchorage/sim/seed"
)

// Scenario describes the scenario being run.
type Scenario struct {
	System   string
	Name     string
	Location string     // features/<system>/<file>.feature:<line> (an outline row's own line)
	Seeds    seed.Seeds // this scenario's streams, derived from the master seed
	Master   uint64     // the master seed of the run
	Replay   string     // the command that reruns just this scenario
	// Unselected is set for a pickle the run's -feature selection leaves
	// out: its steps are skipped, hooks should do nothing of note.
	Unselected bool
	// Decisions says what a decided step that does not hold does (decided.go).
	Decisions DecisionMode

	mu           sync.Mutex
	observed     []string
	stepText     string // the running step's text
	stepDecision string // the running step's decision, when it is decided
	stepDiff     *Difference
	differences  []Difference
}

// Observe records one fact the scenario showed (a generated name, a hash of
// a screen); the facts, in order, are part of the scenario's fingerprint,
// which the runner compares between a full run and a replay.
func (s *Scenario) Observe(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observed = append(s.observed, fmt.Sprintf(format, args...))
}

// Fingerprint hashes what identifies this run of the scenario: its seed and
// every observed fact.
func (s *Scenario) Fingerprint() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := sha256.New()
	fmt.Fprintf(h, "seed %d\n", s.Seeds.Derive("fingerprint"))
	for _, o := range s.observed {
		fmt.Fprintf(h, "%s\n", o)
	}
	return hex.EncodeToString(h.Sum(nil))
}

type key struct{}

// With returns ctx carrying s.
func With(ctx context.Context, s *Scenario) context.Context {
	return context.WithValue(ctx, key{}, s)
}

// From returns the scenario carried by ctx. Step code runs only under the
// runner, which always sets it; a missing value is a wiring error reported
// as such.
func From(ctx context.Context) (*Scenario, error) {
	s, ok := ctx.Value(key{}).(*Scenario)
	if !ok {
		return nil, fmt.Errorf("kit: no scenario in the context: steps must run under features.TestFeatures")
	}
	return s, nil
}

// RemoveTemp removes a directory that a step made with os.MkdirTemp("",
// prefix+"*") — and nothing else: a path outside the system's temporary
// directory, or without the prefix, is refused. Step code that cleans up real
// directories goes through it, so a scenario that points a world at another
// path can never delete it.
func RemoveTemp(dir, prefix string) error {
	if dir == "" {
		return nil
	}
	clean := filepath.Clean(dir)
	if filepath.Dir(clean) != filepath.Clean(os.TempDir()) || !strings.HasPrefix(filepath.Base(clean), prefix) || prefix == "" {
		return fmt.Errorf("kit: refusing to remove %s: not a %s* directory made in %s", dir, prefix, os.TempDir())
	}
	return os.RemoveAll(clean)
}
