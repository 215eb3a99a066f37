// Package llm is a scripted LLM: a provider.Provider whose replies are
// plurnk DSL texts queued in advance, so a scenario writes the model's
// emissions as doc strings and the engine runs them turn by turn.
//
// Tokenizer rule: CountTokens(text) is ceil(len(text)/CharsPerToken), len in
// bytes, CharsPerToken 4 unless the script changes it; the empty text is 0
// tokens. ContextSize, the prices behind CostFor, meta blobs, forwarded
// notices and failing calls are all scripted.
//
// Server (server.go) serves a Mock over the OpenAI-compatible
// chat-completions protocol on loopback, so a client of that protocol
// (plurnkd's openai provider, any other plurnk daemon) can be driven by a
// script; cmd/llmserve runs one from a script file. Router (router.go)
// hands each run's turns to that run's own scripted model.
//
// It may import the standard library and anchorage/impl/plurnk/provider and
// anchorage/impl/plurnk/telemetry. It keeps no global state.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"anchorage/impl/plurnk/provider"
	"anchorage/impl/plurnk/telemetry"
)

// Error is the type of the mock's sentinel errors.
type Error string

func (e Error) Error() string { return string(e) }

// ErrExhausted is returned by Generate when the script has no reply left.
const ErrExhausted Error = "llm: the script has no reply left"

// Reply is one scripted turn.
type Reply struct {
	Content   string
	Reasoning string
	// Meta is returned as the response's meta; nil returns none.
	Meta json.RawMessage
	// Telemetry are notices the provider forwards with this reply.
	Telemetry []telemetry.Notice
	// Err makes the call fail with this error instead of replying.
	Err error
	// Abort makes the call stand for a long generation during which the
	// run is aborted: the mock calls OnAbort (which cancels the run) and
	// then answers with the error of the signal it was handed, as a real
	// transport does when its request is cancelled.
	Abort bool
	// Before, when set, is called as the call begins, before anything
	// is replied: a scenario acts while the model is generating.
	Before func()
	// Raw, when set, is returned as assistantRaw instead of the default
	// {"content": …} object.
	Raw string
	// Hold makes the loopback server (Server) hold the request open
	// until the client cancels it, calling OnAbort first: a long
	// generation abandoned over HTTP.
	Hold bool
	// Unfinished leaves the finish reason out (the protocol's null
	// finish_reason, as some servers send it).
	Unfinished bool
	// Broken makes the loopback server (Server), when it streams, send a
	// chunk that is not JSON after the reply's first line.
	Broken bool
	// Hangup makes the loopback server (Server) close the connection
	// without answering: the client's request fails in transport.
	Hangup bool
	// Cut makes the loopback server (Server) send the whole reply and
	// then drop the connection before the response ends: the client has
	// every byte, but its read of the body fails.
	Cut bool
}

// Mock is the scripted provider. Its zero value has no context size.
type Mock struct {
	Replies []Reply
	next    int

	CharsPerToken int // 0 means 4
	Context       int // the context size; 0 or less means none (null)

	PromptPico     int64 // price of one prompt token, pico-USD
	CompletionPico int64 // price of one completion token, pico-USD

	// OnAbort is called by a reply with Abort set.
	OnAbort func()
	// HonourGrammar makes a call carrying the trivial grammar
	// root ::= "text" answer that text without using a scripted reply;
	// otherwise a grammar is ignored, as by a server that does not
	// enforce grammars.
	HonourGrammar bool

	// What the engine did, for assertions.
	Requests    []provider.Request
	Signals     []context.Context
	CountCalls  int
	CostCalls   []provider.Usage
	ContextRead int
}

// New returns a mock that replies contents in order.
func New(contents ...string) *Mock {
	m := &Mock{}
	for _, c := range contents {
		m.Replies = append(m.Replies, Reply{Content: c})
	}
	return m
}

// Add queues a reply.
func (m *Mock) Add(r Reply) { m.Replies = append(m.Replies, r) }

// Remaining returns how many replies are still queued.
func (m *Mock) Remaining() int { return len(m.Replies) - m.next }

// Generate returns the next scripted reply. Usage counts the request's
// messages as prompt tokens and the reply as completion tokens.
func (m *Mock) Generate(ctx context.Context, req provider.Request) (provider.Response, error) {
	m.Requests = append(m.Requests, req)
	m.Signals = append(m.Signals, ctx)
	if err := ctx.Err(); err != nil {
		return provider.Response{}, fmt.Errorf("llm: generate: %w", err)
	}
	if text, ok := TrivialGrammar(req.Grammar); ok && m.HonourGrammar {
		return provider.Response{Assistant: provider.Assistant{Content: text, FinishReason: "stop", Model: "mock"}}, nil
	}
	if m.next >= len(m.Replies) {
		return provider.Response{}, ErrExhausted
	}
	r := m.Replies[m.next]
	m.next++
	if r.Before != nil {
		r.Before()
	}
	if r.Abort {
		if m.OnAbort != nil {
			m.OnAbort()
		}
		select {
		case <-ctx.Done():
			return provider.Response{}, fmt.Errorf("llm: generate: %w", ctx.Err())
		default:
			return provider.Response{}, errors.New("llm: the run was aborted but the signal handed to generate did not fire")
		}
	}
	if r.Err != nil {
		return provider.Response{}, r.Err
	}
	prompt := 0
	for _, msg := range req.Messages {
		prompt += m.count(msg.Content)
	}
	raw, err := json.Marshal(map[string]string{"content": r.Content})
	if err != nil {
		return provider.Response{}, fmt.Errorf("llm: raw: %w", err)
	}
	if r.Raw != "" {
		raw = []byte(r.Raw)
	}
	finish := "stop"
	if r.Unfinished {
		finish = ""
	}
	return provider.Response{
		Assistant: provider.Assistant{
			Content: r.Content, Reasoning: r.Reasoning, FinishReason: finish, Model: "mock",
			Usage: provider.Usage{PromptTokens: prompt, CompletionTokens: m.count(r.Content)},
		},
		AssistantRaw: string(raw),
		Meta:         r.Meta,
		Telemetry:    r.Telemetry,
	}, nil
}

// CountTokens is ceil(len(text)/CharsPerToken).
func (m *Mock) CountTokens(text string) int {
	m.CountCalls++
	return m.count(text)
}

func (m *Mock) count(text string) int {
	per := m.CharsPerToken
	if per <= 0 {
		per = 4
	}
	return (len(text) + per - 1) / per
}

// CostFor prices usage at the scripted rates.
func (m *Mock) CostFor(u provider.Usage) int64 {
	m.CostCalls = append(m.CostCalls, u)
	return int64(u.PromptTokens)*m.PromptPico + int64(u.CompletionTokens)*m.CompletionPico
}

// ContextSize returns the scripted context size, or none.
func (m *Mock) ContextSize() (int, bool) {
	m.ContextRead++
	return m.Context, m.Context > 0
}

// TrivialGrammar returns the one text a grammar of the form
// root ::= "text" allows, and whether g has that form.
func TrivialGrammar(g string) (string, bool) {
	m := regexp.MustCompile(`^\s*root\s*::=\s*"((?:[^"\\]|\\.)*)"\s*$`).FindStringSubmatch(g)
	if m == nil {
		return "", false
	}
	return strings.ReplaceAll(strings.ReplaceAll(m[1], `\"`, `"`), `\\`, `\`), true
}
