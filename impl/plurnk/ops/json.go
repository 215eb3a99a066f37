package ops

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/theory/jsonpath"
)

// jnode is one value of a JSON document with the byte range it spans in the
// source: an object member from its key to the end of its value, anything
// else its value. Members and items keep source order.
type jnode struct {
	key    string // the member name; "" for the root and array items
	item   bool   // an array item
	kind   byte   // '{' object, '[' array, 's' string, 'n' number, 'b' bool, 'z' null
	text   string // a scalar's text: a string unquoted, anything else as written
	from   int    // where the node starts: a member's key, else its value
	vfrom  int    // where its value starts
	to     int
	kids   []*jnode
	parent *jnode
}

// parseJSON parses content as exactly one JSON value and returns its tree.
func parseJSON(content string) (*jnode, error) {
	if !json.Valid([]byte(content)) {
		var v any
		err := json.Unmarshal([]byte(content), &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber()
	var value func(parent *jnode, key string, item bool, from int) (*jnode, error)
	value = func(parent *jnode, key string, item bool, from int) (*jnode, error) {
		start := skipJSON(content, int(dec.InputOffset()))
		if from < 0 {
			from = start
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		n := &jnode{key: key, item: item, from: from, vfrom: start, parent: parent}
		switch t := tok.(type) {
		case json.Delim:
			n.kind = byte(t)
			for dec.More() {
				var kid *jnode
				if t == '{' {
					kstart := skipJSON(content, int(dec.InputOffset()))
					k, err := dec.Token()
					if err != nil {
						return nil, err
					}
					name, _ := k.(string)
					kid, err = value(n, name, false, kstart)
					if err != nil {
						return nil, err
					}
				} else {
					kid, err = value(n, "", true, -1)
					if err != nil {
						return nil, err
					}
				}
				n.kids = append(n.kids, kid)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
		case string:
			n.kind, n.text = 's', t
		case json.Number:
			n.kind, n.text = 'n', t.String()
		case bool:
			n.kind, n.text = 'b', strconv.FormatBool(t)
		case nil:
			n.kind = 'z'
		}
		n.to = int(dec.InputOffset())
		return n, nil
	}
	root, err := value(nil, "", false, -1)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return root, nil
}

// skipJSON advances past whitespace and the separators the decoder
// consumes silently (`,` and `:`).
func skipJSON(s string, off int) int {
	for off < len(s) && strings.IndexByte(" \t\r\n,:", s[off]) >= 0 {
		off++
	}
	return off
}

// matchJSONPath resolves an RFC 9535 query over a channel's deepJson
// projection and reports the source lines each selected node spans. A
// channel without one answers 203. Results are gathered as a set of lines,
// so the order in which the query visits object members does not show.
func matchJSONPath(p *jsonpath.Path, d Derived, mimetype string) MatchResult {
	proj := d.DeepJSON
	if proj == nil {
		why := d.JSONError
		if why == "" {
			why = "its mimetype's process derived no deepJson projection"
		}
		return MatchResult{Status: 203, Reason: fmt.Sprintf("the source (%s) is not valid JSON, so a jsonpath matcher cannot read it: %s", mimetype, why)}
	}
	var out []int
	for _, ln := range p.SelectLocated(proj.doc) {
		if n, ok := proj.at[ln.Path.Pointer()]; ok {
			out = n.Span.add(out)
		}
	}
	return hits(out)
}
