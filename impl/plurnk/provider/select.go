package provider

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Operator variables of the model selection
// (§provider-instantiation-alias-resolution).
const (
	// EnvModel names the alias used when loop.run gives none.
	EnvModel = "PLURNK_MODEL"
	// EnvModelPrefix declares an alias: PLURNK_MODEL_<alias>=<provider>/<model-id>.
	EnvModelPrefix = "PLURNK_MODEL_"
	// EnvGBNF switches the boot grammar check on (unset or 0: off).
	EnvGBNF = "PLURNK_PROVIDERS_GBNF"

	// The variables of the openai provider package.
	EnvOpenAIBaseURL = "PLURNK_OPENAI_BASE_URL" // default https://api.openai.com/v1
	EnvOpenAIKey     = "OPENAI_API_KEY"
	EnvOpenAIStream  = "PLURNK_OPENAI_STREAM"  // 1: stream the replies
	EnvOpenAIContext = "PLURNK_OPENAI_CONTEXT" // the context window in tokens
	// EnvOpenAICharsPerToken is the characters one token stands for in the
	// provider's token count, ceil(len/N) (default 4).
	EnvOpenAICharsPerToken = "PLURNK_OPENAI_CHARS_PER_TOKEN"
	// DefaultOpenAIBaseURL is the base URL when PLURNK_OPENAI_BASE_URL is unset.
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
)

// ErrUnavailable is returned for a model alias no variable declares, or
// when no model is selected at all.
var ErrUnavailable = errors.New("provider unavailable")

// Factory builds the provider of one provider package for a model id.
type Factory func(model string) (Provider, error)

// Alias is one declared alias: the provider package and its model id.
type Alias struct {
	Name    string
	Package string
	Model   string
}

// ParseAliases reads every PLURNK_MODEL_<alias>=<provider>/<model-id>:
// the first path segment names the provider package, the rest is that
// provider's model id (which may itself hold slashes).
func ParseAliases(env map[string]string) ([]Alias, error) {
	var out []Alias
	for k, v := range env {
		name, ok := strings.CutPrefix(k, EnvModelPrefix)
		if !ok || name == "" {
			continue
		}
		pkg, model, ok := strings.Cut(strings.TrimSpace(v), "/")
		if !ok || pkg == "" || model == "" {
			return nil, fmt.Errorf("%s=%q: want <provider>/<model-id>", k, v)
		}
		out = append(out, Alias{Name: name, Package: pkg, Model: model})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Selector is the provider the engine sees: it routes each generate call
// to the alias the loop asked for, or to PLURNK_MODEL's. CountTokens,
// CostFor and ContextSize are the default alias's.
type Selector struct {
	byAlias map[string]Provider
	def     string
	names   []string // the provider packages in use, in the order of the first alias of each
}

// NewSelector instantiates every declared alias with the factory of its
// package; PLURNK_MODEL, when set, must name one of them.
func NewSelector(env map[string]string, factories map[string]Factory) (*Selector, error) {
	aliases, err := ParseAliases(env)
	if err != nil {
		return nil, err
	}
	s := &Selector{byAlias: map[string]Provider{}, def: strings.TrimSpace(env[EnvModel])}
	pkgs := map[string]bool{}
	for _, a := range aliases {
		f, ok := factories[a.Package]
		if !ok {
			return nil, fmt.Errorf("%s%s: no provider package %q", EnvModelPrefix, a.Name, a.Package)
		}
		p, err := f(a.Model)
		if err != nil {
			return nil, fmt.Errorf("%s%s: %w", EnvModelPrefix, a.Name, err)
		}
		s.byAlias[a.Name] = p
		if !pkgs[a.Package] {
			pkgs[a.Package] = true
			s.names = append(s.names, a.Package)
		}
	}
	if s.def != "" && s.byAlias[s.def] == nil {
		return nil, fmt.Errorf("%s=%q names no declared alias (declare %s%s=<provider>/<model-id>)", EnvModel, s.def, EnvModelPrefix, s.def)
	}
	return s, nil
}

// Has reports whether alias is declared; "" asks whether a default
// (PLURNK_MODEL) is selected.
func (s *Selector) Has(alias string) bool {
	if alias == "" {
		alias = s.def
	}
	return s.byAlias[alias] != nil
}

// Aliases returns the declared aliases' providers by name.
func (s *Selector) Aliases() map[string]Provider {
	out := make(map[string]Provider, len(s.byAlias))
	for k, v := range s.byAlias {
		out[k] = v
	}
	return out
}

// Packages are the provider packages the aliases use.
func (s *Selector) Packages() []string { return append([]string(nil), s.names...) }

// Default returns the provider PLURNK_MODEL selects, nil when none.
func (s *Selector) Default() Provider { return s.byAlias[s.def] }

func (s *Selector) pick(alias string) (Provider, error) {
	if alias == "" {
		alias = s.def
	}
	if alias == "" {
		return nil, fmt.Errorf("%w: %s is not set and loop.run gave no alias", ErrUnavailable, EnvModel)
	}
	p := s.byAlias[alias]
	if p == nil {
		return nil, fmt.Errorf("%w: no model alias %q", ErrUnavailable, alias)
	}
	return p, nil
}

// Generate implements Provider.
func (s *Selector) Generate(ctx context.Context, req Request) (Response, error) {
	p, err := s.pick(req.Alias)
	if err != nil {
		return Response{}, err
	}
	return p.Generate(ctx, req)
}

// CountTokens implements Provider (ceil(len/4) without a default model).
func (s *Selector) CountTokens(text string) int {
	if p := s.Default(); p != nil {
		return p.CountTokens(text)
	}
	return (len(text) + 3) / 4
}

// CostFor implements Provider.
func (s *Selector) CostFor(u Usage) int64 {
	if p := s.Default(); p != nil {
		return p.CostFor(u)
	}
	if u.CostReported {
		return u.CostPico
	}
	return 0
}

// ContextSize implements Provider.
func (s *Selector) ContextSize() (int, bool) {
	if p := s.Default(); p != nil {
		return p.ContextSize()
	}
	return 0, false
}

// OpenAIFactory returns the factory of the openai package configured by
// env (base URL, key, streaming, context window).
func OpenAIFactory(env map[string]string) Factory {
	return func(model string) (Provider, error) {
		p := &OpenAI{BaseURL: env[EnvOpenAIBaseURL], APIKey: env[EnvOpenAIKey], Model: model, Stream: env[EnvOpenAIStream] == "1"}
		if p.BaseURL == "" {
			p.BaseURL = DefaultOpenAIBaseURL
		}
		if v := env[EnvOpenAIContext]; v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s=%q: want a token count", EnvOpenAIContext, v)
			}
			p.Context = n
		}
		if v := env[EnvOpenAICharsPerToken]; v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%s=%q: want a positive count of characters", EnvOpenAICharsPerToken, v)
			}
			p.CharsPerToken = n
		}
		return p, nil
	}
}

// The probe of the boot grammar check: a trivial grammar and the one text
// it allows.
const (
	GrammarProbeText = "plurnk-grammar-ok"
	GrammarProbe     = `root ::= "` + GrammarProbeText + `"`
)

// GBNFEnabled reports whether PLURNK_PROVIDERS_GBNF asks for grammar
// enforcement (set and not 0).
func GBNFEnabled(env map[string]string) bool {
	v := strings.TrimSpace(env[EnvGBNF])
	return v != "" && v != "0"
}

// VerifyGrammar is the boot check (§grammar-enforcement-verified-at-boot):
// one generate call forcing the trivial grammar, whose reply must be
// exactly its one allowed text.
func VerifyGrammar(ctx context.Context, p Provider) error {
	resp, err := p.Generate(ctx, Request{Messages: []Message{
		{Role: RoleSystem, Content: "Grammar check."},
		{Role: RoleUser, Content: "Reply with the only text the grammar allows."},
	}, Grammar: GrammarProbe})
	if err != nil {
		return fmt.Errorf("%s: the grammar check call failed: %w", EnvGBNF, err)
	}
	if resp.Assistant.Content != GrammarProbeText {
		return fmt.Errorf("%s: the provider does not enforce grammars: forced %q, got %q", EnvGBNF, GrammarProbeText, clip(resp.Assistant.Content))
	}
	return nil
}

// LookupEnv reads an environment list into a map (for commands).
func LookupEnv(environ []string) map[string]string {
	out := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}
