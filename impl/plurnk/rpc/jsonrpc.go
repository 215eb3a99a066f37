// Package rpc is the plurnk-service 0.56 daemon surface (the
// features/plurnk/SPEC.md digest: §methods-entry-read, §methods-log-read,
// §methods-log-coordinate, §notifications-log-entry-notify,
// §notifications-stream-event-on-channel-change,
// §machine-processes-model-run-readable, §telemetry-telemetry-event-notify,
// §run-lifecycle-quiesced): JSON-RPC 2.0 over WebSocket.
//
// The pieces:
//
//   - jsonrpc.go: the JSON-RPC 2.0 frame codec. Requests, notifications
//     (no id, no answer) and batches; a malformed frame is answered with a
//     JSON-RPC error (-32700 parse error, -32600 invalid request, -32601
//     method not found, -32602 invalid params, -32603 internal error), never
//     a crash.
//   - server.go: the WebSocket endpoint. Each connection reads frames,
//     handles every request in its own goroutine (so loop.cancel can reach a
//     connection whose loop.run is still waiting) and writes answers and
//     notifications through one ordered queue.
//   - methods.go: the methods (session.create, session.attach,
//     session.runs, loop.run, loop.inject, loop.cancel, loop.resolve,
//     entry.read, log.read) over the Backend interface.
//   - orchestrator.go: Orchestrator, the Backend over impl/plurnk/runs:
//     each session's model run, its plurnk run and every run its loops
//     spawn or fork; loop.run, loop.inject, loop.cancel and log.read take
//     an optional runId (the connection's own run, the model run, when
//     absent); loop/terminated, loop/quiesced and loop/proposal come from
//     the runs service's events, stream/event from its streams, log/entry
//     for the rows of every run.
//
// Notifications (each to the connections attached to the session concerned;
// session/created to every connection): log/entry, loop/terminated,
// loop/quiesced, loop/proposal, session/created, stream/event,
// telemetry/event.
//
// It may import the standard library, github.com/coder/websocket, afero,
// anchorage/sim/clock and anchorage/impl/plurnk/{dsl,store,scheme,ops,
// engine,provider,telemetry,config,exec,runs}.
package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Version is the only JSON-RPC version spoken.
const Version = "2.0"

// JSON-RPC error codes: the five standard ones and the service's own.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	CodeNotAttached         = -32000 // the connection has no session yet
	CodeSessionNotFound     = -32001
	CodeLoopNotFound        = -32002
	CodeEntryNotFound       = -32003 // no entry (or no pending proposal) to act on
	CodeProviderUnavailable = -32004
	CodeSchemeUnavailable   = -32005
	CodeMimetypeUnavailable = -32006
	CodeTimeout             = -32007 // a handler ran past PLURNK_RPC_TIMEOUT
)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("json-rpc %d: %s", e.Code, e.Message) }

// Errorf returns an *Error with code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Request is one decoded request or notification. ID is nil for a
// notification.
type Request struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// IsNotification reports whether the request expects no answer.
func (r Request) IsNotification() bool { return r.ID == nil }

// response is one answer frame. Exactly one of Result and Error is set.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// notification is a server-initiated frame.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// EncodeNotification renders a notification frame.
func EncodeNotification(method string, params any) ([]byte, error) {
	return json.Marshal(notification{JSONRPC: Version, Method: method, Params: params})
}

// nullID is the id of an answer to a request whose id is unknown.
func nullID() json.RawMessage { return json.RawMessage("null") }

// encodeResult renders a success answer; a result that cannot be encoded
// becomes an internal error.
func encodeResult(id json.RawMessage, result any) []byte {
	raw, err := json.Marshal(result)
	if err != nil {
		return encodeError(id, Errorf(CodeInternalError, "encode result: %v", err))
	}
	b, _ := json.Marshal(response{JSONRPC: Version, ID: id, Result: raw})
	return b
}

// encodeError renders an error answer.
func encodeError(id json.RawMessage, e *Error) []byte {
	if id == nil {
		id = nullID()
	}
	b, err := json.Marshal(response{JSONRPC: Version, ID: id, Error: e})
	if err != nil {
		// Data that cannot be encoded: send the error without it.
		b, _ = json.Marshal(response{JSONRPC: Version, ID: id, Error: &Error{Code: e.Code, Message: e.Message}})
	}
	return b
}

// envelope is the raw shape of a request object, its fields kept raw so
// that each can be checked for its type.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// decodeRequest checks one request object. On failure it returns the error
// to answer and the id to answer it with (null when the id itself is bad).
func decodeRequest(raw json.RawMessage) (Request, json.RawMessage, *Error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return Request{}, nullID(), Errorf(CodeInvalidRequest, "invalid request: a request must be a JSON object")
	}
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return Request{}, nullID(), Errorf(CodeInvalidRequest, "invalid request: %v", err)
	}
	id := env.ID
	if id != nil && !validID(id) {
		return Request{}, nullID(), Errorf(CodeInvalidRequest, "invalid request: id must be a string, a number or null")
	}
	answerID := id
	if answerID == nil {
		answerID = nullID()
	}
	var version string
	if err := json.Unmarshal(env.JSONRPC, &version); err != nil || version != Version {
		return Request{}, answerID, Errorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	var method string
	if err := json.Unmarshal(env.Method, &method); err != nil || method == "" {
		return Request{}, answerID, Errorf(CodeInvalidRequest, `invalid request: "method" must be a non-empty string`)
	}
	params := bytes.TrimSpace(env.Params)
	if len(params) > 0 && params[0] != '{' && params[0] != '[' && !bytes.Equal(params, nullID()) {
		return Request{}, answerID, Errorf(CodeInvalidRequest, `invalid request: "params" must be an object or an array`)
	}
	return Request{ID: id, Method: method, Params: params}, nil, nil
}

func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"':
		var s string
		return json.Unmarshal(id, &s) == nil
	case 'n':
		return bytes.Equal(id, nullID())
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		return json.Unmarshal(id, &n) == nil
	}
	return false
}

// Frame is one incoming frame split into its requests. A frame that is not
// JSON, or an empty batch, yields no requests and an answer to send at once.
type Frame struct {
	Batch    bool
	Requests []Request
	// Invalid holds the answers of the batch members (or the single
	// request) that failed to decode, already encoded.
	Invalid [][]byte
}

// DecodeFrame splits data into requests.
func DecodeFrame(data []byte) Frame {
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		return Frame{Invalid: [][]byte{encodeError(nullID(), Errorf(CodeParseError, "parse error: the frame is not valid JSON"))}}
	}
	if data[0] == '[' { // valid JSON is never empty
		var items []json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil {
			return Frame{Invalid: [][]byte{encodeError(nullID(), Errorf(CodeParseError, "parse error: %v", err))}}
		}
		if len(items) == 0 {
			return Frame{Invalid: [][]byte{encodeError(nullID(), Errorf(CodeInvalidRequest, "invalid request: an empty batch"))}}
		}
		f := Frame{Batch: true}
		for _, it := range items {
			req, id, e := decodeRequest(it)
			if e != nil {
				f.Invalid = append(f.Invalid, encodeError(id, e))
				continue
			}
			f.Requests = append(f.Requests, req)
		}
		return f
	}
	req, id, e := decodeRequest(data)
	if e != nil {
		return Frame{Invalid: [][]byte{encodeError(id, e)}}
	}
	return Frame{Requests: []Request{req}}
}

// decodeParams decodes a request's params object into v. Absent or null
// params decode as an empty object; an array, or a field of the wrong type,
// is an invalid-params error naming the problem.
func decodeParams(raw json.RawMessage, v any) *Error {
	if len(raw) == 0 || bytes.Equal(raw, nullID()) || bytes.Equal(raw, []byte("[]")) {
		return nil
	}
	if raw[0] != '{' {
		return Errorf(CodeInvalidParams, "invalid params: params must be an object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			member, _ := strconv.Unquote(name)
			return unknownMember(member)
		}
		return Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}

// unknownMember is the answer to params naming a member the method does not
// take: nothing is guessed, nothing is written.
func unknownMember(name string) *Error {
	e := Errorf(CodeInvalidParams, "invalid params: unknown member %q", name)
	e.Data = map[string]any{"member": name}
	return e
}

// checkParams refuses, before a method runs or anything is made for it,
// params that name a member the method does not take or lack one it
// needs: -32602 naming the member. doc is the method's params as discover
// shows them, name → description; a member whose description has no "?"
// is needed (given, and not null).
func checkParams(raw json.RawMessage, doc map[string]string) *Error {
	raw = bytes.TrimSpace(raw)
	var members map[string]json.RawMessage
	switch {
	case len(raw) == 0 || bytes.Equal(raw, nullID()) || bytes.Equal(raw, []byte("[]")):
	case raw[0] != '{':
		return Errorf(CodeInvalidParams, "invalid params: params must be an object of named members")
	default:
		if err := json.Unmarshal(raw, &members); err != nil {
			return Errorf(CodeInvalidParams, "invalid params: %v", err)
		}
	}
	names := make([]string, 0, len(members))
	for name := range members {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := doc[name]; !ok {
			return unknownMember(name)
		}
	}
	needed := make([]string, 0, len(doc))
	for name, d := range doc {
		if !strings.Contains(d, "?") {
			needed = append(needed, name)
		}
	}
	sort.Strings(needed)
	for _, name := range needed {
		if v, ok := members[name]; !ok || bytes.Equal(bytes.TrimSpace(v), nullID()) {
			e := Errorf(CodeInvalidParams, "invalid params: missing member %q", name)
			e.Data = map[string]any{"member": name}
			return e
		}
	}
	return nil
}
