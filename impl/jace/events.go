package jace

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"anchorage/impl/vary"
)

// broker fans committed events out to SSE subscribers.
type broker struct {
	buf int

	mu     sync.Mutex
	seq    uint64
	subs   map[*subscriber]struct{}
	closed bool
}

type subscriber struct {
	ch      chan []byte
	session string
	filter  bool
}

func newBroker(buf int) *broker {
	return &broker{buf: buf, subs: map[*subscriber]struct{}{}}
}

// subscribe registers a subscriber; with filter set it only gets the events
// of session. Its channel is closed when the broker drops it (a full queue)
// or closes; its cancel func only takes it out of the table.
func (b *broker) subscribe(session string, filter bool) (<-chan []byte, func()) {
	sub := &subscriber{ch: make(chan []byte, b.buf), session: session, filter: filter}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(sub.ch)
		return sub.ch, func() {}
	}
	b.subs[sub] = struct{}{}
	return sub.ch, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs, sub)
	}
}

// eventDefaults are what a relayed event's missing members become.
type eventDefaults struct {
	action string    // type: the action that returned the event
	seq    uint64    // id: evt-<seq>, the broker's counter
	now    time.Time // ts: the runtime's clock
	entity string    // entity: the module's name
	vary   vary.Set
}

// normalise turns a module event into the relayed one: the family's
// required members type, id, ts and entity first (the module's, or the
// defaults), then changes (the module's; {} when it gave none), then the
// module's other members in its order. An event that is not an object
// becomes the changes of an event made of defaults.
func normalise(raw json.RawMessage, d eventDefaults) []byte {
	ev := &node{kind: '{'}
	set := func(k string, v *node) {
		for i, have := range ev.keys {
			if have == k {
				ev.vals[i] = v
				return
			}
		}
		ev.keys = append(ev.keys, k)
		ev.vals = append(ev.vals, v)
	}
	defaults := vary.Choose(d.vary, VaryEventDefault, eventDefaultMembers, variedEventDefaults)(d)
	for i, k := range defaults.keys {
		set(k, defaults.vals[i])
	}
	t := parseTree(raw)
	if t.kind != '{' {
		t = &node{kind: '{', keys: []string{"changes"}, vals: []*node{{kind: 'v', raw: raw}}}
	}
	for i, k := range t.keys {
		set(k, t.vals[i])
	}
	var b bytes.Buffer
	vary.Apply(d.vary, VaryExtraMembers, ev, withSource).encode(&b)
	return b.Bytes()
}

// eventDefaultMembers are the defaults of an event's members, in the
// order a relayed event has them: type the action, id evt-<n>, ts the
// runtime clock with milliseconds, entity the module's name, changes {}.
func eventDefaultMembers(d eventDefaults) *node {
	return &node{kind: '{', keys: []string{"type", "id", "ts", "entity", "changes"}, vals: []*node{
		scalarNode(d.action), scalarNode("evt-" + strconv.FormatUint(d.seq, 10)),
		scalarNode(d.now.UTC().Format("2006-01-02T15:04:05.000Z07:00")), scalarNode(d.entity),
		{kind: 'v', raw: json.RawMessage("{}")},
	}}
}

func scalarNode(v any) *node { return &node{kind: 'v', raw: mustJSON(v)} }

// publish relays events of a committed action. A subscriber whose queue is
// full is disconnected rather than silently skipped.
func (b *broker) publish(session string, events []json.RawMessage, d eventDefaults) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	for _, raw := range events {
		b.seq++
		d.seq = b.seq
		msg := normalise(raw, d)
		for sub := range b.subs {
			if sub.filter && sub.session != session {
				continue
			}
			select {
			case sub.ch <- msg:
			default:
				delete(b.subs, sub)
				close(sub.ch)
			}
		}
	}
}

// close ends every subscriber's stream. Runtime.Close calls it once; the
// subscribers leave the table by their cancel funcs.
func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for sub := range b.subs {
		close(sub.ch)
	}
}
