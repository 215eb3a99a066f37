package chatlog

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"anchorage/features/kit"
	"anchorage/impl/chatlog"

	"github.com/cucumber/godog"
)

// lastCheck is what the last step that quoted a text compared, so that the
// next step can compare it byte for byte ("that holds byte for byte per
// Decision (§…)").
type lastCheck struct {
	kind string // "log", "registry" or "registry line"
	page string
	want string // expanded
	how  string // "suffix", "contains", "equal" or "prefix"
}

// howOf maps the words of a step to a comparison.
func howOf(words string) string {
	switch words {
	case "ends with":
		return "suffix"
	case "reads":
		return "equal"
	}
	return "contains"
}

// seedHow maps a comparison to the seed-level one of entries.
func seedHow(how string) string {
	if how == "equal" {
		return "whole"
	}
	return how
}

// exact reports whether got relates to want byte for byte as how says, as
// holds does, with "…" lines standing for any lines and a line ending in
// "…" for any end of that line.
func (w *world) exact(got, want, how string) bool {
	if !strings.Contains(want, "…") {
		return w.holds(got, want, how)
	}
	pat := exactPattern(want, func(l string) string {
		if q := w.d.pattern(l); q != "" {
			return q
		}
		return regexp.QuoteMeta(l)
	})
	return matchAs(pat, got, how)
}

// baseOf is a stem without its short id: the sanitized name of the page
// (index-7-zen for index-7-zen-1a2b), computed here from the seed's file
// naming rule.
func baseOf(stem string) string {
	i := strings.LastIndexByte(stem, '-')
	if i > 0 && shortID(stem[i+1:]) {
		return stem[:i]
	}
	return stem
}

// regName is the name the page's registry line gives it: as the driver
// found it, else the seed's, its sanitized name.
func (w *world) regName(page string) string {
	if n := w.names[page]; n != "" {
		return n
	}
	return baseOf(w.stem(page))
}

// instanceRE is an instance line of the registry at the seed's level:
// `* NAME (URL) last HH:MM:SS state: STATE`, the state one of the four the
// seed lists, then anything.
var instanceRE = regexp.MustCompile(`^\* (.+?) \((\S+)\) last (\d\d:\d\d:\d\d) state: (idle|executing|completed|failed)\b(.*)$`)

// sameInstance compares two instance lines at the seed's level: the page's
// name (its sanitized name, with or without its short id: the seed's two
// examples differ), its URL, the last heartbeat and the state; what
// follows the state is not compared.
func (lv seedLevel) sameInstance(got, want string) error {
	g, wm := instanceRE.FindStringSubmatch(got), instanceRE.FindStringSubmatch(want)
	if wm == nil {
		return fmt.Errorf("the expected line %q is not an instance line", want)
	}
	if g == nil {
		return fmt.Errorf("%q is not an instance line of the seed's form `* NAME (URL) last HH:MM:SS state: idle|executing|completed|failed`", got)
	}
	switch {
	case baseOf(g[1]) != baseOf(wm[1]):
		return fmt.Errorf("the line names %q, want %q (or it with its short id)", g[1], baseOf(wm[1]))
	case !lv.wall && g[2] != wm[2]:
		return fmt.Errorf("the URL is %q, want %q", g[2], wm[2])
	case !lv.sameTime(g[3], wm[3]):
		return fmt.Errorf("last %s, want %s", g[3], wm[3])
	case g[4] != wm[4]:
		return fmt.Errorf("state %s, want %s", g[4], wm[4])
	}
	return nil
}

// registryLine is the instance line of the page: the one whose name is
// the page's registry name, its sanitized name or its stem.
func (w *world) registryLine(page string) (string, bool) {
	for _, l := range strings.Split(w.read(chatlog.RegistryFile), "\n") {
		m := instanceRE.FindStringSubmatch(l)
		if m == nil {
			m = instanceLine.FindStringSubmatch(l)
		}
		if m != nil && (m[1] == w.regName(page) || m[1] == w.stem(page) || m[1] == baseOf(w.stem(page))) {
			return l, true
		}
	}
	return "", false
}

// registerLevels registers the steps that compare quoted text with a log,
// the registry and the console: at the seed's level (normative) or byte for
// byte (decided: the reference's layout and words).
func registerLevels(sc kit.Steps) {
	sc.Step(`^the log of "([^"]*)" (ends with|contains|reads):?$`, func(ctx context.Context, page, words string, doc *godog.DocString) error {
		w := get(ctx)
		want, how := w.expand(page, doc.Content), howOf(words)
		if how == "suffix" || how == "equal" {
			want += "\n"
		}
		w.check = lastCheck{kind: "log", page: page, want: want, how: how}
		if err := w.d.level().match(w.read(w.path(page)), want, seedHow(how)); err != nil {
			return fmt.Errorf("the log does not %s these entries at the seed's level: %w\n--- want:\n%s\n--- log:\n%s", words, err, want, w.read(w.path(page)))
		}
		return nil
	})
	sc.Step(`^the log of "([^"]*)" (ends with|contains|reads), byte for byte$`, func(ctx context.Context, page, words string, doc *godog.DocString) error {
		w := get(ctx)
		want, how := w.expand(page, doc.Content), howOf(words)
		if how == "suffix" || how == "equal" {
			want += "\n"
		}
		if got := w.read(w.path(page)); !w.exact(got, want, how) {
			return fmt.Errorf("the log does not %s, byte for byte:\n%s\n--- log:\n%s", words, want, got)
		}
		return nil
	})
	sc.Step(`^that holds byte for byte$`, func(ctx context.Context) error {
		w := get(ctx)
		c := w.check
		var got string
		switch c.kind {
		case "log":
			got = w.read(w.path(c.page))
		case "registry":
			got = w.read(chatlog.RegistryFile)
		case "registry line":
			got, _ = w.registryLine(c.page)
		default:
			return fmt.Errorf("no step before quoted a text")
		}
		if !w.exact(got, c.want, c.how) {
			return fmt.Errorf("byte for byte, the %s does not hold (%s):\n%s\n--- got:\n%s", c.kind, c.how, c.want, got)
		}
		return nil
	})
	sc.Step(`^the log of "([^"]*)" matches:?$`, func(ctx context.Context, page string, doc *godog.DocString) error {
		w := get(ctx)
		got := w.read(w.path(page))
		re, err := regexp.Compile(w.d.regexp(w.expand(page, doc.Content)))
		if err != nil {
			return err
		}
		if !re.MatchString(got) {
			return fmt.Errorf("log does not match:\n%s\n--- log:\n%s", doc.Content, got)
		}
		return nil
	})
	sc.Step(`^the log of "([^"]*)" does not contain "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, page, s string) error {
		w := get(ctx)
		if got := w.read(w.path(page)); w.holds(got, w.expand(page, unquote(s)), "contains") {
			return fmt.Errorf("log contains %q:\n%s", s, got)
		}
		return nil
	})
	sc.Step(`^the log of "([^"]*)" contains "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, page, s string) error {
		w := get(ctx)
		if got := w.read(w.path(page)); !w.holds(got, w.expand(page, unquote(s)), "contains") {
			return fmt.Errorf("log lacks %q:\n%s", s, got)
		}
		return nil
	})
	sc.Step(`^the log of "([^"]*)" has no reply carrying (\S+)$`, func(ctx context.Context, page, value string) error {
		w := get(ctx)
		lv := w.d.level()
		for _, e := range notPlaceholders(readEntries(w.read(w.path(page)))) {
			if e.line == 0 || e.request() || len(e.blocks) == 0 {
				continue
			}
			if lv.result(e.blocks[0], block{fenced: true, tag: "JSON", text: value}) == nil {
				return fmt.Errorf("%s carries %s", e.describe(), value)
			}
		}
		return nil
	})
	sc.Step(`^the log of "([^"]*)" (ends with|has) a timeout entry for the request running "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, page, where, code string) error {
		w := get(ctx)
		es := notPlaceholders(readEntries(w.read(w.path(page))))
		req := -1
		for i, e := range es {
			if e.request() && e.blocks[0].text == unquote(code) {
				req = i
			}
		}
		if req < 0 {
			return fmt.Errorf("no request runs %q:\n%s", code, describeAll(es))
		}
		for i := len(es) - 1; i > req; i-- {
			if e := es[i]; !e.request() && e.to == es[req].from && timeoutEntry(e) {
				if _, err := readParen(e.paren); e.hasParen && err != nil {
					return fmt.Errorf("the timeout entry %s: %w", e.describe(), err)
				}
				if where == "ends with" && i != len(es)-1 {
					return fmt.Errorf("the timeout entry %s is not the last entry:\n%s", e.describe(), describeAll(es))
				}
				return nil
			}
		}
		return fmt.Errorf("no timeout entry answers %s after it:\n%s", es[req].describe(), describeAll(es))
	})

	sc.Step(`^the log of "([^"]*)" answers the request running "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, page, code string) error {
		// A request the server detects becomes a job that ends in a reply
		// or a timeout entry (the seed's job states): either way an entry
		// to its agent follows it.
		w := get(ctx)
		es := notPlaceholders(readEntries(w.read(w.path(page))))
		lv := w.d.level()
		for i, e := range es {
			if !e.request() || e.blocks[0].text != unquote(code) {
				continue
			}
			for _, r := range es[i+1:] {
				if r.line > 0 && !r.request() && lv.names(r.to) == lv.names(e.from) {
					return nil
				}
			}
			return fmt.Errorf("no reply to %q follows %s:\n%s", e.from, e.describe(), describeAll(es))
		}
		return fmt.Errorf("no request runs %q:\n%s", code, describeAll(es))
	})

	sc.Step(`^the reply carrying (\S+) pairs with the request running "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, value, code string) error {
		w := get(ctx)
		if w.parsedText == "" {
			return fmt.Errorf("no log was parsed")
		}
		lv := w.d.level()
		reply, req := 0, 0
		for _, e := range readEntries(w.parsedText) {
			switch {
			case e.request() && e.blocks[0].text == unquote(code):
				req = e.line
			case e.line > 0 && !e.request() && !e.placeholder() && len(e.blocks) > 0 &&
				lv.result(e.blocks[0], block{fenced: true, tag: "JSON", text: value}) == nil:
				reply = e.line
			}
		}
		if req == 0 || reply == 0 {
			return fmt.Errorf("no request running %q (line %d) or no reply carrying %s (line %d) in the log:\n%s", code, req, value, reply, w.parsedText)
		}
		for _, rp := range w.parsed.Replies {
			if rp.Line == reply {
				if rp.RequestLine != req {
					return fmt.Errorf("the reply on line %d pairs with line %d, not with the request on line %d: %s", reply, rp.RequestLine, req, w.parsed.JSON())
				}
				return nil
			}
		}
		return fmt.Errorf("the parse report has no reply on line %d: %s", reply, w.parsed.JSON())
	})

	// The registry.
	sc.Step(`^the registry starts with:$`, func(ctx context.Context, doc *godog.DocString) error {
		w := get(ctx)
		want := w.expandAll(doc.Content) + "\n"
		w.check = lastCheck{kind: "registry", want: want, how: "prefix"}
		got := w.read(chatlog.RegistryFile)
		gl, wl := strings.Split(got, "\n"), strings.Split(strings.TrimSuffix(want, "\n"), "\n")
		if len(gl) < len(wl) || gl[0] != wl[0] {
			return fmt.Errorf("the registry does not open with %q:\n%s", wl[0], got)
		}
		for i := 1; i < len(wl); i++ {
			if err := w.d.level().sameInstance(gl[i], wl[i]); err != nil {
				return fmt.Errorf("registry line %d: %w\n--- registry:\n%s", i+1, err, got)
			}
		}
		return nil
	})
	sc.Step(`^the registry line of "([^"]*)" reads "([^"]*)"$`, func(ctx context.Context, page, want string) error {
		w := get(ctx)
		want = w.expand(page, want)
		w.check = lastCheck{kind: "registry line", page: page, want: want, how: "equal"}
		l, ok := w.registryLine(page)
		if !ok {
			return fmt.Errorf("no instance line for %s:\n%s", w.regName(page), w.read(chatlog.RegistryFile))
		}
		if m := instanceRE.FindStringSubmatch(l); m != nil {
			w.seen[page+" before"], w.seen[page] = w.seen[page], m[3]
		}
		return w.d.level().sameInstance(l, want)
	})
	sc.Step(`^the registry line of "([^"]*)" is marked "([a-z]+)" after its state$`, func(ctx context.Context, page, mark string) error {
		w := get(ctx)
		l, ok := w.registryLine(page)
		if !ok {
			return fmt.Errorf("no instance line for %s:\n%s", w.regName(page), w.read(chatlog.RegistryFile))
		}
		m := instanceRE.FindStringSubmatch(l)
		if m == nil {
			return fmt.Errorf("%q is not an instance line of the seed's form", l)
		}
		if !slices.Contains(strings.FieldsFunc(m[5], func(r rune) bool { return !unicode.IsLetter(r) }), mark) {
			return fmt.Errorf("the instance line %q has no mark %q after its state", l, mark)
		}
		return nil
	})
	sc.Step(`^its last-seen time is later than the one before$`, func(ctx context.Context) error {
		w := get(ctx)
		page := w.check.page
		before, now := w.seen[page+" before"], w.seen[page]
		if before == "" || now <= before {
			return fmt.Errorf("the last-seen time of %q went from %q to %q: it must move forward", page, before, now)
		}
		return nil
	})
	sc.Step(`^the registry contains "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, s string) error {
		w := get(ctx)
		if got := w.read(chatlog.RegistryFile); !w.holds(got, w.expandAll(unquote(s)), "contains") {
			return fmt.Errorf("registry lacks %q:\n%s", w.expandAll(s), got)
		}
		return nil
	})
	sc.Step(`^the registry points to the log of "([^"]*)"$`, func(ctx context.Context, page string) error {
		// The seed asks for pointers to the per-instance files, in no set
		// form: the log's file name appears in the registry.
		w := get(ctx)
		name := path.Base(w.path(page))
		if got := w.read(chatlog.RegistryFile); !strings.Contains(got, name) {
			return fmt.Errorf("the registry does not point to %s, the log of %q:\n%s", name, page, got)
		}
		return nil
	})
	sc.Step(`^the registry does not contain "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, s string) error {
		w := get(ctx)
		if got := w.read(chatlog.RegistryFile); strings.Contains(got, w.expandAll(unquote(s))) {
			return fmt.Errorf("registry still has %q:\n%s", s, got)
		}
		return nil
	})
	sc.Step(`^the registry reports a timeout as failed after (\d+) ms$`, func(ctx context.Context, ms int) error {
		w := get(ctx)
		re := regexp.MustCompile(fmt.Sprintf(`failed after %d ?(?:ms)? \(timeout\)`, ms))
		if got := w.read(chatlog.RegistryFile); !re.MatchString(got) {
			return fmt.Errorf("the registry does not say `failed after <ms> (timeout)` with %d ms:\n%s", ms, got)
		}
		return nil
	})
	sc.Step(`^every instance line of the registry has a state among idle, executing, completed, failed$`, func(ctx context.Context) error {
		w := get(ctx)
		n := 0
		for _, l := range strings.Split(w.read(chatlog.RegistryFile), "\n") {
			if strings.HasPrefix(l, "* ") && strings.Contains(l, " last ") {
				n++
				if !instanceRE.MatchString(l) {
					return fmt.Errorf("bad instance line %q", l)
				}
			}
		}
		if n == 0 {
			return fmt.Errorf("no instance line")
		}
		return nil
	})
	sc.Step(`^the registry has fewer than (\d+) lines$`, func(ctx context.Context, lines int) error {
		reg := get(ctx).read(chatlog.RegistryFile)
		if n := strings.Count(reg, "\n"); n >= lines {
			return fmt.Errorf("registry has %d lines:\n%s", n, reg)
		}
		return nil
	})
	sc.Step(`^the registry lists at most (\d+) recent jobs$`, func(ctx context.Context, jobs int) error {
		reg := get(ctx).read(chatlog.RegistryFile)
		_, recent, found := strings.Cut(reg, "## Recent jobs\n")
		recent, _, _ = strings.Cut(recent, "\n\n")
		if j := strings.Count(recent, "\n") + 1; !found || j > jobs {
			return fmt.Errorf("registry lists %d recent jobs (a list: %v):\n%s", j, found, reg)
		}
		return nil
	})

	// The console.
	sc.Step(`^the console does not say "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, s string) error {
		w := get(ctx)
		if w.holds(w.d.console(), w.expandAll(unquote(s)), "contains") {
			return fmt.Errorf("console says %q:\n%s", w.expandAll(s), w.d.console())
		}
		return nil
	})
	sc.Step(`^the console says "((?:[^"\\]|\\.)*)" once$`, func(ctx context.Context, s string) error {
		w := get(ctx)
		want := w.expandAll(unquote(s))
		if n := strings.Count(w.d.console(), want); n != 1 {
			return fmt.Errorf("console says %q %d times, want once:\n%s", want, n, w.d.console())
		}
		return nil
	})
	sc.Step(`^the console says "((?:[^"\\]|\\.)*)"$`, func(ctx context.Context, s string) error {
		w := get(ctx)
		if !w.holds(w.d.console(), w.expandAll(unquote(s)), "contains") {
			return fmt.Errorf("console lacks %q:\n%s", w.expandAll(s), w.d.console())
		}
		return nil
	})
	sc.Step(`^the console notes (an ambiguity|no ambiguity|a job orphaned or cancelled|no job orphaned or cancelled)$`, func(ctx context.Context, what string) error {
		con := strings.ToLower(get(ctx).d.console())
		var err error
		switch what {
		case "an ambiguity":
			if !strings.Contains(con, "ambigu") {
				err = fmt.Errorf("the console does not mention an ambiguity")
			}
		case "no ambiguity":
			if strings.Contains(con, "ambigu") {
				err = fmt.Errorf("the console mentions an ambiguity, but the requests' seconds differ")
			}
		case "a job orphaned or cancelled":
			if !strings.Contains(con, "orphan") && !strings.Contains(con, "cancel") {
				err = fmt.Errorf("the console mentions no job orphaned or cancelled")
			}
		default:
			if strings.Contains(con, "orphan") || strings.Contains(con, "cancel") {
				err = fmt.Errorf("the console mentions a job orphaned or cancelled")
			}
		}
		if err != nil {
			return fmt.Errorf("%w:\n%s", err, get(ctx).d.console())
		}
		return nil
	})
}

// timeoutEntry reports whether a reply is a timeout entry: the seed's
// word, in its header or below it.
func timeoutEntry(e entry) bool {
	text := strings.ToLower(e.header)
	for _, b := range e.blocks {
		text += "\n" + strings.ToLower(b.text)
	}
	return strings.Contains(text, "timeout") || strings.Contains(text, "timed out")
}
