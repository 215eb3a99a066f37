package ops

import (
	"encoding/json"
	"fmt"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
)

// CatalogRow is one item of a FIND result.
type CatalogRow struct {
	Path     string                  `json:"path"`
	Tags     []string                `json:"tags,omitempty"`
	Channels map[string]CatalogEntry `json:"channels"`
}

// CatalogEntry describes one channel in a catalog row.
type CatalogEntry struct {
	Mimetype string `json:"mimetype"`
	Tokens   int    `json:"tokens"`
	Lines    int    `json:"lines"`
}

// find lists the scheme's entries matching the target's path glob, the
// signal's tags (all of them) and the body matcher (over the default
// channel's content): a JSON array of catalog rows, 204 when none match.
func (e *Engine) find(c scheme.Call, st dsl.Statement) (Result, error) {
	r, err := e.resolve(st)
	if err != nil {
		return Result{}, err
	}
	var tags []string
	if st.Signal != nil {
		tags = st.Signal.Tags
	}
	matcher, err := compileBody(st)
	if err != nil {
		return Result{}, err
	}
	ents, err := e.candidates(c, r, tags)
	if err != nil {
		return Result{}, err
	}
	rows := []CatalogRow{}
	for _, ent := range ents {
		if matcher != nil {
			ch := ent.Channels[r.Handler.Manifest().DefaultChannel]
			if mr := matcher.Match(ch.Content, ch.Mimetype); mr.Status != 200 {
				continue
			}
		}
		row := CatalogRow{Path: ent.Key.Scheme + "://" + ent.Key.Path, Tags: ent.Tags, Channels: map[string]CatalogEntry{}}
		if ent.Key.Scheme == "file" {
			row.Path = ent.Key.Path
		}
		for n, ch := range ent.Channels {
			row.Channels[n] = CatalogEntry{Mimetype: ch.Mimetype, Tokens: ch.Tokens, Lines: len(splitLines(ch.Content))}
		}
		rows = append(rows, row)
	}
	if st.Scope != nil {
		// <a,b> keeps catalog rows a to b, as many as there are (the
		// turn-0 catalog preview's cap, §actor-boundary-manifest-preview).
		if a, ok := st.Scope.Int(0); ok && a >= 1 {
			b := a
			if v, ok := st.Scope.Int(1); ok {
				b = v
			}
			rows = rows[min(a-1, len(rows)):min(max(b, a-1), len(rows))]
		}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return Result{}, fmt.Errorf("find: %w", err)
	}
	status := 200
	if len(rows) == 0 {
		status = 204
	}
	return Result{Status: status, Target: target(r), Content: string(b), Mimetype: "application/json"}, nil
}
