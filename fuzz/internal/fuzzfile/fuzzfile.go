// Package fuzzfile reads the files of Go's fuzzing corpus format ("go test
// fuzz v1" followed by one typed literal a line), so that the fuzz packages
// under fuzz/ can keep large pathological inputs as plain regression tests
// (testdata/pathological/<Target>/) instead of seeds the fuzzing engine
// would spend its time minimizing. It imports only the standard library.
package fuzzfile

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

const header = "go test fuzz v1"

// Parse decodes one corpus file into its values: []byte, string, bool,
// int or uint16, the types the targets under fuzz/ take.
func Parse(data []byte) ([]any, error) {
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) == 0 || lines[0] != header {
		return nil, fmt.Errorf("fuzzfile: missing %q header", header)
	}
	var vals []any
	for i, line := range lines[1:] {
		open := strings.IndexByte(line, '(')
		if open < 0 || !strings.HasSuffix(line, ")") {
			return nil, fmt.Errorf("fuzzfile: line %d: %q is not T(literal)", i+2, line)
		}
		typ, lit := line[:open], line[open+1:len(line)-1]
		var err error
		switch typ {
		case "[]byte", "string":
			var s string
			if s, err = strconv.Unquote(lit); err == nil {
				if typ == "string" {
					vals = append(vals, s)
				} else {
					vals = append(vals, []byte(s))
				}
			}
		case "bool":
			var b bool
			if b, err = strconv.ParseBool(lit); err == nil {
				vals = append(vals, b)
			}
		case "int":
			var n int64
			if n, err = strconv.ParseInt(lit, 0, 64); err == nil {
				vals = append(vals, int(n))
			}
		case "uint16":
			var n uint64
			if n, err = strconv.ParseUint(lit, 0, 16); err == nil {
				vals = append(vals, uint16(n))
			}
		default:
			err = fmt.Errorf("type %s not supported", typ)
		}
		if err != nil {
			return nil, fmt.Errorf("fuzzfile: line %d: %w", i+2, err)
		}
	}
	return vals, nil
}

// Entry is one decoded corpus file.
type Entry struct {
	Name   string // the file name
	Values []any
}

// ReadDir decodes every file of dir in fsys, in name order.
func ReadDir(fsys fs.FS, dir string) ([]Entry, error) {
	des, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("fuzzfile: %w", err)
	}
	sort.Slice(des, func(i, j int) bool { return des[i].Name() < des[j].Name() })
	var out []Entry
	for _, de := range des {
		if de.IsDir() {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, de.Name()))
		if err != nil {
			return nil, fmt.Errorf("fuzzfile: %w", err)
		}
		vals, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", de.Name(), err)
		}
		out = append(out, Entry{Name: de.Name(), Values: vals})
	}
	return out, nil
}
