package deck

import (
	"fmt"
	"strconv"
	"strings"

	"anchorage/impl/deck"
)

// memoryProcSteps are the steps of memory_steps.go as the line protocol
// expresses them: cartridges through INSERT and EJECT tokens, SRAM and the
// Fe VMs through STATE's regions, part and vm lines, refusals on rows 19 to
// 21 of the screen.
func memoryProcSteps() map[string]func(p *procDeck, a ...string) error {
	return map[string]func(p *procDeck, a ...string) error{
		`^inserting a cartridge "([^"]*)" with a (\d+) KB arena is refused$`: func(p *procDeck, a ...string) error {
			if err := p.refused("INSERT:" + a[0] + ":" + a[1]); err != nil {
				return err
			}
			return p.regionsHold()
		},
		`^inserting a cartridge "([^"]*)" with a (\d+) byte arena is refused$`: func(p *procDeck, a ...string) error {
			if err := p.refused("INSERT:" + a[0] + ":" + a[1] + "B"); err != nil {
				return err
			}
			return p.regionsHold()
		},
		`^a cartridge "([^"]*)" with a (\d+) byte arena is inserted$`: func(p *procDeck, a ...string) error {
			return p.send("INSERT:" + a[0] + ":" + a[1] + "B")
		},
		`^a cartridge "([^"]*)" with a (\d+) KB arena and a (\d+) byte mission is inserted$`: func(p *procDeck, a ...string) error {
			return p.send("INSERT:" + a[0] + ":" + a[1] + ":" + a[2])
		},
		`^the cartridge is ejected$`: func(p *procDeck, _ ...string) error { return p.send("EJECT") },
		`^SRAM lists its live regions in name order as "([^"]*)"$`: func(p *procDeck, a ...string) error {
			v, err := p.stateOf("sram")
			if err != nil {
				return err
			}
			var names []string
			for _, kv := range strings.Fields(v) {
				k, _, _ := strings.Cut(kv, "=")
				names = append(names, k)
			}
			return want("live regions", strings.Join(names, " "), a[0])
		},
		`^the editor's buffer holds (\d+) bytes$`: func(p *procDeck, a ...string) error {
			v, err := p.stateOf("editor")
			if err != nil {
				return err
			}
			return want("editor buffer bytes", fmt.Sprint(len(v)), a[0])
		},
		`^the clipboard holds (\d+) bytes$`: func(p *procDeck, a ...string) error {
			v, err := p.stateOf("clipboard")
			if err != nil {
				return err
			}
			return want("clipboard bytes", fmt.Sprint(len(v)), a[0])
		},
		`^every live SRAM region keeps its budget$`: func(p *procDeck, _ ...string) error { return p.regionsHold() },
		`^the deck shows no refusal$`:               func(p *procDeck, _ ...string) error { return noRefusal(p.rowText) },
		`^the deck shows the refusal "(.*)"$`:       func(p *procDeck, a ...string) error { return showsRefusal(p.rowText, a[0]) },
		`^SRAM holds the (\S+) region with (\d+) bytes$`: func(p *procDeck, a ...string) error {
			rs, part, err := p.regions()
			if err != nil {
				return err
			}
			return regionCheck(part, rs, a[0], a[1], "")
		},
		`^SRAM holds the (\S+) region with (\d+) bytes inside the (\S+) region$`: func(p *procDeck, a ...string) error {
			rs, part, err := p.regions()
			if err != nil {
				return err
			}
			return regionCheck(part, rs, a[0], a[1], a[2])
		},
		`^SRAM has (\d+) bytes free$`: func(p *procDeck, a ...string) error {
			rs, part, err := p.regions()
			if err != nil {
				return err
			}
			if err := want("free SRAM", fmt.Sprint(freeBytes(part, rs)), a[0]); err != nil {
				return err
			}
			return regionsHold(part, rs)
		},
		`^the (REPL|editor evaluator|mission)'s Fe VM has (\d+) cells in its (\d+)-byte arena$`: func(p *procDeck, a ...string) error {
			key := map[string]string{"REPL": "repl", "editor evaluator": "editor-eval", "mission": "mission"}[a[0]]
			v, err := p.stateOf("vm-" + key)
			if err != nil {
				return err
			}
			var f vmFigures
			if _, err := fmt.Sscanf(v, "%d %d %d", &f.arena, &f.cells, &f.free); err != nil {
				return fmt.Errorf("STATE vm-%s %q: %w", key, v, err)
			}
			rs, _, err := p.regions()
			if err != nil {
				return err
			}
			for _, r := range rs {
				if r.name == key {
					f.region = r.bytes
				}
			}
			return vmCheck(a[0], f, a[1], a[2])
		},
		`^the mission phase shows "(.*)"$`: func(p *procDeck, a ...string) error {
			v, err := p.stateOf("mission")
			if err != nil {
				return err
			}
			result, err := strconv.Unquote(v)
			if err != nil {
				return fmt.Errorf("STATE mission %s: %w", v, err)
			}
			return missionCheck(result, p.now.rows[rowRule], a[0])
		},
		`^the evaluation took between (\d+) and (\d+) cycles$`: func(p *procDeck, a ...string) error {
			// Row 22's readout, or the debug port's count when the rule
			// shows another message (HISTORY NOT UPDATED, say).
			n, err := p.readout()
			if err != nil {
				ev, everr := p.events()
				if everr != nil {
					return fmt.Errorf("%v; %w", err, everr)
				}
				n = ev.Cycles
			}
			lo, _ := strconv.ParseUint(a[0], 10, 64)
			hi, _ := strconv.ParseUint(a[1], 10, 64)
			if n < lo || n > hi {
				return fmt.Errorf("took %d cycles, want %d–%d", n, lo, hi)
			}
			return nil
		},
	}
}

// regionsHold checks the deck's SRAM regions, as STATE tells, against the
// seed's memory rules.
func (p *procDeck) regionsHold() error {
	rs, part, err := p.regions()
	if err != nil {
		return err
	}
	return regionsHold(part, rs)
}

// rowText is row i of the screen, as the simulator's Screen.RowText gives it.
func (p *procDeck) rowText(i int) string { return p.now.rows[i] }

// regions are the live SRAM regions and the part's name, as STATE tells.
func (p *procDeck) regions() ([]region, string, error) {
	part, err := p.stateOf("part")
	if err != nil {
		return nil, "", err
	}
	var rs []region
	for _, f := range strings.Fields(p.now.state["regions"]) {
		var r region
		parts := strings.Split(f, ":")
		if len(parts) != 3 {
			return nil, "", fmt.Errorf("STATE regions: %q is not NAME:BASE:BYTES", f)
		}
		r.name = parts[0]
		var err1, err2 error
		r.base, err1 = strconv.Atoi(parts[1])
		r.bytes, err2 = strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil {
			return nil, "", fmt.Errorf("STATE regions: %q is not NAME:BASE:BYTES", f)
		}
		rs = append(rs, r)
	}
	return rs, part, nil
}

// events are the last evaluation's events, reader and printer instructions
// and cycles, as STATE's events line tells.
func (p *procDeck) events() (deck.Eval, error) {
	var ev deck.Eval
	v, err := p.stateOf("events")
	if err != nil {
		return ev, err
	}
	for _, kv := range strings.Fields(v) {
		k, val, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return ev, fmt.Errorf("STATE events %q: %w", kv, err)
		}
		switch k {
		case "read":
			ev.ReadInstr = n
		case "print":
			ev.PrintInstr = n
		case "cycles":
			ev.Cycles = n
		default:
			e, ok := eventNames()[k]
			if !ok {
				return ev, fmt.Errorf("STATE events: no event %q", k)
			}
			ev.Events[e] = n
		}
	}
	// The cycles the screen reports on row 22 are the ones judged; the
	// debug port must agree with them.
	if n, err := p.readout(); err == nil && n != ev.Cycles {
		return ev, fmt.Errorf("row 22 reports %d cycles, STATE's events %d", n, ev.Cycles)
	}
	return ev, nil
}
