package ops

import (
	"strings"
	"testing"

	"anchorage/impl/plurnk/dsl"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

const configJSON = `{
  "host": "example.org",
  "port": 8080,
  "tags": ["a", "b",
    "c"],
  "server": {
    "name": "api",
    "port": 9090
  },
  "a/b": 1
}
`

const pageHTML = `<!DOCTYPE html>
<html>
<body>
<h1 class="title">Plan</h1>
<p>first<br>second
<a href="/x"
   id="link">x</a>
</p>
<ul><li>one<li>two</ul>
</body>
</html>
`

const feedXML = `<?xml version="1.0"?>
<feed>
  <entry n="1">
    <title>One</title>
  </entry>
  <entry n="2"><title>Two</title></entry>
</feed>
`

func TestMatchDialects(t *testing.T) {
	cases := []struct {
		name, body, content, mimetype string
		status                        int
		lines                         []int
	}{
		{"glob starts-with", "TODO*", "TODO a\nno TODO\nTODO b", "text/markdown", 200, []int{1, 3}},
		{"glob contains", "*TODO*", "TODO a\nno TODO\nnothing", "text/markdown", 200, []int{1, 2}},
		{"glob class", "[Tt]odo*", "todo\nTodo\nTODO", "text/plain", 200, []int{1, 2}},
		{"glob none", "x*", "a\nb", "text/plain", 204, nil},
		{"glob malformed", "[a", "a", "text/plain", 400, nil},

		{"regex lines", "/b+/", "a\nbb\nc\nb", "text/plain", 200, []int{2, 4}},
		{"regex anchors are per line", "/^TODO/", "x\nTODO y\n  TODO z", "text/plain", 200, []int{2}},
		{"regex end anchor", "/done$/", "half done\ndone later\n", "text/plain", 200, []int{1}},
		{"regex i flag", "/todo/i", "TODO\nnope", "text/plain", 200, []int{1}},
		{"regex spans lines", `/a\nb/`, "a\nb\nc", "text/plain", 200, []int{1, 2}},
		{"regex s flag", "/a.b/s", "a\nb", "text/plain", 200, []int{1, 2}},
		{"regex without s", "/a.b/", "a\nb", "text/plain", 204, nil},
		{"regex hash delimiters", "#a/b#", "x\na/b", "text/plain", 200, []int{2}},
		{"regex empty match", "/x*/", "a\n\nb\n", "text/plain", 200, []int{1, 2, 3}},
		{"regex lookahead is not RE2", "/a(?=b)/", "ab", "text/plain", 400, nil},
		{"regex backreference is not RE2", `/(a)\1/`, "aa", "text/plain", 400, nil},
		{"regex unclosed group", "/(a/", "a", "text/plain", 400, nil},
		{"regex over empty content", "/x*/", "", "text/plain", 204, nil},

		{"jsonpath member", "$.port", configJSON, "application/json", 200, []int{3}},
		{"jsonpath nested", "$.server.port", configJSON, "application/json", 200, []int{8}},
		{"jsonpath object spans its lines", "$.server", configJSON, "application/json", 200, []int{6, 7, 8, 9}},
		{"jsonpath recursive descent", "$..port", configJSON, "application/json", 200, []int{3, 8}},
		{"jsonpath wildcard over items", "$.tags[*]", configJSON, "application/json", 200, []int{4, 5}},
		{"jsonpath negative index", "$.tags[-1]", configJSON, "application/json", 200, []int{5}},
		{"jsonpath filter", "$.server[?@ > 9000]", configJSON, "application/json", 200, []int{8}},
		{"jsonpath quoted name with a slash", "$['a/b']", configJSON, "application/json", 200, []int{10}},
		{"jsonpath root", "$", "[1,\n2]", "application/json", 200, []int{1, 2}},
		{"jsonpath none", "$.nope", configJSON, "application/json", 204, nil},
		{"jsonpath malformed", "$[", configJSON, "application/json", 400, nil},
		{"jsonpath not JSON", "$.a", "not json", "application/json", 203, nil},
		{"jsonpath over markdown that is JSON", "$.a", `{"a": 1}`, "text/markdown", 200, []int{1}},
		{"jsonpath two documents", "$.a", "{\"a\":1}\n{\"a\":2}", "application/json", 203, nil},

		{"xpath element", "//h1", pageHTML, "text/html", 200, []int{4}},
		{"xpath element spans lines", "//a", pageHTML, "text/html", 200, []int{6, 7}},
		{"xpath attribute", "//a/@id", pageHTML, "text/html", 200, []int{7}},
		{"xpath attribute predicate", "//h1[@class='title']", pageHTML, "text/html", 200, []int{4}},
		{"xpath auto-closed void element", "//br", pageHTML, "text/html", 200, []int{5}},
		{"xpath text", "//h1/text()", pageHTML, "text/html", 200, []int{4}},
		{"xpath xml", "//entry[@n='2']/title", feedXML, "application/xml", 200, []int{6}},
		{"xpath xml multi-line element", "//entry[1]", feedXML, "application/xml", 200, []int{3, 4, 5}},
		{"xpath over JSON", "//server/port", configJSON, "application/json", 200, []int{8}},
		{"xpath over JSON items", "//tags/item[2]", configJSON, "application/json", 200, []int{4}},
		{"xpath over JSON text", "//host/text()", configJSON, "application/json", 200, []int{2}},
		{"xpath none", "//nope", feedXML, "application/xml", 204, nil},
		{"xpath malformed", "//a[", feedXML, "application/xml", 400, nil},
		{"xpath value, not nodes", "//entry = 'x'", feedXML, "application/xml", 400, nil},
		{"xpath plain text", "//a", "just words", "text/plain", 203, nil},
		{"xpath broken xml", "//a", "<a><b></a>", "application/xml", 203, nil},
		{"xpath broken json", "//a", `{"a":`, "application/json", 203, nil},

		{"semantic is parked", "~close to", "a", "text/plain", 501, nil},
		{"graph without an index", "@callers", "a", "text/plain", 204, nil},
		{"graph naming no symbol", "@<", "a", "text/plain", 400, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := dsl.ClassifyMatcher(c.body)
			if err != nil {
				t.Fatal(err)
			}
			got := Match(m, c.content, c.mimetype)
			if got.Status != c.status || !cmp.Equal(got.Lines, c.lines) {
				t.Fatalf("%s over %s = %d %v (%s), want %d %v", c.body, c.mimetype, got.Status, got.Lines, got.Reason, c.status, c.lines)
			}
			if (got.Status == 203 || got.Status == 400 || got.Status == 501) && got.Reason == "" {
				t.Fatalf("status %d without a reason", got.Status)
			}
		})
	}
}

// A regex matcher selects exactly the lines a per-line search selects when
// the pattern cannot cross a line break.
func TestRegexAgreesWithPerLineSearch(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		lines := rapid.SliceOfN(rapid.StringMatching(`[ab ]{0,6}`), 0, 6).Draw(rt, "lines")
		pat := rapid.StringMatching(`\^?[ab]{1,3}\$?`).Draw(rt, "pattern")
		content := strings.Join(lines, "\n")
		if rapid.Bool().Draw(rt, "final newline") && content != "" {
			content += "\n"
		}
		m, err := dsl.ClassifyMatcher("/" + pat + "/")
		if err != nil {
			rt.Fatal(err)
		}
		got := Match(m, content, "text/plain")
		re := mustRE(rt, pat)
		var want []int
		for i, l := range splitLines(content) {
			if re(l) {
				want = append(want, i+1)
			}
		}
		if !cmp.Equal(got.Lines, want) {
			rt.Fatalf("/%s/ over %q: %v, per line %v", pat, content, got.Lines, want)
		}
	})
}

func mustRE(t *rapid.T, pat string) func(string) bool {
	c, bad := Compile(dsl.Matcher{Dialect: dsl.DialectRegex, Raw: "/" + pat + "/", Pattern: pat})
	if c == nil {
		t.Fatalf("%s: %s", pat, bad.Reason)
	}
	return c.re.MatchString
}

// Object members come out of a JSON decoder in no fixed order; the lines a
// wildcard selects do not depend on it.
func TestJSONPathWildcardIsDeterministic(t *testing.T) {
	m, _ := dsl.ClassifyMatcher("$.*")
	first := Match(m, configJSON, "application/json")
	for range 50 {
		if got := Match(m, configJSON, "application/json"); !cmp.Equal(got, first) {
			t.Fatalf("run differs: %v vs %v", got, first)
		}
	}
	if !cmp.Equal(first.Lines, []int{2, 3, 4, 5, 6, 7, 8, 9, 10}) {
		t.Fatalf("lines %v", first.Lines)
	}
}

// Match runs m over content: Compile, then Compiled.Match.
func Match(m dsl.Matcher, content, mimetype string) MatchResult {
	c, bad := Compile(m)
	if c == nil {
		return bad
	}
	return c.Match(content, mimetype)
}
