package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"anchorage/impl/plurnk/provider"
)

// Server serves a Mock over the OpenAI-compatible chat-completions
// protocol: POST /v1/chat/completions (or /chat/completions), streaming
// (server-sent chat.completion.chunk events ending with "data: [DONE]")
// when the request sets "stream" (with a final usage chunk when
// stream_options.include_usage asks for one), and GET /v1/models. Each request is
// one Generate of the mock, so a scripted conversation can be played to
// any client of that protocol, plurnkd's openai provider among them.
//
// A request carrying a "grammar" of the trivial form root ::= "text" is
// answered with that text, without using a scripted reply, when
// HonourGrammar is set; otherwise the grammar is ignored and the next
// scripted reply goes back, as a server that does not enforce grammars
// would answer.
type Server struct {
	// HonourGrammar makes the server enforce the trivial grammar.
	HonourGrammar bool
	// Company, when positive, makes each request wait up to that long
	// for a second request to be in flight before it is answered, so two
	// calls a client lets overlap are sure to show in Peak.
	Company time.Duration

	mu    sync.Mutex
	mock  *Mock
	in    int // requests being answered
	peak  int
	calls []ServedCall
}

// ServedCall is what the server saw of one request.
type ServedCall struct {
	Model  string
	Client string // the "user" field
	// ClientHeader is the request's X-Plurnk-Client header ("" when none).
	ClientHeader string
	// RunHeader is the request's X-Plurnk-Run header ("" when none).
	RunHeader string
	Stream    bool
	Grammar   string
	// Authorization is the request's Authorization header ("" when none).
	Authorization string
	// Cancelled: the client went away before the answer (the request's
	// context ended while the reply was held).
	Cancelled bool
}

// NewServer returns a server over m.
func NewServer(m *Mock) *Server { return &Server{mock: m} }

// Start serves on a loopback port (httptest); Close the result to stop.
// Its URL plus "/v1" is the base URL of an OpenAI-compatible client.
func (s *Server) Start() *httptest.Server { return httptest.NewServer(s) }

// Calls returns what the server saw, in order.
func (s *Server) Calls() []ServedCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ServedCall(nil), s.calls...)
}

// Peak is the largest number of requests answered at once.
func (s *Server) Peak() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Stream        bool `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	User    string `json:"user"`
	Grammar string `json:"grammar"`
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch path := strings.TrimSuffix(r.URL.Path, "/"); {
	case r.Method == http.MethodGet && (path == "/v1/models" || path == "/models"):
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{"id": "scripted", "object": "model", "owned_by": "anchorage"}}})
	case r.Method == http.MethodPost && (path == "/v1/chat/completions" || path == "/chat/completions"):
		s.complete(w, r)
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"message": "no such endpoint: " + r.Method + " " + r.URL.Path}})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
	// A strict peer: the API documents a JSON body sent as such.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, map[string]any{"error": map[string]any{"message": "want Content-Type: application/json, got " + strconv.Quote(r.Header.Get("Content-Type"))}})
		return
	}
	var wr wireRequest
	if err := json.NewDecoder(r.Body).Decode(&wr); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "bad request: " + err.Error()}})
		return
	}
	req := provider.Request{Client: wr.User, Grammar: wr.Grammar}
	for _, m := range wr.Messages {
		req.Messages = append(req.Messages, provider.Message{Role: provider.Role(m.Role), Content: m.Content})
	}
	call := ServedCall{Model: wr.Model, Client: wr.User, Stream: wr.Stream, Grammar: wr.Grammar, Authorization: r.Header.Get("Authorization"), ClientHeader: r.Header.Get("X-Plurnk-Client"), RunHeader: r.Header.Get("X-Plurnk-Run")}

	s.mu.Lock()
	s.in++
	s.peak = max(s.peak, s.in)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.in--
		s.mu.Unlock()
	}()
	if text, ok := TrivialGrammar(wr.Grammar); ok && s.HonourGrammar {
		s.mu.Lock()
		s.calls = append(s.calls, call)
		s.mu.Unlock()
		s.answer(w, wr, provider.Response{Assistant: provider.Assistant{Content: text, FinishReason: "stop", Model: "scripted"}}, false)
		return
	}
	s.waitCompany()
	s.mu.Lock()
	if s.mock.next < len(s.mock.Replies) && s.mock.Replies[s.mock.next].Hold {
		// A long generation the client abandons: hold until the request's
		// context ends (the client cancelled it), then record that.
		s.mock.next++
		onAbort := s.mock.OnAbort
		s.calls = append(s.calls, call)
		i := len(s.calls) - 1
		s.mu.Unlock()
		if onAbort != nil {
			go onAbort()
		}
		<-r.Context().Done()
		s.mu.Lock()
		s.calls[i].Cancelled = true
		s.mu.Unlock()
		return
	}
	if s.mock.next < len(s.mock.Replies) && s.mock.Replies[s.mock.next].Hangup {
		// The server goes away mid-request: net/http closes the
		// connection without writing a response.
		s.mock.next++
		s.calls = append(s.calls, call)
		s.mu.Unlock()
		panic(http.ErrAbortHandler)
	}
	broken := s.mock.next < len(s.mock.Replies) && s.mock.Replies[s.mock.next].Broken
	cut := s.mock.next < len(s.mock.Replies) && s.mock.Replies[s.mock.next].Cut
	resp, err := s.mock.Generate(context.WithoutCancel(r.Context()), req)
	s.calls = append(s.calls, call)
	s.mu.Unlock()
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"message": err.Error()}})
		return
	}
	s.answer(w, wr, resp, broken)
	if cut {
		// Every byte out, then the connection drops before the
		// response's end (the last chunk of its chunked body).
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler)
	}
}

// waitCompany waits up to Company for another request to be in flight.
func (s *Server) waitCompany() {
	if s.Company <= 0 {
		return
	}
	deadline := time.Now().Add(s.Company)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		n := s.in
		s.mu.Unlock()
		if n >= 2 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// answer writes resp as one chat.completion, or as a stream of chunks;
// broken makes a stream carry a chunk that is not JSON after its first
// line (Reply.Broken).
func (s *Server) answer(w http.ResponseWriter, wr wireRequest, resp provider.Response, broken bool) {
	a := resp.Assistant
	usage := map[string]any{"prompt_tokens": a.Usage.PromptTokens, "completion_tokens": a.Usage.CompletionTokens,
		"total_tokens": a.Usage.PromptTokens + a.Usage.CompletionTokens}
	if a.Usage.CostReported {
		usage["cost"] = float64(a.Usage.CostPico) / 1e12
	}
	model := wr.Model
	if model == "" {
		model = a.Model
	}
	var finish any = a.FinishReason
	if a.FinishReason == "" {
		finish = nil
	}
	if !wr.Stream {
		msg := map[string]any{"role": "assistant", "content": a.Content}
		if a.Reasoning != "" {
			msg["reasoning_content"] = a.Reasoning
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion", "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	chunk := func(v map[string]any) {
		v["id"], v["object"], v["model"] = "chatcmpl-scripted", "chat.completion.chunk", model
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	if a.Reasoning != "" {
		chunk(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"reasoning_content": a.Reasoning}, "finish_reason": nil}}})
	}
	for _, piece := range strings.SplitAfter(a.Content, "\n") {
		if piece == "" {
			continue
		}
		chunk(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": piece}, "finish_reason": nil}}})
		if broken {
			broken = false
			fmt.Fprint(w, "data: {\"choices\": [\n\n")
		}
	}
	chunk(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}})
	if wr.StreamOptions.IncludeUsage {
		// As the protocol has it, a stream reports usage only on request.
		chunk(map[string]any{"choices": []any{}, "usage": usage})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// ParseScript splits a script file into model turns: a line holding only
// "---" separates two turns; blank lines at the start and end of a turn
// are dropped.
func ParseScript(text string) []string {
	var turns []string
	var cur []string
	emit := func() {
		t := strings.Trim(strings.Join(cur, "\n"), "\n")
		if strings.TrimSpace(t) != "" {
			turns = append(turns, t+"\n")
		}
		cur = nil
	}
	for _, ln := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(ln) == "---" {
			emit()
			continue
		}
		cur = append(cur, ln)
	}
	emit()
	return turns
}
