package jace

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// FilterView applies the audience rules to a view's JSON: for agents every
// "presentation" member is removed and every object whose own "audience"
// is "human" is dropped; for humans every object whose "audience" is
// "agent" is dropped. Key order and number spelling are kept. It scans the
// bytes directly (views come from the VM on every action, so this is on
// the hot path).
func FilterView(view json.RawMessage, audience string) (json.RawMessage, error) {
	drop := []byte(`"` + AudienceAgent + `"`)
	if audience == AudienceAgent {
		drop = []byte(`"` + AudienceHuman + `"`)
	}
	f := viewFilter{b: view, agent: audience == AudienceAgent, drop: drop}
	out := bytes.NewBuffer(make([]byte, 0, len(view)))
	i, kept, err := f.value(f.ws(0), out)
	if err != nil {
		return nil, fmt.Errorf("filtering the view: %w", err)
	}
	if i = f.ws(i); i != len(view) {
		return nil, fmt.Errorf("filtering the view: extra data at byte %d", i)
	}
	if !kept {
		return json.RawMessage("null"), nil
	}
	return json.RawMessage(out.Bytes()), nil
}

type viewFilter struct {
	b     []byte
	agent bool
	drop  []byte
}

func errTruncated() error { return fmt.Errorf("truncated JSON") }

func (f *viewFilter) ws(i int) int {
	for i < len(f.b) && (f.b[i] == ' ' || f.b[i] == '\n' || f.b[i] == '\t' || f.b[i] == '\r') {
		i++
	}
	return i
}

// str returns the index after the string starting at i.
func (f *viewFilter) str(i int) (int, error) {
	if i >= len(f.b) || f.b[i] != '"' {
		return 0, fmt.Errorf("want a string at byte %d", i)
	}
	for i++; i < len(f.b); i++ {
		switch f.b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errTruncated()
}

// skip returns the index after the value starting at i.
func (f *viewFilter) skip(i int) (int, error) {
	if i >= len(f.b) {
		return 0, errTruncated()
	}
	switch f.b[i] {
	case '"':
		return f.str(i)
	case '{', '[':
		depth := 0
		for ; i < len(f.b); i++ {
			switch f.b[i] {
			case '"':
				j, err := f.str(i)
				if err != nil {
					return 0, err
				}
				i = j - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errTruncated()
	}
	for i < len(f.b) && !bytes.ContainsRune([]byte(",}] \n\t\r"), rune(f.b[i])) {
		i++
	}
	return i, nil
}

// key reads the member name at i and returns it raw (quoted) and the index
// of its value.
func (f *viewFilter) key(i int) ([]byte, int, error) {
	j, err := f.str(i)
	if err != nil {
		return nil, 0, err
	}
	k := f.b[i:j]
	j = f.ws(j)
	if j >= len(f.b) || f.b[j] != ':' {
		return nil, 0, fmt.Errorf("want ':' at byte %d", j)
	}
	return k, f.ws(j + 1), nil
}

// keyIs reports whether the raw (quoted) member name raw is name. The
// names asked for ("audience", "presentation") have no character that
// JSON.stringify escapes, and views come from the VM's JSON.stringify, so
// such a member is always written as the plain name between quotes.
func keyIs(raw []byte, name string) bool {
	return len(raw) == len(name)+2 && string(raw[1:len(raw)-1]) == name
}

func (f *viewFilter) value(i int, out *bytes.Buffer) (int, bool, error) {
	if i >= len(f.b) {
		return 0, false, errTruncated()
	}
	switch f.b[i] {
	case '{':
		return f.object(i, out)
	case '[':
		return f.array(i, out)
	}
	j, err := f.skip(i)
	if err != nil {
		return 0, false, err
	}
	out.Write(f.b[i:j])
	return j, true, nil
}

func (f *viewFilter) object(start int, out *bytes.Buffer) (int, bool, error) {
	// First pass: is this object itself for the dropped audience?
	for i := f.ws(start + 1); i < len(f.b) && f.b[i] != '}'; {
		k, v, err := f.key(i)
		if err != nil {
			return 0, false, err
		}
		end, err := f.skip(v)
		if err != nil {
			return 0, false, err
		}
		if keyIs(k, "audience") && bytes.Equal(f.b[v:end], f.drop) {
			end, err := f.skip(start)
			return end, false, err
		}
		if i = f.ws(end); i < len(f.b) && f.b[i] == ',' {
			i = f.ws(i + 1)
		}
	}
	out.WriteByte('{')
	n := 0
	i := f.ws(start + 1)
	for i < len(f.b) && f.b[i] != '}' {
		k, v, err := f.key(i)
		if err != nil {
			return 0, false, err
		}
		var end int
		if f.agent && keyIs(k, "presentation") {
			if end, err = f.skip(v); err != nil {
				return 0, false, err
			}
		} else {
			mark := out.Len()
			if n > 0 {
				out.WriteByte(',')
			}
			out.Write(k)
			out.WriteByte(':')
			var kept bool
			if end, kept, err = f.value(v, out); err != nil {
				return 0, false, err
			}
			if kept {
				n++
			} else {
				out.Truncate(mark)
			}
		}
		if i = f.ws(end); i < len(f.b) && f.b[i] == ',' {
			i = f.ws(i + 1)
		}
	}
	if i >= len(f.b) {
		return 0, false, errTruncated()
	}
	out.WriteByte('}')
	return i + 1, true, nil
}

func (f *viewFilter) array(start int, out *bytes.Buffer) (int, bool, error) {
	out.WriteByte('[')
	n := 0
	i := f.ws(start + 1)
	for i < len(f.b) && f.b[i] != ']' {
		mark := out.Len()
		if n > 0 {
			out.WriteByte(',')
		}
		end, kept, err := f.value(i, out)
		if err != nil {
			return 0, false, err
		}
		if kept {
			n++
		} else {
			out.Truncate(mark)
		}
		if i = f.ws(end); i < len(f.b) && f.b[i] == ',' {
			i = f.ws(i + 1)
		}
	}
	if i >= len(f.b) {
		return 0, false, errTruncated()
	}
	out.WriteByte(']')
	return i + 1, true, nil
}
