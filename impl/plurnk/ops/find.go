package ops

import (
	"fmt"
	"time"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// CatalogRow is one item of a FIND result (§find-result-catalog-rows):
// the entry's address, the whole seconds since it was last written (left
// out when 0), its tags (left out when none) and each channel keyed by its
// address with the #channel fragment.
type CatalogRow struct {
	Path     string                  `json:"path"`
	Seconds  int64                   `json:"seconds,omitempty"`
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
	matcher, err := e.compileBody(st)
	if err != nil {
		return Result{}, err
	}
	e.bind(c, matcher)
	ents, err := e.candidates(c, r, tags)
	if err != nil {
		return Result{}, err
	}
	rows := []CatalogRow{}
	for _, ent := range ents {
		if matcher != nil {
			ch := ent.Channels[r.Handler.Manifest().DefaultChannel]
			if mr := matcher.MatchIn(ent.Key, r.Handler.Manifest().DefaultChannel, ch.Content, ch.Mimetype); mr.Status != 200 {
				continue
			}
		}
		rows = append(rows, e.catalogRow(ent))
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
	b, err := e.marshalCatalog(rows)
	if err != nil {
		return Result{}, fmt.Errorf("find: %w", err)
	}
	status := 200
	if len(rows) == 0 {
		status = 204
	}
	return Result{Status: status, Target: target(r), Content: string(b), Mimetype: "application/json"}, nil
}

// catalogRow describes one entry as a FIND result item.
func (e *Engine) catalogRow(ent *store.Entry) CatalogRow {
	row := CatalogRow{Path: ent.Key.Scheme + "://" + ent.Key.Path, Tags: ent.Tags, Channels: map[string]CatalogEntry{}}
	if ent.Key.Scheme == "file" {
		row.Path = ent.Key.Path
	}
	if !ent.Updated.IsZero() {
		row.Seconds = int64(e.Store.Clock().Since(ent.Updated) / time.Second)
	}
	for n, ch := range ent.Channels {
		row.Channels[row.Path+"#"+n] = CatalogEntry{Mimetype: ch.Mimetype, Tokens: ch.Tokens, Lines: len(splitLines(ch.Content))}
	}
	return row
}
