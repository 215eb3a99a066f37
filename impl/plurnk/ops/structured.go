package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"anchorage/impl/plurnk/dsl"
)

// IsJSON reports whether mt is a JSON mimetype (application/json or any
// +json type).
func IsJSON(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// IsTree reports whether content of mimetype mt is navigated as a tree
// (JSON, XML, HTML and every +json/+xml type) and so renders verbatim
// (§render-rule-tree-navigable-verbatim); everything else is navigated by
// line and renders `N:\t`-numbered (§render-rule-line-navigable-prefix).
func IsTree(mt string) bool {
	switch mt {
	case "application/json", "application/xml", "text/xml", "text/html", "application/xhtml+xml":
		return true
	}
	return strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}

// jitem is one top-level item of a JSON array or object: an element, or a
// member with its key.
type jitem struct {
	key string
	val json.RawMessage
}

// jsonItems splits a JSON document into its top-level items, in document
// order. kind is '[' for an array, '{' for an object and 's' for a scalar
// (which has no items).
func jsonItems(content string) (kind byte, items []jitem, err error) {
	if !json.Valid([]byte(content)) {
		return 0, nil, fmt.Errorf("content is not one JSON value")
	}
	dec := json.NewDecoder(strings.NewReader(content))
	tok, err := dec.Token()
	if err != nil {
		return 0, nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return 's', nil, nil
	}
	for dec.More() {
		var it jitem
		if d == '{' {
			k, err := dec.Token()
			if err != nil {
				return 0, nil, err
			}
			it.key, _ = k.(string)
		}
		if err := dec.Decode(&it.val); err != nil {
			return 0, nil, err
		}
		items = append(items, it)
	}
	return byte(d), items, nil
}

// renderJSON writes items back as an array or object, indented by two
// spaces the way json.MarshalIndent writes it. The items are values the
// decoder produced, so the result is valid JSON; were it not, the compact
// form is returned as it is.
func renderJSON(kind byte, items []jitem) string {
	var raw bytes.Buffer
	open, end := byte('['), byte(']')
	if kind == '{' {
		open, end = '{', '}'
	}
	raw.WriteByte(open)
	for i, it := range items {
		if i > 0 {
			raw.WriteByte(',')
		}
		if kind == '{' {
			k, _ := json.Marshal(it.key) // a string always marshals
			raw.Write(k)
			raw.WriteByte(':')
		}
		raw.Write(it.val)
	}
	raw.WriteByte(end)
	var out bytes.Buffer
	if json.Indent(&out, raw.Bytes(), "", "  ") != nil {
		return raw.String()
	}
	return out.String()
}

// bodyItems parses an EDIT body spliced into a value of kind: into an array
// it is one JSON value (an array body gives its elements); into an object
// it must be an object, whose members are spliced.
func bodyItems(kind byte, body string) ([]jitem, error) {
	bk, items, err := jsonItems(body)
	if err != nil {
		return nil, err
	}
	switch {
	case kind == '[' && bk == '[':
		return items, nil
	case kind == '[':
		return []jitem{{val: json.RawMessage(strings.TrimSpace(body))}}, nil
	case bk != '{':
		return nil, fmt.Errorf("a body spliced into an object must be an object")
	}
	return items, nil
}

// spliceJSON is EDIT <L> on JSON content (§json-edit-structural-json-edit):
// it splices top-level items as spliceLines splices lines — <0> prepends,
// <-1> appends, <N> replaces item N, <a,b> a range, a null body deletes.
// A marker on a scalar, or a body that is not JSON, answers 400; items out
// of range answer 416.
func spliceJSON(content string, scope *dsl.Scope, body *string) (string, int, error) {
	kind, items, err := jsonItems(content)
	if err != nil {
		return "", 400, fmt.Errorf("the target's content does not parse as JSON: %v", err)
	}
	if kind == 's' {
		return "", 400, fmt.Errorf("<%s> on a JSON scalar: a scalar has no items to splice", scope)
	}
	var insert []jitem
	if body != nil && strings.TrimSpace(*body) != "" {
		if insert, err = bodyItems(kind, *body); err != nil {
			return "", 400, fmt.Errorf("the body does not parse as JSON for this target: %v", err)
		}
	}
	n := len(items)
	from, to, status, err := spliceSpan(scope, n)
	if err != nil {
		return "", status, fmt.Errorf("items %s", strings.TrimPrefix(err.Error(), "lines "))
	}
	kept := append(slices.Clone(items[:from]), items[to:]...)
	if kind == '{' {
		// A member already present outside the selection takes the new
		// value in place.
		var fresh []jitem
		for _, it := range insert {
			i := slices.IndexFunc(kept, func(k jitem) bool { return k.key == it.key })
			if i >= 0 {
				kept[i].val = it.val
				continue
			}
			fresh = append(fresh, it)
		}
		insert = fresh
		from = min(from, len(kept))
	}
	out := append(append(slices.Clone(kept[:from]), insert...), kept[from:]...)
	res := renderJSON(kind, out)
	if strings.HasSuffix(content, "\n") {
		res += "\n"
	}
	return res, 0, nil
}

// sliceJSON is READ <L> on JSON content: the selected top-level items,
// rendered verbatim as an array or object of their own.
func sliceJSON(content string, scope *dsl.Scope) (string, int, error) {
	kind, items, err := jsonItems(content)
	if err != nil || kind == 's' {
		return "", 0, errNotItems
	}
	a, b, status, err := sliceRange(scope, len(items))
	if err != nil {
		return "", status, fmt.Errorf("items %s", strings.TrimPrefix(err.Error(), "lines "))
	}
	return renderJSON(kind, items[a:b]) + "\n", 0, nil
}

var errNotItems = fmt.Errorf("content has no items")
