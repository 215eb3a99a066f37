package jace

import (
	"strconv"
)

// The /actions answer, written by hand.
//
// Why: encoding/json walks structs by reflection and re-validates every
// json.RawMessage it embeds; on a committed /actions round trip that was a
// measurable share of the Go-side time. appendActionsBody writes the same
// bytes mustJSON (encoding/json with SetEscapeHTML(false)) writes for the
// Action Result, copying the raw JSON the VM wrote instead of re-reading it
// (fastjson_test.go checks it against mustJSON).

// appendString appends s as a JSON string, as mustJSON writes it.
func appendString(dst []byte, s string) []byte { return append(dst, mustJSON(s)...) }

// appendRaw appends a json.RawMessage the way encoding/json embeds one
// ("null" when empty). Every raw value written here is compact JSON: it
// comes out of QuickJS's JSON.stringify (through encoding/json's decoder,
// which keeps a value's bytes, or the view filter, which writes no
// whitespace) or out of canonical(), so compacting it would change nothing
// and the bytes are copied.
func appendRaw(dst []byte, raw []byte) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, raw...)
}

// appendActionsBody appends the /actions Action Result for o, with e its
// error as sent (nil on success): the members the family's action-result
// schema allows, in the order ok, dry_run, state, result, audit_preview,
// events, error.
func appendActionsBody(dst []byte, o *Outcome, e *Error) []byte {
	raw := func(r []byte) { dst = appendRaw(dst, r) }
	dst = append(dst, `{"ok":`...)
	dst = strconv.AppendBool(dst, e == nil)
	dst = append(dst, `,"dry_run":`...)
	dst = strconv.AppendBool(dst, o.DryRun)
	if len(o.State) > 0 {
		dst = append(dst, `,"state":`...)
		raw(o.State)
	}
	if len(o.Result) > 0 {
		dst = append(dst, `,"result":`...)
		raw(o.Result)
	}
	dst = append(dst, `,"audit_preview":`...)
	dst = appendString(dst, o.AuditPreview)
	if len(o.Events) > 0 {
		dst = append(dst, `,"events":[`...)
		for i, ev := range o.Events {
			if i > 0 {
				dst = append(dst, ',')
			}
			raw(ev)
		}
		dst = append(dst, ']')
	}
	if e != nil {
		dst = append(dst, `,"error":`...)
		dst = append(dst, mustJSON(e)...)
	}
	return append(dst, '}')
}
