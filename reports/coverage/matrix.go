package coverage

import (
	"fmt"
	"html/template"
	"io"
	"os"
	"sort"
	"strings"
)

// DriverVars names, per system, the environment variable that points its
// features at another implementation (features/README.md).
func DriverVars() map[string]string {
	return map[string]string{
		"chatlog": "CHATLOG_SERVER",
		"plurnk":  "PLURNK_CMD",
		"jace":    "JACE_URL",
		"deck":    "DECK_CMD",
	}
}

// DriversFromEnv says how each system was driven in this process's run:
// "VAR=value" for an outside implementation, "embedded" otherwise.
func DriversFromEnv() map[string]string {
	out := map[string]string{}
	for sys, v := range DriverVars() {
		out[sys] = "embedded"
		if val := os.Getenv(v); val != "" {
			out[sys] = v + "=" + val
		}
	}
	return out
}

// NotThisTarget marks a matrix cell whose system ran embedded in a target's
// run: that run says nothing about the target for it.
const NotThisTarget = "·"

// Matrix puts the anchor verdicts of several runs side by side: one column
// per target, the first the reference.
type Matrix struct {
	Targets []MatrixTarget
	Systems []MatrixSystem
}

// MatrixTarget is one run.
type MatrixTarget struct {
	Name    string
	Drivers map[string]string
	Counts  map[string]Counts // per system, over the anchors run against this target
}

// MatrixSystem is one system's rows.
type MatrixSystem struct {
	System string
	Rows   []MatrixRow
}

// MatrixRow is one anchor: its verdict in each target's run, in column
// order (keeps, "keeps, differs on N", fails, pending, uncovered), or
// NotThisTarget; DiffersOn holds, per cell, the decisions it differs on.
type MatrixRow struct {
	ID, Section string
	Cells       []string
	DiffersOn   [][]string
}

// BuildMatrix joins runs into a matrix. The anchors are the first run's;
// an anchor another run does not know is shown as uncovered there.
func BuildMatrix(runs []*Report) *Matrix {
	m := &Matrix{}
	if len(runs) == 0 {
		return m
	}
	for i, r := range runs {
		name := r.Target
		if name == "" {
			name = "reference"
		}
		t := MatrixTarget{Name: name, Drivers: r.Drivers, Counts: map[string]Counts{}}
		if i == 0 && t.Drivers == nil {
			t.Drivers = map[string]string{}
		}
		m.Targets = append(m.Targets, t)
	}
	for _, sys := range runs[0].Systems {
		ms := MatrixSystem{System: sys.System}
		for _, a := range sys.Anchors {
			if a.Status == RetiredSt {
				continue
			}
			row := MatrixRow{ID: a.ID, Section: a.Section}
			for i, r := range runs {
				cell, on := NotThisTarget, []string(nil)
				if i == 0 || external(r.Drivers[sys.System]) {
					an := anchorOf(r, sys.System, a.ID)
					cell, on = cellText(an), an.DiffersOn
					c := m.Targets[i].Counts[sys.System]
					c.add(an.Status)
					if len(on) > 0 {
						c.Differs++
					}
					m.Targets[i].Counts[sys.System] = c
				}
				row.Cells = append(row.Cells, cell)
				row.DiffersOn = append(row.DiffersOn, on)
			}
			ms.Rows = append(ms.Rows, row)
		}
		m.Systems = append(m.Systems, ms)
	}
	return m
}

func external(driver string) bool { return driver != "" && driver != "embedded" }

// anchorOf returns the run's verdict on an anchor (uncovered when the run
// does not know it).
func anchorOf(r *Report, system, id string) Anchor {
	for _, s := range r.Systems {
		if s.System != system {
			continue
		}
		for _, a := range s.Anchors {
			if a.ID == id {
				return a
			}
		}
	}
	return Anchor{ID: id, Status: Uncovered, Verdict: Uncovered}
}

// cellText is an anchor's verdict as a matrix cell. A run recorded before
// verdicts existed has only a status: a pass kept the spec, a fail broke it.
func cellText(a Anchor) string {
	v := a.Verdict
	if v == "" {
		switch a.Status {
		case Pass:
			v = Keeps
		case Fail:
			v = Fails
		default:
			v = a.Status
		}
	}
	if v == Differs {
		return fmt.Sprintf("keeps, differs on %d", len(a.DiffersOn))
	}
	return v
}

// Markdown renders the matrix as one table per system.
func (m *Matrix) Markdown() string {
	var b strings.Builder
	b.WriteString("# Results matrix: anchors × targets\n\n")
	b.WriteString("Each column is one run of the features (`make report TARGET=name` with the driver variables of\n")
	b.WriteString("`features/README.md`); `·` means that system ran embedded in that run, so it says nothing of the target.\n")
	b.WriteString("An anchor *fails* only when a normative assertion (what the spec states) did not hold; *keeps, differs on N* keeps the spec\n")
	b.WriteString("but differs from the reference on N decided assertions (its own choices, named in parentheses).\n\n")
	b.WriteString("| target | drivers |\n|---|---|\n")
	for _, t := range m.Targets {
		fmt.Fprintf(&b, "| %s | %s |\n", t.Name, driverList(t.Drivers))
	}
	for _, s := range m.Systems {
		fmt.Fprintf(&b, "\n## %s\n\n| anchor |", s.System)
		for _, t := range m.Targets {
			fmt.Fprintf(&b, " %s |", t.Name)
		}
		b.WriteString("\n|---|")
		for range m.Targets {
			b.WriteString("---|")
		}
		b.WriteString("\n| **keep the spec / anchors** |")
		for _, t := range m.Targets {
			fmt.Fprintf(&b, " %s |", passOfRun(t.Counts[s.System]))
		}
		b.WriteString("\n")
		for _, r := range s.Rows {
			fmt.Fprintf(&b, "| `§%s` |", r.ID)
			for i, c := range r.Cells {
				if len(r.DiffersOn[i]) > 0 {
					c += " (" + strings.Join(r.DiffersOn[i], ", ") + ")"
				}
				fmt.Fprintf(&b, " %s |", c)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// passOfRun is a target's column head: the anchors that keep the spec (of
// them, how many differ from the reference's decisions) over those run.
func passOfRun(c Counts) string {
	if c.Total == 0 {
		return NotThisTarget
	}
	if c.Differs > 0 {
		return fmt.Sprintf("%d / %d (%d differ on decisions)", c.Pass, c.Total, c.Differs)
	}
	return fmt.Sprintf("%d / %d", c.Pass, c.Total)
}

func driverList(d map[string]string) string {
	keys := make([]string, 0, len(d))
	for k, v := range d {
		if external(v) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "all embedded"
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": `" + d[k] + "`"
	}
	return strings.Join(parts, ", ")
}

// HTML renders the matrix as a self-contained page, wpt.fyi style.
func (m *Matrix) HTML(w io.Writer) error {
	t, err := template.New("matrix").Funcs(template.FuncMap{
		"passOfRun": passOfRun,
		"drivers":   func(d map[string]string) string { return strings.ReplaceAll(driverList(d), "`", "") },
		"counts":    func(t MatrixTarget, sys string) Counts { return t.Counts[sys] },
		"cls": func(s string) string {
			switch {
			case s == NotThisTarget:
				return "none"
			case strings.HasPrefix(s, "keeps, differs"):
				return "differs"
			}
			return s
		},
		"decisions": func(r MatrixRow, i int) string { return strings.Join(r.DiffersOn[i], " ") },
	}).Parse(matrixHTML)
	if err != nil {
		return fmt.Errorf("matrix template: %w", err)
	}
	return t.Execute(w, m)
}

const matrixHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>anchorage — results matrix</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em;color:#1f2933}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #cbd2d9;padding:2px 8px;text-align:left}
th{background:#f5f7fa}
td.keeps{background:#c6f6d5}td.differs{background:#d9e2fb}td.fails{background:#fed7d7}td.pending{background:#feebc8}
td.uncovered{background:#e4e7eb}td.none{color:#9aa5b1;text-align:center}
code{font-size:13px}
</style></head><body>
<h1>Results matrix: anchors × targets</h1>
<p>Each column is one run of the features (<code>make report TARGET=name</code> with the driver variables of
<code>features/README.md</code>). <b>·</b> means the system ran embedded in that run, so it says nothing of the target.
An anchor <b>fails</b> only when a normative assertion (what the spec states) did not hold; <b>keeps, differs on N</b>
means it keeps the spec but differs from the reference on N decided assertions (the reference's own choices; hover for which).</p>
<table><tr><th>target</th><th>drivers</th></tr>
{{range .Targets}}<tr><td>{{.Name}}</td><td><code>{{drivers .Drivers}}</code></td></tr>{{end}}
</table>
{{$targets := .Targets}}
{{range .Systems}}{{$sys := .System}}
<h2>{{.System}}</h2>
<table><tr><th>anchor</th>{{range $targets}}<th>{{.Name}}</th>{{end}}</tr>
<tr><th>keep the spec / anchors</th>{{range $targets}}<th>{{passOfRun (counts . $sys)}}</th>{{end}}</tr>
{{range $r := .Rows}}<tr><td><code>§{{.ID}}</code></td>{{range $i, $c := .Cells}}<td class="{{cls $c}}"{{with decisions $r $i}} title="differs on {{.}}"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</table>
{{end}}
</body></html>
`
