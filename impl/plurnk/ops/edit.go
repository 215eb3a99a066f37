package ops

import (
	"slices"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// edit writes one channel of one entry: the fragment's, or the scheme's
// default. It answers 201 when it creates the entry, 200 when it changes
// content or adds a tag, 304 when it changes nothing. A null body clears
// the channel; tags are only ever added.
func (e *Engine) edit(c scheme.Call, st dsl.Statement) (Result, error) {
	r, err := e.resolve(st)
	if err != nil {
		return Result{}, err
	}
	m := r.Handler.Manifest()
	if !m.Writable(c.Writer) {
		return Result{}, fail(403, "%s may not write %s:// entries", c.Writer, m.Name)
	}
	cur, err := load(c, r)
	if err != nil {
		return Result{}, err
	}
	if cur == nil && r.Channel != m.DefaultChannel {
		return Result{}, fail(404, "%s does not exist; only its default channel %q can create it", r.Key, m.DefaultChannel)
	}
	if cur != nil && st.Scope != nil {
		return Result{}, fail(501, "EDIT <L> on existing content is not built")
	}
	body := ""
	if st.Body != nil {
		body = *st.Body
	}
	var tags []string
	if st.Signal != nil {
		tags = st.Signal.Tags
	}
	next := cur.Clone()
	status := 200
	if next == nil {
		status = 201
		next = &store.Entry{Key: r.Key, Channels: map[string]store.Channel{}}
	}
	old, had := next.Channels[r.Channel]
	added := next.AddTags(tags...)
	if status == 200 && had && old.Content == body && added == 0 {
		return Result{Status: 304, EntryID: cur.ID, Target: target(r), Tags: cur.Tags}, nil
	}
	ch := old
	ch.Content = body
	ch.Mimetype = m.MimetypeFor(r.Channel, r.Key.Path)
	ch.Tokens = e.tokens(body)
	if ch.State == "" {
		ch.State = store.StateStatic
	}
	next.Channels[r.Channel] = ch
	if err := save(c, r, next); err != nil {
		return Result{}, err
	}
	return Result{Status: status, EntryID: next.ID, Target: target(r), Tags: slices.Clone(next.Tags)}, nil
}
