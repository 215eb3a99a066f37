package mutate

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Block is one executed block of a coverage profile: the statements between
// Start and End (exclusive) of a module-relative file ran at least once.
type Block struct {
	File       string
	Start, End Pos
}

// ParseProfile reads a Go coverage profile in text form (go tool covdata
// textfmt) and returns the blocks that ran. Import paths are made
// module-relative by removing the module path and its slash.
func ParseProfile(r io.Reader, module string) ([]Block, error) {
	var out []Block
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 && strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		// name.go:L1.C1,L2.C2 statements count
		colon := strings.LastIndex(line, ":")
		if colon < 0 {
			return nil, fmt.Errorf("coverage profile line %d: no file: %q", n, line)
		}
		file, rest := line[:colon], line[colon+1:]
		f := strings.Fields(rest)
		if len(f) != 3 {
			return nil, fmt.Errorf("coverage profile line %d: want range, statements and count: %q", n, line)
		}
		count, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("coverage profile line %d: count: %w", n, err)
		}
		if count == 0 {
			continue
		}
		from, to, ok := strings.Cut(f[0], ",")
		if !ok {
			return nil, fmt.Errorf("coverage profile line %d: range %q", n, f[0])
		}
		s, err1 := parsePos(from)
		e, err2 := parsePos(to)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("coverage profile line %d: range %q", n, f[0])
		}
		out = append(out, Block{File: strings.TrimPrefix(file, module+"/"), Start: s, End: e})
	}
	return out, sc.Err()
}

func parsePos(s string) (Pos, error) {
	l, c, ok := strings.Cut(s, ".")
	if !ok {
		return Pos{}, fmt.Errorf("position %q", s)
	}
	line, err1 := strconv.Atoi(l)
	col, err2 := strconv.Atoi(c)
	if err1 != nil || err2 != nil {
		return Pos{}, fmt.Errorf("position %q", s)
	}
	return Pos{line, col}, nil
}

// Coverage says which scenarios executed which blocks.
type Coverage struct {
	Scenarios []string                // locations, in run order
	Seconds   []float64               // wall time of each scenario in the coverage run
	Blocks    map[string][]ScenarioBl // file → blocks, with who ran them

	index map[string]map[[2]Pos]int // file → block range → index in Blocks[file]
}

// ScenarioBl is a block with the indexes (into Coverage.Scenarios) of the
// scenarios that ran it.
type ScenarioBl struct {
	Start, End Pos
	By         []int
}

// NewCoverage returns an empty coverage index.
func NewCoverage() *Coverage { return &Coverage{Blocks: map[string][]ScenarioBl{}} }

// Add records that the scenario at location loc, taking secs of wall time,
// executed blocks.
func (c *Coverage) Add(loc string, secs float64, blocks []Block) {
	i := len(c.Scenarios)
	c.Scenarios = append(c.Scenarios, loc)
	c.Seconds = append(c.Seconds, secs)
	if c.index == nil {
		c.index = map[string]map[[2]Pos]int{}
		for f, bs := range c.Blocks {
			c.index[f] = map[[2]Pos]int{}
			for j, b := range bs {
				c.index[f][[2]Pos{b.Start, b.End}] = j
			}
		}
	}
	for _, b := range blocks {
		bs := c.Blocks[b.File]
		if c.index[b.File] == nil {
			c.index[b.File] = map[[2]Pos]int{}
		}
		key := [2]Pos{b.Start, b.End}
		if j, ok := c.index[b.File][key]; ok {
			if n := len(bs[j].By); bs[j].By[n-1] != i {
				bs[j].By = append(bs[j].By, i)
			}
			continue
		}
		c.index[b.File][key] = len(bs)
		c.Blocks[b.File] = append(bs, ScenarioBl{Start: b.Start, End: b.End, By: []int{i}})
	}
}

// Covering returns the locations of the scenarios that executed the block
// holding the mutant's start, sorted, and their coverage-run wall time.
func (c *Coverage) Covering(m Mutant) ([]string, float64) {
	seen := map[int]bool{}
	for _, b := range c.Blocks[m.File] {
		if !m.Start.Less(b.Start) && m.Start.Less(b.End) {
			for _, i := range b.By {
				seen[i] = true
			}
		}
	}
	var locs []string
	secs := 0.0
	for i := range seen {
		locs = append(locs, c.Scenarios[i])
		secs += c.Seconds[i]
	}
	sort.Strings(locs)
	return locs, secs
}
