package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The token count of the openai provider is ceil(len/N) for
// PLURNK_OPENAI_CHARS_PER_TOKEN=N, four characters a token without it; a
// count that is not a positive number refuses the provider.
func TestOpenAICharsPerToken(t *testing.T) {
	for _, c := range []struct {
		env  string
		text string
		want int
	}{
		{"", "0123456789", 3},
		{"5", "0123456789", 2},
		{"5", "01234567890", 3},
		{"1", "abc", 3},
	} {
		env := map[string]string{}
		if c.env != "" {
			env[EnvOpenAICharsPerToken] = c.env
		}
		p, err := OpenAIFactory(env)("m")
		if err != nil {
			t.Fatalf("%s=%q: %v", EnvOpenAICharsPerToken, c.env, err)
		}
		if got := p.CountTokens(c.text); got != c.want {
			t.Errorf("%s=%q: %q counts %d tokens, want %d", EnvOpenAICharsPerToken, c.env, c.text, got, c.want)
		}
	}
	for _, bad := range []string{"0", "-2", "four"} {
		if _, err := OpenAIFactory(map[string]string{EnvOpenAICharsPerToken: bad})("m"); err == nil {
			t.Errorf("%s=%q: the provider was made", EnvOpenAICharsPerToken, bad)
		}
	}
}

// A request names the run whose turn it is in the header X-Plurnk-Run, and
// a request of no run sends none.
func TestOpenAIRunHeader(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("X-Plurnk-Run"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"model":"m","choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`))
	}))
	defer srv.Close()
	p := &OpenAI{BaseURL: srv.URL, Model: "m"}
	for _, run := range []string{"scout", ""} {
		if _, err := p.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}, Run: run}); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 || got[0] != "scout" || got[1] != "" {
		t.Fatalf("X-Plurnk-Run headers %q, want [scout, \"\"]", got)
	}
}
