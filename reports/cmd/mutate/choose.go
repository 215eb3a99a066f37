package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"anchorage/reports/mutate"
)

// candidate is a mutant on a line that some scenario executes.
type candidate struct {
	mutant mutate.Mutant
	locs   []string // the scenarios that execute its line
	secs   float64  // their wall time in the coverage run
	rank   string   // its place in the sample
}

// typeChecker finds a mutant that cannot compile without building it
// (mutate.Checker).
type typeChecker interface {
	Check(file string, src []byte) error
}

// runnable is a chosen candidate with its mutated source.
type runnable struct {
	candidate
	mutated []byte
}

// measure chooses the system's mutants and runs those that need a run.
func (m *mutator) measure(ctx context.Context, sys string, dirs []string, key string) ([]mutate.Result, error) {
	cov, err := m.coverage(ctx, sys, key)
	if err != nil {
		return nil, err
	}
	all, err := mutate.Enumerate(os.DirFS(m.root), dirs)
	if err != nil {
		return nil, err
	}
	cands, srcs, err := m.candidates(sys, all, cov)
	if err != nil {
		return nil, err
	}
	checker, err := mutate.NewChecker(m.root, dirs)
	if err != nil {
		return nil, err
	}
	todo, known := m.choose(cands, srcs, checker)
	fmt.Fprintf(m.stdout, "%s: %d mutants in %d packages, %d on lines its %d scenarios execute; %s\n",
		sys, len(all), len(dirs), len(cands), len(cov.Scenarios), m.describeChoice(len(todo), len(known)))
	if m.o.list {
		for _, c := range todo {
			fmt.Fprintf(m.stdout, "  %s  %s → %s  (%d scenarios)\n", c.mutant.ID, quote(c.mutant.Original), quote(c.mutant.Replacement), len(c.locs))
		}
		return nil, nil
	}
	ran, err := m.runAll(ctx, todo)
	if err != nil {
		return nil, err
	}
	results := append(known, ran...)
	sort.SliceStable(results, func(i, j int) bool { return results[i].Mutant.ID < results[j].Mutant.ID })
	return results, nil
}

// candidates returns the mutants on lines the system's scenarios execute
// (with -diff, only those on changed lines), in sample order, and the
// sources they were made from: later edits of the tree do not leak in.
//
// The sample order is a hash of the master seed and each mutant's code key:
// a uniform draw that a new scenario reaching new lines, or lines moving,
// changes only by the few mutants it adds or edits.
func (m *mutator) candidates(sys string, all []mutate.Mutant, cov *mutate.Coverage) ([]candidate, map[string][]byte, error) {
	var cands []candidate
	srcs := map[string][]byte{}
	for _, mu := range all {
		if m.changed != nil && !m.changed.Touches(mu) {
			continue
		}
		locs, secs := cov.Covering(mu)
		if len(locs) == 0 {
			continue
		}
		h := sha256.Sum256([]byte(fmt.Sprintf("mutate:%s:%d:%s", sys, m.o.seed.Master(), mu.Key)))
		cands = append(cands, candidate{mutant: mu, locs: locs, secs: secs, rank: string(h[:])})
		if srcs[mu.File] == nil {
			src, err := os.ReadFile(filepath.Join(m.root, mu.File))
			if err != nil {
				return nil, nil, err
			}
			srcs[mu.File] = src
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].rank < cands[j].rank })
	return cands, srcs, nil
}

// everyMutant reports whether every candidate is measured (-all, -diff)
// rather than a sample of -n.
func (m *mutator) everyMutant() bool { return m.o.all || m.o.diff != "" }

// choose walks the candidates in sample order and returns those to run, and
// the results known without a run: a mutant listed as equivalent (Ignored)
// or one that does not type-check (CompileError). The sample is the first
// -n candidates that need a run (with -all or -diff, every candidate), and
// this shard's part of it: whether a candidate counts toward -n never
// depends on the shard, so the shards of one sample are disjoint parts of
// the same set.
func (m *mutator) choose(cands []candidate, srcs map[string][]byte, checker typeChecker) ([]runnable, []mutate.Result) {
	var todo []runnable
	var known []mutate.Result
	counted := 0
	for _, c := range cands {
		if !m.everyMutant() && counted >= m.o.n {
			break
		}
		mine := m.o.shard.Has(c.mutant)
		if m.everyMutant() && !mine {
			continue // not counted, so not type-checked: a shard of -all checks only its own
		}
		r, mutated, needsRun := m.classify(c, srcs[c.mutant.File], checker)
		if needsRun {
			counted++
		}
		switch {
		case !mine:
		case needsRun:
			todo = append(todo, runnable{candidate: c, mutated: mutated})
		default:
			known = append(known, r)
		}
	}
	return todo, known
}

// classify tells whether a candidate needs a run; if not, its result.
func (m *mutator) classify(c candidate, src []byte, checker typeChecker) (mutate.Result, []byte, bool) {
	if i := m.equiv.Lookup(c.mutant); i >= 0 {
		return mutate.Result{Mutant: c.mutant, Status: mutate.Ignored, Reason: "equivalent: " + m.equiv.Entries[i].Reason, CoveredBy: c.locs}, nil, false
	}
	mutated, err := c.mutant.Apply(src)
	if err == nil {
		err = checker.Check(filepath.Join(m.root, c.mutant.File), mutated)
	}
	if err != nil { // known without building: it does not compile
		return mutate.Result{Mutant: c.mutant, Status: mutate.CompileError, Reason: m.relative(err.Error()), CoveredBy: c.locs}, nil, false
	}
	return mutate.Result{}, mutated, true
}

// describeChoice says which mutants the run measures.
func (m *mutator) describeChoice(run, known int) string {
	what := fmt.Sprintf("sampling %d", m.o.n)
	switch {
	case m.o.diff != "":
		what = "every one on the lines changed since " + m.o.diff
	case m.o.all:
		what = "every one"
	}
	if !m.o.shard.Whole() {
		what += fmt.Sprintf(", shard %s", m.o.shard)
	}
	return fmt.Sprintf("%s: %d to run, %d known without a run (equivalent or not compiling)", what, run, known)
}

// runAll builds and runs the chosen mutants, -j at a time.
func (m *mutator) runAll(ctx context.Context, todo []runnable) ([]mutate.Result, error) {
	results := make([]mutate.Result, len(todo))
	free := make(chan int, m.o.jobs)
	for w := 0; w < m.o.jobs; w++ {
		free <- w
	}
	done := make(chan int)
	go func() {
		for i, c := range todo {
			w := <-free
			go func() {
				results[i] = m.try(ctx, c.mutant, c.mutated, c.locs, c.secs, w)
				free <- w
				done <- i
			}()
		}
	}()
	for k := 1; k <= len(todo); k++ {
		r := results[<-done]
		if ctx.Err() != nil {
			continue // drain the workers, then report the interruption
		}
		if m.o.verbose || r.Status == mutate.Survived {
			fmt.Fprintf(m.stdout, "  [%d/%d] %-12s %s  %s → %s\n", k, len(todo), label(r), r.Mutant.ID, quote(r.Mutant.Original), quote(r.Mutant.Replacement))
		} else if k%10 == 0 {
			fmt.Fprintf(m.stdout, "  [%d/%d] …\n", k, len(todo))
		}
	}
	for w := 0; w < m.o.jobs; w++ {
		_ = os.RemoveAll(filepath.Join(m.work, fmt.Sprintf("worker%d", w)))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted (the working tree was never written): %w", err)
	}
	return results, nil
}

// label is a result's status, marking a kill that only a decided assertion made.
func label(r mutate.Result) string {
	if r.Status == mutate.Killed && r.Normative == mutate.Survived {
		return "Killed (decided only)"
	}
	return r.Status
}
