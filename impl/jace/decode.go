package jace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"anchorage/impl/vary"
)

// Request bodies, one per endpoint, after validation.
type (
	LoadRequest struct {
		Source string `json:"source"`
		Name   string `json:"name,omitempty"`
		Env    Env    `json:"env,omitempty"`
	}
	LoadFileRequest struct {
		Path string `json:"path"`
		Env  Env    `json:"env,omitempty"`
	}
	InitRequest struct {
		Env Env `json:"env,omitempty"`
	}
	ViewRequest struct {
		State     json.RawMessage `json:"state,omitempty"`
		Audience  string          `json:"audience,omitempty"`
		SessionID string          `json:"session_id,omitempty"`
	}
	PressRequest struct {
		Action string          `json:"action"`
		Params json.RawMessage `json:"params,omitempty"`
		Env    Env             `json:"env,omitempty"`
	}
	ActionsRequest struct {
		Action    string          `json:"action"`
		Params    json.RawMessage `json:"params,omitempty"`
		DryRun    bool            `json:"dry_run,omitempty"`
		Intent    string          `json:"intent,omitempty"`
		SessionID string          `json:"session_id,omitempty"`
	}
)

// Endpoints with a JSON body.
const (
	EndpointLoad     = "/load"
	EndpointLoadFile = "/load-file"
	EndpointInit     = "/init"
	EndpointView     = "/view"
	EndpointPress    = "/press"
	EndpointActions  = "/actions"
)

// The schemas carry absolute urn: ids so that compiling them never touches
// the file system and messages never depend on the working directory. The
// /actions schema is the family's action request (jace-action.schema.json):
// action, params (an object), dry_run, intent, session_id, nothing else.
func envSchema(l schemaLimits) string {
	return fmt.Sprintf(`{
  "$id": "urn:jace:schema:env",
  "type": "object",
  "properties": {
    "session_id": {"type": "string", "minLength": 1, "maxLength": %d},
    "dry_run": {"type": "boolean"},
    "intent": {"type": "string", "maxLength": %d},
    "now": {"type": "string", "format": "date-time"}
  }
}`, l.name, l.intent)
}

// schemaLimits are the lengths the request schemas allow: action and
// session_id (name), intent.
type schemaLimits struct{ name, intent int }

// defaultLimits are the reference's (Decision §jace-schema).
func defaultLimits() schemaLimits { return schemaLimits{name: 256, intent: 4096} }

type schemaDoc struct{ endpoint, id, doc string }

func requestSchemas(l schemaLimits) []schemaDoc {
	return []schemaDoc{
		{EndpointLoad, "urn:jace:schema:load", fmt.Sprintf(`{
  "type": "object", "required": ["source"], "additionalProperties": false,
  "properties": {
    "source": {"type": "string", "minLength": 1},
    "name": {"type": "string", "minLength": 1, "maxLength": %d},
    "env": {"$ref": "urn:jace:schema:env"}
  }}`, l.name)},
		{EndpointLoadFile, "urn:jace:schema:load-file", `{
  "type": "object", "required": ["path"], "additionalProperties": false,
  "properties": {
    "path": {"type": "string", "minLength": 1, "maxLength": 4096},
    "env": {"$ref": "urn:jace:schema:env"}
  }}`},
		{EndpointInit, "urn:jace:schema:init", `{
  "type": "object", "additionalProperties": false,
  "properties": {"env": {"$ref": "urn:jace:schema:env"}}}`},
		{EndpointView, "urn:jace:schema:view", fmt.Sprintf(`{
  "type": "object", "additionalProperties": false,
  "properties": {
    "state": true,
    "audience": {"enum": ["agent", "human"]},
    "session_id": {"type": "string", "minLength": 1, "maxLength": %d}
  }}`, l.name)},
		{EndpointPress, "urn:jace:schema:press", fmt.Sprintf(`{
  "type": "object", "required": ["action"], "additionalProperties": false,
  "properties": {
    "action": {"type": "string", "minLength": 1, "maxLength": %d},
    "params": true,
    "env": {"$ref": "urn:jace:schema:env"}
  }}`, l.name)},
		{EndpointActions, "urn:jace:schema:actions", fmt.Sprintf(`{
  "type": "object", "required": ["action"], "additionalProperties": false,
  "properties": {
    "action": {"type": "string", "minLength": 1, "maxLength": %d},
    "params": {"type": "object"},
    "dry_run": {"type": "boolean"},
    "intent": {"type": "string", "maxLength": %d},
    "session_id": {"type": "string", "minLength": 1, "maxLength": %d}
  }}`, l.name, l.intent, l.name)},
	}
}

// Decoder turns request bodies into validated request structs.
type Decoder struct {
	maxBody int64
	limits  schemaLimits
	schemas map[string]*jsonschema.Schema
}

// NewDecoder compiles the request schemas, with the reference's lengths
// or, under the limits variation, longer ones; maxBody is the body limit
// in bytes. The schemas are the program's own constant text: one that does
// not compile is a bug, and panics.
func NewDecoder(maxBody int64, v vary.Set) *Decoder {
	limits := vary.Choose(v, VaryLimits, defaultLimits(), schemaLimits{name: variedNameLimit, intent: variedIntentLimit})
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	addSchema(c, "urn:jace:schema:env", envSchema(limits))
	for _, s := range requestSchemas(limits) {
		addSchema(c, s.id, s.doc)
	}
	d := &Decoder{maxBody: maxBody, limits: limits, schemas: map[string]*jsonschema.Schema{}}
	for _, s := range requestSchemas(limits) {
		d.schemas[s.endpoint] = c.MustCompile(s.id)
	}
	return d
}

// addSchema adds a constant schema document to c.
func addSchema(c *jsonschema.Compiler, id, text string) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err == nil {
		err = c.AddResource(id, doc)
	}
	if err != nil {
		panic(fmt.Sprintf("jace: request schema %s: %v", id, err))
	}
}

// CheckContentType accepts an absent Content-Type, application/json and any
// +json type; anything else is 415.
func CheckContentType(ct string) *Error {
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return newError(kindMedia, "Content-Type %q does not parse: %v", ct, err)
	}
	if mt == "application/json" || strings.HasSuffix(mt, "+json") {
		return nil
	}
	return newError(kindMedia, "Content-Type %q is not JSON; send application/json", mt)
}

// ReadBody reads at most MaxBody bytes; a longer body is 413 and is not
// parsed.
func (d *Decoder) ReadBody(r io.Reader, contentLength int64) ([]byte, *Error) {
	if contentLength > d.maxBody {
		return nil, d.tooLarge()
	}
	b, err := io.ReadAll(io.LimitReader(r, d.maxBody+1))
	if err != nil {
		return nil, newError(kindBody, "reading the request body: %v", err)
	}
	if int64(len(b)) > d.maxBody {
		return nil, d.tooLarge()
	}
	return b, nil
}

func (d *Decoder) tooLarge() *Error {
	return newError(kindTooLarge, "request body exceeds the limit of %d bytes", d.maxBody)
}

// Decode parses and validates a body (ReadBody has held it to the body
// limit) for one of the JSON endpoints and returns a pointer to the
// endpoint's request struct. An empty body counts as {}.
func (d *Decoder) Decode(endpoint string, body []byte) (any, *Error) {
	if endpoint == EndpointActions {
		return d.decodeActions(body)
	}
	return d.decodeGeneral(endpoint, d.schemas[endpoint], body)
}

// decodeGeneral is Decode without the /actions fast path.
func (d *Decoder) decodeGeneral(endpoint string, sch *jsonschema.Schema, body []byte) (any, *Error) {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	inst, e := parseJSON(body)
	if e != nil {
		return nil, e
	}
	if err := sch.Validate(inst); err != nil {
		return nil, newError(kindSchema, "invalid %s request: %s", endpoint, describeValidation(err))
	}
	var out any
	switch endpoint {
	case EndpointLoad:
		out = &LoadRequest{}
	case EndpointLoadFile:
		out = &LoadFileRequest{}
	case EndpointInit:
		out = &InitRequest{}
	case EndpointView:
		out = &ViewRequest{}
	case EndpointPress:
		out = &PressRequest{}
	case EndpointActions:
		out = &ActionsRequest{}
	}
	json.Unmarshal(body, out) // the schema has checked every member's type
	return out, nil
}

// parseJSON decodes one JSON value (numbers kept exact) and reports syntax
// errors with line and column.
func parseJSON(body []byte) (any, *Error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxError(body, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := position(body, dec.InputOffset())
		return nil, newError(kindBadJSON, "request body is not one JSON value: extra data at line %d, column %d", line, col)
	}
	return v, nil
}

func syntaxError(body []byte, err error) *Error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the offending one included: the
		// position named is that byte's.
		line, col := position(body, se.Offset-1)
		return newError(kindBadJSON, "request body is not valid JSON at line %d, column %d: %v", line, col, se)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		line, col := position(body, int64(len(body)))
		return newError(kindBadJSON, "request body is not valid JSON: unexpected end at line %d, column %d", line, col)
	}
	return newError(kindBadJSON, "request body is not valid JSON: %v", err)
}

// position turns a byte offset of b (0 to len(b)) into a 1-based line and
// column.
func position(b []byte, off int64) (int, int) {
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// describeValidation lists the leaf errors, each naming its field by JSON
// pointer, sorted for stable messages.
func describeValidation(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, strings.TrimSpace(e.Error()))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(leaves)
	return strings.Join(leaves, "; ")
}

// decodeActions reads an /actions body, the family's action request: one
// object whose members are among action (required), params, dry_run, intent
// and session_id, action and session_id strings of 1 to the limit's
// characters, intent a string up to its limit, dry_run a boolean and params
// an object. It is the only judge of an /actions body; a refused one is
// described by the endpoint's schema (describe).
func (d *Decoder) decodeActions(body []byte) (any, *Error) {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil || members["action"] == nil {
		return nil, d.describe(EndpointActions, body)
	}
	q := &ActionsRequest{}
	for name, raw := range members {
		var ok bool
		switch name {
		case "action":
			q.Action, ok = jsonString(raw, 1, d.limits.name)
		case "session_id":
			q.SessionID, ok = jsonString(raw, 1, d.limits.name)
		case "intent":
			q.Intent, ok = jsonString(raw, 0, d.limits.intent)
		case "dry_run":
			q.DryRun, ok = string(raw) == "true", string(raw) == "true" || string(raw) == "false"
		case "params":
			q.Params, ok = raw, raw[0] == '{'
		}
		if !ok {
			return nil, d.describe(EndpointActions, body)
		}
	}
	return q, nil
}

// jsonString reads a member's JSON text as a string of min to max
// characters; ok is false for any other value.
func jsonString(raw json.RawMessage, min, max int) (string, bool) {
	if raw[0] != '"' {
		return "", false
	}
	var s string
	json.Unmarshal(raw, &s) // a JSON string inside a valid body always reads
	n := utf8.RuneCountInString(s)
	return s, n >= min && n <= max
}

// describe is the error of a body the endpoint refuses, as its schema
// words it.
func (d *Decoder) describe(endpoint string, body []byte) *Error {
	if _, e := d.decodeGeneral(endpoint, d.schemas[endpoint], body); e != nil {
		return e
	}
	return newError(kindSchema, "invalid %s request", endpoint)
}
