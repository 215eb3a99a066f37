package ops

import (
	"fmt"
	"strings"

	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
)

// graphQuery is a compiled @graph matcher: `@sym` the neighbourhood of sym
// (where it is declared and where it is used), `@<sym` its inbound
// references (the lines that use it), `@>sym` where it leads (the lines
// that declare it).
type graphQuery struct {
	dir byte // 0, '<' or '>'
	sym string
}

func compileGraph(raw string) (*graphQuery, error) {
	s := strings.TrimPrefix(raw, "@")
	q := &graphQuery{}
	if s != "" && (s[0] == '<' || s[0] == '>') {
		q.dir, s = s[0], s[1:]
	}
	q.sym = strings.TrimSpace(s)
	if q.sym == "" {
		return nil, fmt.Errorf("graph matcher %q names no symbol", raw)
	}
	return q, nil
}

// match resolves the query against what the derivation pass derived for
// one channel: the 1-based lines of the selected declarations and
// references, 204 when there are none or the channel was never derived.
func (q *graphQuery) match(d Derived, ok bool) MatchResult {
	if !ok {
		return MatchResult{Status: 204, Reason: "the channel has not been through a derivation pass yet"}
	}
	var lines []int
	take := func(ss []Symbol) {
		for _, s := range ss {
			if s.Name == q.sym {
				lines = append(lines, s.Line)
			}
		}
	}
	if q.dir != '<' {
		take(d.Symbols)
	}
	if q.dir != '>' {
		take(d.References)
	}
	return hits(lines)
}

// bind gives a matcher the session's derivations: a @graph matcher the
// symbol index as the last derivation pass left it, a jsonpath or xpath
// matcher the projections process derives for the channel it reads.
func (e *Engine) bind(c scheme.Call, m *Compiled) {
	if m == nil {
		return
	}
	session := c.Tx.Session.ID
	if m.graph != nil {
		m.index = func(k store.Key, channel string) (Derived, bool) { return e.symbolsOf(session, k, channel) }
	}
	if m.jp != nil || m.xp != nil {
		m.derive = func(k store.Key, channel, content, mt string) Derived {
			return e.derivedFor(session, k, channel, content, mt)
		}
	}
}
