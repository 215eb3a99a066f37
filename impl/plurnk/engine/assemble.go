package engine

import (
	"fmt"
	"sort"
	"strings"

	"anchorage/impl/plurnk/config"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/packet"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"
	"anchorage/impl/plurnk/telemetry"
	"anchorage/impl/vary"
)

// Definition is the teaching text at the head of every packet.
const Definition = `# plurnk

You act on a shared world of entries by emitting statements shaped
<<OP[signal](target)<scope>:body:OP. Open each turn with <<PLAN:…:PLAN and
close it with exactly one <<SEND[status]:…:SEND: 102 to continue, 200 when the
work is done, 202 to hibernate until a stream or a run wakes you, 499 to give
up. Ops: FIND READ EDIT COPY MOVE OPEN FOLD EXEC KILL SEND.`

// Assemble builds the packet of the run's next turn without running it:
// what the engine would hand to the provider now. It reads but never
// drains the loop's notices.
func (e *Engine) assemble(ls *loopState, t int) (*Delivered, error) {
	ss, run := ls.req.Session, ls.req.Run
	count := e.Provider.CountTokens
	derivs := e.Ops.Derive(ss)

	sections := []packet.Section{
		{Name: packet.Definition, Slot: packet.System, Content: Definition},
		{Name: packet.Tools, Slot: packet.System, Header: packet.HeaderTools, Content: e.tools()},
		{Name: packet.Schemes, Slot: packet.System, Header: packet.HeaderSchemes, Content: e.schemes(derivs)},
	}
	if e.Config.PacketInject != "" {
		notes, err := config.ReadFile(e.FS, config.EnvPacketInject, e.Config.PacketInject, true)
		if err != nil {
			return nil, err
		}
		sections = append(sections, packet.Section{Name: packet.OperatorNotes, Slot: packet.System, Header: packet.HeaderOperatorNotes, Content: notes})
	}
	policy, err := config.ReadFile(e.FS, config.EnvPolicy, e.Config.Policy, e.Config.PolicySet)
	if err != nil {
		return nil, err
	}
	project, err := config.ReadFile(e.FS, config.EnvProject, e.Config.Project, e.Config.ProjectSet)
	if err != nil {
		return nil, err
	}
	logText, weights := packet.RenderLog(settledRows(run.Log), count)
	errs, err := e.errorsSection(ls, t)
	if err != nil {
		return nil, err
	}
	git := ""
	if e.Git != nil {
		git = e.Git(ss)
	} else if git, err = e.Ops.GitSection(ss); err != nil {
		return nil, err
	}
	sections = append(sections,
		packet.Section{Name: packet.SystemPolicy, Slot: packet.System, Header: packet.HeaderSystemPolicy, Content: policy},
		packet.Section{Name: packet.ProjectPolicy, Slot: packet.System, Header: packet.HeaderProjectPolicy, Content: project},
		packet.Section{Name: packet.Budget, Slot: packet.System, Header: packet.HeaderBudget,
			Content: strings.TrimRight(packet.PlaceholderHeadline+"\n\n"+packet.BudgetTables(weights), "\n")},
		packet.Section{Name: packet.Prompt, Slot: packet.User, Header: packet.HeaderPrompt, Content: ls.req.Prompt},
		packet.Section{Name: packet.Errors, Slot: packet.User, Header: packet.HeaderErrors, Content: errs},
		packet.Section{Name: packet.Log, Slot: packet.User, Header: packet.HeaderLog, Content: logText},
		packet.Section{Name: packet.Git, Slot: packet.User, Header: packet.HeaderGit, Content: git},
		packet.Section{Name: packet.Requirements, Slot: packet.User, Header: packet.HeaderRequirements, Content: ls.reqs},
	)
	sections = packet.Transform(sections, e.Plugins)

	sys, user := packet.RenderSlot(sections, packet.System), packet.RenderSlot(sections, packet.User)
	d := &Delivered{Turn: t, Measured: sys + user}
	d.Headline = packet.NewHeadline(ls.ceiling, count(sys)+count(user), ls.bounded)
	h := e.headline(d.Headline)
	d.System = strings.ReplaceAll(sys, packet.PlaceholderHeadline, h)
	d.User = strings.ReplaceAll(user, packet.PlaceholderHeadline, h)
	d.Sections = make([]packet.Section, len(sections))
	for i, s := range sections {
		s.Content = strings.ReplaceAll(s.Content, packet.PlaceholderHeadline, h)
		d.Sections[i] = s
	}
	return d, nil
}

// canonicalPointer is an errors-section line: the pointer as canonical JSON.
func canonicalPointer(p ops.Pointer) (string, error) {
	js, err := telemetry.Canonical(p)
	return "* " + js + "\n", err
}

// shortPointer is the pointers variation's line: status and address.
func shortPointer(p ops.Pointer) (string, error) {
	return fmt.Sprintf("* %d log:///%s\n", p.Status, p.Coordinate), nil
}

// errorsSection renders the pointers to the failed rows of the previous
// and the current turn, one `* {canonical-JSON}` line each as notices
// render (the action_failure kind: kind, coordinate, op, status, target),
// then the waiting notices.
func (e *Engine) errorsSection(ls *loopState, t int) (string, error) {
	var b strings.Builder
	pointer := vary.Choose(e.Config.Vary, config.VaryPointers, canonicalPointer, shortPointer)
	for _, turn := range []int{t - 1, t} {
		for _, p := range ops.Pointers(ls.req.Run, ls.loop.Seq, turn) {
			line, err := pointer(p)
			if err != nil {
				return "", fmt.Errorf("errors section: %w", err)
			}
			b.WriteString(line)
		}
	}
	notes, err := telemetry.RenderRadius(ls.notices.Peek(), ls.prev, vary.Choose(e.Config.Vary, config.VarySnippet, telemetry.SnippetRadius, 3))
	if err != nil {
		return "", err
	}
	b.WriteString(notes)
	return b.String(), nil
}

func (e *Engine) tools() string {
	var b strings.Builder
	for _, x := range e.Executors {
		fmt.Fprintf(&b, "* <<EXEC[%s](.):command:EXEC\n", x)
	}
	return b.String()
}

// schemes is the schemes directory (§schemes-directory): one usage line
// per registered scheme that ships an example, in name order, with what
// the derivation pass saw of its entries and the entry its documentation
// lives in.
func (e *Engine) schemes(derivs []ops.Derivation) string {
	type tally struct{ entries, lines int }
	seen := map[string]map[string]bool{}
	tallies := map[string]*tally{}
	for _, d := range derivs {
		s := d.Key.Scheme
		if tallies[s] == nil {
			tallies[s], seen[s] = &tally{}, map[string]bool{}
		}
		if k := d.Key.String(); !seen[s][k] {
			seen[s][k] = true
			tallies[s].entries++
		}
		tallies[s].lines += d.Lines
	}
	names := e.Ops.Schemes.Names()
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		h, _ := e.Ops.Schemes.Handler(n)
		m := h.Manifest()
		if m.Example == "" {
			continue
		}
		t := tallies[n]
		if t == nil {
			t = &tally{}
		}
		fmt.Fprintf(&b, "* %s:/// %d entries, %d lines: %s", n, t.entries, t.lines, m.Example)
		if m.Doc != "" {
			b.WriteString(" (" + scheme.DocsPrefix + n + ".md)")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Assemble builds the packet the first model turn of a new loop of
// req.Run would receive, without writing anything: no loop is begun, no
// prompt entry written, no notice drained.
func (e *Engine) Assemble(req Request) (*Delivered, error) {
	if req.Session == nil || req.Run == nil {
		return nil, fmt.Errorf("engine: assemble: a session and a run are required")
	}
	ls := &loopState{req: req, reqs: e.Config.Requirements, loop: &store.Loop{Seq: len(req.Run.Loops) + 1}}
	if req.Requirements != nil {
		ls.reqs = *req.Requirements
	}
	ls.ceiling, ls.bounded = e.Config.Ceiling(e.Provider.ContextSize())
	return e.assemble(ls, 1)
}

// settledRows leaves out the rows still proposed: an op row at 202 (a
// SEND at 202 is the park, not a proposal). A proposed row shows once it
// is resolved, with its final status (§proposal-proposed-hidden).
func settledRows(rows []*store.LogRow) []*store.LogRow {
	out := make([]*store.LogRow, 0, len(rows))
	for _, r := range rows {
		if r.Status == 202 && r.Op != "SEND" {
			continue
		}
		out = append(out, r)
	}
	return out
}
