package plurnk

import (
	"context"
	"fmt"
	"strings"

	"anchorage/features/kit"

	"github.com/cucumber/godog"
)

// registerSharpGreenSteps registers the steps of sharp_green.feature: the
// model's tokenizer in a session of runs, and the token count a session's
// entry (scratch included) stored when it was written.
func registerSharpGreenSteps(sc kit.Steps) {
	sc.Step(`^every model of the session counts one token per (\d+) characters$`, func(ctx context.Context, n int) error {
		return getRuns(ctx).drv.tokenizer(n)
	})
	sc.Step(`^the session's entry (\S+) stored (\d+) tokens$`, func(ctx context.Context, target string, n int) error {
		e, err := getRuns(ctx).entry(target)
		if err != nil {
			return err
		}
		if got := e.Channels["body"].Tokens; got != n {
			return fmt.Errorf("the body channel of %s stored %d tokens, want %d", target, got, n)
		}
		return nil
	})
	sc.Step(`^the (system|user) slot of packet (\d+) shows, in order, the headers:$`, thenHeadersInOrder)
}

// thenHeadersInOrder reads the rendered text of a packet's slot, the text
// the model is sent, and compares its "## " header lines, in order, with
// the doc string's lines.
func thenHeadersInOrder(ctx context.Context, slot string, n int, doc *godog.DocString) error {
	text, err := slotText(ctx, slot, n)
	if err != nil {
		return err
	}
	var got []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "## ") {
			got = append(got, line)
		}
	}
	want := strings.Split(strings.TrimSpace(doc.Content), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		return fmt.Errorf("the %s slot of packet %d has the headers\n%s\nwant\n%s", slot, n, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	return nil
}

// slotText is the rendered text of packet n's system or user slot: what the
// model is sent.
func slotText(ctx context.Context, slot string, n int) (string, error) {
	p, err := packetN(ctx, n)
	if err != nil {
		return "", err
	}
	if slot == "user" {
		return p.User, nil
	}
	return p.System, nil
}
