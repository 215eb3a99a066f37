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
// system tag, a decision that no @decision scenario pins, and a @decision
// scenario none of whose anchors has a decision in the digest. Uncovered
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
			if len(c.Pinning(a)) == 0 {
				add("unpinned-decision", dec.Location, "decision for §%s has no scenario tagged @decision and @§%s", dec.Anchor, a.ID)
			}
		}
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
