package ops

import (
	"encoding/json"
	"strings"
	"testing"

	"anchorage/impl/plurnk/dsl"
	"github.com/google/go-cmp/cmp"
)

const serviceYAML = `# service
---
name: api   # the name
port: 8080
debug: false
ratio: 0.5
hex: 0x1F
none: ~
empty:
quoted: "a # b\tc"
single: 'it''s'
url: http://x:1/y
tags:
  - web
  - "edge"
servers:
- host: a
  port: 1
-
  host: b
nested:
  deep:
    key: v
`

func TestYAMLProjection(t *testing.T) {
	d := processYAML(serviceYAML)
	if d.DeepJSON == nil {
		t.Fatalf("no deepJson: %s", d.JSONError)
	}
	var want any
	if err := json.Unmarshal([]byte(`{"name":"api","port":8080,"debug":false,"ratio":0.5,"hex":31,"none":null,"empty":null,
		"quoted":"a # b\tc","single":"it's","url":"http://x:1/y","tags":["web","edge"],
		"servers":[{"host":"a","port":1},{"host":"b"}],"nested":{"deep":{"key":"v"}}}`), &want); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(d.DeepJSON.doc)
	if err != nil {
		t.Fatal(err)
	}
	var gotv any
	if err := json.Unmarshal(got, &gotv); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, gotv); diff != "" {
		t.Fatalf("deepJson (-want +got):\n%s", diff)
	}
	if d.Symbols[0] != (Symbol{"name", "key", 3}) || len(d.Symbols) != 13 {
		t.Fatalf("symbols %v", d.Symbols)
	}
	for q, lines := range map[string][]int{
		"$.port":                 {4},
		"$.tags[1]":              {15},
		"$.tags":                 {13, 14, 15},
		"$.servers[1]":           {19, 20},
		"$.servers[?@.port==1]":  {17, 18},
		"$.nested.deep.key":      {23},
		"$.nested":               {21, 22, 23},
		"$.empty":                {9},
		"//servers/item[2]/host": {20},
		"//deep":                 {22, 23},
		"$.port.x":               nil,
	} {
		m, _ := dsl.ClassifyMatcher(q)
		r := Match(m, serviceYAML, "application/yaml")
		if !cmp.Equal(r.Lines, lines) {
			t.Fatalf("%s = %+v, want lines %v", q, r, lines)
		}
	}
}

func TestYAMLOutsideTheBlockSubsetHasNoProjection(t *testing.T) {
	for _, c := range []struct{ src, why string }{
		{"", "empty"},
		{"# only a comment\n", "empty"},
		{"a: [1, 2]\n", "flow"},
		{"a: {b: 1}\n", "flow"},
		{"a: &x 1\nb: *x\n", "anchors"},
		{"a: !!str 1\n", "tags"},
		{"a: |\n  text\n", "block scalars"},
		{"a: one\n  two\n", "plain scalar over lines"},
		{"a: 1\n---\nb: 2\n", "one document"},
		{"a:\n\tb: 1\n", "tab"},
		{"a: 1\n  b: 2\n", "plain scalar over lines"},
		{"a:\n    b: 1\n  c: 2\n", "indented inconsistently"},
		{"a: 1\n- b\n", "indented inconsistently"},
		{"- a\nb: 1\n", "indented inconsistently"},
		{"? a\n: 1\n", "complex key"},
		{"a: \"open\n", "double-quoted"},
		{"a: 'x' y\n", "single-quoted"},
		{"a: \"\\q\"\n", "invalid syntax"},
		{"a: 1\njust words\n", "no `key: value`"},
	} {
		d := processYAML(c.src)
		if d.DeepJSON != nil || !strings.Contains(d.JSONError, c.why) || d.Symbols != nil {
			t.Errorf("%q derived %+v, want no deepJson because %q", c.src, d, c.why)
		}
	}
}

func TestYAMLScalars(t *testing.T) {
	for src, want := range map[string]string{
		"007": "7", "-3": "-3", "+4": "4", "0o17": "15", "0x": `"0x"`, "0x-1": `"0x-1"`, "0xz": `"0xz"`,
		"1.": "1", ".5": "0.5", "1e3": "1000", "-2.5E-1": "-0.25", "e3": `"e3"`, ".": `"."`, "1e": `"1e"`,
		"1.2.3": `"1.2.3"`, "True": "true", "FALSE": "false", "Null": "null", "NULL": "null", "hello": `"hello"`,
		"99999999999999999999": "1e+20", ".inf": `".inf"`, "a#b": `"a#b"`, "'#'": `"#"`,
	} {
		d := processYAML("v: " + src + "\n")
		if d.DeepJSON == nil {
			t.Fatalf("%s: %s", src, d.JSONError)
		}
		got, _ := json.Marshal(d.DeepJSON.doc.(map[string]any)["v"])
		if string(got) != want {
			t.Errorf("v: %s = %s, want %s", src, got, want)
		}
	}
}
