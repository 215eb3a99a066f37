package chatlog

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"anchorage/impl/chatlog/logparse"
)

// FormatDuration renders a duration as the spec's reply headers show it
// (§chatlog-duration-format): whole milliseconds up to and including
// 2000 ms, seconds above (trailing zeros dropped, at most three decimals, so
// the value parses back exactly): 17ms, 2000ms, 2.5s, 60s, 2.001s.
func FormatDuration(d time.Duration) string {
	ms := d.Milliseconds()
	if ms < 0 {
		ms = 0
	}
	return FormatMillis(ms)
}

// FormatMillis is FormatDuration for a count of milliseconds.
func FormatMillis(ms int64) string {
	if ms <= 2000 {
		return strconv.FormatInt(ms, 10) + "ms"
	}
	s := fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	return s + "s"
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

// RenderRequest renders an agent request (§chatlog-request-header): the
// header line immediately followed by a fenced block tagged lang.
func RenderRequest(agent, page, at, lang, code string) string {
	return fmt.Sprintf("**%s** to %s at %s\n", agent, page, at) + fenced(lang, code)
}

// ReplyHeader renders a reply header line (without newline)
// (§chatlog-reply-header, §chatlog-error-header). ms < 0 means no known
// duration. marks are appended after the duration: "timeout", "late",
// "interrupted".
func ReplyHeader(page, agent, at string, ms int64, isErr bool, marks ...string) string {
	h := fmt.Sprintf("**%s** to %s at %s", page, agent, at)
	var parts []string
	switch {
	case isErr && ms >= 0:
		parts = append(parts, "**ERROR** after "+FormatMillis(ms))
	case isErr:
		parts = append(parts, "**ERROR**")
	case ms >= 0:
		parts = append(parts, FormatMillis(ms))
	}
	parts = append(parts, marks...)
	if len(parts) > 0 {
		h += " (" + strings.Join(parts, ", ") + ")"
	}
	return h
}

// Placeholder is the body of the executing placeholder reply
// (§chatlog-executing-placeholder).
const Placeholder = logparse.Placeholder

// RenderPlaceholder renders the executing placeholder reply.
func RenderPlaceholder(page, agent, at string) string {
	return ReplyHeader(page, agent, at, -1, false) + "\n" + Placeholder + "\n"
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

// RenderReply renders the final reply for an outcome (§chatlog-result-fences,
// §chatlog-background-errors, §chatlog-failure-stack). ms is the duration
// (finishedAt − startedAt); marks as for ReplyHeader.
func RenderReply(page, agent, at string, ms int64, o Outcome, marks ...string) string {
	var b strings.Builder
	b.WriteString(ReplyHeader(page, agent, at, ms, !o.OK, marks...))
	b.WriteByte('\n')
	switch {
	case !o.OK:
		b.WriteString(fenced("Error", strings.TrimRight(o.Stack, "\n")))
	case o.IsJSON:
		b.WriteString(fenced("JSON", o.JSON))
	default:
		b.WriteString(fenced("Text", o.Text))
	}
	if len(o.Errors) > 0 {
		b.WriteString("\n")
		b.WriteString(fenced("", ErrorComment(o.Errors)))
	}
	return b.String()
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
