// Package config reads the operator configuration of plurnk-service 0.56
// (features/plurnk/SPEC.md, §operator-config-max-turns-ceiling,
// §packet-inject, §policy-sections, §actor-boundary-doc-injection): the
// PLURNK_* variables, taken from an explicit environment map (never the
// process environment), and the operator files they name, read through an
// afero filesystem.
//
// Two override semantics apply. A ceiling (PLURNK_MAX_TURNS,
// PLURNK_MAX_COMMANDS, PLURNK_MAX_STRIKES, PLURNK_BUDGET_CEILING) is a bound
// no per-call request may widen: the most restrictive value wins. A default
// (PLURNK_MODEL, PLURNK_REQUIREMENTS) is replaced by any explicit per-call
// value.
//
// It may import the standard library and afero.
package config

import (
	"anchorage/impl/vary"

	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/afero"
)

// Off is the value of an integer limit that is switched off.
const Off = -1

// Doc is one operator reference document, PLURNK_MD_<ALIAS>=<path>.
type Doc struct {
	Alias string
	Path  string // ~ already expanded
}

// Config is the operator configuration the engine reads.
type Config struct {
	MaxTurns    int // PLURNK_MAX_TURNS, Off (-1) by default: no cap
	MaxStrikes  int // PLURNK_MAX_STRIKES, 3
	MaxCommands int // PLURNK_MAX_COMMANDS, 99
	// ManifestItems is PLURNK_MANIFEST_ITEMS: 0 (the default) foists no
	// catalog preview, -1 each active scheme's whole catalog, N > 0 its
	// first N rows (§actor-boundary-manifest-preview).
	ManifestItems  int
	MinCycles      int // PLURNK_MIN_CYCLES, 3
	MaxCyclePeriod int // PLURNK_MAX_CYCLE_PERIOD, 4
	BudgetCeiling  int // PLURNK_BUDGET_CEILING, Off when unset

	// PacketInject is PLURNK_PACKET_INJECT, "" when unset.
	PacketInject string
	// Policy is PLURNK_POLICY or its default ~/.plurnk/AGENTS.md;
	// PolicySet says whether the operator set it.
	Policy    string
	PolicySet bool
	// Project is PLURNK_PROJECT or its default <projectRoot>/AGENTS.md.
	Project    string
	ProjectSet bool

	Requirements string // PLURNK_REQUIREMENTS, the per-call default
	Model        string // PLURNK_MODEL, the per-call default

	Docs []Doc // PLURNK_MD_<ALIAS>, sorted by alias

	Home        string // HOME, what ~ expands to
	ProjectRoot string

	// Vary holds the spec-permitted variations in force (Variations); the
	// zero Set is the reference's own decisions.
	Vary vary.Set
}

// The variables this package reads.
const (
	EnvMaxTurns       = "PLURNK_MAX_TURNS"
	EnvMaxStrikes     = "PLURNK_MAX_STRIKES"
	EnvMaxCommands    = "PLURNK_MAX_COMMANDS"
	EnvMinCycles      = "PLURNK_MIN_CYCLES"
	EnvMaxCyclePeriod = "PLURNK_MAX_CYCLE_PERIOD"
	EnvBudgetCeiling  = "PLURNK_BUDGET_CEILING"
	EnvPacketInject   = "PLURNK_PACKET_INJECT"
	EnvPolicy         = "PLURNK_POLICY"
	EnvProject        = "PLURNK_PROJECT"
	EnvRequirements   = "PLURNK_REQUIREMENTS"
	EnvModel          = "PLURNK_MODEL"
	EnvDocPrefix      = "PLURNK_MD_"
	EnvManifestItems  = "PLURNK_MANIFEST_ITEMS"
)

// Load reads the configuration from env. projectRoot anchors the default
// project policy. A malformed integer is an error naming the variable.
func Load(env map[string]string, projectRoot string) (Config, error) {
	c := Config{
		MaxTurns: Off, MaxStrikes: 3, MaxCommands: 99, MinCycles: 3, MaxCyclePeriod: 4, BudgetCeiling: Off,
		Home: env["HOME"], ProjectRoot: projectRoot,
		Requirements: env[EnvRequirements], Model: env[EnvModel],
	}
	ints := []struct {
		name string
		dst  *int
		min  int
	}{
		{EnvMaxTurns, &c.MaxTurns, Off}, {EnvMaxStrikes, &c.MaxStrikes, 1}, {EnvMaxCommands, &c.MaxCommands, 0},
		{EnvMinCycles, &c.MinCycles, 2}, {EnvMaxCyclePeriod, &c.MaxCyclePeriod, 1}, {EnvBudgetCeiling, &c.BudgetCeiling, Off},
	}
	for _, v := range ints {
		s, ok := env[v.name]
		if !ok || strings.TrimSpace(s) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < v.min {
			return Config{}, fmt.Errorf("config: %s=%q: want an integer ≥ %d", v.name, s, v.min)
		}
		if v.min == Off && n <= 0 {
			n = Off
		}
		*v.dst = n
	}
	if s := strings.TrimSpace(env[EnvManifestItems]); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < -1 {
			return Config{}, fmt.Errorf("config: %s=%q: want -1, 0 or a positive integer", EnvManifestItems, s)
		}
		c.ManifestItems = n
	}
	c.PacketInject = c.Expand(env[EnvPacketInject])
	c.Policy, c.PolicySet = c.Expand(env[EnvPolicy]), env[EnvPolicy] != ""
	if !c.PolicySet {
		c.Policy = c.Expand("~/.plurnk/AGENTS.md")
	}
	c.Project, c.ProjectSet = c.Expand(env[EnvProject]), env[EnvProject] != ""
	if !c.ProjectSet {
		c.Project = path.Join(projectRoot, "AGENTS.md")
	} else if !path.IsAbs(c.Project) {
		c.Project = path.Join(projectRoot, c.Project)
	}
	for k, v := range env {
		alias, ok := strings.CutPrefix(k, EnvDocPrefix)
		if !ok || alias == "" || v == "" {
			continue
		}
		c.Docs = append(c.Docs, Doc{Alias: alias, Path: c.Expand(v)})
	}
	slices.SortFunc(c.Docs, func(a, b Doc) int { return strings.Compare(a.Alias, b.Alias) })
	return c, nil
}

// Expand replaces a leading ~ with the home directory.
func (c Config) Expand(p string) string {
	if p == "~" {
		return c.Home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return path.Join(c.Home, rest)
	}
	return p
}

// TurnLimit returns the turn cap of a loop whose caller asked for
// requested turns (0 or less: no request). The operator's positive
// PLURNK_MAX_TURNS caps the request with min(); Off means no cap at all.
func (c Config) TurnLimit(requested int) int {
	return ceiling(c.MaxTurns, requested)
}

// CommandLimit returns the per-emission op cap under a per-call or
// per-session request (negative: no request); 0 is a valid request.
func (c Config) CommandLimit(requested int) int {
	if requested < 0 {
		return c.MaxCommands
	}
	return min(c.MaxCommands, requested)
}

// Ceiling returns the token ceiling of the budget: the provider's context
// size narrowed by PLURNK_BUDGET_CEILING. ok is false when neither gives a
// budget.
func (c Config) Ceiling(contextSize int, hasContext bool) (int, bool) {
	n := Off
	if hasContext {
		n = contextSize
	}
	n = ceiling(c.BudgetCeiling, n)
	return n, n != Off
}

// ceiling combines an operator ceiling with a request: the most
// restrictive positive value, Off when neither is positive.
func ceiling(operator, requested int) int {
	switch {
	case operator > 0 && requested > 0:
		return min(operator, requested)
	case operator > 0:
		return operator
	case requested > 0:
		return requested
	}
	return Off
}

// ReadError is an operator file that was configured but cannot be read.
type ReadError struct {
	Var  string
	Path string
	Err  error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("%s=%s cannot be read: %v", e.Var, e.Path, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// ReadFile reads an operator file. A file the operator set explicitly
// must be readable (a ReadError otherwise); a default path that does not
// exist is simply absent, read as no content.
func ReadFile(fsys afero.Fs, name, p string, explicit bool) (string, error) {
	if p == "" {
		return "", nil
	}
	b, err := afero.ReadFile(fsys, p)
	if err == nil {
		return string(b), nil
	}
	if !explicit && errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return "", &ReadError{Var: name, Path: p, Err: err}
}
