package ops

import (
	"sort"

	"anchorage/impl/plurnk/store"
)

// MimetypeHandler derives a structural view of one channel's content.
type MimetypeHandler func(content string) Derived

// Derived is what a mimetype handler reports about a content.
type Derived struct {
	Lines int
}

// Mimetypes maps a mimetype to its handler.
type Mimetypes struct {
	handlers map[string]MimetypeHandler
}

// NewMimetypes returns an empty handler set.
func NewMimetypes() *Mimetypes { return &Mimetypes{handlers: map[string]MimetypeHandler{}} }

// Register sets the handler of mimetype mt.
func (m *Mimetypes) Register(mt string, h MimetypeHandler) { m.handlers[mt] = h }

// Derivation is the derived view of one channel of one entry.
type Derivation struct {
	Key     store.Key
	Channel string
	Derived
}

// Derive is the per-turn pass that runs while the packet is assembled: it
// walks every entry of the session and calls the handler of each channel's
// mimetype (a channel with none is counted by lines). It is the only place
// mimetype handlers run; ops that write content never call them.
func (e *Engine) Derive(ss *store.Session) []Derivation {
	var out []Derivation
	for _, ent := range ss.Entries() {
		names := make([]string, 0, len(ent.Channels))
		for n := range ent.Channels {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			ch := ent.Channels[n]
			d := Derived{Lines: len(splitLines(ch.Content))}
			if e.Mimetypes != nil {
				if h, ok := e.Mimetypes.handlers[ch.Mimetype]; ok {
					d = h(ch.Content)
				}
			}
			out = append(out, Derivation{Key: ent.Key, Channel: n, Derived: d})
		}
	}
	return out
}
