package jace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Assertions at the level of the spec: what seed 003 and its spec family
// state, with room for everything they leave open (a status within its
// class, a code they do not name, Content-Type parameters, letter case,
// member order, markup). A step that pins one of the reference's choices
// is written with " per Decision (§id)" in the feature.

// familyStatus is the status the spec family's errors page maps each of its
// ten canonical codes to (servers MUST map error.code to HTTP this way).
func familyStatus(code string) (int, bool) {
	st, ok := map[string]int{
		"INVALID_PARAMS": 400, "UNAUTHORIZED": 401, "FORBIDDEN": 403, "NOT_FOUND": 404, "CONFLICT": 409,
		"PRECONDITION_FAILED": 412, "RATE_LIMITED": 429, "POLICY_DENIED": 451, "INTERNAL": 500, "DRY_RUN_UNSUPPORTED": 501,
	}[code]
	return st, ok
}

// familyCode is the one of the family's ten codes that maps to status.
func familyCode(status int) (string, bool) {
	for _, code := range []string{"INVALID_PARAMS", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT",
		"PRECONDITION_FAILED", "RATE_LIMITED", "POLICY_DENIED", "INTERNAL", "DRY_RUN_UNSUPPORTED"} {
		if st, _ := familyStatus(code); st == status {
			return code, true
		}
	}
	return "", false
}

// mediaType is the media type of a Content-Type, in lower case and without
// its parameters ("" when there is none or it does not parse).
func mediaType(h http.Header) string {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return mt
}

// checkJSON checks that an answer is JSON: its media type application/json
// or a +json type, its body one JSON value.
func checkJSON(r *response) error {
	mt := mediaType(r.header)
	if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return fmt.Errorf("Content-Type %q is not JSON; body %s", r.header.Get("Content-Type"), clip(r.body))
	}
	if !json.Valid([]byte(r.body)) {
		return fmt.Errorf("the body is not JSON: %s", clip(r.body))
	}
	return nil
}

// checkError checks an error answer: a 4xx or 5xx status and the seed's
// and family's envelope, {"error":{"code", "message"?, "hints"?,
// "details"?}} with a non-empty code, a string message, hints an array of
// strings, details an object and nothing else; a code among the family's
// ten comes with the status the family maps it to.
func checkError(r *response) error {
	if r.status < 400 || r.status > 599 {
		return fmt.Errorf("status %d, want a 4xx or 5xx error; body %s", r.status, clip(r.body))
	}
	if err := checkJSON(r); err != nil {
		return err
	}
	e := gjson.Get(r.body, "error")
	if !e.IsObject() {
		return fmt.Errorf("no error object in %s", clip(r.body))
	}
	var problems []string
	e.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "code":
			if v.Type != gjson.String || v.String() == "" {
				problems = append(problems, "code is not a non-empty string")
			}
		case "message":
			if v.Type != gjson.String {
				problems = append(problems, "message is not a string")
			}
		case "hints":
			if !v.IsArray() || !allStrings(v) {
				problems = append(problems, "hints is not an array of strings")
			}
		case "details":
			if !v.IsObject() {
				problems = append(problems, "details is not an object")
			}
		default:
			problems = append(problems, fmt.Sprintf("member %q, which the family's error does not have", k.String()))
		}
		return true
	})
	if !e.Get("code").Exists() {
		problems = append(problems, "no code")
	}
	if len(problems) > 0 {
		return fmt.Errorf("the error envelope is wrong (%s): %s", strings.Join(problems, "; "), clip(r.body))
	}
	code := e.Get("code").String()
	if st, ok := familyStatus(code); ok && st != r.status {
		return fmt.Errorf("status %d with code %s, which the spec family maps to %d; body %s", r.status, code, st, clip(r.body))
	}
	return nil
}

func allStrings(v gjson.Result) bool {
	for _, x := range v.Array() {
		if x.Type != gjson.String {
			return false
		}
	}
	return true
}

func anyError(_ context.Context, w *world) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	return checkError(r)
}

// errorIfFailed checks the family's rule for an answer that is not a
// success, where whether it succeeds is the runtime's choice: a 4xx or 5xx
// comes as the family's JSON error envelope.
func errorIfFailed(_ context.Context, w *world) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if r.status < 400 {
		return nil
	}
	return checkError(r)
}

func classError(ctx context.Context, w *world, class string) error {
	if err := anyError(ctx, w); err != nil {
		return err
	}
	if got := strconv.Itoa(w.last.status); got[:1] != class {
		return fmt.Errorf("status %s, want a %sxx; body %s", got, class, clip(w.last.body))
	}
	return nil
}

func statusError(ctx context.Context, w *world, status string) error {
	if err := anyError(ctx, w); err != nil {
		return err
	}
	return statusIs(ctx, w, status)
}

// familyCodeForStatus checks an error the runtime makes itself (not a
// module's own code, which is passed on) from the status's side: with one of
// the family's statuses it carries the family's code for that status (a 400
// is INVALID_PARAMS, a 404 NOT_FOUND, a 500 INTERNAL). A status outside the
// family's ten names no code, and an answer that is no error passes (whether
// there is an error at all is for other steps to say).
func familyCodeForStatus(ctx context.Context, w *world) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if r.status < 400 {
		return nil
	}
	if err := checkError(r); err != nil {
		return err
	}
	code, ok := familyCode(r.status)
	if !ok {
		return nil
	}
	return codeIs(ctx, w, code)
}

func codeIs(_ context.Context, w *world, code string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if got := gjson.Get(r.body, "error.code"); got.String() != code {
		return fmt.Errorf("error.code %s, want %q; body %s", got.Raw, code, clip(r.body))
	}
	return nil
}

func isJSON(_ context.Context, w *world) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	return checkJSON(r)
}

func mediaTypeIs(_ context.Context, w *world, want string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if got := mediaType(r.header); got != strings.ToLower(want) {
		return fmt.Errorf("Content-Type %q, want the media type %s", r.header.Get("Content-Type"), want)
	}
	return nil
}

// headerLists checks that a list-valued header (Vary) names a token,
// compared without case as HTTP compares it.
func headerLists(_ context.Context, w *world, name, token string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	for _, v := range r.header.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) || strings.TrimSpace(t) == "*" {
				return nil
			}
		}
	}
	return fmt.Errorf("header %s = %q does not list %s", name, r.header.Values(name), token)
}

// allowNames checks HTTP's rule for a 405 (Method Not Allowed): the answer
// names the methods its path takes in an Allow header. An answer of another
// status passes: which status a wrong method gets is the runtime's choice.
func allowNames(ctx context.Context, w *world, method string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if r.status != http.StatusMethodNotAllowed {
		return nil
	}
	return headerLists(ctx, w, "Allow", method)
}

var htmlTag = regexp.MustCompile(`(?is)<html[\s>]`)

// isHTML checks that an answer is an HTML document: media type text/html
// and an html element.
func isHTML(_ context.Context, w *world) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if mt := mediaType(r.header); mt != "text/html" {
		return fmt.Errorf("Content-Type %q, want text/html; body %s", r.header.Get("Content-Type"), clip(r.body))
	}
	if !htmlTag.MatchString(r.body) {
		return fmt.Errorf("no html element in %s", clip(r.body))
	}
	if err := htmlNests(r.body); err != nil {
		return fmt.Errorf("not an HTML document: %w; body %s", err, clip(r.body))
	}
	if m := htmlTitle.FindStringSubmatch(r.body); m != nil && strings.TrimSpace(m[1]) == "" {
		return fmt.Errorf("not an HTML document: its title has no text (HTML wants text there); body %s", clip(r.body))
	}
	return nil
}

// htmlTitle is a document's title element and its text.
var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title`)

// Element kinds of HTML's syntax (the HTML standard, "Elements" in "The
// HTML syntax"): void elements have no end tag, and these may leave their
// end tag out; every other element must be closed, in order.
var (
	voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
		"img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}
	optionalEnd = map[string]bool{"html": true, "head": true, "body": true, "li": true, "dt": true, "dd": true,
		"p": true, "rt": true, "rp": true, "optgroup": true, "option": true, "colgroup": true, "caption": true,
		"thead": true, "tbody": true, "tfoot": true, "tr": true, "td": true, "th": true}
	htmlTagToken = regexp.MustCompile(`<(/?)([A-Za-z][A-Za-z0-9-]*)[^>]*>`)
)

// htmlNests checks what HTML's syntax asks of a document's elements: each
// end tag closes an open element (those whose end tag may be left out are
// closed with it), and every element whose end tag HTML requires is
// closed.
func htmlNests(doc string) error {
	var open []string
	for _, m := range htmlTagToken.FindAllStringSubmatch(doc, -1) {
		name := strings.ToLower(m[2])
		if m[1] == "" {
			if !voidElements[name] {
				open = append(open, name)
			}
			continue
		}
		for len(open) > 0 && open[len(open)-1] != name && optionalEnd[open[len(open)-1]] {
			open = open[:len(open)-1]
		}
		if len(open) == 0 || open[len(open)-1] != name {
			return fmt.Errorf("</%s> closes no open element (open: %v)", name, open)
		}
		open = open[:len(open)-1]
	}
	for _, name := range open {
		if !optionalEnd[name] {
			return fmt.Errorf("<%s> is never closed", name)
		}
	}
	return nil
}

var (
	anyTag = regexp.MustCompile(`(?s)<[^>]*>`)
	blanks = regexp.MustCompile(`\s+`)
)

// htmlText is an HTML document's text: tags taken out, character
// references decoded, runs of white space made one blank.
func htmlText(doc string) string {
	return blanks.ReplaceAllString(html.UnescapeString(anyTag.ReplaceAllString(doc, " ")), " ")
}

// htmlShows checks that the text of an HTML answer shows a text, however
// it is marked up and escaped.
func htmlShows(_ context.Context, w *world, want string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	want = blanks.ReplaceAllString(unquote(want), " ")
	if !strings.Contains(htmlText(r.body), want) {
		return fmt.Errorf("the HTML does not show %q; its text is %q", want, clip(htmlText(r.body)))
	}
	return nil
}

// isActionResult checks an /actions answer against the family's
// action-result schema: an object whose members are among ok, dry_run,
// state, result, audit_preview, events and error, typed as the schema
// says, the error (on a 4xx or 5xx) as checkError wants it; an ok, where
// given, true on success and false on a 4xx or 5xx, and no error on
// success.
func isActionResult(_ context.Context, w *world) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	if err := checkJSON(r); err != nil {
		return err
	}
	root := gjson.Parse(r.body)
	if !root.IsObject() {
		return fmt.Errorf("the Action Result is not an object: %s", clip(r.body))
	}
	var problems []string
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "ok", "dry_run":
			if !v.IsBool() {
				problems = append(problems, k.String()+" is not a boolean")
			}
		case "audit_preview":
			if v.Type != gjson.String {
				problems = append(problems, "audit_preview is not a string")
			}
		case "events":
			if !v.IsArray() {
				problems = append(problems, "events is not an array")
			}
		case "state", "result", "error":
		default:
			problems = append(problems, fmt.Sprintf("member %q, which the family's action-result schema does not allow", k.String()))
		}
		return true
	})
	failed := r.status >= 400
	if ok := root.Get("ok"); ok.IsBool() && ok.Bool() == failed {
		problems = append(problems, fmt.Sprintf("ok is %s with the status %d", ok.Raw, r.status))
	}
	if !failed && root.Get("error").Exists() {
		problems = append(problems, fmt.Sprintf("an error with the status %d (seed §6: an error goes with a 4xx or 5xx)", r.status))
	}
	if len(problems) > 0 {
		return fmt.Errorf("not a JACE Action Result (%s): %s", strings.Join(problems, "; "), clip(r.body))
	}
	if failed {
		return checkError(r)
	}
	return nil
}

func sameStatus(_ context.Context, w *world, name string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	old, err := w.remembered(name)
	if err != nil {
		return err
	}
	if r.status != old.status {
		return fmt.Errorf("status %d, remembered %d", r.status, old.status)
	}
	return nil
}

func unitNumbers(_ context.Context, w *world, path string) error {
	r, err := w.response()
	if err != nil {
		return err
	}
	got := lookup(r.body, path)
	if !got.IsArray() || len(got.Array()) == 0 {
		return fmt.Errorf("%s is not a list of numbers in %s", path, clip(r.body))
	}
	for _, x := range got.Array() {
		if x.Type != gjson.Number || x.Float() < 0 || x.Float() >= 1 {
			return fmt.Errorf("%s holds %s, not a number in [0, 1)", path, x.Raw)
		}
	}
	return nil
}

// matchValue compares the value at path in body with what a step wants:
// a JSON literal, "absent", "X or absent", "a string" or "an RFC 3339
// date-time".
func matchValue(body, path, want string) error {
	want = strings.TrimSpace(want)
	got := lookup(body, path)
	switch {
	case want == "absent":
		if got.Exists() {
			return fmt.Errorf("%s is present: %s", path, clip(got.Raw))
		}
		return nil
	case strings.HasSuffix(want, " or absent"):
		if !got.Exists() {
			return nil
		}
		return matchJSON(body, path, strings.TrimSuffix(want, " or absent"))
	case want == "a string":
		if got.Type != gjson.String {
			return fmt.Errorf("%s is not a string in %s", path, clip(body))
		}
		return nil
	case want == "an RFC 3339 date-time":
		if _, err := time.Parse(time.RFC3339Nano, got.String()); got.Type != gjson.String || err != nil {
			return fmt.Errorf("%s = %s is not an RFC 3339 date-time", path, got.Raw)
		}
		return nil
	}
	return matchJSON(body, path, want)
}

func lastEventHasKeys(_ context.Context, w *world, list string) error {
	if w.event == "" {
		return errors.New("no event received yet")
	}
	ev := gjson.Parse(w.event)
	var missing []string
	for _, k := range keyList(list) {
		if !ev.Get(gjson.Escape(k)).Exists() {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the event lacks %s: %s", strings.Join(missing, ", "), w.event)
	}
	return nil
}

func receivesAny(_ context.Context, w *world, path string) error {
	s, ok := w.streams[path]
	if !ok {
		return fmt.Errorf("no client listens on %s", path)
	}
	got, err := s.next(5 * time.Second)
	if err != nil {
		return err
	}
	if got.Type != "message" {
		return fmt.Errorf("event on %s has type %q; the seed's client reads unnamed messages (EventSource onmessage)", path, got.Type)
	}
	w.event = got.Data
	if !json.Valid([]byte(got.Data)) {
		return fmt.Errorf("event on %s is not JSON: %s", path, got.Data)
	}
	return nil
}

// postPadded sends a JSON body made n bytes long with blanks after it: the
// same request, as long as a test of the body limit needs.
func postPadded(ctx context.Context, w *world, path, body, n string) error {
	size, err := strconv.Atoi(n)
	if err != nil {
		return fmt.Errorf("size %q: %w", n, err)
	}
	if len(body) > size {
		return fmt.Errorf("the body is longer than %d bytes already", size)
	}
	return postRaw(ctx, w, path, body+strings.Repeat(" ", size-len(body)), "")
}

// lastEventOneLine checks that the last event's data came on one data line
// (several are joined with line feeds).
func lastEventOneLine(_ context.Context, w *world) error {
	if w.event == "" {
		return errors.New("no event received yet")
	}
	if strings.Contains(w.event, "\n") {
		return fmt.Errorf("the event came on %d data lines: %q", strings.Count(w.event, "\n")+1, w.event)
	}
	return nil
}
