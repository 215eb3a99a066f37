package mutate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Merge combines the reports of several shards into one: every mutant once,
// with the status, killers and coverers its shard measured. names name the
// reports in messages. It is an error when two reports hold one file with
// different sources (they measured different trees), measure one mutant with
// different outcomes (the error names it), or were run with different master
// seeds. The merged config sums each system's mutants and seconds, lists the
// shards it was made of and carries the rates of the merged mutants.
func Merge(names []string, reps []*Report) (*Report, error) {
	out := NewReport()
	from := map[string]string{} // mutant id → the report that measured it
	var seed any
	seedFrom := ""
	for i, r := range reps {
		if err := mergeFiles(out, r, names[i], from); err != nil {
			return nil, err
		}
		for f, tf := range r.TestFiles {
			out.TestFiles[f] = tf
		}
		a := anchorageConfig(r)
		if s, ok := a["seed"]; ok {
			if seedFrom != "" && fmt.Sprint(s) != fmt.Sprint(seed) {
				return nil, fmt.Errorf("%s was measured with master seed %v, %s with %v: shards of one run share a seed", seedFrom, seed, names[i], s)
			}
			seed, seedFrom = s, names[i]
		}
		mergeConfig(anchorageConfig(out), a)
	}
	if seedFrom != "" {
		anchorageConfig(out)["seed"] = seed
	}
	out.NoteRates()
	return out, nil
}

// mergeFiles adds r's mutants to out, checking them against those already
// there.
func mergeFiles(out, r *Report, name string, from map[string]string) error {
	for f, fr := range r.Files {
		have := out.Files[f]
		if have == nil {
			have = &FileResult{Language: fr.Language, Source: fr.Source, Mutants: []MutantResult{}}
			out.Files[f] = have
		} else if have.Source != fr.Source {
			return fmt.Errorf("%s: the source of %s differs from the one in %s: the shards measured different trees", name, f, from["file:"+f])
		}
		from["file:"+f] = name
		for _, m := range fr.Mutants {
			prev, seen := from[m.ID]
			if !seen {
				from[m.ID] = name
				have.Mutants = append(have.Mutants, m)
				continue
			}
			old := findMutant(have.Mutants, m.ID)
			if outcome(old) != outcome(m) {
				return fmt.Errorf("mutant %s was measured twice with different outcomes: %s in %s, %s in %s", m.ID, outcome(old), prev, outcome(m), name)
			}
		}
		sortMutants(have.Mutants)
	}
	return nil
}

func findMutant(ms []MutantResult, id string) MutantResult {
	for _, m := range ms {
		if m.ID == id {
			return m
		}
	}
	return MutantResult{}
}

// outcome is what two measurements of one mutant must agree on.
func outcome(m MutantResult) string {
	if m.NormativeStatus == "" || m.NormativeStatus == m.Status {
		return m.Status
	}
	return m.Status + " (normatively " + m.NormativeStatus + ")"
}

func sortMutants(ms []MutantResult) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i].Location.Start, ms[j].Location.Start
		return a.Line < b.Line || a.Line == b.Line && (a.Column < b.Column || a.Column == b.Column && ms[i].ID < ms[j].ID)
	})
}

// anchorageConfig returns the report's config["anchorage"], creating it.
func anchorageConfig(r *Report) map[string]any {
	a, _ := r.Config["anchorage"].(map[string]any)
	if a == nil {
		a = map[string]any{}
		r.Config["anchorage"] = a
	}
	return a
}

// mergeConfig adds a shard's config to the merged one: per system the
// mutants and seconds are summed, and its shard joins the list.
func mergeConfig(dst, src map[string]any) {
	for _, k := range []string{"all", "n"} {
		if v, ok := src[k]; ok {
			dst[k] = v
		}
	}
	var shards []string
	if s, ok := dst["shards"].([]string); ok {
		shards = s
	}
	if s, ok := src["shard"].(string); ok && s != "" {
		shards = append(shards, s)
	}
	if list, ok := src["shards"].([]any); ok {
		for _, s := range list {
			shards = append(shards, fmt.Sprint(s))
		}
	}
	if len(shards) > 0 {
		sort.Slice(shards, func(i, j int) bool { return shardLess(shards[i], shards[j]) })
		dst["shards"] = shards
	}
	systems, _ := dst["systems"].(map[string]any)
	if systems == nil {
		systems = map[string]any{}
		dst["systems"] = systems
	}
	srcSystems, _ := src["systems"].(map[string]any)
	for sys, v := range srcSystems {
		e, _ := v.(map[string]any)
		have, _ := systems[sys].(map[string]any)
		if have == nil {
			have = map[string]any{}
			systems[sys] = have
		}
		for k, x := range e {
			switch k {
			case "mutants", "seconds":
				have[k] = int(number(have[k]) + number(x))
			default:
				have[k] = x
			}
		}
	}
}

// MissingShards names the shards i/n that a merged report lacks, when its
// shards are all parts of one n.
func MissingShards(r *Report) []string {
	shards, _ := anchorageConfig(r)["shards"].([]string)
	have := map[string]bool{}
	n := 0
	for _, s := range shards {
		sh, err := ParseShard(s)
		if err != nil || (n != 0 && sh.N != n) {
			return nil
		}
		n, have[s] = sh.N, true
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if s := fmt.Sprintf("%d/%d", i, n); !have[s] {
			missing = append(missing, s)
		}
	}
	return missing
}

func shardLess(a, b string) bool {
	sa, ea := ParseShard(a)
	sb, eb := ParseShard(b)
	if ea != nil || eb != nil || sa.N != sb.N {
		return a < b
	}
	return sa.I < sb.I
}

func number(v any) float64 {
	switch v := v.(type) {
	case float64:
		return v
	case int:
		return float64(v)
	case json.Number:
		f, _ := v.Float64()
		return f
	case string:
		f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f
	}
	return 0
}

// NoteRates writes, into the config entry of every system the report has
// mutants of, the counts and the net, raw and normative kill rates of those
// mutants (rates as fractions; absent when nothing was measured).
func (r *Report) NoteRates() {
	a := anchorageConfig(r)
	systems, _ := a["systems"].(map[string]any)
	if systems == nil {
		systems = map[string]any{}
		a["systems"] = systems
	}
	for sys, t := range r.Tallies() {
		e, _ := systems[sys].(map[string]any)
		if e == nil {
			e = map[string]any{}
			systems[sys] = e
		}
		e["killed"], e["timeout"], e["survived"] = t.Killed, t.Timeout, t.Survived
		e["equivalent"], e["decidedOnly"] = t.Equivalent, t.DecidedOnly
		for k, rate := range map[string]func() (float64, bool){"netRate": t.Net, "rawRate": t.Raw, "normativeRate": t.Normative} {
			if v, ok := rate(); ok {
				e[k] = roundRate(v)
			} else {
				delete(e, k)
			}
		}
	}
}

// roundRate keeps four decimals, so the report does not change with float noise.
func roundRate(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 4, 64), 64)
	return f
}
