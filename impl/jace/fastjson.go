package jace

import (
	"strconv"
)

// Hand-written JSON writers for the /actions hot path.
//
// Why: encoding/json walks structs by reflection and re-validates every
// json.RawMessage it embeds; on a committed /actions round trip that was a
// measurable share of the Go-side time. The writers below produce exactly
// the bytes mustJSON (encoding/json with SetEscapeHTML(false)) produces for
// the same values, and fall back to encoding/json whenever a value is not
// in the simple shape they handle. fastjson_test.go checks them against
// mustJSON.

// safeASCII reports whether s is printable ASCII without '"' or '\\', so
// that encoding/json (HTML escaping off) writes it between quotes as is.
func safeASCII[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendString appends s as a JSON string, byte-identical to mustJSON(s).
func appendString(dst []byte, s string) []byte {
	if safeASCII(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	return append(dst, mustJSON(s)...)
}

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

// appendError appends an *Error as encoding/json would
// ({"code","message","hints"?,"details"?}).
func appendError(dst []byte, e *Error) []byte {
	if len(e.Hints) > 0 || len(e.Details) > 0 {
		return append(dst, mustJSON(e)...)
	}
	dst = append(dst, `{"code":`...)
	dst = appendString(dst, e.Code)
	dst = append(dst, `,"message":`...)
	dst = appendString(dst, e.Message)
	return append(dst, '}')
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
		dst = appendError(dst, e)
	}
	return append(dst, '}')
}

// appendAuditRecord appends rec as encoding/json would. rec.Params is
// canonical() output, compact by construction (the caller uses encoding/json
// for a payload that did not decode).
func appendAuditRecord(dst []byte, rec *AuditRecord) []byte {
	dst = append(dst, `{"ts":`...)
	dst = appendString(dst, rec.TS)
	if rec.Via != "" {
		dst = append(dst, `,"via":`...)
		dst = appendString(dst, rec.Via)
	}
	dst = append(dst, `,"action":`...)
	dst = appendString(dst, rec.Action)
	dst = append(dst, `,"params":`...)
	dst = appendRaw(dst, rec.Params)
	dst = append(dst, `,"audit_preview":`...)
	dst = appendString(dst, rec.AuditPreview)
	dst = append(dst, `,"session_id":`...)
	dst = appendString(dst, rec.SessionID)
	dst = append(dst, `,"idempotency_key":`...)
	dst = appendString(dst, rec.IdempotencyKey)
	dst = append(dst, `,"dry_run":`...)
	dst = strconv.AppendBool(dst, rec.DryRun)
	if rec.Intent != "" {
		dst = append(dst, `,"intent":`...)
		dst = appendString(dst, rec.Intent)
	}
	dst = append(dst, `,"outcome":`...)
	dst = appendString(dst, rec.Outcome)
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(rec.Status), 10)
	if rec.ErrorCode != "" {
		dst = append(dst, `,"error_code":`...)
		dst = appendString(dst, rec.ErrorCode)
	}
	return append(dst, '}')
}

// simpleString reads the JSON string starting at b[i] if it is safe ASCII
// without escapes, returning its contents and the index after it.
func simpleString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		c := b[j]
		if c == '"' {
			return b[i+1 : j], j + 1, true
		}
		if c < 0x20 || c > 0x7e || c == '\\' {
			return nil, 0, false
		}
	}
	return nil, 0, false
}
