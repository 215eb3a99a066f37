package exec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScopeEnv(t *testing.T) {
	inherited := []string{"PATH=/usr/bin", "HOME=/home/me", "OPENAI_API_KEY=sk-1", "PLURNK_MAX_TURNS=9", "LANG=C"}
	dotenv, err := ParseDotEnv("# project\nexport DB_URL=\"postgres://x\"\n\nANTHROPIC_API_KEY=sk-2\nLANG='en_US.UTF-8'\nPLURNK_POLICY=/p\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"PATH=/usr/bin", "HOME=/home/me", "LANG=en_US.UTF-8", "DB_URL=postgres://x"}
	if d := cmp.Diff(want, ScopeEnv(inherited, dotenv)); d != "" {
		t.Errorf("scoped env (-want +got):\n%s", d)
	}
	if _, err := ParseDotEnv("not a pair\n"); err == nil {
		t.Error("a malformed .env line parsed")
	}
}
