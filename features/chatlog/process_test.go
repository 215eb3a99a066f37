package chatlog

import (
	"regexp"
	"testing"
)

// TestProcessPattern pins what the process driver lets differ from the
// steps' literals: times of day and measured durations, never a timeout.
func TestProcessPattern(t *testing.T) {
	p := &process{}
	cases := []struct {
		want, got string
		match     bool
	}{
		{"**s** to agent at 09:00:00 (17ms)", "**s** to agent at 22:31:12 (8ms)", true},
		{"**s** to agent at 09:00:00 (17ms)", "**t** to agent at 22:31:12 (8ms)", false},
		{"completed (3.005s)", "completed (3.2s)", true},
		{"(**ERROR** after 5s, timeout)", "(**ERROR** after 5s, timeout)", true},
		{"(**ERROR** after 5s, timeout)", "(**ERROR** after 60s, timeout)", false},
		{"state: failed after 5000ms (timeout)", "state: failed after 60000ms (timeout)", false},
		{"* s (http://localhost:8302/) last 09:00:00 state: idle", "* s (http://localhost:4000/p/1) last 22:00:01 state: idle", true},
		{"ReferenceError: 'missing' is not defined", "ReferenceError: missing is not defined", true},
		{"TypeError: cannot read property 'x' of null", "TypeError: Cannot read properties of null (reading 'x')", true},
		{"TypeError: cannot read property 'x' of null", "TypeError: cannot read property 'x' of null", false},
	}
	for _, c := range cases {
		re := regexp.MustCompile(`\A` + p.pattern(c.want) + `\z`)
		if got := re.MatchString(c.got); got != c.match {
			t.Errorf("pattern(%q) = %q: matches %q %v, want %v", c.want, re, c.got, got, c.match)
		}
	}
	re := regexp.MustCompile(p.regexp(`\(\*\*ERROR\*\* after 17ms\)\n` + "TypeError: cannot read property 'x' of null"))
	if !re.MatchString("(**ERROR** after 9ms)\nTypeError: Cannot read properties of null (reading 'x')") {
		t.Errorf("regexp: %q does not match V8's words", re)
	}
}
