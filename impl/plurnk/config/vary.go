package config

import "anchorage/impl/vary"

// The spec-permitted variations of the plurnk reference (make vary): each
// makes, differently from the reference's own Decision, a choice seed 0.56
// leaves open. plurnkd takes them as -vary, the embedded harness as
// ANCHORAGE_VARY; Config.Vary carries them to the engine, the op engine
// and the daemon.
const (
	VaryNotices       = "notices"
	VaryParseErrors   = "parse-errors"
	VaryRegexJS       = "regex-js"
	VaryReasons       = "reasons"
	VaryJSONOrder     = "json-order"
	VaryExtraMembers  = "extra-members"
	VaryWakeActions   = "wake-actions"
	VaryStreamSummary = "stream-summary"
	VaryPointers      = "pointers"
	VarySnippet       = "snippet"
	VarySessionNames  = "session-names"
	VaryHeadline      = "headline"
	VaryCatalogRows   = "catalog-rows"
)

// Variations lists the plurnk reference's spec-permitted variations.
func Variations() []vary.Variation {
	return []vary.Variation{
		{Name: VaryNotices, What: "engine notices the seed does not name get other kinds and members (idle and premature-terminate steers, the max-turns warning)",
			Permit: "§telemetry names only grammar_unenforced, max_commands_exceeded and budget_overflow with their fields; the steers and the soft 429 warning are notices whose kind and members it leaves open"},
		{Name: VaryParseErrors, What: "parse-error rows word their message otherwise (no 'parse: L:C:' prefix)",
			Permit: "§telemetry: a parse failure is an actionless op='error' row with a terse error and its snippet; the wording is the grammar's and not given"},
		{Name: VaryRegexJS, What: "a regex that cannot be compiled is refused in a JavaScript engine's words (Invalid regular expression: /…/: …)",
			Permit: "§matcher-dispatch: a malformed matcher expression is 400; the seed's ecosystem is JavaScript and names no message"},
		{Name: VaryReasons, What: "the free-text reasons of failed rows and the messages of JSON-RPC errors are reworded (outcome codes kept)",
			Permit: "§telemetry: no prose message, the status and kind are the facts; §errors: JSON-RPC errors carry a code and a message the seed does not word"},
		{Name: VaryJSONOrder, What: "the members of every JSON-RPC answer and notification come in the opposite order",
			Permit: "JSON-RPC 2.0 over JSON objects, whose members are unordered (§methods, §notifications)"},
		{Name: VaryExtraMembers, What: "every answer and notification object carries an extra member, daemon",
			Permit: "§methods and §notifications list the members a client reads; the seed forbids none beside them (an error's data may carry anything)"},
		{Name: VaryWakeActions, What: "stream/concluded names its wake actions otherwise (resumed, folded, skipped:aborted, skipped:cancelled, none)",
			Permit: "§run-lifecycle says what a conclusion does to its run; neither seed names the values"},
		{Name: VaryStreamSummary, What: "stream/concluded's summary is worded otherwise",
			Permit: "the summary is for display only"},
		{Name: VaryPointers, What: "the errors section points at a failed row as '<status> log:///<L>/<T>/<S>', the other of the seed's two descriptions",
			Permit: "§telemetry gives the pointer as status + log:///<coord> in its prose and as an action_failure object in its table"},
		{Name: VarySnippet, What: "a content-offset snippet shows three lines each side of the spot",
			Permit: "§telemetry-content-offset-snippet: a ±N-line slice, N not given"},
		{Name: VarySessionNames, What: "a session created without a name is named s<id>",
			Permit: "§methods-session-create: a missing name is generated, its form not given"},
		{Name: VaryHeadline, What: "the budget headline reads 'usage Y (P%) of X, Z free'",
			Permit: "§tokenomics-context-percent fixes only `usage Y (P%)`; the rest of the headline's wording is open"},
		{Name: VaryCatalogRows, What: "catalog rows always carry seconds and tags, 0 and [] when there are none",
			Permit: "§find-result-catalog-rows: {path, seconds?, tags?, channels} — whether an optional member appears when empty is open"},
	}
}
