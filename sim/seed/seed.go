// Package seed derives every random stream of a simulation from one master
// seed, so that a run is replayed exactly by giving the same seed again.
//
// The master seed comes from the -seed flag, else the ANCHORAGE_SEED
// environment variable, else Default. Each consumer asks for a stream by a
// stable name ("chatlog/short-ids", "scenario:features/x.feature:12"); the
// stream depends only on the master seed and that name, never on the order in
// which streams were asked for.
//
// It imports only the standard library.
package seed

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// Default is the master seed when none is given.
const Default uint64 = 20261122

// EnvVar is the environment variable that carries the master seed.
const EnvVar = "ANCHORAGE_SEED"

// Seeds derives named seeds from a master seed.
type Seeds struct{ master uint64 }

// New returns the derivation rooted at master.
func New(master uint64) Seeds { return Seeds{master: master} }

// Resolve picks the master seed: flagValue if not empty, else the environment,
// else Default. A value that is not an unsigned decimal integer is an error
// naming where it came from.
func Resolve(flagValue string) (Seeds, error) {
	src, v := "-seed", strings.TrimSpace(flagValue)
	if v == "" {
		src, v = EnvVar, strings.TrimSpace(os.Getenv(EnvVar))
	}
	if v == "" {
		return New(Default), nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return Seeds{}, fmt.Errorf("seed: %s=%q is not an unsigned integer: %w", src, v, err)
	}
	return New(n), nil
}

// Master returns the master seed.
func (s Seeds) Master() uint64 { return s.master }

// Derive returns the seed of the stream called name.
func (s Seeds) Derive(name string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s", s.master, name)
	return splitmix(h.Sum64())
}

// Child returns a derivation rooted at the seed of name, for a sub-simulation
// that names its own streams.
func (s Seeds) Child(name string) Seeds { return New(s.Derive(name)) }

// Rand returns a fresh generator for the stream called name.
func (s Seeds) Rand(name string) *rand.Rand {
	d := s.Derive(name)
	return rand.New(rand.NewPCG(d, splitmix(d)))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Replay returns the one-line command that reruns a failing simulation:
// the package, an optional -run pattern and extra test arguments, with the
// master seed in the environment.
func (s Seeds) Replay(pkg, run string, args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s=%d go test %s", EnvVar, s.master, pkg)
	if run != "" {
		fmt.Fprintf(&b, " -run '%s'", run)
	}
	if len(args) > 0 {
		b.WriteString(" -args " + strings.Join(args, " "))
	}
	return b.String()
}
