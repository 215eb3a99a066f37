package exec

import (
	"fmt"
	"strings"
)

// Scoped reports whether the variable name is taken out of a subprocess's
// environment: every PLURNK_* variable, and every provider API key, which
// is any name ending in _API_KEY (§exec-env-scoped).
func Scoped(name string) bool {
	return strings.HasPrefix(name, "PLURNK_") || strings.HasSuffix(name, "_API_KEY")
}

// ScopeEnv returns the environment a subprocess receives: the inherited
// shell variables, overridden by the project's .env variables, with every
// Scoped name removed. Each input is a list of NAME=VALUE pairs; the order
// of first appearance is kept.
func ScopeEnv(inherited, dotenv []string) []string {
	var names []string
	vals := map[string]string{}
	for _, list := range [][]string{inherited, dotenv} {
		for _, kv := range list {
			name, val, ok := strings.Cut(kv, "=")
			if !ok || name == "" {
				continue
			}
			if _, seen := vals[name]; !seen {
				names = append(names, name)
			}
			vals[name] = val
		}
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !Scoped(n) {
			out = append(out, n+"="+vals[n])
		}
	}
	return out
}

// ParseDotEnv reads a project .env file: one NAME=VALUE a line, blank
// lines and # comments skipped, an optional leading "export ", and one pair
// of matching quotes around the value removed.
func ParseDotEnv(text string) ([]string, error) {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		name, val, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("parse .env line %d: %q is not NAME=VALUE", i+1, line)
		}
		val = strings.TrimSpace(val)
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
			val = val[1 : len(val)-1]
		}
		out = append(out, name+"="+val)
	}
	return out, nil
}
