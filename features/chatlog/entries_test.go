package chatlog

import (
	"strings"
	"testing"
)

// TestSeedLevel pins what the seed-level comparison lets differ (what the
// seed leaves open) and what it does not (what the seed says).
func TestSeedLevel(t *testing.T) {
	const want = "**p** to agent at 09:00:00 (17ms)\n```JSON\n{\"a\":[1,2]}\n```\n\n```\n/*\nError: x\n    at …\n---\nUnhandled rejection: RangeError: nope\n…\n*/\n```\n"
	cases := []struct {
		name string
		got  string
		wall bool
		ok   bool
	}{
		{"the reference's bytes", "**p** to agent at 09:00:00 (17ms)\n```JSON\n{\"a\":[1,2]}\n```\n\n```\n/*\nError: x\n    at f (a.js:1)\n---\nUnhandled rejection: RangeError: nope\n    at g\n*/\n```\n", false, true},
		{"blank lines, a longer fence, another page name, indented JSON, an Error fence and other adapter words",
			"**request** to agent at 09:00:00 (17ms)\n\n````JSON\n{\n  \"a\": [1, 2]\n}\n````\n```Error\nError: x\n    at f\n---\n(in promise) RangeError: nope\n```\n\n", false, true},
		{"a placeholder before it", "**p** to agent at 09:00:00\nexecuting ...\n**p** to agent at 09:00:00 (17ms)\n```JSON\n{\"a\":[1,2]}\n```\n```Error\nError: x\n    at f\n---\nUnhandled rejection: RangeError: nope\n```\n", false, true},
		{"another value", "**p** to agent at 09:00:00 (17ms)\n```JSON\n{\"a\":[2,1]}\n```\n```Error\nError: x\n    at f\n---\nUnhandled rejection: RangeError: nope\n```\n", false, false},
		{"another agent", "**p** to bob at 09:00:00 (17ms)\n```JSON\n{\"a\":[1,2]}\n```\n```Error\nError: x\n    at f\n---\nUnhandled rejection: RangeError: nope\n```\n", false, false},
		{"another time", "**p** to agent at 09:00:01 (17ms)\n```JSON\n{\"a\":[1,2]}\n```\n```Error\nError: x\n    at f\n---\nUnhandled rejection: RangeError: nope\n```\n", false, false},
		{"another time on the wall clock", "**p** to agent at 22:10:01 (30ms)\n```JSON\n{\"a\":[1,2]}\n```\n```Error\nError: x\n    at f\n---\nUnhandled rejection: RangeError: nope\n```\n", true, true},
		{"no duration", "**p** to agent at 09:00:00\n```JSON\n{\"a\":[1,2]}\n```\n```Error\nError: x\n    at f\n---\nUnhandled rejection: RangeError: nope\n```\n", false, false},
		{"an ERROR marker", "**p** to agent at 09:00:00 (**ERROR** after 17ms)\n```JSON\n{\"a\":[1,2]}\n```\n```Error\nError: x\n    at f\n---\nUnhandled rejection: RangeError: nope\n```\n", false, false},
		{"one error missing", "**p** to agent at 09:00:00 (17ms)\n```JSON\n{\"a\":[1,2]}\n```\n```Error\nError: x\n    at f\n```\n", false, false},
		{"a comment block that ends early", "**p** to agent at 09:00:00 (17ms)\n```JSON\n{\"a\":[1,2]}\n```\n\n```\n/*\nError: x */ y\n    at f\n---\nUnhandled rejection: RangeError: nope\n*/\n```\n", false, false},
		{"a Text fence for a JSON value", "**p** to agent at 09:00:00 (17ms)\n```Text\n{\"a\":[1,2]}\n```\n```Error\nError: x\n    at f\n---\nUnhandled rejection: RangeError: nope\n```\n", false, false},
	}
	for _, c := range cases {
		err := seedLevel{wall: c.wall}.match(c.got, want, "suffix")
		if (err == nil) != c.ok {
			t.Errorf("%s: match = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// TestDurations pins the seed's rule for durations: whole milliseconds up
// to 2000 ms, seconds above, any precision of seconds that reads back.
func TestDurations(t *testing.T) {
	const head = "**p** to agent at 09:00:00 "
	cases := []struct {
		want, got string
		wall, ok  bool
	}{
		{"(2.5s)", "(2.500s)", false, true},
		{"(2.5s)", "(2500ms)", false, false},
		{"(2000ms)", "(2.0s)", false, false},
		{"(61.005s, late)", "(61.005s, late result)", false, true},
		{"(61.005s, late)", "(61.01s)", false, true},
		{"(61.005s, late)", "(61.2s)", false, false},
		{"(17ms)", "(3ms)", false, false},
		{"(17ms)", "(840ms)", true, true},
		{"(17ms)", "(2500ms)", true, false},
		{"(742ms)", "(12ms)", true, false},
		{"(**ERROR** after 5s, timeout)", "(**ERROR** after 5.004s)", true, true},
		{"(**ERROR** after 5s, timeout)", "(**ERROR** after 60s)", true, false},
	}
	for _, c := range cases {
		err := seedLevel{wall: c.wall}.match(head+c.got+"\n```JSON\n1\n```\n", head+c.want+"\n```JSON\n1\n```\n", "suffix")
		if (err == nil) != c.ok {
			t.Errorf("%s for %s (wall %v): %v, want ok %v", c.got, c.want, c.wall, err, c.ok)
		}
	}
}

// TestReadEntries reads the parts of a log.
func TestReadEntries(t *testing.T) {
	es := readEntries("notes\n**a** to p at 10:00:00\n```JS\n1\n```\n**p** to a at 10:00:01\nexecuting ...\n**p** to a at 10:00:01 (5ms)\nError: boom\n    at x\n")
	if len(es) != 4 || es[0].line != 0 || !es[1].request() || !es[2].placeholder() || es[3].paren != "5ms" || es[3].blocks[0].text != "Error: boom\n    at x" {
		var b strings.Builder
		for _, e := range es {
			b.WriteString(e.describe() + "\n")
		}
		t.Fatalf("entries:\n%s", b.String())
	}
}
