package dsl

import (
	"fmt"
	"strings"
)

// Dialect is the expression language of a FIND/READ/OPEN/FOLD body.
type Dialect string

const (
	DialectGlob     Dialect = "glob"
	DialectXPath    Dialect = "xpath"
	DialectRegex    Dialect = "regex"
	DialectJSONPath Dialect = "jsonpath"
	DialectSemantic Dialect = "semantic"
	DialectGraph    Dialect = "graph"
)

// Matcher is a classified matcher body. Raw keeps the dialect prefix.
type Matcher struct {
	Dialect Dialect
	Raw     string
	Pattern string // regex only: the pattern between the delimiters
	Flags   string // regex only
}

// ClassifyMatcher picks the dialect of a matcher body from its leading
// characters: `//` xpath, `/…/flags` or `#…#flags` regex, `$` jsonpath,
// `~` semantic, `@` graph, anything else glob. A dialect prefix commits:
// a regex whose closing delimiter or flags are wrong is an error, never a
// glob. Only the regex delimiters and flags are checked here; the
// expressions themselves are the matcher's to validate.
func ClassifyMatcher(body string) (Matcher, error) {
	m := Matcher{Raw: body, Dialect: DialectGlob}
	switch {
	case strings.HasPrefix(body, "//"):
		m.Dialect = DialectXPath
	case strings.HasPrefix(body, "/"), strings.HasPrefix(body, "#"):
		m.Dialect = DialectRegex
		delim := body[0]
		end := -1
		for i := 1; i < len(body); i++ {
			if body[i] == '\\' {
				i++
				continue
			}
			if body[i] == delim {
				end = i
			}
		}
		if end < 1 {
			return Matcher{}, fmt.Errorf("matcher %q leads with %q but has no closing %q; expected %cpattern%cflags", clip(body), delim, delim, delim, delim)
		}
		m.Pattern, m.Flags = body[1:end], body[end+1:]
		for i, f := range m.Flags {
			if !strings.ContainsRune("dgimsuvy", f) || strings.ContainsRune(m.Flags[:i], f) {
				return Matcher{}, fmt.Errorf("matcher %q is not a valid %cpattern%cflags regex: invalid flags %q", clip(body), delim, delim, m.Flags)
			}
		}
	case strings.HasPrefix(body, "$"):
		m.Dialect = DialectJSONPath
	case strings.HasPrefix(body, "~"):
		m.Dialect = DialectSemantic
	case strings.HasPrefix(body, "@"):
		m.Dialect = DialectGraph
	}
	return m, nil
}
