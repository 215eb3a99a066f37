package catalog

import (
	"fmt"
	"strings"
)

// Check is the anchor guard. It returns every problem that must fail the
// build: an id declared twice (across all digests, aliases and retired ids
// included), a scenario citing an id no digest declares (an orphan), citing a
// retired id, citing another system's anchor, a tag that is neither an
// anchor, the system's tag nor a control tag, a feature file without its
// system tag, a decision that neither a decided step nor a @decision
// scenario pins, a @decision scenario none of whose anchors has a decision
// in the digest, and a decided step (" per Decision (§id)") that is not a
// Then step or whose anchor has no decision. Uncovered
// anchors are not problems: they are gaps the report shows.
func (c *Catalog) Check() []Problem {
	var ps []Problem
	add := func(kind, loc, format string, args ...any) {
		ps = append(ps, Problem{Kind: kind, Location: loc, Message: fmt.Sprintf(format, args...)})
	}

	declared := map[string]string{} // id → where
	declare := func(id, where string) {
		if prev, ok := declared[id]; ok {
			add("duplicate", where, "§%s is already declared at %s", id, prev)
			return
		}
		declared[id] = where
	}
	for _, s := range c.Systems {
		d := c.Digests[s]
		for _, a := range d.Anchors {
			declare(a.ID, a.Location)
		}
		for _, r := range d.Retired {
			declare(r.ID, r.Location)
			if r.Successor != "" {
				if _, ok := d.Resolve(r.Successor); !ok {
					add("digest", r.Location, "retired §%s names successor §%s, which is not declared", r.ID, r.Successor)
				}
			}
		}
		for old := range d.aliasTo {
			declare(old, d.Path+" (alias)")
		}
	}

	control := map[string]bool{}
	for _, t := range ControlTags() {
		control[t] = true
	}
	systems := map[string]bool{}
	for _, s := range c.Systems {
		systems["@"+s] = true
	}
	reported := map[string]bool{} // one problem per tag occurrence, not per pickle
	once := func(sc *Scenario, t Tag, kind, format string, args ...any) {
		loc := fmt.Sprintf("%s:%d", sc.URI, t.Line)
		key := loc + t.Name + kind
		if !reported[key] {
			reported[key] = true
			add(kind, loc, format, args...)
		}
	}
	for _, sc := range c.Scenarios {
		d := c.Digests[sc.System]
		if !sc.Has("@" + sc.System) {
			once(sc, Tag{Name: "@" + sc.System, Line: 1}, "unknown-tag", "the feature must carry its system tag @%s", sc.System)
		}
		for _, t := range sc.Tags {
			id, isAnchor := strings.CutPrefix(t.Name, "@§")
			switch {
			case isAnchor:
				if _, ok := d.Resolve(id); ok {
					continue
				}
				if r, ok := d.RetiredID(id); ok {
					succ := "no successor"
					if r.Successor != "" {
						succ = "cite §" + r.Successor + " instead"
					}
					once(sc, t, "retired", "§%s is retired (%s): %s", id, r.Reason, succ)
					continue
				}
				if owner := c.owner(id); owner != "" {
					once(sc, t, "wrong-system", "§%s belongs to %s, not %s", id, owner, sc.System)
					continue
				}
				once(sc, t, "orphan", "§%s is not declared in %s", id, d.Path)
			case systems[t.Name]:
				if t.Name != "@"+sc.System {
					once(sc, t, "wrong-system", "%s tag in a %s feature", t.Name, sc.System)
				}
			case control[t.Name]:
			default:
				once(sc, t, "unknown-tag", "%s is not an anchor (@§id), a system tag or a control tag %v", t.Name, ControlTags())
			}
		}
	}

	decided := map[string]bool{} // system + anchor id → the digest records a decision for it
	for _, s := range c.Systems {
		for _, dec := range c.Digests[s].Decisions {
			a, ok := c.Digests[s].Resolve(dec.Anchor)
			if !ok {
				add("digest", dec.Location, "decision for §%s, which this digest does not declare", dec.Anchor)
				continue
			}
			decided[s+" "+a.ID] = true
			if len(c.Pinning(a)) == 0 && !c.stepDecides(a) {
				add("unpinned-decision", dec.Location, "decision for §%s has no step per Decision (§%s) and no scenario tagged @decision and @§%s", dec.Anchor, a.ID, a.ID)
			}
		}
	}
	c.checkDecidedSteps(decided, add)
	for _, sc := range c.UndecidedPins() {
		add("undecided-pin", sc.Location(), "@decision scenario %q has no step per Decision (§id): mark the assertions that check the reference's choice, or drop the tag if every step keeps to the seed", sc.Name)
	}
	for _, sc := range c.Scenarios {
		if !sc.Has("@decision") {
			continue
		}
		var cited []string
		pinned := false
		for _, t := range sc.Tags {
			id, ok := strings.CutPrefix(t.Name, "@§")
			if !ok {
				continue
			}
			if a, ok := c.Digests[sc.System].Resolve(id); ok {
				cited = append(cited, "§"+a.ID)
				pinned = pinned || decided[sc.System+" "+a.ID]
			}
		}
		if !pinned && len(cited) > 0 {
			for _, t := range sc.Tags {
				if t.Name == "@decision" {
					once(sc, t, "unrecorded-decision", "a @decision scenario, but %s records no decision for %s", c.Digests[sc.System].Path, strings.Join(cited, ", "))
				}
			}
		}
	}
	return ps
}

// Pinning returns the @decision scenarios citing a.
func (c *Catalog) Pinning(a *Anchor) []*Scenario {
	var out []*Scenario
	for _, sc := range c.Citing(a) {
		if sc.Has("@decision") {
			out = append(out, sc)
		}
	}
	return out
}

// owner returns the system whose digest declares id, or "".
func (c *Catalog) owner(id string) string {
	for _, s := range c.Systems {
		if _, ok := c.Digests[s].Resolve(id); ok {
			return s
		}
	}
	return ""
}

// Orphans returns the cited ids that no digest of the citing system declares
// (retired and foreign citations included), each once, without the §.
func (c *Catalog) Orphans() []string {
	seen := map[string]bool{}
	var out []string
	for _, sc := range c.Scenarios {
		for _, id := range sc.Cites() {
			if _, ok := c.Digests[sc.System].Resolve(id); ok {
				continue
			}
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// Missing returns a problem for each system under spec (Systems) that has no
// digest in the tree.
func (c *Catalog) Missing() []Problem {
	var ps []Problem
	for _, s := range Systems() {
		if c.Digests[s] == nil {
			ps = append(ps, Problem{Kind: "digest", Location: c.Root + "/" + s + "/SPEC.md",
				Message: "missing: every system under spec has a digest"})
		}
	}
	return ps
}

// stepDecides reports whether a decided step of a's system cites a (or one
// of its aliases).
func (c *Catalog) stepDecides(a *Anchor) bool {
	for _, sc := range c.Scenarios {
		if sc.System != a.System {
			continue
		}
		for _, id := range sc.Decided() {
			if b, ok := c.Digests[sc.System].Resolve(id); ok && b.ID == a.ID {
				return true
			}
		}
	}
	return false
}

// checkDecidedSteps refuses a decided step that is not a Then step (only an
// assertion can be decided: a Given or When that differs would leave the
// scenario driving something else) and one whose anchor the digest records
// no decision for. Each step is reported once, not once per outline row.
func (c *Catalog) checkDecidedSteps(decided map[string]bool, add func(kind, loc, format string, args ...any)) {
	seen := map[string]bool{}
	once := func(loc, kind, format string, args ...any) {
		if !seen[loc+kind] {
			seen[loc+kind] = true
			add(kind, loc, format, args...)
		}
	}
	for _, sc := range c.Scenarios {
		for _, st := range sc.Steps {
			_, id, ok := DecidedStep(st.Text)
			if !ok {
				continue
			}
			loc := fmt.Sprintf("%s:%d", sc.URI, st.Line)
			if st.Type != "Outcome" {
				once(loc, "decided-step", "%s %s: only a Then step (an assertion) can be decided", st.Keyword, st.Text)
			}
			a, ok := c.Digests[sc.System].Resolve(id)
			switch {
			case !ok:
				once(loc, "orphan", "the step cites Decision (§%s), but %s declares no §%s", id, c.Digests[sc.System].Path, id)
			case !decided[sc.System+" "+a.ID]:
				once(loc, "unrecorded-decision", "the step cites Decision (§%s), but %s records no decision for §%s", id, c.Digests[sc.System].Path, a.ID)
			}
		}
	}
}

// UndecidedPins returns the @decision scenarios none of whose steps is
// decided: against another target such a scenario fails on a choice of the
// reference, since nothing in it says which assertion is the choice.
func (c *Catalog) UndecidedPins() []*Scenario {
	var out []*Scenario
	for _, sc := range c.Scenarios {
		if sc.Has("@decision") && len(sc.Decided()) == 0 {
			out = append(out, sc)
		}
	}
	return out
}
