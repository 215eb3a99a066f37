package llm

import (
	"context"
	"fmt"

	"anchorage/impl/plurnk/provider"
)

// Router is a provider that hands each run's Generate to that run's own
// provider (by the request's Run), and everything else (tokenizer, prices,
// context size) to Default. Scenarios script one model per run with it; a
// daemon with one provider for every run needs none.
type Router struct {
	Default provider.Provider
	ByRun   map[string]provider.Provider
}

// Generate calls the provider of the run req names, or Default.
func (r *Router) Generate(ctx context.Context, req provider.Request) (provider.Response, error) {
	p, ok := r.ByRun[req.Run]
	if !ok {
		p = r.Default
	}
	if p == nil {
		return provider.Response{}, fmt.Errorf("router: no provider for run %q", req.Run)
	}
	return p.Generate(ctx, req)
}

// CountTokens is Default's.
func (r *Router) CountTokens(text string) int { return r.Default.CountTokens(text) }

// CostFor is Default's.
func (r *Router) CostFor(u provider.Usage) int64 { return r.Default.CostFor(u) }

// ContextSize is Default's.
func (r *Router) ContextSize() (int, bool) { return r.Default.ContextSize() }
