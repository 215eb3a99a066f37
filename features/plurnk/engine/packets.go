package engine

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/packet"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
)

// The packets the model received: their sections, slots and budget.

func registerPackets(sc world.Steps) {
	sc.Public(`^packet (\d+) has the (system|user) sections "([^"]*)"$`, func(ctx context.Context, n int, slot, want string) error {
		p, err := packetN(ctx, n)
		if err != nil {
			return err
		}
		got := sectionNames(p.Sections, packet.Slot(slot))
		if d := cmp.Diff(world.SplitList(want), got); d != "" {
			return fmt.Errorf("%s sections of packet %d (-want +got):\n%s", slot, n, d)
		}
		return nil
	})
	sc.Public(`^the (\S+) section of packet (\d+) reads:$`, thenSectionReads)
	sc.Public(`^the (\S+) section of packet (\d+) contains "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, name string, n int, want string) error {
		return sectionContains(ctx, name, n, driver.Unescape(want), true)
	})
	sc.Public(`^the (\S+) section of packet (\d+) does not contain "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, name string, n int, want string) error {
		return sectionContains(ctx, name, n, driver.Unescape(want), false)
	})
	sc.Public(`^packet (\d+) has no (\S+) section$`, func(ctx context.Context, n int, name string) error {
		s, ok, err := section(ctx, name, n)
		if err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("packet %d has a %s section:\n%s", n, name, s.Content)
		}
		return nil
	})
	sc.Public(`^the (system|user) slot of packet (\d+) shows the header "([^"]*)"$`, func(ctx context.Context, slot string, n int, h string) error {
		text, err := slotText(ctx, slot, n)
		if err != nil {
			return err
		}
		if !strings.Contains("\n"+text, "\n"+h+"\n") {
			return fmt.Errorf("the %s slot of packet %d has no line %q:\n%s", slot, n, h, text)
		}
		return nil
	})
	sc.Public(`^the (system|user) slot of packet (\d+) shows, in order, the headers:$`, thenHeadersInOrder)
	sc.Public(`^the errors section of packet (\d+) points at (\d+/\d+/\d+) with status (\d+)$`, thenErrorPointer)
	sc.Public(`^no packet mentions "([^"]*)"$`, func(ctx context.Context, want string) error {
		ps := packets(ctx)
		if len(ps) == 0 {
			return fmt.Errorf("no packet was delivered")
		}
		for i, p := range ps {
			if strings.Contains(strings.ToLower(p.Text()), strings.ToLower(want)) {
				return fmt.Errorf("packet %d mentions %q:\n%s", i+1, want, p.Text())
			}
		}
		return nil
	})
}

// packets returns the packets delivered by every loop so far, in order.
func packets(ctx context.Context) []*engine.Delivered {
	var out []*engine.Delivered
	for _, r := range world.Get(ctx).Loops {
		out = append(out, r.Packets()...)
	}
	return out
}

func packetN(ctx context.Context, n int) (*engine.Delivered, error) {
	ps := packets(ctx)
	if n < 1 || n > len(ps) {
		return nil, fmt.Errorf("no packet %d: %d packets were delivered", n, len(ps))
	}
	return ps[n-1], nil
}

func section(ctx context.Context, name string, n int) (packet.Section, bool, error) {
	p, err := packetN(ctx, n)
	if err != nil {
		return packet.Section{}, false, err
	}
	s, ok := findSection(p.Sections, name)
	return s, ok && s.Content != "", nil
}

func thenSectionReads(ctx context.Context, name string, n int, doc *godog.DocString) error {
	s, ok, err := section(ctx, name, n)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("packet %d has no %s section", n, name)
	}
	if d := cmp.Diff(driver.Unescape(doc.Content), strings.TrimRight(s.Content, "\n")); d != "" {
		return fmt.Errorf("%s section of packet %d (-want +got):\n%s", name, n, d)
	}
	return nil
}

func sectionContains(ctx context.Context, name string, n int, want string, should bool) error {
	s, ok, err := section(ctx, name, n)
	if err != nil {
		return err
	}
	if !ok && should {
		return fmt.Errorf("packet %d has no %s section", n, name)
	}
	if has := strings.Contains(s.Content, want); has != should {
		return fmt.Errorf("%s section of packet %d contains %q: %v, want %v; it reads:\n%s", name, n, want, has, should, s.Content)
	}
	return nil
}

// slotText is the rendered text of packet n's system or user slot: what
// the model is sent.
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

// thenHeadersInOrder compares the "## " header lines of a packet's slot,
// in order, with the doc string's lines.
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

func registerBudget(sc world.Steps) {
	sc.Public(`^the budget headline of packet (\d+) gives usage as a percent of a (\d+)-token ceiling$`, func(ctx context.Context, n, ceiling int) error {
		c, y, p, f, err := headline(ctx, n)
		if err != nil {
			return err
		}
		if c != ceiling || p != y*100/c || f != c-y {
			return fmt.Errorf("headline ceiling %d usage %d (%d%%) free %d: want ceiling %d, percent %d, free %d", c, y, p, f, ceiling, y*100/ceiling, ceiling-y)
		}
		return nil
	})
	sc.Public(`^the budget usage of packet (\d+) is the token count of the whole rendered packet$`, thenUsageMeasured)
	sc.Public(`^the heaviest-entries table of packet (\d+) lists (\S+) first$`, func(ctx context.Context, n int, handle string) error {
		table, err := budgetTable(ctx, n, "| entry | tokens |", "heaviest-entries table")
		if err != nil {
			return err
		}
		lines := strings.Split(table, "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[2], "| "+handle+" |") {
			return fmt.Errorf("the heaviest-entries table does not list %s first:\n%s", handle, table)
		}
		return nil
	})
	sc.Public(`^the heaviest-entries table of packet (\d+) has (\d+) rows?$`, thenHeaviestRows)
	sc.Public(`^the turn table of packet (\d+) lists the turns "([^"]*)"$`, thenTurnTable)
	sc.Public(`^every delivered packet is within its ceiling$`, func(ctx context.Context) error {
		ps := packets(ctx)
		if len(ps) == 0 {
			return fmt.Errorf("no packet was delivered")
		}
		for i := range ps {
			c, y, p, f, err := headline(ctx, i+1)
			if err != nil {
				return err
			}
			if y > c || p > 100 || f < 0 {
				return fmt.Errorf("packet %d is over budget: ceiling %d usage %d (%d%%) free %d", i+1, c, y, p, f)
			}
		}
		return nil
	})
}

// thenErrorPointer checks that the errors section of packet n points at the
// failed row at coordinate coord with its status: the seed gives the pointer
// as the row's status and its log:///<coord> address in one place, and as
// an action_failure with coordinate and status in another, so a line naming
// the coordinate (log:///-prefixed or not) and the status keeps both.
func thenErrorPointer(ctx context.Context, n int, coord string, status int) error {
	s, ok, err := section(ctx, "errors", n)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("packet %d has no errors section", n)
	}
	coordRE := regexp.MustCompile(`(^|[^0-9/]|log:///)` + regexp.QuoteMeta(coord) + `([^0-9/]|$)`)
	statusRE := regexp.MustCompile(`(^|[^0-9])` + strconv.Itoa(status) + `([^0-9]|$)`)
	for _, line := range strings.Split(s.Content, "\n") {
		if coordRE.MatchString(line) && statusRE.MatchString(line) {
			return nil
		}
	}
	return fmt.Errorf("the errors section of packet %d has no line naming %s with status %d; it reads:\n%s", n, coord, status, s.Content)
}

// headline reads the budget headline back from the packet's budget section.
func headline(ctx context.Context, n int) (c, y, p, f int, err error) {
	s, ok, err := section(ctx, packet.Budget, n)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	// The seed fixes `usage Y (P%)`; the ceiling and the free tokens are
	// read from beside it in either wording (`ceiling C, … free F` or
	// `… of C, F free`).
	mu := regexp.MustCompile(`usage (\d+) \((\d+)%\)`).FindStringSubmatch(s.Content)
	mc := regexp.MustCompile(`ceiling (\d+)|\) of (\d+)`).FindStringSubmatch(s.Content)
	mf := regexp.MustCompile(`free (\d+)|(\d+) free`).FindStringSubmatch(s.Content)
	if !ok || mu == nil || mc == nil || mf == nil {
		return 0, 0, 0, 0, fmt.Errorf("packet %d has no budget headline:\n%s", n, s.Content)
	}
	y, _ = strconv.Atoi(mu[1])
	p, _ = strconv.Atoi(mu[2])
	return firstNumber(mc), y, p, firstNumber(mf), nil
}

// firstNumber is the first group of a match that matched, as a number.
func firstNumber(m []string) int {
	for _, g := range m[1:] {
		if g != "" {
			v, _ := strconv.Atoi(g)
			return v
		}
	}
	return 0
}

func thenUsageMeasured(ctx context.Context, n int) error {
	_, y, _, _, err := headline(ctx, n)
	if err != nil {
		return err
	}
	p, _ := packetN(ctx, n)
	m := world.Get(ctx).Script.Model
	want := m.CountTokens(p.System) + m.CountTokens(p.User)
	measured := m.CountTokens(packet.RenderSlot(p.Sections, packet.System)) // sanity: sections render the slot
	if measured == 0 {
		return fmt.Errorf("packet %d has an empty system slot", n)
	}
	// The headline is measured with its placeholder in place, which is at
	// least as long as the figures that replace it.
	if y < want || y > want+len(packet.PlaceholderHeadline) {
		return fmt.Errorf("headline usage %d; the delivered packet counts %d tokens", y, want)
	}
	// The engine's own record of its measure, where the packet carries
	// it (one read back off the wire, from a daemon process, does not).
	if p.Measured != "" && y != p.Headline.Usage {
		return fmt.Errorf("headline usage %d, measured %d", y, p.Headline.Usage)
	}
	return nil
}

// budgetTable returns the budget section of packet n from the table whose
// header line is header on; name is the table's name in the error.
func budgetTable(ctx context.Context, n int, header, name string) (string, error) {
	s, ok, err := section(ctx, packet.Budget, n)
	if err != nil {
		return "", err
	}
	i := strings.Index(s.Content, header)
	if !ok || i < 0 {
		return "", fmt.Errorf("packet %d has no %s:\n%s", n, name, s.Content)
	}
	return s.Content[i:], nil
}

// thenHeaviestRows counts the rows of the heaviest-entries table of a
// packet.
func thenHeaviestRows(ctx context.Context, n, want int) error {
	table, err := budgetTable(ctx, n, "| entry | tokens |", "heaviest-entries table")
	if err != nil {
		return err
	}
	got := 0
	for _, l := range strings.Split(table, "\n")[2:] {
		if strings.HasPrefix(l, "| log:///") {
			got++
		}
	}
	if got != want {
		return fmt.Errorf("the heaviest-entries table of packet %d has %d rows, want %d:\n%s", n, got, want, table)
	}
	return nil
}

// thenTurnTable reads the turn column of the turn-weight table of a
// packet, in the order the table lists them.
func thenTurnTable(ctx context.Context, n int, want string) error {
	table, err := budgetTable(ctx, n, "| turn | tokens |", "turn table")
	if err != nil {
		return err
	}
	got := []string{}
	for _, l := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(l, "|")
		if len(cells) < 3 {
			break
		}
		got = append(got, strings.TrimSpace(cells[1]))
	}
	if d := cmp.Diff(world.SplitList(want), got); d != "" {
		return fmt.Errorf("the turn table of packet %d (-want +got):\n%s", n, d)
	}
	return nil
}

// sectionNames returns the names of the sections that render (non-empty content)
// in slot, in order.
func sectionNames(sections []packet.Section, slot packet.Slot) []string {
	var out []string
	for _, s := range sections {
		if s.Slot == slot && s.Content != "" {
			out = append(out, s.Name)
		}
	}
	return out
}

// findSection returns the section named name.
func findSection(sections []packet.Section, name string) (packet.Section, bool) {
	for _, s := range sections {
		if s.Name == name {
			return s, true
		}
	}
	return packet.Section{}, false
}
