package jace

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"
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
// of session.
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
		if _, ok := b.subs[sub]; ok {
			delete(b.subs, sub)
			close(sub.ch)
		}
	}
}

// wireEvent is the SSE payload: exactly {type,id,ts,entity,changes}.
type wireEvent struct {
	Type    json.RawMessage `json:"type"`
	ID      json.RawMessage `json:"id"`
	TS      json.RawMessage `json:"ts"`
	Entity  json.RawMessage `json:"entity"`
	Changes json.RawMessage `json:"changes"`
}

// normalise turns a module event into the wire shape. Missing fields get
// defaults: type = the action name, id = the broker's sequence number,
// ts = the clock's time, entity = null, changes = the event's other fields
// (or the event itself when it is not an object).
func normalise(raw json.RawMessage, action string, seq uint64, now time.Time) []byte {
	ev := wireEvent{
		Type:    mustJSON(action),
		ID:      mustJSON("evt-" + strconv.FormatUint(seq, 10)),
		TS:      mustJSON(now.UTC().Format("2006-01-02T15:04:05.000Z07:00")),
		Entity:  json.RawMessage("null"),
		Changes: json.RawMessage("null"),
	}
	var obj map[string]json.RawMessage
	if decodeObject(string(raw), &obj) != nil {
		ev.Changes = raw
		return mustJSON(ev)
	}
	rest := map[string]json.RawMessage{}
	for k, v := range obj {
		switch k {
		case "type":
			ev.Type = v
		case "id":
			ev.ID = v
		case "ts":
			ev.TS = v
		case "entity":
			ev.Entity = v
		case "changes":
			ev.Changes = v
		default:
			rest[k] = v
		}
	}
	if _, has := obj["changes"]; !has && len(rest) > 0 {
		ev.Changes = mustJSON(rest)
	}
	return mustJSON(ev)
}

// publish relays events of a committed action. A subscriber whose queue is
// full is disconnected rather than silently skipped.
func (b *broker) publish(session, action string, events []json.RawMessage, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	for _, raw := range events {
		b.seq++
		msg := normalise(raw, action, b.seq, now)
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

func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for sub := range b.subs {
		delete(b.subs, sub)
		close(sub.ch)
	}
}
