package dsl

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFoldTarget(t *testing.T) {
	tests := []struct {
		target string
		want   Address
		str    string
	}{
		{"known://x", Address{Scheme: "known", Path: "/x"}, "known:///x"},
		{"known:///x", Address{Scheme: "known", Path: "/x"}, "known:///x"},
		{"known://entries/foo", Address{Scheme: "known", Path: "/entries/foo"}, "known:///entries/foo"},
		{"known://", Address{Scheme: "known", Path: "/"}, "known:///"},
		{"known:///a.md#notes", Address{Scheme: "known", Path: "/a.md", Fragment: "notes", HasFragment: true}, "known:///a.md#notes"},
		{"run://worker/notes.md", Address{Scheme: "run", Path: "/worker/notes.md"}, "run:///worker/notes.md"},
		{"sh:///1/1/2#stderr", Address{Scheme: "sh", Path: "/1/1/2", Fragment: "stderr", HasFragment: true}, "sh:///1/1/2#stderr"},
		{"https://example.com/a", Address{Scheme: "https", Host: "example.com", Path: "/a"}, "https://example.com/a"},
		{"http://example.com", Address{Scheme: "http", Host: "example.com"}, "http://example.com"},
		{"notes.md", Address{Path: "/notes.md"}, "/notes.md"},
		{"/x", Address{Path: "/x"}, "/x"},
		{"./src/../lib/a.go", Address{Path: "/lib/a.go"}, "/lib/a.go"},
		{"src/", Address{Path: "/src/"}, "/src/"},
		{"src/**/*.ts", Address{Path: "/src/**/*.ts"}, "/src/**/*.ts"},
		{"./", Address{Path: "/"}, "/"},
		{"a/b/..", Address{Path: "/a/"}, "/a/"},
	}
	for _, tt := range tests {
		got, err := FoldTarget(parseTarget(tt.target), nil)
		if err != nil {
			t.Errorf("FoldTarget(%q): %v", tt.target, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("FoldTarget(%q) (-want +got):\n%s", tt.target, diff)
		}
		if got.String() != tt.str {
			t.Errorf("FoldTarget(%q).String() = %q, want %q", tt.target, got.String(), tt.str)
		}
	}
	// The fold makes the three spellings one entry.
	a, _ := FoldTarget(parseTarget("known://x"), nil)
	b, _ := FoldTarget(parseTarget("known:///x"), nil)
	c, _ := FoldTarget(Target{Scheme: "known", Path: "/x"}, nil)
	if a != b || b != c {
		t.Errorf("known://x, known:///x, /x fold to %v, %v, %v", a, b, c)
	}
	// A caller-supplied predicate decides what is foreign.
	got, _ := FoldTarget(parseTarget("ftp://host/p"), func(s string) bool { return s == "ftp" })
	if got.Host != "host" || got.Path != "/p" {
		t.Errorf("custom foreign scheme folded: %+v", got)
	}
	for _, p := range []string{"..", "../x", "a/../../x"} {
		if _, err := FoldTarget(parseTarget(p), nil); !errors.Is(err, ErrEscapesRoot) {
			t.Errorf("FoldTarget(%q) = %v, want ErrEscapesRoot", p, err)
		}
	}
}

func TestClassifyMatcher(t *testing.T) {
	tests := []struct {
		body string
		want Matcher
	}{
		{"TODO*", Matcher{Dialect: DialectGlob, Raw: "TODO*"}},
		{"//h1/text()", Matcher{Dialect: DialectXPath, Raw: "//h1/text()"}},
		{"/timeout|deadline/i", Matcher{Dialect: DialectRegex, Raw: "/timeout|deadline/i", Pattern: "timeout|deadline", Flags: "i"}},
		{`/a\/b/`, Matcher{Dialect: DialectRegex, Raw: `/a\/b/`, Pattern: `a\/b`}},
		{"#x#gi", Matcher{Dialect: DialectRegex, Raw: "#x#gi", Pattern: "x", Flags: "gi"}},
		{"$.users[*]", Matcher{Dialect: DialectJSONPath, Raw: "$.users[*]"}},
		{"~graph algorithms", Matcher{Dialect: DialectSemantic, Raw: "~graph algorithms"}},
		{"@<sym", Matcher{Dialect: DialectGraph, Raw: "@<sym"}},
	}
	for _, tt := range tests {
		got, err := ClassifyMatcher(tt.body)
		if err != nil {
			t.Errorf("ClassifyMatcher(%q): %v", tt.body, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ClassifyMatcher(%q) (-want +got):\n%s", tt.body, diff)
		}
	}
	for _, body := range []string{"/etc/hosts", "/open", "#x#ii", "/x/q"} {
		if _, err := ClassifyMatcher(body); err == nil {
			t.Errorf("ClassifyMatcher(%q) = nil error, want an invalid regex", body)
		}
	}
}
