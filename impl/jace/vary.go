package jace

import (
	"time"

	"anchorage/impl/jace/sandbox"
	"anchorage/impl/vary"
)

// The runtime's spec-permitted variations: each makes differently a choice
// that seed 003 and its spec family leave open, so a runtime running with
// any of them still keeps its spec (make vary: the features must still pass
// it at the normative level). Config.Vary switches them on; the jace
// command takes them as -vary, the features as ANCHORAGE_VARY.
const (
	VaryMessages     = "messages"
	VaryCodes        = "codes"
	VaryStatuses     = "statuses"
	VaryMediaParams  = "media-params"
	VaryHeaderCase   = "header-case"
	VaryJSONLayout   = "json-layout"
	VaryExtraMembers = "extra-members"
	VaryClock        = "clock"
	VaryBodyLimit    = "body-limit"
	VaryHTML         = "html"
	VaryReplayHeader = "replay-header"
	VaryLimits       = "limits"
	VaryFuelUnit     = "fuel-unit"
	VaryEventDefault = "event-defaults"
	VaryPreview      = "preview"
	VaryNegotiation  = "negotiation"
)

// The variations' own values. The runtime switches every variation with
// vary.Choose or vary.Apply, in an expression, and takes the alternative
// from here or from a function only the variation calls: no mutant of the
// runtime's code can turn a variation on, or change what it does, without
// also changing the reference.
const (
	variedMaxBody     = 2 << 20               // body-limit: 2 MiB
	variedMaxOutput   = 8 << 20               // limits: an 8 MiB output cap
	variedNameLimit   = 1024                  // limits: action and session_id
	variedIntentLimit = 16384                 // limits: intent
	variedUnitTicks   = 2 * sandbox.PollTicks // fuel-unit
)

// variedNow is the fixed instant under the clock variation.
func variedNow() time.Time { return time.Date(2025, time.August, 25, 12, 0, 0, 0, time.UTC) }

// Variations lists the runtime's variations, each with the place of seed 003
// (or of its spec family) that leaves the choice open.
func Variations() []vary.Variation {
	return []vary.Variation{
		{Name: VaryMessages, What: "every message of the runtime's own errors reworded (the seed's \"Action timed out\" and \"Fuel exhausted\" kept)",
			Permit: "seed §6 gives an error a code and a message but fixes no wording beyond the two guard messages of §4"},
		{Name: VaryCodes, What: "every code of the runtime's own errors outside the family's ten renamed (METHOD_NOT_ALLOWED, UNSUPPORTED_MEDIA_TYPE, PAYLOAD_TOO_LARGE, IDEMPOTENCY_KEY_REUSED, SHUTTING_DOWN)",
			Permit: "seed §6 asks for {error:{code,message}}; the family's errors page maps its ten codes to their statuses but names none for a 405, 413, 415, 422 or 503"},
		{Name: VaryStatuses, What: "statuses the seed leaves open moved (unknown action 400, unknown module code 500, schema failure 422, 415 and 413 as 400, …)",
			Permit: "seed §6: errors come \"with 4xx/5xx status\"; the family fixes a status only for its ten codes"},
		{Name: VaryMediaParams, What: "Content-Type parameters: charset=utf-8 on JSON and event streams, profile=\"JACE/0.1\" on application/jace+json",
			Permit: "the family's content-negotiation page: application/jace+json, optionally with a profile parameter; seed §3 says only that bodies are JSON"},
		{Name: VaryHeaderCase, What: "letter case of header values HTTP compares without case: Vary: accept, Cache-Control: No-cache, media types in capitals",
			Permit: "the seed and the family name header values (Vary: Accept) but HTTP compares these tokens without case"},
		{Name: VaryJSONLayout, What: "JSON answers and event data indented and their members in reverse order",
			Permit: "seed §3: all responses are JSON; JSON fixes neither member order nor whitespace"},
		{Name: VaryExtraMembers, What: "hints and details on the runtime's errors, an extra member on every relayed event",
			Permit: "the family: an error may carry hints and details; an event may carry members beyond type, id, ts, entity"},
		{Name: VaryClock, What: "the fixed instant is 2025-08-25T12:00:00Z instead of 2026-01-01T00:00:00Z",
			Permit: "seed §4: Date gives \"a fixed timestamp\", which one is not said"},
		{Name: VaryBodyLimit, What: "the default body limit is 2 MiB instead of 1 MiB",
			Permit: "seed §11: \"Enforce max body size\", no size given"},
		{Name: VaryHTML, What: "the HTML view in other markup (lower-case doctype, sections and lists, numeric character references)",
			Permit: "seed §8: humans \"render the same JACE to HTML\"; no markup is given"},
		{Name: VaryReplayHeader, What: "a replayed answer carries no Idempotent-Replayed header",
			Permit: "seed §5/§6: duplicates are de-duplicated; no header is named"},
		{Name: VaryLimits, What: "longer envelope strings allowed (action and session_id 1024, intent 16384) and an 8 MiB output cap",
			Permit: "seed §11 asks for schema validation and bounded calls but gives no lengths"},
		{Name: VaryFuelUnit, What: "a fuel unit is 20,000 interpreter ticks instead of 10,000",
			Permit: "seed §4: an \"optional instruction-count (fuel) guard\", no unit given"},
		{Name: VaryEventDefault, What: "defaults of missing event members: id <action>#<n>, entity \"jace\", ts without milliseconds, no changes",
			Permit: "seed §9 shows {type,id,ts,entity,changes}; the family requires the first four but says nothing of defaults"},
		{Name: VaryPreview, What: "the runtime's own audit preview written action(params) instead of action params",
			Permit: "seed §2: audit_preview is a string \"e.g. PUSH 7\"; the runtime's own wording is not given"},
		{Name: VaryNegotiation, What: "among equally acceptable view forms JACE JSON before HTML, and JACE JSON always labelled application/jace+json",
			Permit: "the family's negotiation page orders ?format, audience, Accept and the text/html default, not a server's preference among equal q"},
	}
}
