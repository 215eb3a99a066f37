package ops

import (
	"regexp"
	"slices"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// copyOrMove copies the target entry to the destination named by the body,
// then, for MOVE, removes the source, all in one transaction. The source's
// channel (its fragment's, or its default) goes to the destination's
// channel (its fragment's, or its default); when neither names a channel,
// every other source channel the destination declares under the same name
// goes along. A channel whose mimetype the destination
// does not accept answers 415. An existing destination with the same
// content and tags answers 304, with different content 409. A non-empty
// signal gives the destination exactly its tags; otherwise the source's
// tags are carried.
func (e *Engine) copyOrMove(c scheme.Call, st dsl.Statement, move bool) (Result, error) {
	if st.Body == nil || strings.TrimSpace(*st.Body) == "" {
		return Result{}, fail(400, "%s needs a destination in its body", st.Op)
	}
	src, err := e.resolve(st)
	if err != nil {
		return Result{}, err
	}
	dt := splitTarget(strings.TrimSpace(*st.Body))
	dst, err := e.Schemes.Resolve(dt)
	if err != nil {
		return Result{}, fail(scheme.StatusOf(err), "destination: %v", err)
	}
	dm := dst.Handler.Manifest()
	if !dm.Writable(c.Writer) {
		return Result{}, fail(403, "%s may not write %s:// entries", c.Writer, dm.Name)
	}
	if move && !src.Handler.Manifest().Writable(c.Writer) {
		return Result{}, fail(403, "%s may not remove %s:// entries", c.Writer, src.Key.Scheme)
	}
	if err := guard(c, dst); err != nil {
		return Result{}, err
	}
	if move {
		if err := guard(c, src); err != nil {
			return Result{}, err
		}
	}
	from, err := load(c, src)
	if err != nil {
		return Result{}, err
	}
	if from == nil {
		return Result{}, fail(404, "%s does not exist", src.Key)
	}
	main, ok := from.Channels[src.Channel]
	if !ok {
		return Result{}, fail(404, "%s has no %q channel", src.Key, src.Channel)
	}
	if st.Scope != nil {
		lines := splitLines(main.Content)
		a, b, status, err := sliceRange(st.Scope, len(lines))
		if err != nil {
			return Result{}, fail(status, "%v", err)
		}
		main.Content = strings.Join(lines[a:b], "\n") + "\n"
	}
	next := &store.Entry{Key: dst.Key, Channels: map[string]store.Channel{}}
	put := func(name string, ch store.Channel) error {
		if !dm.Accepts(name, ch.Mimetype) {
			return fail(415, "%s#%s does not accept %s", dm.Name, name, ch.Mimetype)
		}
		ch.Tokens = e.tokens(ch.Content)
		// The copy is a new channel of the destination: it is not the
		// source's stream, so it starts static whatever state the source
		// channel is in (§channel-state-schemes-own-state-transitions).
		ch.State = store.StateStatic
		next.Channels[name] = ch
		return nil
	}
	if err := put(dst.Channel, main); err != nil {
		return Result{}, err
	}
	if !src.Named && !dst.Named && st.Scope == nil {
		for name, ch := range from.Channels {
			if _, declared := dm.Channels[name]; declared && name != src.Channel && name != dst.Channel {
				if err := put(name, ch); err != nil {
					return Result{}, err
				}
			}
		}
	}
	// next is new and has no tags yet.
	if st.Signal != nil && len(st.Signal.Tags) > 0 {
		next.AddTags(st.Signal.Tags...)
	} else {
		next.AddTags(from.Tags...)
	}
	cur, err := load(c, dst)
	if err != nil {
		return Result{}, err
	}
	status := 201
	if cur != nil {
		if !sameContent(cur, next) {
			return Result{}, fail(409, "%s already exists with different content", dst.Key)
		}
		if slices.Equal(cur.Tags, next.Tags) && !move {
			return Result{Status: 304, EntryID: cur.ID, Target: target(dst), Tags: cur.Tags}, nil
		}
	}
	if src.Key == dst.Key {
		return Result{}, fail(409, "source and destination are the same entry")
	}
	if err := save(c, dst, next); err != nil {
		return Result{}, err
	}
	if move {
		if _, err := src.Handler.Remove(c, src.Key); err != nil {
			return Result{}, fail(scheme.StatusOf(err), "remove %s: %v", src.Key, err)
		}
	}
	return Result{Status: status, EntryID: next.ID, Target: target(dst), Tags: slices.Clone(next.Tags)}, nil
}

func sameContent(a, b *store.Entry) bool {
	if len(a.Channels) != len(b.Channels) {
		return false
	}
	for n, ch := range a.Channels {
		if o, ok := b.Channels[n]; !ok || o.Content != ch.Content {
			return false
		}
	}
	return true
}

// schemePrefix matches the scheme:// head of a URL target.
func schemePrefix() *regexp.Regexp { return regexp.MustCompile(`^([a-z][a-z0-9+.-]*)://`) }

// splitTarget splits a destination written in a COPY/MOVE body the way the
// parser splits a (target) slot.
func splitTarget(s string) dsl.Target {
	var t dsl.Target
	if m := schemePrefix().FindStringSubmatch(s); m != nil {
		t.Scheme = m[1]
		s = s[len(m[0]):]
		end := strings.IndexAny(s, "/#")
		if end < 0 {
			end = len(s)
		}
		t.Host, s = s[:end], s[end:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		t.Fragment, t.HasFragment, s = s[i+1:], true, s[:i]
	}
	t.Path = s
	return t
}
