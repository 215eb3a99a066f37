package deck

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/cucumber/godog"
)

// fakeDeck is a shell deck: it prints a blank frame at power on and
// answers every line with answer, then a blank frame.
func fakeDeck(t *testing.T, atPowerOn, answer string) (*procDeck, *[]string) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	frame := strings.Repeat(`echo;`, screenRows) + `echo "-- cycles 0  clock +0s";`
	script := atPowerOn + frame + `while read -r l; do ` + answer + frame + `done`
	var logged []string
	p := &procDeck{cmd: []string{"sh", "-c", script, "deck"}, dir: t.TempDir(), logf: func(f string, a ...any) {
		logged = append(logged, fmt.Sprintf(f, a...))
	}}
	t.Cleanup(p.stop)
	return p, &logged
}

// TestUnsupportedSkips pins the protocol's `-- unsupported:` answer: the
// step is skipped with the deck's reason, never passed or failed.
func TestUnsupportedSkips(t *testing.T) {
	p, logged := fakeDeck(t, "", `echo "-- unsupported: FLASH FAIL (no fault injection on this board)";`)
	if err := p.start(); err != nil {
		t.Fatal(err)
	}
	err := p.logSkip(p.send("FLASH FAIL torn-write"))
	if !errors.Is(err, godog.ErrSkip) || !strings.Contains(err.Error(), "no fault injection on this board") {
		t.Errorf("send: %v, want a skip naming the deck's reason", err)
	}
	if err := p.logSkip(p.refused("HANDLE X")); !errors.Is(err, godog.ErrSkip) {
		t.Errorf("refused: %v, want a skip", err)
	}
	// .ci/targets counts one SKIPPED line per skipped scenario.
	if len(*logged) != 1 || !strings.HasPrefix((*logged)[0], "SKIPPED (") || !strings.Contains((*logged)[0], "no fault injection") {
		t.Errorf("logged %q, want one SKIPPED line", *logged)
	}
}

// TestPowerOnAnswers pins the two answers a deck may give instead of its
// first frame: a refusal (the step judges it) and unsupported (skipped).
func TestPowerOnAnswers(t *testing.T) {
	p, _ := fakeDeck(t, `echo "-- unsupported: -part nRF52832"; exit 0;`, "")
	if err := p.start("-part", "nRF52832"); !errors.Is(err, godog.ErrSkip) {
		t.Errorf("unsupported board: %v, want a skip", err)
	}
	p, _ = fakeDeck(t, `echo "-- error: sram: deckstate: 4672 bytes refused"; exit 1;`, "")
	var refused powerRefused
	if err := p.start(); !errors.As(err, &refused) || refused.msg != "sram: deckstate: 4672 bytes refused" {
		t.Errorf("refusal: %v", err)
	}
}
