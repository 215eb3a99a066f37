package chatlog

import (
	"anchorage/impl/vary"
)

// Variations lists the choices seed 000 leaves open that the reference can
// make differently (Config.Vary, replserve -vary, ANCHORAGE_VARY in the
// features): run with any of them the server still keeps its spec, so the
// features must still pass it at the normative level. Each Permit names the
// place of the seed that leaves the choice open.
func Variations() []vary.Variation {
	return []vary.Variation{
		{Name: "blank-lines", What: "a blank line before every entry the server appends",
			Permit: "Per-instance chat-log format, Examples: each entry is shown in a block of its own; nothing is said of the lines between entries"},
		{Name: "reply-marks", What: "the marks after a reply's duration read \"timed out\", \"late result\", \"not run again\"",
			Permit: "Per-instance chat-log format: only `(<duration>)` and `(**ERROR** after <duration>)` are given; Edge cases and Timeout behaviour name no form for a late or timed-out entry"},
		{Name: "console", What: "every console line in another format and in capitals",
			Permit: "Matching rules and Edge cases: the server logs ambiguity and notifies on its console, in no given words"},
		{Name: "durations", What: "seconds always written with three decimals (\"2.500s\", \"60.000s\")",
			Permit: "Important rules: a duration is in ms, or in seconds above 2000 ms; no precision is given"},
		{Name: "no-recent-jobs", What: "the registry lists no recent jobs",
			Permit: "Master registry: the list of recent jobs is optional"},
		{Name: "recent-jobs", What: "the recent jobs under another heading, in another line format",
			Permit: "Master registry: the list of recent jobs has no given format"},
		{Name: "pointers", What: "the pointers to the logs as Markdown links under another heading",
			Permit: "Master registry: pointers to per-instance files, in no given form"},
		{Name: "transliterate", What: "non-ASCII letters of a page title replaced by ASCII ones (é → e) instead of removed",
			Permit: "File naming and sanitization: non-ASCII and unsafe characters are removed or replaced"},
		{Name: "refusals", What: "the server's own Error texts (timeout, refusal, interruption) reworded",
			Permit: "Timeout behaviour: a `timeout` entry, with no text given; refusals and interruptions are not in the seed"},
		{Name: "adapter-words", What: "the browser adapter marks an unhandled rejection \"(in promise) \" instead of \"Unhandled rejection: \"",
			Permit: "Error capture and formatting: the adapter captures `unhandledrejection`; stacks are strings, with no prefix given"},
		{Name: "limits", What: "the registry lists 80 instances and 10 recent jobs, names are cut at 32 characters, a long poll waits 20 s",
			Permit: "Master registry: keep the file under ~200 lines, with no counts given; File naming: no length given; Adapters: the transport is open"},
		{Name: "timeout-from-dispatch", What: "a job's timeout runs from the moment its page received it; a job no realm takes waits until one does",
			Permit: "Timeout behaviour: a default job timeout of 60 s, not said to run from the request or the dispatch"},
		{Name: "no-placeholder", What: "no \"executing ...\" placeholder is written",
			Permit: "Examples: the executing placeholder is one of the examples, never required"},
		{Name: "json-indent", What: "JSON results pretty-printed with a two-space indent",
			Permit: "Per-instance chat-log format: successful results go in a `JSON` fenced block, with no layout given"},
		{Name: "errors-fence", What: "errors collected beside a result written as an \"Error\" fence, not a comment block",
			Permit: "Error capture and formatting: errors go in a comment block separated by `---` or in a fenced `Error` block"},
		{Name: "short-ids", What: "short ids of 6 hex digits",
			Permit: "File naming and sanitization: the short id is 4–8 hex characters"},
		{Name: "registry-stem", What: "an instance line names the page with its short id (\"index-7-zen-1a2b\")",
			Permit: "Examples: the agent addresses the page as `index-7-zen-1a2b`, while the registry example names it without the id"},
	}
}

// ParseVary reads a -vary or ANCHORAGE_VARY list of Variations.
func ParseVary(list string) (vary.Set, error) { return vary.Parse(list, Variations()) }
