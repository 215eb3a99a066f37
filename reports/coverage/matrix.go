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

// MatrixRow is one anchor: its status in each target's run, in column
// order, or NotThisTarget.
type MatrixRow struct {
	ID, Section string
	Cells       []string
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
				cell := NotThisTarget
				if i == 0 || external(r.Drivers[sys.System]) {
					cell = statusOf(r, sys.System, a.ID)
					c := m.Targets[i].Counts[sys.System]
					c.add(cell)
					m.Targets[i].Counts[sys.System] = c
				}
				row.Cells = append(row.Cells, cell)
			}
			ms.Rows = append(ms.Rows, row)
		}
		m.Systems = append(m.Systems, ms)
	}
	return m
}

func external(driver string) bool { return driver != "" && driver != "embedded" }

func statusOf(r *Report, system, id string) string {
	for _, s := range r.Systems {
		if s.System != system {
			continue
		}
		for _, a := range s.Anchors {
			if a.ID == id {
				return a.Status
			}
		}
	}
	return Uncovered
}

// Markdown renders the matrix as one table per system.
func (m *Matrix) Markdown() string {
	var b strings.Builder
	b.WriteString("# Results matrix: anchors × targets\n\n")
	b.WriteString("Each column is one run of the features (`make report TARGET=name` with the driver variables of\n")
	b.WriteString("`features/README.md`); `·` means that system ran embedded in that run, so it says nothing of the target.\n\n")
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
		b.WriteString("\n| **pass / anchors** |")
		for _, t := range m.Targets {
			fmt.Fprintf(&b, " %s |", passOfRun(t.Counts[s.System]))
		}
		b.WriteString("\n")
		for _, r := range s.Rows {
			fmt.Fprintf(&b, "| `§%s` |", r.ID)
			for _, c := range r.Cells {
				fmt.Fprintf(&b, " %s |", c)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func passOfRun(c Counts) string {
	if c.Total == 0 {
		return NotThisTarget
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
			if s == NotThisTarget {
				return "none"
			}
			return s
		},
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
td.pass{background:#c6f6d5}td.fail{background:#fed7d7}td.pending{background:#feebc8}
td.uncovered{background:#e4e7eb}td.none{color:#9aa5b1;text-align:center}
code{font-size:13px}
</style></head><body>
<h1>Results matrix: anchors × targets</h1>
<p>Each column is one run of the features (<code>make report TARGET=name</code> with the driver variables of
<code>features/README.md</code>). <b>·</b> means the system ran embedded in that run, so it says nothing of the target.</p>
<table><tr><th>target</th><th>drivers</th></tr>
{{range .Targets}}<tr><td>{{.Name}}</td><td><code>{{drivers .Drivers}}</code></td></tr>{{end}}
</table>
{{$targets := .Targets}}
{{range .Systems}}{{$sys := .System}}
<h2>{{.System}}</h2>
<table><tr><th>anchor</th>{{range $targets}}<th>{{.Name}}</th>{{end}}</tr>
<tr><th>pass / anchors</th>{{range $targets}}<th>{{passOfRun (counts . $sys)}}</th>{{end}}</tr>
{{range .Rows}}<tr><td><code>§{{.ID}}</code></td>{{range .Cells}}<td class="{{cls .}}">{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}
</body></html>
`
