// Package catalog fuzzes the readers of anchorage's own inputs: the spec
// digest parser and the feature loader of reports/catalog. Whatever the
// bytes, they return problems or errors, never panic, and finish quickly.
package catalog

import (
	"testing"
	"testing/fstest"

	"anchorage/reports/catalog"
)

func FuzzDigest(f *testing.F) {
	f.Add("# d\n## S\n{§a-b} **MUST** x.\n\nDecision (§a-b): y.\nAlias §o → §a-b\nRetired §r → —: gone\n")
	f.Add("## S\n```\n{§in-fence}\n")
	f.Add("{§x}{§x}{§x} **MAY**")
	f.Add("Retired §a → §b\nAlias §c →")
	f.Fuzz(func(t *testing.T, spec string) {
		fsys := fstest.MapFS{"features/demo/SPEC.md": {Data: []byte(spec)}}
		d, err := catalog.ParseDigest(fsys, "features/demo/SPEC.md", "demo")
		if d == nil && err == nil {
			t.Fatal("neither a digest nor an error")
		}
	})
}

func FuzzFeatures(f *testing.F) {
	f.Add("@demo\nFeature: f\n  @§a-b\n  Scenario: s\n    Given x\n")
	f.Add("Feature: f\n  Scenario Outline: o\n    Given <n>\n    Examples:\n      | n |\n      | 1 |\n")
	f.Add("@§\nFeature:\n  Rule: r\n    Background:\n      Given b\n")
	f.Fuzz(func(t *testing.T, feature string) {
		fsys := fstest.MapFS{
			"features/demo/SPEC.md":   {Data: []byte("# d\n## S\n{§a-b} **MUST** x.\n")},
			"features/demo/f.feature": {Data: []byte(feature)},
		}
		c, _, err := catalog.Load(fsys, "features")
		if err != nil {
			t.Fatalf("a readable tree gave an error: %v", err)
		}
		_ = c.Check() // must not panic on whatever parsed
		_ = c.Orphans()
	})
}
