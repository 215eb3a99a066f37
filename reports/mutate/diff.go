package mutate

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// LineRange is a range of 1-based lines, both ends included.
type LineRange struct {
	From, To int
}

// ChangedLines holds, per module-relative file, the lines a change added or
// modified.
type ChangedLines map[string][]LineRange

var hunkRe = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// ParseDiff reads the output of `git diff --unified=0` and returns the lines
// of the new side that were added or modified. Removed lines leave nothing to
// mutate and are not counted; a deleted file has no lines.
func ParseDiff(r io.Reader) (ChangedLines, error) {
	out := ChangedLines{}
	file := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "+++ "); ok {
			file = ""
			if p, ok := strings.CutPrefix(name, "b/"); ok {
				file = p
			}
			continue
		}
		m := hunkRe.FindStringSubmatch(line)
		if m == nil || file == "" {
			continue
		}
		from, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, fmt.Errorf("diff line %d: %q: %w", n, line, err)
		}
		count := 1
		if m[2] != "" {
			if count, err = strconv.Atoi(m[2]); err != nil {
				return nil, fmt.Errorf("diff line %d: %q: %w", n, line, err)
			}
		}
		if count > 0 {
			out[file] = append(out[file], LineRange{From: from, To: from + count - 1})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the diff: %w", err)
	}
	return out, nil
}

// AddFile marks every line of file as changed (a file new to the tree).
func (c ChangedLines) AddFile(file string) {
	c[file] = []LineRange{{From: 1, To: math.MaxInt}}
}

// Touches reports whether the mutant's text overlaps a changed line.
func (c ChangedLines) Touches(m Mutant) bool {
	for _, r := range c[m.File] {
		if m.Start.Line <= r.To && r.From <= m.End.Line {
			return true
		}
	}
	return false
}

// Files returns the changed files, sorted.
func (c ChangedLines) Files() []string {
	files := make([]string, 0, len(c))
	for f := range c {
		files = append(files, f)
	}
	sort.Strings(files)
	return files
}
