package provider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
)

// OpenAI is a Provider speaking the OpenAI-compatible chat-completions
// protocol (POST <BaseURL>/chat/completions), which most model servers
// offer (vLLM, llama.cpp's server, Ollama, OpenRouter, OpenAI itself).
// It sends the two packet messages, streaming or not, and reads back the
// content, the reasoning (reasoning_content or reasoning), the finish
// reason, the model and the usage; a usage.cost the server reports (in
// USD, as OpenRouter does) becomes the turn's cost, else the configured
// prices apply. The whole response body is kept as assistantRaw. The
// request carries the run's abort signal, so cancelling the run aborts
// the HTTP request.
type OpenAI struct {
	BaseURL string // e.g. http://127.0.0.1:8400/v1
	APIKey  string // sent as a Bearer token when set
	Model   string
	Stream  bool
	// Context is the model's context window in tokens; 0 means unknown.
	Context int
	// PromptPico and CompletionPico price one token in pico-USD when the
	// server reports no cost.
	PromptPico, CompletionPico int64
	// CharsPerToken is the tokenizer estimate: ceil(len/CharsPerToken)
	// bytes (4 when 0).
	CharsPerToken int
	Client        *http.Client // nil uses http.DefaultClient
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model         string         `json:"model"`
	Messages      []chatMessage  `json:"messages"`
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions map[string]any `json:"stream_options,omitempty"`
	User          string         `json:"user,omitempty"`
	Grammar       string         `json:"grammar,omitempty"`
}

type chatUsage struct {
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	Cost             *float64 `json:"cost"`
}

// chatText is a message or a delta. The reasoning a server may send beside
// the content is not read: nothing of the service shows it.
type chatText struct {
	Content string `json:"content"`
}

type chatChoice struct {
	Message      chatText `json:"message"`
	Delta        chatText `json:"delta"`
	FinishReason *string  `json:"finish_reason"`
}

// chatResponse is a completion or a chunk of one. The model name a server
// echoes is not read: nothing of the service shows it.
type chatResponse struct {
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage"`
	Error   *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Generate implements Provider.
func (p *OpenAI) Generate(ctx context.Context, req Request) (Response, error) {
	body := chatRequest{Model: p.Model, Stream: p.Stream, User: req.Client, Grammar: req.Grammar}
	if p.Stream {
		body.StreamOptions = map[string]any{"include_usage": true}
	}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, chatMessage{Role: string(m.Role), Content: m.Content})
	}
	// body holds only strings, booleans and a map of them, which Marshal
	// cannot fail to encode; its error joins the request's.
	b, encErr := json.Marshal(body)
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(p.BaseURL, "/")+"/chat/completions", bytes.NewReader(b))
	if err = errors.Join(encErr, err); err != nil {
		return Response{}, fmt.Errorf("openai: request: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if p.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+p.APIKey)
	}
	if req.Client != "" {
		hr.Header.Set("X-Plurnk-Client", req.Client)
	}
	if req.Run != "" {
		hr.Header.Set("X-Plurnk-Run", req.Run)
	}
	hc := p.Client
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return Response{}, fmt.Errorf("openai: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return Response{}, fmt.Errorf("openai: read: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return Response{}, fmt.Errorf("openai: %s: %s", resp.Status, clip(string(raw)))
	}
	var out Response
	if p.Stream {
		out, err = decodeStream(raw)
	} else {
		out, err = decodeWhole(raw)
	}
	if err != nil {
		return Response{}, err
	}
	out.AssistantRaw = string(raw)
	return out, nil
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func usageOf(u *chatUsage) Usage {
	if u == nil {
		return Usage{}
	}
	out := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	if u.Cost != nil && *u.Cost >= 0 {
		out.CostPico = int64(math.Round(*u.Cost * 1e12))
		out.CostReported = true
	}
	return out
}

func decodeWhole(raw []byte) (Response, error) {
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil {
		return Response{}, fmt.Errorf("openai: decode: %w", err)
	}
	if cr.Error != nil {
		return Response{}, fmt.Errorf("openai: %s", cr.Error.Message)
	}
	if len(cr.Choices) == 0 {
		return Response{}, errors.New("openai: the response has no choice")
	}
	c := cr.Choices[0]
	a := Assistant{Content: c.Message.Content, Usage: usageOf(cr.Usage)}
	if c.FinishReason != nil {
		a.FinishReason = *c.FinishReason
	}
	return Response{Assistant: a}, nil
}

// decodeStream reads a server-sent event stream of chat.completion.chunk
// objects: the deltas are concatenated, the last finish reason and usage
// win; "data: [DONE]" ends it.
func decodeStream(raw []byte) (Response, error) {
	var a Assistant
	var content strings.Builder
	done := false
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			done = true
			break
		}
		var cr chatResponse
		if err := json.Unmarshal([]byte(data), &cr); err != nil {
			return Response{}, fmt.Errorf("openai: stream chunk: %w", err)
		}
		if cr.Error != nil {
			return Response{}, fmt.Errorf("openai: %s", cr.Error.Message)
		}
		if cr.Usage != nil {
			a.Usage = usageOf(cr.Usage)
		}
		for _, c := range cr.Choices {
			content.WriteString(c.Delta.Content)
			if c.FinishReason != nil {
				a.FinishReason = *c.FinishReason
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Response{}, fmt.Errorf("openai: stream: %w", err)
	}
	if !done {
		return Response{}, errors.New("openai: the stream ended without [DONE]")
	}
	a.Content = content.String()
	return Response{Assistant: a}, nil
}

// CountTokens implements Provider: ceil(len/CharsPerToken).
func (p *OpenAI) CountTokens(text string) int {
	per := p.CharsPerToken
	if per <= 0 {
		per = 4
	}
	return (len(text) + per - 1) / per
}

// CostFor implements Provider: the cost the server reported, else the
// configured prices.
func (p *OpenAI) CostFor(u Usage) int64 {
	if u.CostReported {
		return u.CostPico
	}
	return int64(u.PromptTokens)*p.PromptPico + int64(u.CompletionTokens)*p.CompletionPico
}

// ContextSize implements Provider.
func (p *OpenAI) ContextSize() (int, bool) { return p.Context, p.Context > 0 }
