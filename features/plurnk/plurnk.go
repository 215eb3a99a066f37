// Package plurnk registers the steps of the plurnk features
// (features/plurnk/*.feature, the digest features/plurnk/SPEC.md) with a
// scenario: one world per scenario (package world), its driver of the
// plurnk under test chosen once (package driver: the embedded reference,
// or a daemon process with $PLURNK_CMD), and the steps of each section of
// the digest from a package of its own (dataplane, engine, runs, exec,
// membership, daemon).
//
// It may import godog, features/kit and its own packages; they may not
// import it.
package plurnk

import (
	"context"

	"anchorage/features/kit"
	"anchorage/features/plurnk/daemon"
	"anchorage/features/plurnk/dataplane"
	"anchorage/features/plurnk/engine"
	"anchorage/features/plurnk/exec"
	"anchorage/features/plurnk/membership"
	"anchorage/features/plurnk/runs"
	"anchorage/features/plurnk/world"

	"github.com/cucumber/godog"
)

// InitializeScenario registers the plurnk steps with a scenario context.
func InitializeScenario(ks kit.Steps) {
	sc := world.NewSteps(ks)
	sc.Before(func(ctx context.Context, s *godog.Scenario) (context.Context, error) {
		if _, err := kit.From(ctx); err != nil {
			return ctx, err
		}
		w, err := world.New(ctx, s, sc)
		return world.With(ctx, w), err
	})
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		if cerr := world.Close(ctx, err != nil); cerr != nil && err == nil {
			return ctx, cerr
		}
		return ctx, err
	})
	dataplane.Register(sc)
	engine.Register(sc)
	runs.Register(sc)
	exec.Register(sc)
	membership.Register(sc)
	daemon.Register(sc)
}
