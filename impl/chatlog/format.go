package chatlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"anchorage/impl/chatlog/logparse"
	"anchorage/impl/vary"
)

// Format renders what the server writes into a log, with the variations in
// force (Variations); the zero Format is the reference's own choices. The
// package functions below render with the zero Format.
type Format struct {
	Vary vary.Set
}

// FormatMillis renders a count of milliseconds as the spec's reply headers
// show a duration (§chatlog-duration-format): whole milliseconds up to and
// including 2000 ms, seconds above (trailing zeros dropped, at most three
// decimals, so the value parses back exactly): 17ms, 2000ms, 2.5s, 60s,
// 2.001s.
func FormatMillis(ms int64) string { return Format{}.Millis(ms) }

// Millis renders a count of milliseconds as FormatMillis does; with the
// variation "durations" seconds always have three decimals.
func (f Format) Millis(ms int64) string {
	if ms <= 2000 {
		return strconv.FormatInt(ms, 10) + "ms"
	}
	s := fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
	return vary.Choose(f.Vary, "durations", strings.TrimSuffix(strings.TrimRight(s, "0"), "."), s) + "s"
}

// fenceFor returns a backtick fence long enough that no line of body can
// close it.
func fenceFor(body string) string {
	longest := 0
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimLeft(line, " ")
		n := 0
		for n < len(t) && t[n] == '`' {
			n++
		}
		longest = max(longest, n)
	}
	return strings.Repeat("`", max(3, longest+1))
}

// fenced renders body in a fenced block tagged lang, ending with a newline.
func fenced(lang, body string) string {
	f := fenceFor(body)
	return f + lang + "\n" + body + "\n" + f + "\n"
}

// markWord is a mark's word with the variation "reply-marks"; the parser
// reads both (logparse).
func markWord(mark string) string {
	switch mark {
	case "timeout":
		return "timed out"
	case "late":
		return "late result"
	case "interrupted":
		return "not run again"
	}
	return mark
}

// ReplyHeader renders a reply header line, without its newline
// (§chatlog-reply-header, §chatlog-error-header). ms < 0 means no known
// duration. marks follow the duration: "timeout", "late", "interrupted".
func (f Format) ReplyHeader(page, agent, at string, ms int64, isErr bool, marks ...string) string {
	h := fmt.Sprintf("**%s** to %s at %s", page, agent, at)
	var parts []string
	switch {
	case isErr && ms >= 0:
		parts = append(parts, "**ERROR** after "+f.Millis(ms))
	case isErr:
		parts = append(parts, "**ERROR**")
	case ms >= 0:
		parts = append(parts, f.Millis(ms))
	}
	for _, m := range marks {
		parts = append(parts, vary.Apply(f.Vary, "reply-marks", m, markWord))
	}
	if len(parts) > 0 {
		h += " (" + strings.Join(parts, ", ") + ")"
	}
	return h
}

// Placeholder is the body of the executing placeholder reply
// (§chatlog-executing-placeholder).
const Placeholder = logparse.Placeholder

// Placeholder renders the executing placeholder reply.
func (f Format) Placeholder(page, agent, at string) string {
	return f.ReplyHeader(page, agent, at, -1, false) + "\n" + Placeholder + "\n"
}

// Outcome is what an adapter reports for one job (§chatlog-adapter-contract).
type Outcome struct {
	// OK is true when the code evaluated without throwing.
	OK bool `json:"ok"`
	// JSON holds the result as JSON text when it is JSON-representable.
	JSON string `json:"json,omitempty"`
	// IsJSON tells whether JSON is set (the JSON text "" is never valid).
	IsJSON bool `json:"isJSON,omitempty"`
	// Text is the result's string form when it is not JSON-representable.
	Text string `json:"text,omitempty"`
	// Stack is the raw stack (or message) of the thrown error when !OK.
	Stack string `json:"stack,omitempty"`
	// Errors is the adapter's error buffer: runtime errors captured beside
	// the evaluation (§chatlog-error-buffer), stacks as strings.
	Errors []string `json:"errors,omitempty"`
}

// Reply renders the final reply for an outcome (§chatlog-result-fences,
// §chatlog-background-errors, §chatlog-failure-stack). ms is the duration
// (finishedAt − startedAt); marks as for ReplyHeader. With
// "json-indent" a JSON result is indented, with "errors-fence" the errors
// collected beside the result follow it in an Error fence.
func (f Format) Reply(page, agent, at string, ms int64, o Outcome, marks ...string) string {
	var b strings.Builder
	b.WriteString(f.ReplyHeader(page, agent, at, ms, !o.OK, marks...))
	b.WriteByte('\n')
	switch {
	case !o.OK:
		b.WriteString(fenced("Error", strings.TrimRight(o.Stack, "\n")))
	case o.IsJSON:
		b.WriteString(fenced("JSON", f.json(o.JSON)))
	default:
		b.WriteString(fenced("Text", o.Text))
	}
	if len(o.Errors) > 0 {
		b.WriteString(vary.Choose(f.Vary, "errors-fence", "\n"+fenced("", ErrorComment(o.Errors)),
			fenced("Error", strings.Join(trimmed(o.Errors), "\n---\n"))))
	}
	return b.String()
}

// json lays a JSON result out: as the page sent it, or indented with
// "json-indent".
func (f Format) json(text string) string { return vary.Apply(f.Vary, "json-indent", text, indentJSON) }

// indentJSON indents JSON text by two spaces; text that is not JSON stays
// as it is.
func indentJSON(text string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(text), "", "  "); err != nil {
		return text
	}
	return b.String()
}

func trimmed(errs []string) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = strings.TrimRight(e, "\n")
	}
	return out
}

// ErrorComment joins buffered errors into the /* … --- … */ comment block.
// A "*/" inside an error is broken up so that it cannot end the comment.
func ErrorComment(errs []string) string {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = strings.ReplaceAll(strings.TrimRight(e, "\n"), "*/", "* /")
	}
	return "/*\n" + strings.Join(parts, "\n---\n") + "\n*/"
}
