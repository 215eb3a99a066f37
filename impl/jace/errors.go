package jace

import (
	"encoding/json"
	"fmt"

	"anchorage/impl/vary"
)

// Errors (§jace-errors, §jace-json-only). The spec family's errors page
// fixes ten canonical codes and the status each maps to; the runtime uses
// them for its own errors wherever one fits, and a code of its own (a
// Decision of the digest) where none does. Every error goes on the wire as
// {"error":{"code","message","hints"?,"details"?}}.

// Error is a runtime or module error with its HTTP status.
type Error struct {
	Status  int             `json:"-"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Hints   []string        `json:"hints,omitempty"`
	Details json.RawMessage `json:"details,omitempty"`
	kind    errKind
	// declared is a module error's own error.status, which only the
	// statuses variation reads (to tell a code that names no status).
	declared json.RawMessage
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// errKind says what went wrong, so that the status, the code and the
// wording of a runtime error are chosen in one place (choiceOf).
type errKind int

const (
	kindModule errKind = iota // the module's own error
	kindBadJSON
	kindSchema
	kindMedia
	kindTooLarge
	kindBody
	kindMethod
	kindRoute
	kindFormat
	kindUnknownAction
	kindFileMissing
	kindFileUnreadable
	kindBadModule
	kindThrown
	kindTimeout
	kindFuel
	kindMemory
	kindBadResult
	kindKeyReused
	kindShutdown
	kindInternal
)

// errChoice is how the runtime answers one kind of error: the reference's
// decision, and what the codes, statuses and messages variations make of it.
type errChoice struct {
	status    int
	code      string
	altStatus int    // under the statuses variation; 0 keeps status
	altCode   string // a code outside the family's ten: the codes variation's, or a moved status's; "" keeps code
	reworded  string // under the messages variation; "" where the seed fixes the words
}

func choiceOf(k errKind) errChoice {
	switch k {
	case kindBadJSON:
		return errChoice{400, "INVALID_PARAMS", 0, "", "the request body could not be read as JSON"}
	case kindSchema:
		return errChoice{400, "INVALID_PARAMS", 422, "INVALID_REQUEST", "the request does not have the shape this endpoint takes"}
	case kindMedia:
		return errChoice{415, "UNSUPPORTED_MEDIA_TYPE", 400, "NOT_JSON", "only JSON request bodies are taken"}
	case kindTooLarge:
		return errChoice{413, "PAYLOAD_TOO_LARGE", 400, "BODY_TOO_LARGE", "the request body is too long"}
	case kindBody:
		return errChoice{400, "INVALID_PARAMS", 0, "", "the request body could not be read"}
	case kindMethod:
		return errChoice{405, "METHOD_NOT_ALLOWED", 0, "WRONG_METHOD", "this endpoint does not take that method"}
	case kindRoute:
		return errChoice{404, "NOT_FOUND", 0, "", "there is nothing at this path"}
	case kindFormat:
		return errChoice{400, "INVALID_PARAMS", 0, "", "format must be jace or html"}
	case kindUnknownAction:
		return errChoice{404, "NOT_FOUND", 400, "", "the module has no such action"}
	case kindFileMissing:
		return errChoice{404, "NOT_FOUND", 400, "", "there is no module file at that path"}
	case kindFileUnreadable:
		return errChoice{400, "INVALID_PARAMS", 0, "", "the module file could not be read"}
	case kindBadModule:
		return errChoice{400, "INVALID_PARAMS", 422, "INVALID_MODULE", "the module was refused"}
	case kindThrown:
		return errChoice{500, "INTERNAL", 0, "", "the module threw an exception"}
	case kindTimeout, kindFuel:
		return errChoice{status: 500, code: "INTERNAL"}
	case kindMemory:
		return errChoice{500, "INTERNAL", 0, "", "the module used too much memory"}
	case kindBadResult:
		return errChoice{500, "INTERNAL", 502, "BAD_RESULT", "the module answered something that is not an ActionResult"}
	case kindKeyReused:
		return errChoice{422, "IDEMPOTENCY_KEY_REUSED", 409, "KEY_REUSED", "that Idempotency-Key went with another request"}
	case kindShutdown:
		return errChoice{503, "SHUTTING_DOWN", 0, "UNAVAILABLE", "the runtime is shutting down"}
	case kindInternal:
		return errChoice{500, "INTERNAL", 0, "", "the runtime failed"}
	}
	return errChoice{} // kindModule: the module's status and code
}

// FamilyStatus returns the status the spec family maps one of its ten
// canonical error codes to (its errors page: servers MUST map error.code to
// HTTP this way).
func FamilyStatus(code string) (int, bool) {
	st, ok := map[string]int{
		"INVALID_PARAMS": 400, "UNAUTHORIZED": 401, "FORBIDDEN": 403, "NOT_FOUND": 404, "CONFLICT": 409,
		"PRECONDITION_FAILED": 412, "RATE_LIMITED": 429, "POLICY_DENIED": 451, "INTERNAL": 500, "DRY_RUN_UNSUPPORTED": 501,
	}[code]
	return st, ok
}

// newError makes a runtime error of kind k with the reference's status and
// code.
func newError(k errKind, format string, args ...any) *Error {
	c := choiceOf(k)
	return &Error{Status: c.status, Code: c.code, Message: fmt.Sprintf(format, args...), kind: k}
}

// wire returns e as it is sent under the variations v: its status, code and
// message moved where v says (a canonical code always with its family
// status), and, with extra-members, hints and details on the runtime's own
// errors. The zero Set gives e unchanged, and a module's own error is
// never changed.
func wire(e *Error, v vary.Set) *Error {
	out := vary.Apply(v, VaryExtraMembers, vary.Apply(v, VaryMessages, vary.Apply(v, VaryCodes, vary.Apply(v, VaryStatuses, *e, movedStatus), renamedCode), reworded), withExtraMembers)
	return &out
}

// movedStatus is the statuses variation: a module's code that names no
// status gets 500, and a runtime error its kind's other status with, when
// the family maps that status, the family's code for it (the family's
// errors page: a 400 is INVALID_PARAMS, a 409 CONFLICT), else its kind's
// other code when its own is a family code of another status.
func movedStatus(e Error) Error {
	if e.kind == kindModule && moduleStatus(e.Code, e.declared) == 0 {
		e.Status = 500 // a module code that names no status: 500, not 400
		return e
	}
	c := choiceOf(e.kind)
	if e.kind == kindModule || c.altStatus == 0 {
		return e
	}
	e.Status = c.altStatus
	if code, ok := familyCode(e.Status); ok {
		e.Code = code
	} else if _, ok := FamilyStatus(e.Code); ok {
		e.Code = c.altCode
	}
	return e
}

// renamedCode is the codes variation: a runtime error whose code is not one
// of the family's ten takes its kind's other code (the family's codes go
// with their statuses, so they are never renamed).
func renamedCode(e Error) Error {
	if _, family := FamilyStatus(e.Code); !family && e.kind != kindModule && choiceOf(e.kind).altCode != "" {
		e.Code = choiceOf(e.kind).altCode
	}
	return e
}

// reworded is the messages variation: a runtime error takes its kind's
// other wording, where the seed does not fix the words.
func reworded(e Error) Error {
	if c := choiceOf(e.kind); e.kind != kindModule && c.reworded != "" {
		e.Message = c.reworded
	}
	return e
}

// withExtraMembers is the extra-members variation: hints and details on the
// runtime's own errors.
func withExtraMembers(e Error) Error {
	if e.kind != kindModule {
		e.Hints = []string{"see the runtime's log for the request"}
		e.Details = mustJSON(map[string]int{"status": e.Status})
	}
	return e
}
