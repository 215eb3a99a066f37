package rpc

import (
	"testing"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/vary"
)

// TestVaryFrame: each frame variation changes what is sent and nothing of
// what it means: members reversed, a daemon member added, an error's
// message reworded with what it quotes kept; without them the frame is
// sent as it is.
func TestVaryFrame(t *testing.T) {
	frame := []byte(`{"jsonrpc":"2.0","id":1,"result":{"a":1,"b":[{"c":"x","d":2.50}]}}`)
	cases := []struct {
		vary string
		in   []byte
		want string
	}{
		{"", frame, string(frame)},
		{config.VaryJSONOrder, frame, `{"result":{"b":[{"d":2.50,"c":"x"}],"a":1},"id":1,"jsonrpc":"2.0"}`},
		{config.VaryExtraMembers, frame, `{"jsonrpc":"2.0","id":1,"result":{"a":1,"b":[{"c":"x","d":2.50}],"daemon":"plurnkd"}}`},
		{config.VaryReasons, []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: unknown member \"content\""}}`),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad params: unrecognised member \"content\""}}`},
	}
	for _, c := range cases {
		v, err := vary.Parse(c.vary, config.Variations())
		if err != nil {
			t.Fatal(err)
		}
		s := &Server{cfg: ServerConfig{Vary: v}}
		if got := string(s.varyFrame(c.in)); got != c.want {
			t.Errorf("%q: %s, want %s", c.vary, got, c.want)
		}
	}
}
