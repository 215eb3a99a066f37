package ops

import (
	"encoding/json"
	"errors"
	"fmt"
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
	root, _ := jsonTree(jsonTokens(content), 0, nil, "", false, -1)
	return root, nil
}

// jtoken is one token of a JSON document: at is where it starts, end where
// the decoder stood after reading it.
type jtoken struct {
	tok     json.Token
	at, end int
}

// jsonTokens reads every token of content, which json.Valid accepted: the
// decoder then stops only at the end of the document (io.EOF).
func jsonTokens(content string) []jtoken {
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber()
	var toks []jtoken
	for {
		at := skipJSON(content, int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return toks
		}
		toks = append(toks, jtoken{tok: tok, at: at, end: int(dec.InputOffset())})
	}
}

// jsonTree builds the node of the value whose first token is toks[i] and
// returns it with the index of the token after the value. from is where
// the node starts (a member's key), or -1 for where its value starts.
func jsonTree(toks []jtoken, i int, parent *jnode, key string, item bool, from int) (*jnode, int) {
	t := toks[i]
	if from < 0 {
		from = t.at
	}
	n := &jnode{key: key, item: item, from: from, vfrom: t.at, parent: parent}
	i++
	switch v := t.tok.(type) {
	case json.Delim:
		n.kind = byte(v)
		for !closes(toks[i].tok) {
			var kid *jnode
			if v == '{' {
				name, _ := toks[i].tok.(string)
				kid, i = jsonTree(toks, i+1, n, name, false, toks[i].at)
			} else {
				kid, i = jsonTree(toks, i, n, "", true, -1)
			}
			n.kids = append(n.kids, kid)
		}
		i++ // the closing delimiter
	case string:
		n.kind, n.text = 's', v
	case json.Number:
		n.kind, n.text = 'n', v.String()
	case bool:
		n.kind, n.text = 'b', strconv.FormatBool(v)
	case nil:
		n.kind = 'z'
	}
	n.to = toks[i-1].end
	return n, i
}

// closes reports whether tok ends an object or an array.
func closes(tok json.Token) bool {
	d, ok := tok.(json.Delim)
	return ok && (d == '}' || d == ']')
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
