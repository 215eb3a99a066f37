// Package provider is the LLM transport surface of plurnk-service 0.56 as
// the engine consumes it (features/plurnk/SPEC.md, §provider-surface-*,
// §meta-passthrough): one Generate per turn under the run's abort signal, a
// synchronous CountTokens, CostFor per completed turn, and the ContextSize
// the budget reads.
//
// It may import the standard library and anchorage/impl/plurnk/telemetry.
package provider

import (
	"context"
	"encoding/json"

	"anchorage/impl/plurnk/telemetry"
)

// Role names the slot a message fills: the cache-stable system message or
// the user message.
type Role string

const (
	RoleSystem Role = "system"
	RoleUser   Role = "user"
)

// Message is one message of a request.
type Message struct {
	Role    Role
	Content string
}

// Request is what the engine hands to Generate once per turn.
type Request struct {
	Messages []Message
	// Client is the client id the session declared (settings.client);
	// "" when none was (§client-telemetry).
	Client string
	// Run is the name of the run whose turn it is ("" when none).
	Run string
	// Alias names the model alias loop.run asked for; "" is the default
	// (§provider-instantiation-alias-resolution).
	Alias string
	// Grammar, when set, is a GBNF grammar the reply must follow (the
	// boot check of §grammar-enforcement-verified-at-boot sends one).
	Grammar string
}

// Usage is the token accounting of one completed exchange.
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	// CostPico is the cost the server itself reported for the exchange,
	// when CostReported; CostFor then returns it.
	CostPico     int64 `json:"-"`
	CostReported bool  `json:"-"`
}

// Add returns the token counts of u plus v (a reported cost belongs to one
// exchange: CostFor prices each turn, and the turns' costs are summed).
func (u Usage) Add(v Usage) Usage {
	return Usage{PromptTokens: u.PromptTokens + v.PromptTokens, CompletionTokens: u.CompletionTokens + v.CompletionTokens}
}

// Assistant is the model's side of one exchange. Content is what the
// engine parses with the plurnk grammar.
type Assistant struct {
	Content      string
	Reasoning    string
	Usage        Usage
	FinishReason string
	Model        string
}

// Response is what Generate returns. AssistantRaw is the vendor's payload,
// kept opaque. Meta is an open JSON object the engine stores per turn and
// passes to the client without reading it; nil when the provider returned
// none. Telemetry holds notices the provider forwards (for example
// grammar_unenforced).
type Response struct {
	Assistant    Assistant
	AssistantRaw string
	Meta         json.RawMessage
	Telemetry    []telemetry.Notice
}

// Provider is an LLM transport.
type Provider interface {
	// Generate runs one exchange. ctx is the run's abort signal: a
	// cancelled run cancels the call.
	Generate(ctx context.Context, req Request) (Response, error)
	// CountTokens is synchronous and returns a non-negative count.
	CountTokens(text string) int
	// CostFor prices one completed turn's usage in pico-USD.
	CostFor(u Usage) int64
	// ContextSize is the model's context window in tokens; ok is false when
	// the provider has no budget information (the spec's null).
	ContextSize() (size int, ok bool)
}
